/*
 * erase-native.c: the stack-erase loop against memset, natively on the host.
 *
 * usage: erase-native [--reps N] [--sizes KIB,KIB,...]
 *
 *   --reps N      samples per variant and size (default 400)
 *   --sizes LIST  erase depths in KiB (default 1,2,4,8,16)
 *
 * For each depth it times, on a 16 KiB buffer standing in for a thread
 * stack (bench/erase-loops.c has the model):
 *
 *   memset        glibc memset of the same bytes (the yardstick)
 *   memset-stosb  `rep stosb`, the kernel's memset shape
 *   erase-words   the kernel's erase shape: find the used region, then one
 *                 8-byte poison store per iteration (compiled without SSE)
 *   erase-stosq   the same erase with `rep stosq`
 *   erase-unrolled  the word loop with four stores per iteration
 *
 * A sample is a batch of calls sized to take ~20 us, timed with
 * CLOCK_MONOTONIC; the variants take turns sample by sample so that a busy
 * host (kernel builds next to us) disturbs all of them alike. Reported per
 * call: min and median over the samples. The buffer is L1-resident in every
 * variant, so this is the best case for all of them.
 *
 * Output, one line per variant and size (parsed by bench/report.py):
 *   native: variant=V bytes=B samples=N batch=K min_ns=X median_ns=X
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "erase-loops.h"

#define STACK_BYTES 16384
#define MAX_SIZES 16
#define NVAR 5

static uint64_t stack[STACK_BYTES / 8] __attribute__((aligned(64)));
static const char *const variant[NVAR] = { "memset", "memset-stosb", "erase-words", "erase-stosq", "erase-unrolled" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void run_variant(int v, size_t bytes, int batch)
{
	uint64_t *high = stack + STACK_BYTES / 8, *lowest = high - bytes / 8;
	int k;

	for (k = 0; k < batch; k++)
		erase_variant(v, stack, lowest, high);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Batch size so that one sample of the slowest variant takes ~20 us. */
static int batch_for(size_t bytes)
{
	uint64_t t0 = now_ns(), dt;

	run_variant(2, bytes, 1000);
	dt = now_ns() - t0;
	dt = dt / 1000 ? dt / 1000 : 1;
	return 20000 / dt > 0 ? (int)(20000 / dt) : 1;
}

static void measure(size_t bytes, int reps)
{
	double *t[NVAR];
	int batch, s, v;

	for (v = 0; v < NVAR; v++)
		t[v] = calloc(reps, sizeof(double));
	/* Only [lowest, high) is ever written, with poison or memset's byte:
	 * below it the poison stays, so every erase stops its search at once. */
	for (s = 0; s < STACK_BYTES / 8; s++)
		stack[s] = ERASE_POISON;
	batch = batch_for(bytes);
	for (s = 0; s < reps; s++) {
		for (v = 0; v < NVAR; v++) {
			/* rotate the order too: no variant always runs first */
			int w = (v + s) % NVAR;
			uint64_t t0 = now_ns();

			run_variant(w, bytes, batch);
			t[w][s] = (double)(now_ns() - t0) / batch;
		}
	}
	for (v = 0; v < NVAR; v++) {
		qsort(t[v], reps, sizeof(double), cmp_double);
		printf("native: variant=%s bytes=%zu samples=%d batch=%d min_ns=%.2f median_ns=%.2f\n",
		       variant[v], bytes, reps, batch, t[v][0], t[v][reps / 2]);
		free(t[v]);
	}
}

int main(int argc, char **argv)
{
	size_t sizes[MAX_SIZES] = { 1, 2, 4, 8, 16 };
	int nsizes = 5, reps = 400, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			char *tok, *save = NULL;

			nsizes = 0;
			for (tok = strtok_r(argv[++i], ",", &save); tok && nsizes < MAX_SIZES;
			     tok = strtok_r(NULL, ",", &save))
				sizes[nsizes++] = strtoul(tok, NULL, 10);
		} else {
			fprintf(stderr, "usage: erase-native [--reps N] [--sizes KIB,...]\n");
			return 2;
		}
	}
	if (reps < 5) {
		fprintf(stderr, "erase-native: --reps must be at least 5\n");
		return 2;
	}
	for (i = 0; i < nsizes; i++) {
		if (sizes[i] < 1 || sizes[i] * 1024 > STACK_BYTES) {
			fprintf(stderr, "erase-native: sizes are 1..%d KiB\n", STACK_BYTES / 1024);
			return 2;
		}
		measure(sizes[i] * 1024, reps);
	}
	return 0;
}
