// SPDX-License-Identifier: GPL-2.0-only
/* record_btf — the recorder's share of the kernel's BTF, found in one pass
 * (record_btf.h).
 *
 * libbpf (1.1) reads the kernel's whole BTF for a program that attaches
 * to a BTF tracepoint and for CO-RE relocations: 5.5 MB read, copied,
 * indexed, and then a walk of all its types per relocated type and per
 * program, some 10 ms of CPU before the first program loads. The
 * recorder needs the ids of nine typedefs and the offsets of some twenty
 * fields. So: the kernel's BTF is mapped (Linux 6.16; read before that),
 * its type records walked once (an index of where each starts, the ids of
 * the names asked for), and the fields asked for are written as a BTF of
 * a few types — the structs with just those members, at the kernel's
 * offsets, of the kernel's sizes and kinds — which libbpf takes in place
 * of the kernel's (bpf_object_open_opts.btf_custom_path). The verifier
 * checks every access against the kernel's own BTF as before: an offset
 * found wrong here cannot make a program read what its type does not
 * allow. */
#include "record_btf.h"
#include "../lib/crc32c.h"
#include "../lib/util.h"

#include <bpf/btf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define KBTF_PATH "/sys/kernel/btf/vmlinux"
#define KBTF_MAX (64 << 20)
#define TRACE_PREFIX "btf_trace_"
#define NODES_MAX 64
#define ROOTS_MAX 8

struct kbtf {
	char *data;
	size_t size;
	bool mapped;
	const char *types, *strs;
	uint32_t type_len, str_len;
	uint32_t *off;			/* off[id]: where type id starts */
	uint32_t n;			/* ids 1..n-1 */
};

/* A member to write: the fields' paths, merged into a tree per struct. */
struct node {
	const char *name;		/* NULL for a root */
	uint32_t type;			/* the kernel's type (modifiers skipped) */
	uint32_t bits;			/* offset in the parent, in bits */
	int child[8];			/* node indexes */
	int nchild;
};

static void kbtf_close(struct kbtf *k)
{
	if (k->mapped)
		munmap(k->data, k->size);
	else
		free(k->data);
	free(k->off);
}

static int kbtf_read(struct kbtf *k)
{
	struct stat st;
	size_t got = 0;
	int fd, err = 0;

	fd = open(KBTF_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(struct btf_header) ||
	    st.st_size > KBTF_MAX) {
		close(fd);
		return -EINVAL;
	}
	k->size = st.st_size;
	k->data = mmap(NULL, k->size, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
		       fd, 0);
	if (k->data != MAP_FAILED) {
		k->mapped = true;
		close(fd);
		return 0;
	}
	/* (Before Linux 6.16 the file cannot be mapped.) */
	k->data = sd_malloc(k->size);
	while (got < k->size) {
		ssize_t r = read(fd, k->data + got, k->size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? -errno : -EIO;
			break;
		}
		got += r;
	}
	close(fd);
	return err;
}

/* The size of the type record at t (at most left bytes), or 0 for one
 * not understood. */
static size_t rec_size(const struct btf_type *t, size_t left)
{
	size_t n = sizeof(*t), vlen = BTF_INFO_VLEN(t->info);

	if (left < n)
		return 0;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		n += sizeof(uint32_t);
		break;
	case BTF_KIND_ARRAY:
		n += sizeof(struct btf_array);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		n += vlen * sizeof(struct btf_member);
		break;
	case BTF_KIND_ENUM:
		n += vlen * sizeof(struct btf_enum);
		break;
	case BTF_KIND_ENUM64:
		n += vlen * sizeof(struct btf_enum64);
		break;
	case BTF_KIND_FUNC_PROTO:
		n += vlen * sizeof(struct btf_param);
		break;
	case BTF_KIND_VAR:
		n += sizeof(struct btf_var);
		break;
	case BTF_KIND_DATASEC:
		n += vlen * sizeof(struct btf_var_secinfo);
		break;
	case BTF_KIND_DECL_TAG:
		n += sizeof(struct btf_decl_tag);
		break;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		break;
	default:
		return 0;
	}
	return n <= left ? n : 0;
}

