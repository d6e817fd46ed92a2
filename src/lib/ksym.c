// SPDX-License-Identifier: GPL-2.0-only
/* ksym — /proc/kallsyms and System.map parsing and address lookup.
 *
 * The file streams through a small buffer; each code symbol (types t, T,
 * w, W) becomes a 16-byte entry with its name copied into one arena. Both
 * live in populated regions, so the ~5 MB a kernel needs cost no page
 * faults one by one. Several names at one address (aliases) collapse to the
 * best one: global before weak before local, then fewer leading
 * underscores, then the last in file order — the one perf names, since
 * reading kallsyms it gives every alias but the last a zero length. */
#include "ksym.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How far past the last symbol of a module an address may still belong to
 * it: kallsyms has no sizes. */
#define KSYM_TAIL_MAX (1u << 20)
#define LINE_MAX_LEN 1024

const char KSYM_KERNEL[] = "kernel";
const char KSYM_BPF[] = "bpf";

enum { MOD_KERNEL, MOD_BPF };

/* The parser's carry-over of a line split between chunks lives after the
 * table, in a private struct. */
struct parse_state {
	struct ksym_table t;
	char line[LINE_MAX_LEN];
	size_t linelen;
	bool overlong;
	size_t nonzero;
	bool unsorted;
};

struct ksym_table *ksym_new(void)
{
	struct parse_state *ps = sd_calloc(1, sizeof(*ps));
	struct ksym_table *t = &ps->t;

