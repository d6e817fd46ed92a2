// SPDX-License-Identifier: GPL-2.0-only
/* btf — the kernel's types, from its BTF (/sys/kernel/btf/vmlinux), read
 * on the first lookup a script needs (ppid, vtimestamp, the translators,
 * the proc provider, curthread, struct tags the program does not declare)
 * and kept until dt_btf_release(): a script that names no kernel type
 * never reads it. Kernel structs become D types (decl.c's model) member
 * by member as the script names them. */
#include "btf.h"
#include "ast.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct btf *vmlinux;

static struct btf *kernel_btf(void)
{
	if (!vmlinux)
		vmlinux = btf__load_vmlinux_btf();
	return vmlinux;
}

void dt_btf_release(void)
{
	btf__free(vmlinux);
	vmlinux = NULL;
}

/* Member name of composite type id, looking into anonymous structs and
 * unions (mm_struct keeps its fields in one): its offset in bytes and
 * type, or -ENOENT. */
static int find_member(const struct btf *btf, int id, const char *name,
		       int *type)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *mem;

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		id = (int)t->type;
		t = btf__type_by_id(btf, id);
	}
	if (!t || !btf_is_composite(t))
		return -ENOENT;
	mem = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, mem++) {
		const char *nm = btf__name_by_offset(btf, mem->name_off);
		int off = (int)(btf_member_bit_offset(t, i) / 8), sub;

		if (nm && *nm) {
			if (strcmp(nm, name))
				continue;
			*type = (int)mem->type;
			return off;
		}
		sub = find_member(btf, (int)mem->type, name, type);
		if (sub >= 0)
			return off + sub;
	}
	return -ENOENT;
}

int dt_btf_member_offset(const char *type, const char *path)
{
	struct btf *btf = kernel_btf();
	char buf[128], *save = NULL;
	int id, off = 0;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id < 0)
		return -ENOENT;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *m = strtok_r(buf, ".", &save); m;
	     m = strtok_r(NULL, ".", &save)) {
		int o = find_member(btf, id, m, &id);

		if (o < 0)
			return -ENOENT;
		off += o;
	}
	return off;
}

/* ---- kernel types as D types ---- */

struct dt_btfmap {
	int id;
	struct dt_ctype *ct;
	struct dt_btfmap *next;
};

static const struct btf_type *skip_mods(const struct btf *btf, int *id)
{
	const struct btf_type *t = btf__type_by_id(btf, (__u32)*id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t) ||
		     btf_kind(t) == BTF_KIND_TYPE_TAG)) {
		*id = (int)t->type;
		t = btf__type_by_id(btf, (__u32)*id);
	}
	return t;
}

/* The D struct of kernel composite id (a declaration: its definition),
 * made once per compilation, members to come. */
static struct dt_ctype *sou_of(struct dt_cc *cc, struct btf *btf, int id)
{
	const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
	const char *name = btf__name_by_offset(btf, t->name_off);
	struct dt_btfmap *m;
	struct dt_ctype *ct;

	if (btf_is_fwd(t) && name && *name) {
		int def = btf__find_by_name_kind(btf, name, btf_kflag(t) ?
						 BTF_KIND_UNION :
						 BTF_KIND_STRUCT);

		if (def > 0) {
			id = def;
			t = btf__type_by_id(btf, (__u32)id);
		}
	}
	for (m = cc->btf; m; m = m->next)
		if (m->id == id)
			return m->ct;
	ct = dt_ctype_new(cc, btf_is_union(t) ||
			  (btf_is_fwd(t) && btf_kflag(t)),
			  name && *name ? dt_strdup(&cc->arena, name) : NULL);
	ct->btf_id = btf_is_fwd(t) ? 0 : id;
	ct->size = btf_is_fwd(t) ? 0 : t->size;
	ct->align = 8;
	m = dt_alloc(&cc->arena, sizeof(*m));
	m->id = id;
	m->ct = ct;
	m->next = cc->btf;
	cc->btf = m;
	return ct;
}

/* Kernel type id as a D type: integers, enums, pointers (to any type),
 * arrays, structs and unions (their members read when named); what D has
 * no type for is void. */
static struct dt_type type_of(struct dt_cc *cc, struct btf *btf, int id)
{
	const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
	struct dt_type d = { 0 }, in;
	const char *name = NULL;
	__u32 enc;