static const char *name_of(const struct kbtf *k, uint32_t off)
{
	return off < k->str_len ? k->strs + off : "";
}

static const struct btf_type *type_at(const struct kbtf *k, uint32_t id)
{
	return id && id < k->n ? (const void *)(k->types + k->off[id]) : NULL;
}

/* id with typedefs and qualifiers skipped. */
static uint32_t skip_mods(const struct kbtf *k, uint32_t id)
{
	for (int i = 0; i < 32; i++) {
		const struct btf_type *t = type_at(k, id);

		if (!t)
			return 0;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return 0;
}

static bool composite(const struct btf_type *t)
{
	return t && (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT ||
		     BTF_INFO_KIND(t->info) == BTF_KIND_UNION);
}

/* The member called name of the struct or union id, looked for inside its
 * anonymous members too (as libbpf does): its type and its offset in
 * bits, added to *bits. */
static int find_member(const struct kbtf *k, uint32_t id, const char *name,
		       uint32_t *type, uint32_t *bits, int depth)
{
	const struct btf_type *t = type_at(k, id);
	const struct btf_member *m;
	bool kflag;

	if (!composite(t) || depth > 8)
		return -ENOENT;
	m = (const struct btf_member *)(t + 1);
	kflag = BTF_INFO_KFLAG(t->info);
	for (uint32_t i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		uint32_t off = kflag ? BTF_MEMBER_BIT_OFFSET(m[i].offset)
				     : m[i].offset, sub = 0;

		if (m[i].name_off == 0) {
			if (!find_member(k, skip_mods(k, m[i].type), name,
					 type, &sub, depth + 1)) {
				*bits += off + sub;
				return 0;
			}
			continue;
		}
		if (strcmp(name_of(k, m[i].name_off), name))
			continue;
		if (kflag && BTF_MEMBER_BITFIELD_SIZE(m[i].offset))
			return -ENOTSUP;	/* (none of ours is) */
		*type = m[i].type;
		*bits += off;
		return 0;
	}
	return -ENOENT;
}

/* The type records walked once: where each starts, the typedefs
 * btf_trace_<tps[i]> and the structs called roots[i]. */
static int kbtf_index(struct kbtf *k, const char *const *tps, size_t ntp,
		      uint32_t *ids, const char *const *roots, size_t nroots,
		      uint32_t *root_ids)
{
	const struct btf_header *h = (const void *)k->data;
	size_t pos = 0, cap;
	uint32_t id = 1;

	if (h->magic != BTF_MAGIC || h->version != BTF_VERSION ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > k->size ||
	    h->type_off % 4 || (uint64_t)h->type_off + h->type_len >
	    k->size - h->hdr_len || (uint64_t)h->str_off + h->str_len >
	    k->size - h->hdr_len || !h->str_len)
		return -EPROTO;
	k->types = k->data + h->hdr_len + h->type_off;
	k->type_len = h->type_len;
	k->strs = k->data + h->hdr_len + h->str_off;
	k->str_len = h->str_len;
	if (k->strs[k->str_len - 1])
		return -EPROTO;
	cap = k->type_len / sizeof(struct btf_type) + 2;
	k->off = sd_malloc(cap * sizeof(*k->off));
	k->off[0] = 0;
	while (pos < k->type_len) {
		const struct btf_type *t = (const void *)(k->types + pos);
		size_t n = rec_size(t, k->type_len - pos);
		unsigned kind = BTF_INFO_KIND(t->info);

		if (!n || id >= cap)
			return -EPROTO;
		k->off[id] = pos;
		if (kind == BTF_KIND_TYPEDEF && t->name_off) {
			const char *s = name_of(k, t->name_off);

			if (!strncmp(s, TRACE_PREFIX, sizeof(TRACE_PREFIX) - 1)) {
				s += sizeof(TRACE_PREFIX) - 1;
				for (size_t i = 0; i < ntp; i++)
					if (!ids[i] && !strcmp(s, tps[i]))
						ids[i] = id;
			}
		} else if (kind == BTF_KIND_STRUCT && t->name_off) {
			const char *s = name_of(k, t->name_off);

			for (size_t i = 0; i < nroots; i++) {
				if (strcmp(s, roots[i]))
					continue;
				/* Two of a name: libbpf would weigh both. */
				if (root_ids[i])
					return -EEXIST;
				root_ids[i] = id;
			}
		}
		pos += n;
		id++;
	}
	k->n = id;
	return 0;
}

/* The type of a leaf member (the kernel's type id, modifiers skipped) in
 * out: an integer, a pointer (to void: CO-RE compares pointers as
 * pointers) or an array of those. Its id, or < 0. */
static int emit_leaf(const struct kbtf *k, struct btf *out, uint32_t id,
		     int depth)
{
	const struct btf_type *t = type_at(k, id);
	const struct btf_array *a;
	uint32_t info;
	int elem, index;

	if (!t || depth > 4)
		return -ENOTSUP;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		info = *(const uint32_t *)(t + 1);
		if (BTF_INT_OFFSET(info))
			return -ENOTSUP;
		return btf__add_int(out, t->name_off ? name_of(k, t->name_off)
					       : "int", t->size,
				    BTF_INT_ENCODING(info));
	case BTF_KIND_PTR:
		return btf__add_ptr(out, 0);
	case BTF_KIND_ARRAY:
		a = (const struct btf_array *)(t + 1);
		elem = emit_leaf(k, out, skip_mods(k, a->type), depth + 1);
		if (elem < 0)
			return elem;
		index = btf__add_int(out, "int", 4, BTF_INT_SIGNED);
		if (index < 0)
			return index;
		return btf__add_array(out, index, elem, a->nelems);
	default:
		return -ENOTSUP;
	}
}

