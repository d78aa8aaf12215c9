// SPDX-License-Identifier: GPL-2.0
/*
 * finalize.c - passport-finalize: stackleak's post-codegen step.
 *
 * The stackleak pass puts a tracking call in every candidate function; only
 * here, after code generation, is the final frame known.  The pass records
 * the address of each such entry call in .discard.passport_stackleak_entry;
 * calls after dynamic allocas are not recorded and always stay.  For each
 * recorded call in an x86-64 relocatable object this tool looks up the
 * enclosing function's frame in .stack_sizes (clang -fstack-size-section)
 * and, when the function has no dynamic alloca and
 *
 *     frame = .stack_sizes - callee-saved register pushes  <  track-min-size
 *
 * rewrites the 5-byte call into a 5-byte NOP and turns its relocation into
 * R_X86_64_NONE, as recordmcount does with mcount calls.
 * The frame figure is what GCC's get_frame_size() measures: locals, spill
 * slots and alignment padding, without callee-saved pushes or the return
 * address.  Running it twice changes nothing the second time.
 *
 * The pass leaves the call out of functions whose frame it bounds below
 * track-min-size from the IR (frame-bound.c), and records each with its
 * bound in .discard.passport_stackleak_small.  That bound is a model of the
 * register allocator, so this tool checks every such function against
 * .stack_sizes and fails, naming it, if its frame reached track-min-size:
 * the frame would be untracked.  (-mllvm -passport-stackleak-prove-small=off
 * is the workaround, and a model that is wrong is a bug to report.)
 *
 * Usage: passport-finalize --track-min-size=N [--summary|--verbose] OBJECT...
 *   --summary  one line per object: functions tracked, why, and dropped
 *   --verbose  also one line per function, in the GCC plugin's words
 * Exit 0 on success; 1 with one line naming the object when it cannot
 * process it (not ELF64 x86-64 relocatable, no .stack_sizes, not a call).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACKER "stackleak_track_stack"

static const char *object;	/* the file being processed, for messages */
static bool verbose, summary;

static _Noreturn void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "passport-finalize: error: %s: ", object);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

struct function {
	const char *name;
	size_t shndx;
	GElf_Addr start, end;
	long stack_size;	/* -1: no .stack_sizes entry */
	bool fentry;		/* starts with call __fentry__ (-pg -mfentry) */
	unsigned alloca_calls;	/* tracking calls after dynamic allocas */
};

/* A call to the tracker: where it is and which relocation targets it. */
struct site {
	Elf_Scn *text;
	Elf_Data *rdata;
	size_t rel;
	GElf_Addr at;
	struct function *fn;
	bool entry;
};

struct object {
	Elf *elf;
	Elf_Scn *symtab;
	Elf_Data *symdata;
	size_t strndx, shstrndx;
	struct function *fns;
	size_t nfns;
	struct site *sites;
	size_t nsites;
	/* entry calls recorded by the pass: section index and offset */
	struct { size_t shndx; GElf_Addr off; } *entries;
	size_t nentries;
	/* functions the pass left without a call: where, and its bound */
	struct { size_t shndx; GElf_Addr off; uint32_t bound; } *smalls;
	size_t nsmalls;
};

static const char *section_name(struct object *o, Elf_Scn *scn)
{
	GElf_Shdr sh;

	gelf_getshdr(scn, &sh);
	return elf_strptr(o->elf, o->shstrndx, sh.sh_name);
}

static void symbol(struct object *o, size_t idx, GElf_Sym *sym)
{
	if (!gelf_getsym(o->symdata, (int)idx, sym))
		fail("bad symbol index %zu", idx);
}

static const char *symbol_name(struct object *o, const GElf_Sym *sym)
{
	return elf_strptr(o->elf, o->strndx, sym->st_name);
}

static void load_functions(struct object *o)
{
	GElf_Shdr sh;
	size_t n;

	gelf_getshdr(o->symtab, &sh);
	n = sh.sh_size / sh.sh_entsize;
	o->fns = calloc(n, sizeof(*o->fns));
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;

		symbol(o, i, &sym);
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
			continue;
		o->fns[o->nfns++] = (struct function){
			.name = symbol_name(o, &sym), .shndx = sym.st_shndx,
			.start = sym.st_value, .end = sym.st_value + sym.st_size,
			.stack_size = -1,
		};
	}
}