	/* the name print() shows: the first typedef's, or the type's own */
	while (t && (btf_is_mod(t) || btf_kind(t) == BTF_KIND_TYPE_TAG)) {
		id = (int)t->type;
		t = btf__type_by_id(btf, (__u32)id);
	}
	if (t && btf_is_typedef(t))
		name = btf__name_by_offset(btf, t->name_off);
	t = skip_mods(btf, &id);
	if (!t || !id)
		return d;	/* void */
	if (!name && (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t)))
		name = btf__name_by_offset(btf, t->name_off);
	if (name && *name) {
		if (btf_is_enum(t) || btf_is_enum64(t)) {
			char *e = dt_alloc(&cc->arena, strlen(name) + 6);

			sprintf(e, "enum %s", name);
			d.name = e;
		} else {
			d.name = dt_strdup(&cc->arena, name);
		}
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		enc = btf_int_encoding(t);
		if (t->size > 8) {
			in = (struct dt_type){ DT_TINT, 1, false };
			return dt_array_type(cc, &in, t->size);
		}
		d.kind = DT_TINT;
		d.size = (uint8_t)t->size;
		d.sign = (enc & BTF_INT_SIGNED) || (enc & BTF_INT_CHAR);
		return d;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		d.kind = DT_TINT;
		d.size = (uint8_t)t->size;
		d.sign = btf_kflag(t);
		return d;
	case BTF_KIND_FLOAT:
		d.kind = DT_TFLOAT;
		d.size = (uint8_t)t->size;
		return d;
	case BTF_KIND_PTR:
		in = type_of(cc, btf, (int)t->type);
		return dt_ptr_type(cc, &in);
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);

		in = type_of(cc, btf, (int)a->type);
		if (in.kind == DT_TVOID)
			return d;
		return dt_array_type(cc, &in, a->nelems);
	}
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FWD:
		d.kind = DT_TSOU;
		d.ct = sou_of(cc, btf, id);
		return d;
	default:
		return d;	/* functions */
	}
}

void dt_btf_complete(struct dt_cc *cc, struct dt_ctype *ct)
{
	struct btf *btf = kernel_btf();
	const struct btf_type *t;
	const struct btf_member *mem;

	if (ct->complete || !ct->btf_id || !btf)
		return;
	t = btf__type_by_id(btf, (__u32)ct->btf_id);
	mem = btf_members(t);
	ct->cap = btf_vlen(t);
	ct->members = dt_alloc(&cc->arena, sizeof(*ct->members) *
			       (size_t)(ct->cap ? ct->cap : 1));
	for (int i = 0; i < btf_vlen(t); i++, mem++) {
		const char *nm = btf__name_by_offset(btf, mem->name_off);
		__u32 bits = btf_member_bit_offset(t, (__u32)i);
		struct dt_cmember *m;

		__u32 width = btf_member_bitfield_size(t, (__u32)i);

		m = &ct->members[ct->nmembers++];
		m->name = nm && *nm ? dt_strdup(&cc->arena, nm) : NULL;
		m->off = bits / 8;
		m->type = type_of(cc, btf, (int)mem->type);
		/* a bit-field: read from its first byte, shifted and masked
		 * (cg_mem_load); it may share bytes with its neighbours */
		if (width && m->type.kind == DT_TINT && width < 64) {
			m->type.bits = (uint8_t)width;
			m->type.bit_off = (uint8_t)(bits % 8);
			m->type.kbits = true;
		} else if (width) {
			ct->nmembers--;
			continue;
		}
		/* an unnamed struct or union: its members are the outer's */
		if (!m->name && m->type.kind == DT_TSOU)
			dt_btf_complete(cc, (struct dt_ctype *)m->type.ct);
	}
	ct->complete = true;
}

bool dt_btf_sou(struct dt_cc *cc, bool is_union, const char *tag,
		struct dt_type *t)
{
	struct btf *btf = kernel_btf();
	int id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, tag, is_union ? BTF_KIND_UNION :
				    BTF_KIND_STRUCT);
	if (id <= 0)
		return false;
	memset(t, 0, sizeof(*t));
	t->kind = DT_TSOU;
	t->ct = sou_of(cc, btf, id);
	return true;
}