	region_init(&t->ents_mem, 64 * 1024 * sizeof(struct ksym_ent));
	region_init(&t->names, 2u << 20);
	sd_grow(&t->mods, &t->capmods, 2, sizeof(*t->mods));
	t->mods[MOD_KERNEL] = KSYM_KERNEL;
	t->mods[MOD_BPF] = KSYM_BPF;
	t->nmods = 2;
	return t;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static uint16_t intern_module(struct ksym_table *t, const char *name,
			      size_t len)
{
	char *copy;

	if (len == 3 && memcmp(name, "bpf", 3) == 0)
		return MOD_BPF;
	for (size_t i = 2; i < t->nmods; i++)
		if (strncmp(t->mods[i], name, len) == 0 && !t->mods[i][len])
			return (uint16_t)i;
	if (t->nmods >= UINT16_MAX)
		return MOD_KERNEL;
	copy = sd_strndup(name, len);
	sd_grow(&t->mods, &t->capmods, t->nmods + 1, sizeof(*t->mods));
	t->mods[t->nmods] = copy;
	return (uint16_t)t->nmods++;
}

static bool is_code(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* One line: "ffffffff81000000 T _stext" or "... t name\t[module]". */
static void parse_line(struct parse_state *ps, const char *p, const char *end)
{
	struct ksym_table *t = &ps->t;
	const char *name, *name_end, *mod = NULL, *mod_end = NULL;
	struct ksym_ent *e;
	uint64_t addr = 0;
	size_t off;
	int d, nd = 0;
	char type;

	while (p < end && (d = hexval(*p)) >= 0 && nd < 17) {
		addr = addr << 4 | d;
		p++, nd++;
	}
	if (nd == 0 || nd > 16 || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return;
	type = p[1];
	if (!is_code(type))
		return;
	name = p + 3;
	name_end = name;
	while (name_end < end && *name_end != '\t' && *name_end != ' ' &&
	       *name_end != '\r')
		name_end++;
	if (name_end == name)
		return;
	if (name_end < end && *name_end == '\t' && name_end + 1 < end &&
	    name_end[1] == '[') {
		mod = name_end + 2;
		mod_end = mod;
		/* "[mod]" or "[mod buildid]" */
		while (mod_end < end && *mod_end != ']' && *mod_end != ' ')
			mod_end++;
	}

	off = region_append(&t->names, name_end - name + 1);
	memcpy(t->names.base + off, name, name_end - name);
	t->names.base[off + (name_end - name)] = '\0';
	region_append(&t->ents_mem, sizeof(*e));
	e = (struct ksym_ent *)t->ents_mem.base + t->n;
	e->addr = addr;
	e->name = (uint32_t)off;
	e->mod = mod && mod_end > mod ? intern_module(t, mod, mod_end - mod)
				      : MOD_KERNEL;
	e->type = type;
	e->pad = 0;
	if (addr)
		ps->nonzero++;
	if (t->n && e[-1].addr > addr)
		ps->unsorted = true;
	t->n++;
}

void ksym_parse_chunk(struct ksym_table *t, const char *buf, size_t len)
{
	struct parse_state *ps = (struct parse_state *)t;
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *stop = nl ? nl : end;

		if (ps->linelen || !nl) {
			/* Part of a line split across chunks. */
			size_t n = stop - p;

			if (ps->linelen + n >= LINE_MAX_LEN) {
				ps->overlong = true;
				n = LINE_MAX_LEN - 1 - ps->linelen;
			}
			memcpy(ps->line + ps->linelen, p, n);
			ps->linelen += n;
			if (nl) {
				if (!ps->overlong)
					parse_line(ps, ps->line,
						   ps->line + ps->linelen);
				ps->linelen = 0;
				ps->overlong = false;
			}
		} else {
			parse_line(ps, p, nl);
		}
		p = stop + 1;
	}
}

static int rank(const struct ksym_table *t, const struct ksym_ent *e)
{
	const char *name = t->names.base + e->name;
	int r;

	switch (e->type) {
	case 'T': r = 0; break;
	case 'W': case 'w': r = 1; break;
	default: r = 2; break;
	}
	r *= 16;
	for (const char *p = name; *p == '_' && r % 16 < 15; p++)
		r++;
	return r;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* File order: names were appended in order. */
	return (x->name > y->name) - (x->name < y->name);
}

void ksym_parse_end(struct ksym_table *t)
{
	struct parse_state *ps = (struct parse_state *)t;
	size_t w = 0;

	if (ps->linelen && !ps->overlong)
		parse_line(ps, ps->line, ps->line + ps->linelen);
	ps->linelen = 0;
	t->ents = (struct ksym_ent *)t->ents_mem.base;
	t->hidden = t->n > 0 && ps->nonzero == 0;
	if (ps->unsorted)
		qsort(t->ents, t->n, sizeof(*t->ents), cmp_ent);
	for (size_t r = 0; r < t->n; r++) {
		struct ksym_ent *prev = w ? &t->ents[w - 1] : NULL;

		if (prev && prev->addr == t->ents[r].addr &&
		    prev->mod == t->ents[r].mod) {
			if (rank(t, &t->ents[r]) <= rank(t, prev))
				*prev = t->ents[r];
			t->aliases++;
			continue;
		}
		t->ents[w++] = t->ents[r];
	}
	t->n = w;
}

struct ksym_table *ksym_parse(const char *buf, size_t len)
{
	struct ksym_table *t = ksym_new();

	ksym_parse_chunk(t, buf, len);
	ksym_parse_end(t);
	return t;
}

struct ksym_table *ksym_load(const char *path)
{
	char buf[64 * 1024];	/* the kernel hands out ~4 KB per read */
	struct ksym_table *t;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	t = ksym_new();
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			ksym_free(t);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		ksym_parse_chunk(t, buf, n);
	}
	close(fd);
	ksym_parse_end(t);
	return t;
}

void ksym_free(struct ksym_table *t)
{
	if (!t)
		return;
	region_free(&t->ents_mem);
	region_free(&t->names);
	for (size_t i = 2; i < t->nmods; i++)
		free((char *)t->mods[i]);
	free(t->mods);
	free((struct parse_state *)t);
}

void ksym_get(const struct ksym_table *t, size_t i, struct ksym *out)
{
	const struct ksym_ent *e = &t->ents[i];

	out->addr = e->addr;
	out->name = t->names.base + e->name;
	out->module = t->mods[e->mod];
	out->type = e->type;
}

static bool is_end_marker(const struct ksym_table *t, const struct ksym_ent *e)
{
	const char *name = t->names.base + e->name;

	return e->mod == MOD_KERNEL && name[0] == '_' &&
	       (strcmp(name, "_etext") == 0 || strcmp(name, "_einittext") == 0);
}

bool ksym_lookup(const struct ksym_table *t, uint64_t addr, struct ksym *out)
{
	size_t lo = 0, hi;
	const struct ksym_ent *e;

	if (!t || t->n == 0 || t->hidden || addr < t->ents[0].addr)
		return false;
	hi = t->n;
	/* The last entry with e->addr <= addr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ents[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	e = &t->ents[lo];
	if (is_end_marker(t, e))
		return false;
	if ((lo + 1 == t->n || e[1].mod != e->mod) &&
	    addr - e->addr >= KSYM_TAIL_MAX)
		return false;
	ksym_get(t, lo, out);
	return true;
}

bool ksym_by_name(const struct ksym_table *t, const char *name,
		  struct ksym *out)
{
	for (size_t i = 0; t && i < t->n; i++) {
		if (strcmp(t->names.base + t->ents[i].name, name) == 0) {
			ksym_get(t, i, out);
			return true;
		}
	}
	return false;
}
