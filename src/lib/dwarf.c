// SPDX-License-Identifier: GPL-2.0-only
/* dwarf — libdwfl-based symbolization of one file. See dwarf.h.
 *
 * Each dsym holds its own Dwfl session with the one file reported
 * offline, so ET_REL kernel modules get their sections laid out and
 * relocated by libdwfl. */
#include "dwarf.h"
#include "dwarf_line.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An address range of a CU (its DIE's DW_AT_ranges or low/high pc). */
struct dsym_curange {
	Dwarf_Addr lo, hi;	/* [lo, hi), DWARF addresses */
	Dwarf_Die cu;
};

/* A sized symbol, for address lookups without libdwfl's linear scan. */
struct dsym_fsym {
	uint64_t addr, size;	/* libdwfl addresses */
	const char *name;
	int rank;		/* 2 global, 1 weak, 0 local */
};

/* One address range of a top-level DIE of a CU (a function), for a
 * binary search instead of walking the CU's DIEs for every address. */
struct dsym_cuent {
	Dwarf_Addr lo, hi;	/* [lo, hi), DWARF addresses */
	Dwarf_Addr maxhi;	/* the largest hi of this and every earlier one */
	size_t order;		/* position among the CU's children */
	Dwarf_Die die;
};

/* The ranges of a CU's top-level DIEs, sorted by lo; usable is false for
 * CUs whose code may nest in namespaces or classes (not C), which keep
 * the walk. */
struct dsym_cuidx {
	Dwarf_Off off;
	bool usable;
	struct dsym_cuent *v;
	size_t n;
	/* The CU's line program read directly for its first DLINE_SCANS
	 * lookups (dwarf_line.c); NULL when it cannot be, and afterwards,
	 * libdw's table. */
	struct dline *lines;
	bool lines_tried;
	unsigned scans;
};

/* A few addresses of a CU are cheaper to find by reading its line
 * program (one pass, no table) than through libdw's table (built and
 * sorted once, then searched); past this many, the table is cheaper. */
#define DLINE_SCANS 4

struct dsym {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;		/* libdwfl address = ELF address + bias */
	char build_id[2 * 64 + 1];
	struct dsym_fsym *fsyms;	/* sorted by address, built lazily */
	size_t nfsyms;
	bool fsyms_built;
	struct dsym_cuidx **cus;	/* sorted by CU offset, built lazily */
	size_t ncus, cus_cap;
	unsigned direct_scans;	/* lookups per CU read from its line program
				 * directly before libdw's table is built */
	struct dsym_curange *curanges;	/* CUs by address, for files without
					 * .debug_aranges; built lazily */
	size_t ncuranges;
	bool curanges_built;
};

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* Open path's ELF, or the ELF image at data (size bytes) when data is
 * not NULL. */
static struct dsym *open_offline(const char *path, char *data, size_t size,
				 const char **why)
{
	struct dsym *d;
	const unsigned char *id;
	GElf_Addr vaddr;
	int n;

	if (why)
		*why = NULL;
	d = sd_calloc(1, sizeof(*d));
	d->dwfl = dwfl_begin(&offline_callbacks);
	if (!d->dwfl) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->mod = data ? dwfl_report_offline_memory(d->dwfl, path, path, data,
						   size) :
			dwfl_report_offline(d->dwfl, path, path, -1);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL) != 0) {
		if (why)
			*why = dwfl_errmsg(-1);
		dwfl_end(d->dwfl);
		free(d);
		errno = data || !access(path, R_OK) ? ENOEXEC : errno;
		return NULL;
	}
	if (!dwfl_module_getelf(d->mod, &d->bias)) {
		if (why)
			*why = dwfl_errmsg(-1);
		dwfl_end(d->dwfl);
		free(d);
		errno = ENOEXEC;
		return NULL;
	}
	d->direct_scans = DLINE_SCANS;
	n = dwfl_module_build_id(d->mod, &id, &vaddr);
	for (int i = 0; i < n && i < 64; i++)
		sprintf(d->build_id + 2 * i, "%02x", id[i]);
	return d;
}

struct dsym *dsym_open(const char *path, const char **why)
{
	return open_offline(path, NULL, 0, why);
}

struct dsym *dsym_open_memory(const char *name, void *data, size_t size,
			      const char **why)
{
	return open_offline(name, data, size, why);
}

