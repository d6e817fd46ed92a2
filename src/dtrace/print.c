// SPDX-License-Identifier: GPL-2.0-only
/* print — the consumer's side of print(p): the bytes p pointed to shown
 * member by member in dtrace-utils' layout (dt_printf.c dt_print_type and
 * dt_print_visit): "ADDR = *", then from column 44 "(type) {", one line
 * per member ".name = (type)value," one column deeper per level, arrays
 * as "(type) [" and their elements, closing "}," and "],". Members whose
 * bytes are all zero are left out (enums too), a char array stops at its
 * first NUL, floats are not shown; past printsize bytes or ten levels
 * deep the walk ends with "...". */
#include "print.h"
#include "ast.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define INDENT 44	/* DT_PRINT_STARTINDENT */
#define MAXDEPTH 10	/* DT_PRINT_DEPTH */

struct pvisit {
	FILE *f;
	const struct dt_prog *p;
	const uint8_t *data;
	size_t len;		/* bytes in data */
	size_t size;		/* bytes shown (printsize) */
	int last_depth;
	bool sou[MAXDEPTH];	/* the last thing shown at a depth was a
				 * struct or union */
};

/* The type's name as libctf gives it. */
static const char *pname(const struct dt_type *t, char *buf, size_t len)
{
	char in[128];

	if (t->name) {
		snprintf(buf, len, "%s", t->name);
		return buf;
	}
	switch (t->kind) {
	case DT_TSOU:
		snprintf(buf, len, "%s%s%s", t->ct->is_union ? "union" :
			 "struct", t->ct->tag ? " " : "",
			 t->ct->tag ? t->ct->tag : "");
		return buf;
	case DT_TARRAY:
		snprintf(buf, len, "%s [%llu]",
			 pname(&t->ct->elem, in, sizeof(in)),
			 (unsigned long long)t->ct->nelems);
		return buf;
	case DT_TPTR:
		if (t->ref) {
			pname(t->ref, in, sizeof(in));
			snprintf(buf, len, "%s%s*", in,
				 in[strlen(in) - 1] == '*' ? "" : " ");
			return buf;
		}
		/* fall through */
	default:
		return dt_type_name(t, buf, len);
	}
}

static bool all_zero(const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (d[i])
			return false;
	return true;
}

static bool is_enum(const struct dt_type *t)
{
	return t->kind == DT_TINT && t->name &&
	       (!strcmp(t->name, "enum") || !strncmp(t->name, "enum ", 5));
}

/* An enumerator of the program's enum t named for value v, or NULL. */
static const char *enum_name(const struct dt_prog *p, const struct dt_type *t,
			     int64_t v)
{
	for (const struct dt_cname *c = p->cnames; c; c = c->next)
		if (c->kind == DT_CN_ENUMERATOR && c->type.name == t->name &&
		    c->val == v)
			return c->name;
	return NULL;
}

static int64_t int_at(const uint8_t *d, int size, bool sign)
{
	int8_t i8; int16_t i16; int32_t i32; int64_t i64;

	switch (size) {
	case 1: memcpy(&i8, d, 1); return sign ? i8 : (int64_t)(uint8_t)i8;
	case 2: memcpy(&i16, d, 2);
		return sign ? i16 : (int64_t)(uint16_t)i16;
	case 4: memcpy(&i32, d, 4);
		return sign ? i32 : (int64_t)(uint32_t)i32;
	default: memcpy(&i64, d, 8); return i64;
	}
}

/* dt_print_close_parens: "}" for each level shown deeper than depth. */
static void close_parens(struct pvisit *v, int depth)
{
	if (!v->sou[depth])
		return;
	if (depth == 0 && v->last_depth == 0)
		v->last_depth = 1;
	for (int i = v->last_depth - depth; i > 0; i--) {
		fprintf(v->f, "%*s}%s\n", INDENT + depth + i - 1, "",
			depth > 0 || i > 1 ? "," : "");
		v->last_depth = depth;
	}
}

/* dt_print_visit: one member (name, type t at off bytes); -1 ends the
 * walk. */
