// SPDX-License-Identifier: GPL-2.0-only
/* decl — the C types a D program declares: struct and union layouts (each
 * member aligned to its type, as the C ABI lays them out and as DTrace
 * sizes them), arrays, and the names of typedefs, enumerators and tags.
 * parse.c reads the declarations; types.c and cg.c use the layouts. */
#include "ast.h"

#include <string.h>

/* A bit-field's storage: the bytes its bits need, to a power of two
 * (libctf's size of the integer type DTrace makes for it). */
static uint64_t bitfield_size(unsigned bits)
{
	uint64_t n = (bits + 7) / 8, p = 1;

	while (p < n)
		p *= 2;
	return p;
}

uint64_t dt_type_size(const struct dt_type *t)
{
	if (t->bits)
		return bitfield_size(t->bits);
	if (t->kind == DT_TSOU || t->kind == DT_TARRAY)
		return t->ct->size;
	if (t->kind == DT_TSTR)
		return t->ssize;
	return t->size;
}

uint32_t dt_type_align(const struct dt_type *t)
{
	if (t->bits)
		return (uint32_t)bitfield_size(t->bits);
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
	/* as libctf places a member: after the last one's bits, rounded up
	 * to a byte, then to its alignment (so bit-fields never share a
	 * byte with another member) */
	m->off = ct->is_union ? 0 : align_up((ct->end_bits + 7) / 8, align);
	if (!ct->is_union)
		ct->end_bits = m->off * 8 + (t->bits ? t->bits : size * 8);
	if (t->bits)
		ct->has_bitfields = true;
	if (align > ct->align)
		ct->align = align;
	if (m->off + size > ct->size)
		ct->size = m->off + size;
	return true;
}

void dt_ctype_end(struct dt_ctype *ct)
{
	if (!ct->has_bitfields)
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

struct dt_type dt_ptr_type(struct dt_cc *cc, const struct dt_type *t)
{
	struct dt_type *ref = dt_alloc(&cc->arena, sizeof(*ref));
	struct dt_type p = { 0 };
	uint64_t size = dt_type_size(t);

	*ref = *t;
	p.kind = DT_TPTR;
	p.size = 8;
	p.ref = ref;
	/* what the integer-only code paths see: char *, int *... */
	p.pointee = t->kind == DT_TVOID ? 1 : size > 8 || !size ? 8 :
		    (uint8_t)size;
	p.pointee_unsigned = t->kind == DT_TINT && !t->sign;
	/* psinfo_t * and the like: the translated kernel pointer */
	if (t->kind == DT_TSOU && t->xlate)
		p.xlate = t->xlate;
	return p;
}

struct dt_type dt_ptr_ref(const struct dt_type *p)
{
	struct dt_type t = { DT_TINT, p->pointee, !p->pointee_unsigned };

	if (p->ref)
		return *p->ref;
	return t;
}

uint64_t dt_ptr_step(const struct dt_type *p)
{
	uint64_t size;

	if (!p->ref)
		return p->pointee;
	size = dt_type_size(p->ref);
	return size ? size : 1;
}

struct dt_node *dt_node_clone(struct dt_cc *cc, const struct dt_node *e)
{
	return dt_node_subst(cc, e, NULL, NULL);
}

struct dt_node *dt_node_subst(struct dt_cc *cc, const struct dt_node *e,
			      const char *name, const struct dt_node *repl)
{
	struct dt_node *n;

	if (!e)
		return NULL;
	if (name && e->kind == N_VAR && e->name && !strcmp(e->name, name))
		return dt_node_subst(cc, repl, NULL, NULL);
	n = dt_alloc(&cc->arena, sizeof(*n));
	*n = *e;
	n->a = dt_node_subst(cc, e->a, name, repl);
	n->b = dt_node_subst(cc, e->b, name, repl);
	n->c = dt_node_subst(cc, e->c, name, repl);
	if (e->nargs > 0) {
		n->args = dt_alloc(&cc->arena, sizeof(*n->args) *
				   (size_t)e->nargs);
		for (int i = 0; i < e->nargs; i++)
			n->args[i] = dt_node_subst(cc, e->args[i], name, repl);
	}
	return n;
}