void dsym_close(struct dsym *d)
{
	if (!d)
		return;
	free(d->fsyms);
	free(d->curanges);
	for (size_t i = 0; i < d->ncus; i++) {
		free(d->cus[i]->v);
		dline_free(d->cus[i]->lines);
		free(d->cus[i]);
	}
	free(d->cus);
	dwfl_end(d->dwfl);
	free(d);
}

void dsym_set_direct_lines(struct dsym *d, unsigned scans)
{
	d->direct_scans = scans;
}

const char *dsym_build_id(const struct dsym *d)
{
	return d->build_id;
}

bool dsym_has_dwarf(struct dsym *d)
{
	Dwarf_Addr bias;

	return dwfl_module_getdwarf(d->mod, &bias) != NULL;
}

int dsym_sections(struct dsym *d,
		  void (*fn)(const struct dsym_section *sec, void *arg),
		  void *arg)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int n = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		struct dsym_section sec;

		if (!gelf_getshdr(scn, &sh) ||
		    !(sec.name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		/* dwfl_offline_section_address wrote the layout into sh_addr
		 * of the relocated ELF. */
		sec.addr = sh.sh_addr;
		sec.size = sh.sh_size;
		sec.align = sh.sh_addralign ? sh.sh_addralign : 1;
		sec.alloc = sh.sh_flags & SHF_ALLOC;
		sec.exec = sh.sh_flags & SHF_EXECINSTR;
		fn(&sec, arg);
		n++;
	}
	return n;
}

struct section_want {
	const char *name;
	uint64_t addr;
	bool found;
};

static void section_match(const struct dsym_section *sec, void *arg)
{
	struct section_want *w = arg;

	if (!w->found && strcmp(sec->name, w->name) == 0) {
		w->addr = sec->addr;
		w->found = true;
	}
}

int dsym_section_addr(struct dsym *d, const char *section, uint64_t *addr)
{
	struct section_want w = { .name = section };

	if (dsym_sections(d, section_match, &w) < 0 || !w.found)
		return -ENOENT;
	*addr = w.addr;
	return 0;
}

int dsym_symbol_addr(struct dsym *d, const char *name, uint64_t *addr)
{
	int n = dwfl_module_getsymtab(d->mod);

	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(d->mod, i, &sym, &a,
							NULL, NULL, NULL);

		if (s && strcmp(s, name) == 0 && sym.st_shndx != SHN_UNDEF) {
			*addr = a - d->bias;
			return 0;
		}
	}
	return -ENOENT;
}

int dsym_symbols(struct dsym *d,
		 void (*fn)(const char *name, uint64_t addr, uint64_t size,
			    void *arg),
		 void *arg)
{
	int n = dwfl_module_getsymtab(d->mod), count = 0;

	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(d->mod, i, &sym, &a,
							NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!s || !*s || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_NOTYPE &&
		     type != STT_OBJECT))
			continue;
		fn(s, a - d->bias, sym.st_size, arg);
		count++;
	}
	return count;
}

/* A DIE's name, following abstract_origin and specification; the
 * linkage name when there is no plain one. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	if (!s && (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
		   dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)))
		s = dwarf_formstring(&a);
	return s;
}

/* A DIE's linkage name, following abstract_origin and specification. */
static const char *die_linkage(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		return dwarf_formstring(&a);
	return NULL;
}

/* The call site of an inlined_subroutine DIE: file and line. */
static void call_site(Dwarf_Die *cu, const struct dline *lines,
		      Dwarf_Die *inl, const char **file, int *line, int *col)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = *col = 0;
	if (dwarf_attr(inl, DW_AT_call_line, &a) && !dwarf_formudata(&a, &v))
		*line = (int)v;
	if (dwarf_attr(inl, DW_AT_call_column, &a) && !dwarf_formudata(&a, &v))
		*col = (int)v;
	if (!dwarf_attr(inl, DW_AT_call_file, &a) || dwarf_formudata(&a, &v))
		return;
	if (lines)	/* the header's file table, no line table built */
		*file = dline_file(lines, v);
	else if (dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
}

static int fsym_cmp(const void *a, const void *b)
{
	const struct dsym_fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->rank - x->rank;	/* global first */
}