/* The struct or union of node i with its members (written first, as BTF
 * wants a struct's members right after it). Its id, or < 0. */
static int emit_node(const struct kbtf *k, struct btf *out, struct node *nodes,
		     int i)
{
	struct node *nd = &nodes[i];
	const struct btf_type *t = type_at(k, nd->type);
	int ids[8], id;

	for (int c = 0; c < nd->nchild; c++) {
		struct node *ch = &nodes[nd->child[c]];

		ids[c] = ch->nchild ? emit_node(k, out, nodes, nd->child[c])
				    : emit_leaf(k, out, ch->type, 0);
		if (ids[c] < 0)
			return ids[c];
	}
	if (!composite(t))
		return -ENOTSUP;
	if (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT)
		id = btf__add_struct(out, t->name_off ? name_of(k, t->name_off)
						      : NULL, t->size);
	else
		id = btf__add_union(out, t->name_off ? name_of(k, t->name_off)
						     : NULL, t->size);
	for (int c = 0; c < nd->nchild && id >= 0; c++) {
		struct node *ch = &nodes[nd->child[c]];
		int err = btf__add_field(out, ch->name, ids[c], ch->bits, 0);

		if (err)
			return err;
	}
	return id;
}

/* Node parent's child called name (added, with the kernel's member, when
 * new): its index, or < 0 when the kernel has no such member. */
static int child_of(const struct kbtf *k, struct node *nodes, int *nn,
		    int parent, const char *name)
{
	struct node *p = &nodes[parent], *c;
	uint32_t type = 0, bits = 0;
	int err;

	for (int i = 0; i < p->nchild; i++)
		if (!strcmp(nodes[p->child[i]].name, name))
			return p->child[i];
	if (*nn >= NODES_MAX || p->nchild >= (int)ARRAY_SIZE(p->child))
		return -E2BIG;
	err = find_member(k, p->type, name, &type, &bits, 0);
	if (err)
		return err;
	c = &nodes[*nn];
	*c = (struct node){ .name = name, .type = skip_mods(k, type),
			    .bits = bits };
	p->child[p->nchild++] = *nn;
	return (*nn)++;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= w;
	}
	return 0;
}

