// SPDX-License-Identifier: GPL-2.0-only
/* decl — the C types a D program declares: struct and union layouts (each
 * member aligned to its type, as the C ABI lays them out and as DTrace
 * sizes them), arrays, and the names of typedefs, enumerators and tags.
 * parse.c reads the declarations; types.c and cg.c use the layouts. */
#include "ast.h"

#include <string.h>

uint64_t dt_type_size(const struct dt_type *t)
{
	if (t->kind == DT_TSOU || t->kind == DT_TARRAY)
		return t->ct->size;
	if (t->kind == DT_TSTR)
		return t->ssize;
	return t->size;
}

uint32_t dt_type_align(const struct dt_type *t)
{
	if (t->kind == DT_TSOU || t->kind == DT_TARRAY)
		return t->ct->align;
	if (t->kind == DT_TSTR || !t->size)
		return 1;
	return t->size;
}

struct dt_cname *dt_cname_find(const struct dt_prog *p, int kind,
			       const char *name)
{
	for (struct dt_cname *c = p->cnames; c; c = c->next) {
		bool tag = c->kind >= DT_CN_STRUCT;

		/* tags share one name space, typedefs and enumerators
		 * another */
		if ((kind >= DT_CN_STRUCT) == tag && !strcmp(c->name, name) &&
		    (kind < 0 || !tag || c->kind == kind))
			return c;
	}
	return NULL;
}

struct dt_cname *dt_cname_add(struct dt_cc *cc, struct dt_prog *p, int kind,
			      const char *name, const struct dt_loc *loc)
{
	struct dt_cname *c = dt_alloc(&cc->arena, sizeof(*c));

	c->name = name;
	c->kind = (uint8_t)kind;
	if (loc)
		c->loc = *loc;
	c->next = p->cnames;
	p->cnames = c;
	return c;
}

struct dt_ctype *dt_ctype_new(struct dt_cc *cc, bool is_union,
			      const char *tag)
{
	struct dt_ctype *ct = dt_alloc(&cc->arena, sizeof(*ct));

	ct->is_union = is_union;
	ct->tag = tag;
	ct->align = 1;
	return ct;
}

static uint64_t align_up(uint64_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

bool dt_ctype_add(struct dt_cc *cc, struct dt_ctype *ct, const char *name,
		  const struct dt_type *t)
{
	uint64_t size = dt_type_size(t);
	uint32_t align = dt_type_align(t);
	struct dt_cmember *m;

	if (name && dt_ctype_member(ct, name, NULL, NULL))
		return false;
	if (ct->nmembers == ct->cap) {
		int cap = ct->cap ? 2 * ct->cap : 8;
		struct dt_cmember *nm = dt_alloc(&cc->arena,
						 sizeof(*nm) * (size_t)cap);

		if (ct->nmembers)
			memcpy(nm, ct->members,
			       sizeof(*nm) * (size_t)ct->nmembers);
		ct->members = nm;
		ct->cap = cap;
	}
	m = &ct->members[ct->nmembers++];
	m->name = name;
	m->type = *t;
	m->off = ct->is_union ? 0 : align_up(ct->size, align);
	if (align > ct->align)
		ct->align = align;
	if (m->off + size > ct->size)
		ct->size = m->off + size;
	return true;
}

void dt_ctype_end(struct dt_ctype *ct)
{
	ct->size = align_up(ct->size, ct->align);
	ct->complete = true;
}

const struct dt_cmember *dt_ctype_member(const struct dt_ctype *ct,
					 const char *name, uint64_t *off,
					 struct dt_type *t)
{
	for (int i = 0; i < ct->nmembers; i++) {
		const struct dt_cmember *m = &ct->members[i];

		if (m->name && !strcmp(m->name, name)) {
			if (off)
				*off = m->off;
			if (t)
				*t = m->type;
			return m;
		}
		/* an unnamed struct or union: its members are the outer's */
		if (!m->name && m->type.kind == DT_TSOU) {
			uint64_t o = 0;
			const struct dt_cmember *in =
				dt_ctype_member(m->type.ct, name, &o, t);

			if (in) {
				if (off)
					*off = m->off + o;
				return in;
			}
		}
	}
	return NULL;
}

struct dt_type dt_array_type(struct dt_cc *cc, const struct dt_type *elem,
			     uint64_t n)
{
	struct dt_ctype *ct = dt_alloc(&cc->arena, sizeof(*ct));
	struct dt_type t = { 0 };

	ct->is_array = true;
	ct->elem = *elem;
	ct->nelems = n;
	ct->size = dt_type_size(elem) * n;
	ct->align = dt_type_align(elem);
	ct->complete = true;
	t.kind = DT_TARRAY;
	t.ct = ct;
	return t;
}