static int visit(struct pvisit *v, const char *name, const struct dt_type *t,
		 uint64_t off, int depth)
{
	const uint8_t *d = v->data + off;
	uint64_t tsize = dt_type_size(t);
	char tn[160], val[200];
	bool sou = t->kind == DT_TSOU, arr = t->kind == DT_TARRAY;

	if (off >= v->size || depth >= MAXDEPTH) {
		fprintf(v->f, "%*s...\n", INDENT + depth, "");
		return -1;
	}
	pname(t, tn, sizeof(tn));
	if (v->last_depth > depth)
		close_parens(v, depth);
	if (off + tsize > v->len)
		tsize = v->len - off;
	if (depth > 0 && !t->kbits && all_zero(d, tsize))
		return 0;
	if (sou) {
		snprintf(val, sizeof(val), "(%s) {", tn);
	} else if (arr) {
		snprintf(val, sizeof(val), "(%s) [%s", tn,
			 t->ct->nelems ? "" : "],");
	} else if (t->kind == DT_TPTR) {
		uint64_t x;

		memcpy(&x, d, 8);
		snprintf(val, sizeof(val), "(%s)0x%" PRIx64 ",", tn, x);
	} else if (is_enum(t)) {
		int32_t x;
		const char *en;

		memcpy(&x, d, 4);
		en = enum_name(v->p, t, x);
		if (en)
			snprintf(val, sizeof(val), "(%s)%s,", tn, en);
		else
			snprintf(val, sizeof(val), "(%s)%d,", tn, x);
	} else if (t->kind == DT_TINT && t->kbits) {
		/* a kernel bit-field: its bits; none set, not shown */
		uint64_t x = 0;
		size_t n = (t->bit_off + t->bits + 7) / 8;

		memcpy(&x, d, n > v->len - off ? v->len - off : n);
		x = (x >> t->bit_off) & (t->bits < 64 ? (1ull << t->bits) - 1 :
					 ~0ull);
		if (!x)
			return 0;
		snprintf(val, sizeof(val), "(%s)%" PRIu64 ",", tn, x);
	} else if (t->kind == DT_TINT) {
		int64_t x = int_at(d, t->size, t->sign);

		if (t->size == 8 && !t->sign)
			snprintf(val, sizeof(val), "(%s)%" PRIu64 ",", tn,
				 (uint64_t)x);
		else if (t->size == 1 && !strcmp(tn, "char"))
			snprintf(val, sizeof(val), "(%s)'%c',", tn, (char)x);
		else
			snprintf(val, sizeof(val), "(%s)%" PRId64 ",", tn, x);
	} else {
		return 0;	/* floats, strings: not shown */
	}
	v->sou[depth] = sou;
	v->last_depth = depth;
	fprintf(v->f, "%*s%s%s%s%s\n", INDENT + depth, "",
		depth && name ? "." : "", depth && name ? name : "",
		depth && name ? " = " : "", val);
	if (!arr)
		return 0;
	/* the elements, each alone (a copy of the state: what they show
	 * does not move the outer levels) */
	const struct dt_type *et = &t->ct->elem;
	uint64_t esize = dt_type_size(et);
	struct pvisit v2 = *v;

	if (all_zero(d, tsize))
		return 0;
	for (uint64_t i = 0; i < t->ct->nelems; i++) {
		/* characters (libctf's CTF_INT_CHAR: 1-byte integers but
		 * bool) end at a NUL */
		if (et->kind == DT_TINT && et->size == 1 &&
		    !(et->name && !strcmp(et->name, "bool")) &&
		    off + i < v->len && !d[i])
			break;
		if (visit(&v2, NULL, et, off + i * esize, depth + 1) < 0)
			return -1;
	}
	if (t->ct->nelems)
		fprintf(v->f, "%*s],\n", INDENT + depth, "");
	return 0;
}

/* ctf_type_visit: t, then its members, depth first; stops at -1. */
static int walk(struct pvisit *v, const char *name, const struct dt_type *t,
		uint64_t off, int depth)
{
	int rc = visit(v, name, t, off, depth);

	if (rc || t->kind != DT_TSOU)
		return rc;
	for (int i = 0; i < t->ct->nmembers; i++) {
		const struct dt_cmember *m = &t->ct->members[i];

		rc = walk(v, m->name, &m->type, off + m->off, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

void dt_print_type(FILE *f, const struct dt_prog *p, const struct dt_type *t,
		   uint64_t addr, const uint8_t *data, size_t len,
		   uint64_t printsize)
{
	struct pvisit v = { f, p, data, len, len, 0, { false } };

	/* dtrace-utils' printsize: rounded up to 8, 8192 when out of
	 * range; unset, everything */
	if (printsize) {
		printsize = printsize > 65536 ? 8192 : (printsize + 7) & ~7ull;
		if (printsize < v.size)
			v.size = printsize;
	}
	fprintf(f, "%p = *\n", (void *)(uintptr_t)addr);
	walk(&v, NULL, t, 0, 0);
	close_parens(&v, 0);
}