/* The function containing OFF in section SHNDX (or starting there). */
static struct function *function_at(struct object *o, size_t shndx, GElf_Addr off)
{
	for (size_t i = 0; i < o->nfns; i++)
		if (o->fns[i].shndx == shndx &&
		    (off == o->fns[i].start || (off > o->fns[i].start && off < o->fns[i].end)))
			return &o->fns[i];
	return NULL;
}

static Elf_Scn *relocations_for(struct object *o, size_t target)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o->elf, scn));) {
		GElf_Shdr sh;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type == SHT_RELA && sh.sh_info == target)
			return scn;
	}
	return NULL;
}

static uint64_t uleb128(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p < end) {
		unsigned char c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	fail(".stack_sizes: truncated entry");
}

/* Each .stack_sizes entry: an 8-byte function address (a relocation in an
 * object) then the frame size as ULEB128. */
static void load_stack_sizes(struct object *o)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o->elf, scn));) {
		Elf_Data *data, *rdata;
		Elf_Scn *rela;
		const unsigned char *p, *end;
		size_t r = 0;

		if (strcmp(section_name(o, scn), ".stack_sizes"))
			continue;
		rela = relocations_for(o, elf_ndxscn(scn));
		data = elf_getdata(scn, NULL);
		if (!rela || !data)
			fail(".stack_sizes without relocations");
		rdata = elf_getdata(rela, NULL);
		p = data->d_buf;
		end = p + data->d_size;
		while (p < end) {
			GElf_Rela rel;
			GElf_Sym sym;
			struct function *f;
			uint64_t size;

			if (!gelf_getrela(rdata, (int)r++, &rel))
				fail(".stack_sizes: fewer relocations than entries");
			p += 8;
			size = uleb128(&p, end);
			symbol(o, GELF_R_SYM(rel.r_info), &sym);
			f = function_at(o, sym.st_shndx, sym.st_value + rel.r_addend);
			if (f)
				f->stack_size = (long)size;
		}
	}
}

/*
 * Mark the functions that start (after an optional endbr64) with the
 * ftrace hook's `call __fentry__`: -pg -mfentry puts it before the
 * prologue, so the pushes come after it.  Kernels with FUNCTION_TRACER
 * (every distro's) have it in every traced function.
 */
static void mark_fentry_calls(struct object *o)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o->elf, scn));) {
		Elf_Data *rdata;
		GElf_Shdr sh;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_RELA)
			continue;
		rdata = elf_getdata(scn, NULL);
		for (size_t r = 0; r < sh.sh_size / sh.sh_entsize; r++) {
			GElf_Rela rel;
			GElf_Sym sym;
			struct function *f;
			GElf_Addr at;

			gelf_getrela(rdata, (int)r, &rel);
			if (GELF_R_TYPE(rel.r_info) == R_X86_64_NONE || rel.r_offset < 1)
				continue;
			symbol(o, GELF_R_SYM(rel.r_info), &sym);
			if (strcmp(symbol_name(o, &sym), "__fentry__"))
				continue;
			at = rel.r_offset - 1;
			f = function_at(o, sh.sh_info, at);
			if (f && (at == f->start || at == f->start + 4))
				f->fentry = true;
		}
	}
}

/* Callee-saved pushes at the start of F (push %rbp/%rbx/%r12..%r15, after an
 * optional endbr64, the ftrace hook's call and mov %rsp,%rbp): part of
 * .stack_sizes, not of GCC's get_frame_size(). */
static unsigned prologue_pushes(const unsigned char *text, size_t size,
				const struct function *f)
{
	size_t i = f->start;
	unsigned pushes = 0;

	if (i + 4 <= size && !memcmp(text + i, "\xf3\x0f\x1e\xfa", 4))
		i += 4;
	if (f->fentry && i + 5 <= size && text[i] == 0xe8)
		i += 5;
	while (i < f->end && i < size) {
		if (text[i] >= 0x50 && text[i] <= 0x57) {
			pushes++, i++;
		} else if (i + 1 < size && text[i] == 0x41 && text[i + 1] >= 0x50 &&
			   text[i + 1] <= 0x57) {
			pushes++, i += 2;
		} else if (i + 2 < size && !memcmp(text + i, "\x48\x89\xe5", 3)) {
			i += 3;
		} else {
			break;
		}
	}
	return pushes;
}