static int scan(const char *const *tps, size_t ntp, uint32_t *ids,
		const struct ktr_btf_field *fields, size_t nfields,
		void **rawp, uint32_t *raw_len)
{
	struct kbtf k = { 0 };
	const char *roots[ROOTS_MAX];
	uint32_t root_ids[ROOTS_MAX] = { 0 };
	struct node nodes[NODES_MAX];
	int root_node[ROOTS_MAX], nn = 0, err;
	size_t nroots = 0;
	struct btf *out = NULL;
	const void *raw;
	uint32_t raw_size;

	memset(ids, 0, ntp * sizeof(*ids));
	for (size_t i = 0; i < nfields; i++) {
		size_t r = 0;

		while (r < nroots && strcmp(roots[r], fields[i].type))
			r++;
		if (r == nroots) {
			if (nroots == ROOTS_MAX)
				return -E2BIG;
			roots[nroots++] = fields[i].type;
		}
	}
	err = kbtf_read(&k);
	if (!err)
		err = kbtf_index(&k, tps, ntp, ids, roots, nroots, root_ids);
	if (err)
		goto out;
	/* The paths, merged into a tree per struct. */
	for (size_t r = 0; r < nroots; r++) {
		root_node[r] = -1;
		if (!root_ids[r])
			continue;
		root_node[r] = nn;
		nodes[nn++] = (struct node){ .type = root_ids[r] };
	}
	for (size_t i = 0; i < nfields; i++) {
		size_t r = 0;
		int at;

		while (strcmp(roots[r], fields[i].type))
			r++;
		at = root_node[r];
		for (int d = 0; at >= 0 && d < 4 && fields[i].path[d]; d++)
			at = child_of(&k, nodes, &nn, at, fields[i].path[d]);
		if (at == -E2BIG) {
			err = at;
			goto out;
		}
		/* (A member the kernel lacks: left out, libbpf says so if
		 * a program needs it.) */
	}
	out = btf__new_empty();
	if (!out) {
		err = -errno;
		goto out;
	}
	/* libbpf takes the pointer size from "long". */
	err = btf__add_int(out, "long", sizeof(long), BTF_INT_SIGNED);
	for (size_t r = 0; r < nroots && err >= 0; r++)
		if (root_node[r] >= 0)
			err = emit_node(&k, out, nodes, root_node[r]);
	if (err < 0)
		goto out;
	raw = btf__raw_data(out, &raw_size);
	if (!raw) {
		err = -ENOMEM;
		goto out;
	}
	*rawp = memcpy(sd_malloc(raw_size), raw, raw_size);
	*raw_len = raw_size;
	err = 0;
out:
	btf__free(out);
	kbtf_close(&k);
	return err < 0 ? err : 0;
}

/* The scan's result kept for the rest of the boot.
 *
 * The kernel's BTF cannot change while it runs, and the scan is the
 * longest step before the first program can be verified (1.5-3 ms: a walk
 * of 5.5 MB). So a scan's result — the ids and the small BTF — is kept in
 * a file named by what was asked (a CRC-32C of the tracepoint and field
 * names), holding the boot's id (/proc/sys/kernel/random/boot_id), the
 * size of the kernel's BTF and a CRC-32C of the whole. A file that is not
 * ours (owner, mode, a link), of another boot or request, or damaged is
 * ignored and replaced; the directory is /run's (tmpfs: gone at reboot).
 * The verifier still checks every access the programs make against the
 * kernel's own BTF. */
#define KEEP_MAGIC "SDKBTF01"

struct keep_hdr {
	char magic[8];
	char boot_id[40];
	uint64_t btf_size;		/* of the kernel's BTF file */
	uint32_t req;			/* CRC-32C of the request */
	uint32_t ntp;
	uint32_t raw_len;
	uint32_t crc;			/* of the file, this field as 0 */
};

static uint32_t req_crc(const char *const *tps, size_t ntp,
			const struct ktr_btf_field *fields, size_t nfields)
{
	uint32_t c = 0;

	for (size_t i = 0; i < ntp; i++)
		c = crc32c(c, tps[i], strlen(tps[i]) + 1);
	for (size_t i = 0; i < nfields; i++) {
		c = crc32c(c, fields[i].type, strlen(fields[i].type) + 1);
		for (int d = 0; d < 4 && fields[i].path[d]; d++)
			c = crc32c(c, fields[i].path[d],
				   strlen(fields[i].path[d]) + 1);
		c = crc32c(c, "", 1);
	}
	return c;
}

