// SPDX-License-Identifier: GPL-2.0-only
/* btf — the kernel's types, from its BTF (/sys/kernel/btf/vmlinux), read
 * on the first lookup a script needs (ppid, vtimestamp, the translators,
 * the proc provider) and kept until dt_btf_release(): a script that names
 * no kernel type never reads it. */
#include "btf.h"

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