static void build_fsyms(struct dsym *d)
{
	int n = dwfl_module_getsymtab(d->mod);
	size_t cap = 0;

	d->fsyms_built = true;
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &a,
							   NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		int bind = GELF_ST_BIND(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_size || type == STT_SECTION || type == STT_FILE ||
		    type == STT_TLS)
			continue;
		sd_grow(&d->fsyms, &cap, d->nfsyms + 1, sizeof(*d->fsyms));
		d->fsyms[d->nfsyms++] = (struct dsym_fsym){
			.addr = a, .size = sym.st_size, .name = name,
			.rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0,
		};
	}
	qsort(d->fsyms, d->nfsyms, sizeof(*d->fsyms), fsym_cmp);
}

/* The sized symbol covering addr (libdwfl address), closest first and
 * global before weak before local at one address, as
 * dwfl_module_addrinfo chooses; NULL when none covers it. */
static const struct dsym_fsym *fsym_at(struct dsym *d, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!d->fsyms_built)
		build_fsyms(d);
	hi = d->nfsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->fsyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: first above addr; walk back over the closest candidates */
	for (size_t i = lo, seen = 0; i > 0 && seen < 64; i--, seen++) {
		const struct dsym_fsym *f = &d->fsyms[i - 1];

		if (addr < f->addr + f->size) {
			/* the best-ranked symbol at this address */
			while (i > 1 && d->fsyms[i - 2].addr == f->addr &&
			       d->fsyms[i - 2].rank >= f->rank)
				f = &d->fsyms[--i - 1];
			return f;
		}
	}
	return NULL;
}

/* The DIEs holding pc, innermost first, as they nest in the CU (one
 * descent from the CU, into the child whose ranges hold pc at each level;
 * into namespaces and classes too, which have no ranges). Cheaper than
 * dwarf_getscopes followed by dwarf_getscopes_die, which walks the CU a
 * second time; the same chain for code (an inlined instance's own scopes,
 * not its abstract origin's). Returns the count, *out malloc'd. */