#define ENTRY_SECTION ".discard.passport_stackleak_entry"
#define SMALL_SECTION ".discard.passport_stackleak_small"

/* Call RECORD for every relocation of section NAME, a record the pass
 * wrote: with the section's contents and the place (section index,
 * offset) the relocation points at. */
static void for_each_record(struct object *o, const char *name,
			    void (*record)(struct object *o, Elf_Data *data,
					   const GElf_Rela *rel, size_t shndx, GElf_Addr at))
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o->elf, scn));) {
		Elf_Data *data, *rdata;
		Elf_Scn *rela;
		GElf_Shdr rsh;

		if (strcmp(section_name(o, scn), name))
			continue;
		if (!(rela = relocations_for(o, elf_ndxscn(scn))))
			fail("%s without relocations", name);
		data = elf_getdata(scn, NULL);
		rdata = elf_getdata(rela, NULL);
		gelf_getshdr(rela, &rsh);
		for (size_t r = 0; r < rsh.sh_size / rsh.sh_entsize; r++) {
			GElf_Rela rel;
			GElf_Sym sym;

			gelf_getrela(rdata, (int)r, &rel);
			symbol(o, GELF_R_SYM(rel.r_info), &sym);
			record(o, data, &rel, sym.st_shndx, sym.st_value + rel.r_addend);
		}
	}
}

/* An entry call the pass recorded: one R_X86_64_64 relocation each. */
static void add_entry(struct object *o, Elf_Data *data, const GElf_Rela *rel,
		      size_t shndx, GElf_Addr at)
{
	(void)data, (void)rel;
	o->entries = realloc(o->entries, (o->nentries + 1) * sizeof(*o->entries));
	o->entries[o->nentries].shndx = shndx;
	o->entries[o->nentries++].off = at;
}

/* A function the pass left out: an R_X86_64_64 address (at offset 12k)
 * and a 4-byte bound (at 12k + 8). */
static void add_small(struct object *o, Elf_Data *data, const GElf_Rela *rel,
		      size_t shndx, GElf_Addr at)
{
	uint32_t bound;

	if (rel->r_offset % 12 || rel->r_offset + 12 > data->d_size)
		fail(SMALL_SECTION ": a record is not 12 bytes");
	memcpy(&bound, (const char *)data->d_buf + rel->r_offset + 8, 4);
	o->smalls = realloc(o->smalls, (o->nsmalls + 1) * sizeof(*o->smalls));
	o->smalls[o->nsmalls].shndx = shndx;
	o->smalls[o->nsmalls].off = at;
	o->smalls[o->nsmalls++].bound = bound;
}

static bool is_entry(struct object *o, size_t shndx, GElf_Addr at)
{
	for (size_t i = 0; i < o->nentries; i++)
		if (o->entries[i].shndx == shndx && o->entries[i].off == at)
			return true;
	return false;
}

