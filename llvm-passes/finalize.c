// SPDX-License-Identifier: GPL-2.0
/*
 * finalize.c - passport-finalize: stackleak's post-codegen step.
 *
 * The stackleak pass puts a tracking call in every candidate function; only
 * here, after code generation, is the final frame known.  For each call to
 * stackleak_track_stack in an x86-64 relocatable object this tool looks up
 * the enclosing function's frame in .stack_sizes (clang -fstack-size-section)
 * and, when
 *
 *     frame = .stack_sizes - callee-saved register pushes  <  track-min-size
 *
 * and the function has no dynamic alloca (the backend writes no .stack_sizes
 * entry for those), rewrites the 5-byte call into a 5-byte NOP and turns its
 * relocation into R_X86_64_NONE, as recordmcount does with mcount calls.
 * The frame figure is what GCC's get_frame_size() measures: locals, spill
 * slots and alignment padding, without callee-saved pushes or the return
 * address.  Running it twice changes nothing the second time.
 *
 * Usage: passport-finalize --track-min-size=N [--verbose] OBJECT...
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
static bool verbose;

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
	long stack_size;	/* -1: no .stack_sizes entry (dynamic alloca) */
	unsigned kept, dropped;
};

struct object {
	Elf *elf;
	Elf_Scn *symtab;
	Elf_Data *symdata;
	size_t strndx, shstrndx;
	struct function *fns;
	size_t nfns;
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
static size_t load_stack_sizes(struct object *o)
{
	size_t sections = 0;

	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o->elf, scn));) {
		Elf_Data *data, *rdata;
		Elf_Scn *rela;
		const unsigned char *p, *end;
		size_t r = 0;

		if (strcmp(section_name(o, scn), ".stack_sizes"))
			continue;
		sections++;
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
	return sections;
}

/* Callee-saved pushes at the start of F (push %rbp/%rbx/%r12..%r15, after an
 * optional endbr64 and mov %rsp,%rbp): part of .stack_sizes, not of GCC's
 * get_frame_size(). */
static unsigned prologue_pushes(const unsigned char *text, size_t size,
				const struct function *f)
{
	size_t i = f->start;
	unsigned pushes = 0;

	if (i + 4 <= size && !memcmp(text + i, "\xf3\x0f\x1e\xfa", 4))
		i += 4;
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

struct totals {
	unsigned kept_frame, kept_alloca, dropped;
};

static void finalize_section(struct object *o, Elf_Scn *text_scn, Elf_Scn *rela,
			     long min_size, struct totals *t)
{
	Elf_Data *text = elf_getdata(text_scn, NULL);
	Elf_Data *rdata = elf_getdata(rela, NULL);
	GElf_Shdr rsh;
	size_t shndx = elf_ndxscn(text_scn);
	unsigned char *code = text->d_buf;

	gelf_getshdr(rela, &rsh);
	for (size_t r = 0; r < rsh.sh_size / rsh.sh_entsize; r++) {
		GElf_Rela rel;
		GElf_Sym sym;
		struct function *f;
		long frame;
		size_t at;

		gelf_getrela(rdata, (int)r, &rel);
		if (GELF_R_TYPE(rel.r_info) == R_X86_64_NONE)
			continue;
		symbol(o, GELF_R_SYM(rel.r_info), &sym);
		if (strcmp(symbol_name(o, &sym), TRACKER))
			continue;
		at = rel.r_offset - 1;
		if (rel.r_offset < 1 || rel.r_offset + 4 > text->d_size || code[at] != 0xe8 ||
		    (GELF_R_TYPE(rel.r_info) != R_X86_64_PLT32 &&
		     GELF_R_TYPE(rel.r_info) != R_X86_64_PC32))
			fail("%s+0x%zx: reference to " TRACKER " is not a call",
			     section_name(o, text_scn), at);
		f = function_at(o, shndx, at);
		if (!f)
			fail("%s+0x%zx: call to " TRACKER " outside any function",
			     section_name(o, text_scn), at);
		if (f->stack_size < 0) {
			if (!f->kept++)
				t->kept_alloca++;
			if (verbose && f->kept == 1)
				printf("stackleak: instrument %s(): calls_alloca\n", f->name);
			continue;
		}
		frame = f->stack_size - 8L * prologue_pushes(code, text->d_size, f);
		if (frame >= min_size) {
			if (!f->kept++)
				t->kept_frame++;
			if (verbose && f->kept == 1)
				printf("stackleak: instrument %s(): frame %ld >= %ld\n",
				       f->name, frame, min_size);
			continue;
		}
		memcpy(code + at, "\x0f\x1f\x44\x00\x00", 5);
		rel.r_info = GELF_R_INFO(0, R_X86_64_NONE);
		rel.r_addend = 0;
		gelf_update_rela(rdata, (int)r, &rel);
		elf_flagdata(text, ELF_C_SET, ELF_F_DIRTY);
		elf_flagdata(rdata, ELF_C_SET, ELF_F_DIRTY);
		if (!f->dropped++)
			t->dropped++;
		if (verbose && f->dropped == 1)
			printf("stackleak: drop %s(): frame %ld < %ld\n", f->name, frame, min_size);
	}
}

static void finalize(const char *path, long min_size)
{
	struct object o = { 0 };
	struct totals t = { 0 };
	GElf_Ehdr eh;
	bool has_calls = false;
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

	/* Is there any tracking call at all? */
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o.elf, scn));) {
		GElf_Shdr sh;
		GElf_Sym sym;
		GElf_Rela rel;
		Elf_Data *d;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_RELA)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t r = 0; !has_calls && r < sh.sh_size / sh.sh_entsize; r++) {
			gelf_getrela(d, (int)r, &rel);
			symbol(&o, GELF_R_SYM(rel.r_info), &sym);
			has_calls = GELF_R_TYPE(rel.r_info) != R_X86_64_NONE &&
				    !strcmp(symbol_name(&o, &sym), TRACKER);
		}
	}
	if (!has_calls)
		goto out;
	if (!load_stack_sizes(&o))
		fail("has " TRACKER " calls but no .stack_sizes: compile with -fstack-size-section");

	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o.elf, scn));) {
		GElf_Shdr sh;
		Elf_Scn *rela;

		gelf_getshdr(scn, &sh);
		if (!(sh.sh_flags & SHF_EXECINSTR) || !(rela = relocations_for(&o, elf_ndxscn(scn))))
			continue;
		finalize_section(&o, scn, rela, min_size, &t);
	}
	elf_flagelf(o.elf, ELF_C_SET, ELF_F_LAYOUT);
	if (t.dropped && elf_update(o.elf, ELF_C_WRITE) < 0)
		fail("cannot write: %s", elf_errmsg(-1));
out:
	if (verbose)
		printf("passport-finalize: %s: %u functions tracked (%u frame >= %ld, %u calls_alloca), %u dropped\n",
		       path, t.kept_frame + t.kept_alloca, t.kept_frame, min_size,
		       t.kept_alloca, t.dropped);
	elf_end(o.elf);
	close(fd);
	free(o.fns);
}

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: passport-finalize --track-min-size=N [--verbose] OBJECT...\n");
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