static int physical_scopes(Dwarf_Die *cu, Dwarf_Addr pc,
			   const Dwarf_Die *top, Dwarf_Die **out)
{
	Dwarf_Die die = *cu, child;
	Dwarf_Die *v = NULL;
	size_t n = 0, cap = 0;

	if (top) {	/* the CU's child holding pc, known from its index */
		sd_grow(&v, &cap, n + 1, sizeof(*v));
		v[n++] = *top;
		die = *top;
	}
	for (int depth = top ? 1 : 0; depth < 64; depth++) {
		bool found = false;

		if (dwarf_child(&die, &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);

			if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			    tag == DW_TAG_structure_type ||
			    ((tag == DW_TAG_lexical_block ||
			      tag == DW_TAG_try_block ||
			      tag == DW_TAG_catch_block) &&
			     !dwarf_hasattr(&child, DW_AT_low_pc) &&
			     !dwarf_hasattr(&child, DW_AT_ranges))) {
				/* search inside without recording */
				Dwarf_Die sub;

				if (dwarf_child(&child, &sub) == 0 &&
				    !dwarf_haspc(&child, pc)) {
					Dwarf_Die *inner = NULL;
					int m = physical_scopes(&child, pc,
								NULL, &inner);

					/* inner ends with child itself */
					if (m > 1) {
						sd_grow(&v, &cap, n + (size_t)m,
							sizeof(*v));
						for (int i = m - 2; i >= 0; i--)
							v[n++] = inner[i];
						free(inner);
						goto done;
					}
					free(inner);
				}
				continue;
			}
			if (dwarf_haspc(&child, pc) == 1) {
				sd_grow(&v, &cap, n + 1, sizeof(*v));
				v[n++] = child;
				die = child;
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
	}
done:
	/* innermost first, the CU (or the namespace searched) last: the
	 * order a namespace's caller above takes it in */
	for (size_t i = 0; i < n / 2; i++) {
		Dwarf_Die t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	sd_grow(&v, &cap, n + 1, sizeof(*v));
	v[n++] = *cu;
	*out = v;
	return (int)n;
}

static int cuent_cmp(const void *a, const void *b)
{
	const struct dsym_cuent *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool c_language(int lang)
{
	return lang == DW_LANG_C89 || lang == DW_LANG_C ||
	       lang == DW_LANG_C99 || lang == DW_LANG_C11;
}

static struct dsym_cuidx *cu_index_build(Dwarf_Die *cu)
{
	struct dsym_cuidx *x = sd_calloc(1, sizeof(*x));
	size_t cap = 0, order = 0;
	Dwarf_Die child;

	x->off = dwarf_dieoffset(cu);
	x->usable = c_language(dwarf_srclang(cu));
	if (!x->usable || dwarf_child(cu, &child) != 0)
		return x;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Addr base, lo, hi;
		ptrdiff_t o = 0;

		if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		    tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
		    tag == DW_TAG_catch_block) {
			x->usable = false;	/* the walk knows these */
			return x;
		}
		while ((o = dwarf_ranges(&child, o, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			sd_grow(&x->v, &cap, x->n + 1, sizeof(*x->v));
			x->v[x->n++] = (struct dsym_cuent){
				.lo = lo, .hi = hi, .order = order,
				.die = child,
			};
		}
		order++;
	} while (dwarf_siblingof(&child, &child) == 0);
	if (x->n)
		qsort(x->v, x->n, sizeof(*x->v), cuent_cmp);
	for (size_t i = 0; i < x->n; i++)
		x->v[i].maxhi = i && x->v[i - 1].maxhi > x->v[i].hi ?
				x->v[i - 1].maxhi : x->v[i].hi;
	return x;
}

/* The CU's index, built on its first address. */
static struct dsym_cuidx *cu_index(struct dsym *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	size_t lo = 0, hi = d->ncus;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->cus[mid]->off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->ncus && d->cus[lo]->off == off)
		return d->cus[lo];
	sd_grow(&d->cus, &d->cus_cap, d->ncus + 1, sizeof(*d->cus));
	memmove(d->cus + lo + 1, d->cus + lo,
		(d->ncus - lo) * sizeof(*d->cus));
	d->ncus++;
	return d->cus[lo] = cu_index_build(cu);
}

/* The first of the CU's children (in DIE order) whose ranges hold pc, as
 * the walk would find it; NULL when none does. */
static const Dwarf_Die *cu_top(const struct dsym_cuidx *x, Dwarf_Addr pc)
{
	const struct dsym_cuent *best = NULL;
	size_t lo = 0, hi = x->n;

	while (lo < hi) {	/* entries with lo <= pc: [0, lo) */
		size_t mid = (lo + hi) / 2;

		if (x->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && x->v[i].maxhi > pc;)
		if (pc < x->v[i].hi && (!best || x->v[i].order < best->order))
			best = &x->v[i];
	return best ? &best->die : NULL;
}

static int curange_cmp(const void *a, const void *b)
{
	const struct dsym_curange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The CU holding a DWARF address, from the CUs' own ranges: libdw 0.188
 * finds CUs through .debug_aranges only, which clang does not write by
 * default (no lines, no inlined frames for clang-built programs). */
static Dwarf_Die *cu_by_range(struct dsym *d, Dwarf_Addr pc)
{
	size_t lo = 0, hi;

	if (!d->curanges_built) {
		Dwarf_Addr bias;
		Dwarf *dw = dwfl_module_getdwarf(d->mod, &bias);
		Dwarf_CU *cu = NULL, *next;
		Dwarf_Die cudie, sub;
		size_t cap = 0;
		uint8_t type;
		Dwarf_Half ver;

		d->curanges_built = true;
		while (dw && dwarf_get_units(dw, cu, &next, &ver, &type, &cudie,
					     &sub) == 0) {
			Dwarf_Addr base, a, b;
			ptrdiff_t o = 0;

			cu = next;
			if (type != DW_UT_compile && type != DW_UT_partial)
				continue;
			while ((o = dwarf_ranges(&cudie, o, &base, &a, &b)) > 0) {
				if (a >= b)
					continue;
				sd_grow(&d->curanges, &cap, d->ncuranges + 1,
					sizeof(*d->curanges));
				d->curanges[d->ncuranges++] =
					(struct dsym_curange){ a, b, cudie };
			}
		}
		if (d->ncuranges)
			qsort(d->curanges, d->ncuranges, sizeof(*d->curanges),
			      curange_cmp);
	}
	hi = d->ncuranges;
	while (lo < hi) {	/* ranges with lo <= pc: [0, lo) */
		size_t mid = (lo + hi) / 2;

		if (d->curanges[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* CUs do not overlap; a few ranges back in case one does. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++)
		if (pc < d->curanges[i].hi)
			return &d->curanges[i].cu;
	return NULL;
}

/* The CU's line program for a direct read, while the CU has had few
 * lookups; NULL: use libdw's table (built once, then searched). */
static const struct dline *cu_lines(struct dsym *d, struct dsym_cuidx *x,
				    Dwarf_Die *cu)
{
	if (!x->lines_tried) {
		Dwarf_Addr bias;
		Dwarf *dw = dwfl_module_getdwarf(d->mod, &bias);

		x->lines_tried = true;
		x->lines = dw ? dline_open(dwarf_getelf(dw), cu) : NULL;
	}
	if (!x->lines || x->scans >= d->direct_scans)
		return NULL;
	x->scans++;
	return x->lines;
}

int dsym_lookup(struct dsym *d, uint64_t addr, struct dsym_loc *locs, int max)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *symname;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu, *scopes = NULL;
	Dwfl_Line *line;
	struct dsym_cuidx *x;
	const struct dline *lines;
	bool outermost = false;
	int n = 0, nscopes;

	if (max <= 0)
		return 0;
	memset(locs, 0, sizeof(*locs) * max);
	addr += d->bias;
	{
		const struct dsym_fsym *f = fsym_at(d, addr);

		if (f) {
			symname = f->name;
			off = addr - f->addr;
		} else {	/* labels, padding: libdwfl's own search */
			symname = dwfl_module_addrinfo(d->mod, addr, &off, &sym,
						       NULL, NULL, NULL);
		}
	}

	cu = dwfl_module_addrdie(d->mod, addr, &bias);
	if (!cu && dwfl_module_getdwarf(d->mod, &bias))
		cu = cu_by_range(d, addr - bias);
	x = cu ? cu_index(d, cu) : NULL;
	lines = x ? cu_lines(d, x, cu) : NULL;

	/* The line of the address itself belongs to the innermost level. */
	if (!lines || dline_find(lines, addr - bias, &locs[0].file,
				 &locs[0].line, &locs[0].col) < 0) {
		Dwarf_Line *dl = cu ? dwarf_getsrc_die(cu, addr - bias) : NULL;

		lines = NULL;
		if (dl) {
			locs[0].file = dwarf_linesrc(dl, NULL, NULL);
			dwarf_lineno(dl, &locs[0].line);
			dwarf_linecol(dl, &locs[0].col);
		} else if (!cu && (line = dwfl_module_getsrc(d->mod, addr))) {
			locs[0].file = dwfl_lineinfo(line, NULL, &locs[0].line,
						     &locs[0].col, NULL, NULL);
		}
	}

	/* The innermost scope at the address, then all the DIEs it is
	 * nested in (dwarf_getscopes alone skips from an inlined instance to
	 * the CU): inlined instances, then the subprogram they sit in. Each
	 * inlined level's call site is the line of the level outside it. */
	if (cu) {
		if (x->usable) {
			const Dwarf_Die *top = cu_top(x, addr - bias);

			if (top) {
				nscopes = physical_scopes(cu, addr - bias, top,
							  &scopes);
			} else {	/* the CU alone, as the walk ends */
				scopes = sd_malloc(sizeof(*scopes));
				scopes[0] = *cu;
				nscopes = 1;
			}
		} else {
			nscopes = physical_scopes(cu, addr - bias, NULL,
						  &scopes);
		}
	} else {
		nscopes = 0;
	}
	for (int i = 0; i < nscopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_subprogram)
			continue;
		locs[n].func = die_name(&scopes[i]);
		locs[n].linkage = die_linkage(&scopes[i]);
		if (tag == DW_TAG_subprogram) {
			n++;
			outermost = true;
			break;
		}
		locs[n].inlined = true;
		if (n + 1 < max)
			call_site(cu, lines, &scopes[i], &locs[n + 1].file,
				  &locs[n + 1].line, &locs[n + 1].col);
		n++;
	}
	free(scopes);

	if (n == 0) {
		/* No DWARF scope: the ELF symbol and line table alone. */
		if (!symname && !locs[0].file)
			return 0;
		n = 1;
		outermost = true;
	}
	/* The out-of-line function is named by its ELF symbol when one covers
	 * the address (DWARF lacks suffixes such as .cold or .constprop.0). */
	if (outermost && symname) {
		locs[n - 1].func = symname;
		locs[n - 1].func_off = off;
	}
	return n;
}