/* This boot's id and the kernel BTF's size, or -errno. */
static int keep_key(struct keep_hdr *h)
{
	struct stat st;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, h->boot_id, sizeof(h->boot_id) - 1);
	close(fd);
	if (n < 32)
		return -EIO;
	if (stat(KBTF_PATH, &st))
		return -errno;
	h->btf_size = st.st_size;
	return 0;
}

static void keep_path(char *buf, size_t size, const char *dir, uint32_t req)
{
	snprintf(buf, size, "%s/ktrace-btf-%08x", dir, req);
}

/* A file of ours: a regular file of this user's that no one else may
 * write. */
static bool keep_ours(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & 022);
}

static int keep_read(const char *dir, const struct keep_hdr *key, uint32_t *ids,
		     int fd)
{
	char path[PATH_MAX];
	struct keep_hdr h;
	struct stat st;
	uint32_t crc;
	size_t n;
	char *buf;
	int kfd, err = -ESTALE;

	keep_path(path, sizeof(path), dir, key->req);
	kfd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (kfd < 0)
		return -errno;
	if (fstat(kfd, &st) || !S_ISREG(st.st_mode) || !keep_ours(&st) ||
	    st.st_size < (off_t)sizeof(h) || st.st_size > KBTF_MAX) {
		close(kfd);
		return -ESTALE;
	}
	n = st.st_size;
	buf = sd_malloc(n);
	if (pread(kfd, buf, n, 0) != (ssize_t)n)
		goto out;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, KEEP_MAGIC, sizeof(h.magic)) ||
	    memcmp(h.boot_id, key->boot_id, sizeof(h.boot_id)) ||
	    h.btf_size != key->btf_size || h.req != key->req ||
	    h.ntp != key->ntp ||
	    n != sizeof(h) + (size_t)h.ntp * sizeof(*ids) + h.raw_len)
		goto out;
	crc = h.crc;
	((struct keep_hdr *)buf)->crc = 0;
	if (crc32c(0, buf, n) != crc)
		goto out;
	memcpy(ids, buf + sizeof(h), (size_t)h.ntp * sizeof(*ids));
	err = write_all(fd, buf + sizeof(h) + (size_t)h.ntp * sizeof(*ids),
			h.raw_len);
out:
	free(buf);
	close(kfd);
	return err;
}

/* Written whole under a temporary name, then renamed: a reader sees the
 * old file or the new one. Failing is not an error (the next run scans
 * again). */
static void keep_write(const char *dir, struct keep_hdr *h,
		       const uint32_t *ids, const void *raw)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	size_t idn = (size_t)h->ntp * sizeof(*ids), n = sizeof(*h) + idn +
							  h->raw_len;
	struct stat st;
	char *buf;
	int fd;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || !keep_ours(&st))
		return;
	keep_path(path, sizeof(path), dir, h->req);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return;
	buf = sd_malloc(n);
	memcpy(h->magic, KEEP_MAGIC, sizeof(h->magic));
	h->crc = 0;
	memcpy(buf, h, sizeof(*h));
	memcpy(buf + sizeof(*h), ids, idn);
	memcpy(buf + sizeof(*h) + idn, raw, h->raw_len);
	h->crc = crc32c(0, buf, n);
	memcpy(buf, h, sizeof(*h));
	if (write_all(fd, buf, n) || close(fd) || rename(tmp, path))
		unlink(tmp);
	free(buf);
}

int ktr_btf_scan(const char *const *tps, size_t ntp, uint32_t *ids,
		 const struct ktr_btf_field *fields, size_t nfields, int fd,
		 const char *keep_dir)
{
	struct keep_hdr key = { .ntp = ntp };
	bool keep = keep_dir && !keep_key(&key);
	void *raw = NULL;
	uint32_t raw_len = 0;
	int err;

	if (keep) {
		key.req = req_crc(tps, ntp, fields, nfields);
		if (!keep_read(keep_dir, &key, ids, fd))
			return 0;
		/* (Whatever a failed read wrote goes.) */
		if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
			return -errno;
	}
	err = scan(tps, ntp, ids, fields, nfields, &raw, &raw_len);
	if (!err)
		err = write_all(fd, raw, raw_len);
	if (!err && keep) {
		key.raw_len = raw_len;
		keep_write(keep_dir, &key, ids, raw);
	}
	free(raw);
	return err;
}