/* Every call to the tracker in executable section TEXT. */
static void find_sites(struct object *o, Elf_Scn *text_scn, Elf_Scn *rela)
{
	Elf_Data *text = elf_getdata(text_scn, NULL);
	Elf_Data *rdata = elf_getdata(rela, NULL);
	const unsigned char *code = text->d_buf;
	size_t shndx = elf_ndxscn(text_scn);
	GElf_Shdr rsh;

	gelf_getshdr(rela, &rsh);
	for (size_t r = 0; r < rsh.sh_size / rsh.sh_entsize; r++) {
		GElf_Rela rel;
		GElf_Sym sym;
		struct site *s;
		GElf_Addr at = 0;

		gelf_getrela(rdata, (int)r, &rel);
		if (GELF_R_TYPE(rel.r_info) == R_X86_64_NONE)
			continue;
		symbol(o, GELF_R_SYM(rel.r_info), &sym);
		if (strcmp(symbol_name(o, &sym), TRACKER))
			continue;
		if (rel.r_offset >= 1)
			at = rel.r_offset - 1;
		if (rel.r_offset < 1 || rel.r_offset + 4 > text->d_size || code[at] != 0xe8 ||
		    (GELF_R_TYPE(rel.r_info) != R_X86_64_PLT32 &&
		     GELF_R_TYPE(rel.r_info) != R_X86_64_PC32))
			fail("%s+0x%lx: reference to " TRACKER " is not a call",
			     section_name(o, text_scn), (unsigned long)at);
		o->sites = realloc(o->sites, (o->nsites + 1) * sizeof(*o->sites));
		s = &o->sites[o->nsites++];
		*s = (struct site){ .text = text_scn, .rdata = rdata, .rel = r, .at = at,
				    .fn = function_at(o, shndx, at),
				    .entry = is_entry(o, shndx, at) };
		if (!s->fn)
			fail("%s+0x%lx: call to " TRACKER " outside any function",
			     section_name(o, text_scn), (unsigned long)at);
		if (!s->entry)
			s->fn->alloca_calls++;
	}
}

/* Turn the call at S into a 5-byte NOP and its relocation into NONE. */
static void drop(struct site *s)
{
	Elf_Data *text = elf_getdata(s->text, NULL);
	GElf_Rela rel;

	memcpy((unsigned char *)text->d_buf + s->at, "\x0f\x1f\x44\x00\x00", 5);
	gelf_getrela(s->rdata, (int)s->rel, &rel);
	rel.r_info = GELF_R_INFO(0, R_X86_64_NONE);
	rel.r_addend = 0;
	gelf_update_rela(s->rdata, (int)s->rel, &rel);
	elf_flagdata(text, ELF_C_SET, ELF_F_DIRTY);
	elf_flagdata(s->rdata, ELF_C_SET, ELF_F_DIRTY);
}

struct totals {
	unsigned kept_frame, kept_alloca, dropped, left_out;
};

/* F's frame as GCC counts it (.stack_sizes without the pushes). */
static long frame_of(struct object *o, struct function *f)
{
	Elf_Data *text = elf_getdata(elf_getscn(o->elf, f->shndx), NULL);

	if (f->stack_size < 0)
		fail("no .stack_sizes entry for %s(): compile with -fstack-size-section", f->name);
	return f->stack_size - 8L * prologue_pushes(text->d_buf, text->d_size, f);
}

/* Every function the pass left out must have stayed below MIN_SIZE. */
static void check_smalls(struct object *o, long min_size, struct totals *t)
{
	for (size_t i = 0; i < o->nsmalls; i++) {
		struct function *f = function_at(o, o->smalls[i].shndx, o->smalls[i].off);
		long frame;

		if (!f)
			fail(SMALL_SECTION ": a record outside any function");
		frame = frame_of(o, f);
		if (frame >= min_size)
			fail("%s(): frame %ld >= track-min-size %ld, but stackleak bounded it by %u in the IR and left it untracked; rebuild with -mllvm -passport-stackleak-prove-small=off and report this",
			     f->name, frame, min_size, o->smalls[i].bound);
		t->left_out++;
		if (verbose)
			printf("stackleak: no call in %s(): frame %ld < %ld (IR bound %u)\n",
			       f->name, frame, min_size, o->smalls[i].bound);
	}
}

