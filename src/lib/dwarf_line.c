// SPDX-License-Identifier: GPL-2.0-only
/* dwarf_line — a CU's DWARF line program read for a few addresses,
 * without building its line table. See dwarf_line.h.
 *
 * Why not libdw alone: dwarf_getsrclines (and dwarf_getsrcfiles, which
 * calls it) decodes a CU's whole line program into one malloc'd record
 * per row and sorts them. For a panic's 40 frames in 40 CUs of a 60 MB
 * dSYM, that was 86 % of kptrace's instructions (callgrind: 4.3 of 5.0
 * billion, a third of it qsort), and kptrace was slower than
 * llvm-symbolizer warm. A symbolizer that asks a CU about a few
 * addresses needs one pass over its program with no table: the header's
 * file names and, per address, the row libdw would choose. lib/dwarf.c
 * uses this for a CU's first lookups and leaves later ones (hot, prof:
 * many addresses per CU) to libdw's sorted table; anything this reader
 * does not know (compressed sections, DW_FORM_strx names, a version
 * outside 2..5, a damaged program) falls back to libdw as well.
 *
 * The answers are libdw's (eu-addr2line's), not only DWARF's: the row
 * for an address is the last, in libdw's order (by address, end markers
 * before rows at the same address, then program order), whose address is
 * at most it, unless that is an end-of-sequence marker; a file's name is
 * its directory (the CU's DW_AT_comp_dir for index 0 before version 5)
 * joined to it with '/', unless the name is absolute. */
#include "dwarf_line.h"
#include "util.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

struct dline_sections {
	const unsigned char *line, *line_str, *str;
	size_t line_len, line_str_len, str_len;
};

struct dline {
	unsigned version;
	bool dwarf64;
	uint8_t addr_size;
	uint8_t min_inst, max_ops, default_is_stmt;
	int8_t line_base;
	uint8_t line_range, opcode_base;
	const unsigned char *std_lens;	/* opcode_base - 1 of them */
	const unsigned char *prog, *end;
	char **files;		/* libdw's numbering: [0] unused before v5 */
	size_t nfiles;
};

/* A cursor over untrusted bytes: every read checks the end, and a read
 * past it sets bad. */
struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t rd(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)	/* little-endian files only */
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (!c->bad) {
		uint8_t b;

		if (c->p >= c->end) {
			c->bad = true;
			break;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t sleb(struct cur *c)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (!c->bad) {
		if (c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

static const char *cstr(struct cur *c)
{
	const unsigned char *s = c->p;
	const unsigned char *nul;

	if (c->bad || !(nul = memchr(s, 0, c->end - s))) {
		c->bad = true;
		return NULL;
	}
	c->p = nul + 1;
	return (const char *)s;
}

static const char *strp(const unsigned char *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len || !memchr(sec + off, 0, len - off))
		return NULL;
	return (const char *)sec + off;
}

/* A v5 entry's content of one form: a string (*s), a number (*v), or
 * skipped. -1 for a form this reader does not know. */
static int form(struct cur *c, const struct dline *l,
		const struct dline_sections *s, uint64_t f,
		const char **str, uint64_t *v)
{
	unsigned ow = l->dwarf64 ? 8 : 4;

	switch (f) {
	case DW_FORM_string: *str = cstr(c); return 0;
	case DW_FORM_line_strp:
		*str = strp(s->line_str, s->line_str_len, rd(c, ow));
		return *str ? 0 : -1;
	case DW_FORM_strp:
		*str = strp(s->str, s->str_len, rd(c, ow));
		return *str ? 0 : -1;
	case DW_FORM_udata: *v = uleb(c); return 0;
	case DW_FORM_data1: *v = rd(c, 1); return 0;
	case DW_FORM_data2: *v = rd(c, 2); return 0;
	case DW_FORM_data4: *v = rd(c, 4); return 0;
	case DW_FORM_data8: *v = rd(c, 8); return 0;
	case DW_FORM_data16: rd(c, 8); rd(c, 8); return 0;
	case DW_FORM_block: {
		uint64_t n = uleb(c);

		if (n > (uint64_t)(c->end - c->p))
			c->bad = true;
		else
			c->p += n;
		return 0;
	}
	default:
		return -1;
	}
}

/* A v5 directory or file table: each entry's path and directory index. */
static int v5_table(struct cur *c, const struct dline *l,
		    const struct dline_sections *s, const char ***paths,
		    uint64_t **dirs, size_t *n)
{
	uint64_t fmt[2 * 16], count;
	unsigned nfmt = rd(c, 1);

	if (nfmt > 16)
		return -1;
	for (unsigned i = 0; i < 2 * nfmt; i++)
		fmt[i] = uleb(c);
	count = uleb(c);
	if (c->bad || count > (uint64_t)(c->end - c->p))
		return -1;
	*paths = sd_calloc(count ? count : 1, sizeof(**paths));
	*dirs = sd_calloc(count ? count : 1, sizeof(**dirs));
	*n = count;
	for (uint64_t e = 0; e < count; e++) {
		for (unsigned i = 0; i < nfmt; i++) {
			const char *str = NULL;
			uint64_t v = 0;

			if (form(c, l, s, fmt[2 * i + 1], &str, &v) || c->bad)
				return -1;
			if (fmt[2 * i] == DW_LNCT_path)
				(*paths)[e] = str;
			else if (fmt[2 * i] == DW_LNCT_directory_index)
				(*dirs)[e] = v;
		}
		if (!(*paths)[e])
			return -1;
	}
	return 0;
}

static char *join(const char *dir, const char *name)
{
	struct sbuf sb;

	if (name[0] == '/' || !dir)
		return sd_strdup(name);
	sbuf_init(&sb);
	sbuf_printf(&sb, "%s/%s", dir, name);
	return sbuf_steal(&sb);
}

static void add_file(struct dline *l, size_t *cap, char *name)
{
	sd_grow(&l->files, cap, l->nfiles + 1, sizeof(*l->files));
	l->files[l->nfiles++] = name;
}

/* The header of the program at off: its files, named as libdw names
 * them. 0, or -1 (then the caller asks libdw). */
static int header(struct dline *l, const struct dline_sections *s,
		  uint64_t off, const char *comp_dir)
{
	struct cur c = { s->line + off, s->line + s->line_len, false };
	uint64_t unit_len, hdr_len;
	const unsigned char *hdr_end;
	size_t cap = 0;

	if (off >= s->line_len)
		return -1;
	unit_len = rd(&c, 4);
	if (unit_len == 0xffffffff) {
		l->dwarf64 = true;
		unit_len = rd(&c, 8);
	}
	if (c.bad || unit_len > (uint64_t)(c.end - c.p))
		return -1;
	c.end = c.p + unit_len;
	l->end = c.end;
	l->version = rd(&c, 2);
	if (l->version < 2 || l->version > 5)
		return -1;
	l->addr_size = 8;
	if (l->version >= 5) {
		l->addr_size = rd(&c, 1);
		rd(&c, 1);			/* segment selector size */
	}
	hdr_len = rd(&c, l->dwarf64 ? 8 : 4);
	if (c.bad || hdr_len > (uint64_t)(c.end - c.p))
		return -1;
	hdr_end = c.p + hdr_len;
	l->prog = hdr_end;
	l->min_inst = rd(&c, 1);
	l->max_ops = l->version >= 4 ? rd(&c, 1) : 1;
	l->default_is_stmt = rd(&c, 1);
	l->line_base = (int8_t)rd(&c, 1);
	l->line_range = rd(&c, 1);
	l->opcode_base = rd(&c, 1);
	if (c.bad || !l->line_range || !l->max_ops || !l->opcode_base ||
	    (size_t)(hdr_end - c.p) < (size_t)l->opcode_base - 1)
		return -1;
	l->std_lens = c.p;
	c.p += l->opcode_base - 1;
	c.end = hdr_end;
	if (l->version < 5) {
		const char **dirs = NULL;
		size_t ndirs = 1, dcap = 0;
		const char *name;

		sd_grow(&dirs, &dcap, 1, sizeof(*dirs));
		dirs[0] = comp_dir;
		while ((name = cstr(&c)) && *name) {
			sd_grow(&dirs, &dcap, ndirs + 1, sizeof(*dirs));
			dirs[ndirs++] = name;
		}
		add_file(l, &cap, sd_strdup("???"));
		while (!c.bad && (name = cstr(&c)) && *name) {
			uint64_t di = uleb(&c);

			uleb(&c);		/* mtime */
			uleb(&c);		/* length */
			add_file(l, &cap, join(di < ndirs ? dirs[di] : NULL,
					       name));
		}
		free(dirs);
		if (c.bad)
			return -1;
	} else {
		const char **dpaths = NULL, **fpaths = NULL;
		uint64_t *ddirs = NULL, *fdirs = NULL;
		size_t nd = 0, nf = 0;
		int err = v5_table(&c, l, s, &dpaths, &ddirs, &nd);

		if (!err)
			err = v5_table(&c, l, s, &fpaths, &fdirs, &nf);
		for (size_t i = 0; !err && i < nf; i++)
			add_file(l, &cap, join(fdirs[i] < nd ? dpaths[fdirs[i]]
							    : NULL,
					       fpaths[i]));
		free(dpaths);
		free(ddirs);
		free(fpaths);
		free(fdirs);
		if (err || c.bad)
			return -1;
	}
	return 0;
}

struct dline *dline_open(Elf *elf, Dwarf_Die *cu)
{
	static const char *const names[] = {
		".debug_line", ".debug_line_str", ".debug_str",
	};
	struct dline_sections s = { 0 };
	Dwarf_Attribute a;
	Dwarf_Word off;
	const char *comp_dir;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	struct dline *l;

	if (!elf || !dwarf_attr(cu, DW_AT_stmt_list, &a) ||
	    dwarf_formudata(&a, &off) || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (int i = 0; i < 3; i++) {
			if (strcmp(name, names[i]))
				continue;
			/* Compressed: libdw's business. */
			if ((sh.sh_flags & SHF_COMPRESSED) ||
			    sh.sh_type == SHT_NOBITS ||
			    !(data = elf_getdata(scn, NULL)) || !data->d_buf)
				return NULL;
			if (i == 0) {
				s.line = data->d_buf;
				s.line_len = data->d_size;
			} else if (i == 1) {
				s.line_str = data->d_buf;
				s.line_str_len = data->d_size;
			} else {
				s.str = data->d_buf;
				s.str_len = data->d_size;
			}
		}
	}
	if (!s.line || elf_getident(elf, NULL)[EI_DATA] != ELFDATA2LSB)
		return NULL;
	comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	l = sd_calloc(1, sizeof(*l));
	if (header(l, &s, off, comp_dir)) {
		dline_free(l);
		return NULL;
	}
	return l;
}

void dline_free(struct dline *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nfiles; i++)
		free(l->files[i]);
	free(l->files);
	free(l);
}

const char *dline_file(const struct dline *l, uint64_t idx)
{
	return idx < l->nfiles ? l->files[idx] : NULL;
}

size_t dline_nfiles(const struct dline *l)
{
	return l->nfiles;
}

/* The best row so far for an address: libdw's sort key (address, a
 * normal row after an end marker, program order) is largest. */
struct best {
	bool have, end_seq;
	uint64_t addr, file, line, col;
};

int dline_find(const struct dline *l, uint64_t addr, const char **file,
	       int *line, int *col)
{
	struct cur c = { l->prog, l->end, false };
	struct best b = { 0 };
	uint64_t a = 0, op = 0, f = 1, ln = 1, cl = 0;
	bool stmt = l->default_is_stmt;

	(void)stmt;
#define ROW(endseq)							\
	do {								\
		if (a <= addr &&					\
		    (!b.have || a > b.addr ||				\
		     (a == b.addr && (b.end_seq || !(endseq))))) {	\
			b = (struct best){ true, (endseq), a, f, ln, cl };	\
		}							\
	} while (0)
#define ADVANCE(n)							\
	do {								\
		uint64_t adv_ = (n);					\
		a += (uint64_t)l->min_inst * ((op + adv_) / l->max_ops);	\
		op = (op + adv_) % l->max_ops;				\
	} while (0)
	while (!c.bad && c.p < c.end) {
		uint8_t opc = rd(&c, 1);

		if (opc >= l->opcode_base) {
			unsigned adj = opc - l->opcode_base;

			ADVANCE(adj / l->line_range);
			ln += l->line_base + (int)(adj % l->line_range);
			ROW(false);
			continue;
		}
		switch (opc) {
		case 0: {			/* extended */
			uint64_t n = uleb(&c);
			const unsigned char *next;
			uint8_t sub;

			if (c.bad || !n || n > (uint64_t)(c.end - c.p))
				return -1;
			next = c.p + n;
			sub = rd(&c, 1);
			if (sub == DW_LNE_end_sequence) {
				ROW(true);
				a = op = 0;
				f = 1;
				ln = 1;
				cl = 0;
				stmt = l->default_is_stmt;
			} else if (sub == DW_LNE_set_address) {
				if (n - 1 > 8)
					return -1;
				a = rd(&c, n - 1);
				op = 0;
			} else if (sub == DW_LNE_define_file) {
				return -1;	/* files after the header */
			}
			c.p = next;
			break;
		}
		case DW_LNS_copy:
			ROW(false);
			break;
		case DW_LNS_advance_pc:
			ADVANCE(uleb(&c));
			break;
		case DW_LNS_advance_line:
			ln += sleb(&c);
			break;
		case DW_LNS_set_file:
			f = uleb(&c);
			break;
		case DW_LNS_set_column:
			cl = uleb(&c);
			break;
		case DW_LNS_negate_stmt:
			stmt = !stmt;
			break;
		case DW_LNS_const_add_pc:
			ADVANCE((255 - l->opcode_base) / l->line_range);
			break;
		case DW_LNS_fixed_advance_pc:
			a += rd(&c, 2);
			op = 0;
			break;
		case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin:
		case DW_LNS_set_basic_block:
			break;
		case DW_LNS_set_isa:
			uleb(&c);
			break;
		default:		/* an opcode of a later standard */
			for (unsigned i = 0; i < l->std_lens[opc - 1]; i++)
				uleb(&c);
		}
	}
#undef ROW
#undef ADVANCE
	if (c.bad)
		return -1;
	if (!b.have || b.end_seq)
		return 0;
	*file = dline_file(l, b.file);
	*line = (int)b.line;
	*col = (int)b.col;
	return 1;
}