/* Keep or drop each recorded entry call; report every function once. */
static void decide(struct object *o, long min_size, struct totals *t)
{
	for (size_t i = 0; i < o->nsites; i++) {
		struct site *s = &o->sites[i];
		struct function *f = s->fn;
		long frame;

		if (!s->entry)
			continue;
		if (f->alloca_calls) {
			t->kept_alloca++;
			if (verbose)
				printf("stackleak: instrument %s(): calls_alloca\n", f->name);
			continue;
		}
		frame = frame_of(o, f);
		if (frame >= min_size) {
			t->kept_frame++;
			if (verbose)
				printf("stackleak: instrument %s(): frame %ld >= %ld\n",
				       f->name, frame, min_size);
			continue;
		}
		drop(s);
		t->dropped++;
		if (verbose)
			printf("stackleak: drop %s(): frame %ld < %ld\n", f->name, frame, min_size);
	}
	/* Functions whose only calls follow dynamic allocas (an alloca in the
	 * entry block already covers the entry, as in GCC). */
	for (size_t i = 0; i < o->nfns; i++) {
		struct function *f = &o->fns[i];
		bool has_entry = false;

		for (size_t j = 0; j < o->nsites; j++)
			has_entry |= o->sites[j].fn == f && o->sites[j].entry;
		if (f->alloca_calls && !has_entry) {
			t->kept_alloca++;
			if (verbose)
				printf("stackleak: instrument %s(): calls_alloca\n", f->name);
		}
	}
}

static void finalize(const char *path, long min_size)
{
	struct object o = { 0 };
	struct totals t = { 0 };
	GElf_Ehdr eh;
	int fd;

	object = path;
	fd = open(path, O_RDWR);
	if (fd < 0)
		fail("%s", strerror(errno));
	o.elf = elf_begin(fd, ELF_C_RDWR, NULL);
	if (!o.elf || elf_kind(o.elf) != ELF_K_ELF)
		fail("not an ELF object (LTO bitcode cannot be finalized)");
	if (!gelf_getehdr(o.elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || eh.e_type != ET_REL)
		fail("only x86-64 relocatable objects are supported");
	elf_getshdrstrndx(o.elf, &o.shstrndx);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o.elf, scn));) {
		GElf_Shdr sh;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type == SHT_SYMTAB) {
			o.symtab = scn;
			o.symdata = elf_getdata(scn, NULL);
			o.strndx = sh.sh_link;
		}
	}
	if (!o.symtab)
		goto out;	/* nothing defined, nothing called */
	load_functions(&o);

	for_each_record(&o, ENTRY_SECTION, add_entry);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o.elf, scn));) {
		GElf_Shdr sh;
		Elf_Scn *rela;

		gelf_getshdr(scn, &sh);
		if ((sh.sh_flags & SHF_EXECINSTR) && (rela = relocations_for(&o, elf_ndxscn(scn))))
			find_sites(&o, scn, rela);
	}
	for_each_record(&o, SMALL_SECTION, add_small);
	if (!o.nsites && !o.nsmalls)
		goto out;
	load_stack_sizes(&o);
	mark_fentry_calls(&o);
	check_smalls(&o, min_size, &t);
	decide(&o, min_size, &t);
	elf_flagelf(o.elf, ELF_C_SET, ELF_F_LAYOUT);
	if (t.dropped && elf_update(o.elf, ELF_C_WRITE) < 0)
		fail("cannot write: %s", elf_errmsg(-1));
out:
	if (verbose || summary)
		printf("passport-finalize: %s: %u functions tracked (%u frame >= %ld, %u calls_alloca), %u dropped, %u without a call (IR bound)\n",
		       path, t.kept_frame + t.kept_alloca, t.kept_frame, min_size,
		       t.kept_alloca, t.dropped, t.left_out);
	elf_end(o.elf);
	close(fd);
	free(o.fns);
	free(o.sites);
	free(o.entries);
	free(o.smalls);
}

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: passport-finalize --track-min-size=N [--summary|--verbose] OBJECT...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long min_size = -1;
	int i;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		char *end;

		if (!strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else if (!strcmp(argv[i], "--summary")) {
			summary = true;
		} else if (!strncmp(argv[i], "--track-min-size=", 17)) {
			errno = 0;
			min_size = strtol(argv[i] + 17, &end, 10);
			if (!argv[i][17] || *end || errno || min_size < 0 || min_size > 4096) {
				fprintf(stderr, "passport-finalize: error: --track-min-size=%s: expected an integer in 0..4096\n",
					argv[i] + 17);
				return 2;
			}
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			usage();
		}
	}
	if (min_size < 0 || i == argc)
		usage();
	elf_version(EV_CURRENT);
	for (; i < argc; i++)
		finalize(argv[i], min_size);
	return 0;
}
