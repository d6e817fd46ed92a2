// SPDX-License-Identifier: GPL-2.0-only
/* symbolize — turns a report's frames into function, file:line and
 * inline chains. The core kernel is looked up in a vmlinux with DWARF
 * (found by release under /usr/lib/debug/boot, /usr/lib/debug/lib/modules,
 * /boot, /lib/modules/REL/build, or given), modules in their .ko files,
 * laid out by libdwfl so that `func+off` and section offsets resolve.
 * Frames printed as `func+0xoff/0xsize` are looked up at the symbol's
 * address plus offset; raw addresses through the KASLR offset (stated,
 * derived from a frame carrying both, or given) and module bases (from
 * /proc/modules lines in the log). Return addresses are looked up at
 * pc - 1. A file whose symbol sizes or build-id disagree with the report
 * is not used, and said so; without DWARF, System.map or kallsyms give
 * function+offset. */
#include "kptrace.h"
#include "../lib/dwarf.h"
#include "../lib/hash.h"
#include "../lib/ksym.h"
#include "../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

struct sym {
	const char *name;	/* owned by the names block */
	uint64_t addr, size;
	size_t idx;		/* symbol table order */
};

/* One symbol file: vmlinux or a module. */
struct obj {
	char *path, *name;
	struct dsym *d;
	bool dwarf;
	struct sym *syms;	/* sorted by name */
	uint64_t *addrs;	/* every symbol address, sorted */
	struct sym *byaddr;	/* the symbols with a size, by address */
	size_t nbyaddr;
	size_t nsyms, capsyms;
	char *names;
	size_t nameslen, namescap;
	bool bad;		/* does not match the report */
	/* modules: core text layout, for raw addresses */
	struct { char *name; uint64_t off, size; } *text;
	size_t ntext;
};

/* User addresses of 64-bit kernels lie below this (x86_64 with 5-level
 * paging: 2^56; arm64, riscv64, ppc64, s390x below that). */
#define USER_TOP (1ull << 56)

static struct obj **objs;
static size_t nobjs, capobjs;

static void add_sym(const char *name, uint64_t addr, uint64_t size, void *arg)
{
	struct obj *o = arg;
	size_t n = strlen(name) + 1;

	sd_grow(&o->syms, &o->capsyms, o->nsyms + 1, sizeof(*o->syms));
	sd_grow(&o->names, &o->namescap, o->nameslen + n, 1);
	memcpy(o->names + o->nameslen, name, n);
	o->syms[o->nsyms].name = (const char *)(uintptr_t)o->nameslen;
	o->syms[o->nsyms].addr = addr;
	o->syms[o->nsyms].size = size;
	o->syms[o->nsyms].idx = o->nsyms;
	o->nsyms++;
	o->nameslen += n;
}

static int by_name(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	/* functions with a size first */
	return (x->size == 0) - (y->size == 0);
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int sym_by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The symbol kallsyms names for an address in a function: of aliases at
 * one address, the first in the symbol table (a module's static kp_init
 * before its init_module alias). NULL when no sized symbol covers it. */
static const struct sym *kallsyms_name(const struct obj *o, uint64_t addr)
{
	size_t lo = 0, hi = o->nbyaddr;
	const struct sym *s;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->byaddr[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &o->byaddr[lo - 1];
	while (s > o->byaddr && s[-1].addr == s->addr)
		s--;
	return addr < s->addr + s->size ? s : NULL;
}

/* The last sized symbol at or before addr: what kallsyms would name for
 * an address in the alignment padding after a function. */
static const struct sym *sym_before(const struct obj *o, uint64_t addr)
{
	size_t lo = 0, hi = o->nbyaddr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->byaddr[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - o->byaddr[lo - 1].addr > 4096)
		return NULL;
	return &o->byaddr[lo - 1];
}

/* The size the kernel prints for a symbol: up to the next symbol (the
 * ELF size plus alignment padding). */
static uint64_t span(const struct obj *o, const struct sym *s)
{
	size_t lo = 0, hi = o->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->addrs[mid] <= s->addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->nsyms ? o->addrs[lo] - s->addr : s->size;
}

static void index_syms(struct obj *o)
{
	dsym_symbols(o->d, add_sym, o);
	o->addrs = sd_calloc(o->nsyms + 1, sizeof(*o->addrs));
	for (size_t i = 0; i < o->nsyms; i++) {
		o->syms[i].name = o->names + (uintptr_t)o->syms[i].name;
		o->addrs[i] = o->syms[i].addr;
	}
	qsort(o->syms, o->nsyms, sizeof(*o->syms), by_name);
	qsort(o->addrs, o->nsyms, sizeof(*o->addrs), by_addr);
	o->byaddr = sd_calloc(o->nsyms + 1, sizeof(*o->byaddr));
	for (size_t i = 0; i < o->nsyms; i++)
		if (o->syms[i].size)
			o->byaddr[o->nbyaddr++] = o->syms[i];
	qsort(o->byaddr, o->nbyaddr, sizeof(*o->byaddr), sym_by_addr);
}

static const struct sym *find_sym(const struct obj *o, const char *name)
{
	size_t lo = 0, hi = o->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(o->syms[mid].name, name);

		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->nsyms && !strcmp(o->syms[lo].name, name))
		return &o->syms[lo];
	return NULL;
}

/* Whether a symbol of the file can be the one a frame printed with a
 * size: the kernel's size runs to the next symbol (the ELF size plus
 * padding, or for the last function of a module's section to the end of
 * its pages). */
static bool size_fits(const struct obj *o, const struct sym *s,
		      const struct kp_frame *f)
{
	return s->size == f->size || !s->size ||
	       (f->size >= s->size && f->size <= span(o, s)) ||
	       (f->size >= s->size && f->size - s->size < 0x1000 &&
		f->off < s->size);
}

/* How well a symbol's size agrees with the one a frame printed: 3 the
 * distance to the next symbol (what kallsyms prints), 2 the ELF size, 1
 * within the looser bounds of size_fits, 0 not at all. */
static int size_score(const struct obj *o, const struct sym *s,
		      const struct kp_frame *f)
{
	if (span(o, s) == f->size)
		return 3;
	if (s->size == f->size)
		return 2;
	return size_fits(o, s, f) ? 1 : 0;
}

/* The symbol a frame names. Local functions share names (static inline
 * helpers put out of line in several files: put_page five times in a
 * Debian vmlinux); the size the frame printed picks among them, and
 * *unique says whether no other candidate agrees as well. */
static const struct sym *frame_sym(const struct obj *o,
				   const struct kp_frame *f, bool *unique)
{
	const struct sym *first = find_sym(o, f->sym), *best = NULL;
	const struct sym *end = o->syms + o->nsyms;
	int n = 0, top = 0;

	if (!first) {
		if (unique)
			*unique = false;
		return NULL;
	}
	for (const struct sym *s = first;
	     s < end && !strcmp(s->name, f->sym); s++) {
		int sc = f->has_size ? size_score(o, s, f) : 0;

		if (!best || sc > top) {
			best = s;
			top = sc;
			n = 1;
		} else if (sc == top) {
			n++;
		}
	}
	if (unique)
		*unique = n == 1 && (top > 0 || !f->has_size);
	return best;
}

/* Core text layout of a module as the kernel's layout_sections() makes
 * it: executable, allocated, non-init sections in section order, each
 * aligned. */
struct layout {
	struct obj *o;
	uint64_t size;
};

static void layout_section(const struct dsym_section *sec, void *arg)
{
	struct layout *l = arg;
	struct obj *o = l->o;
	bool init = !strncmp(sec->name, ".init", 5);

	if (!sec->alloc || !sec->exec)
		return;
	o->text = sd_realloc(o->text, (o->ntext + 1) * sizeof(*o->text));
	o->text[o->ntext].name = sd_strdup(sec->name);
	o->text[o->ntext].size = sec->size;
	if (init) {			/* not in the core */
		o->text[o->ntext++].off = UINT64_MAX;
		return;
	}
	l->size = (l->size + sec->align - 1) / sec->align * sec->align;
	o->text[o->ntext++].off = l->size;
	l->size += sec->size;
}

static void module_layout(struct obj *o)
{
	struct layout l = { .o = o };

	dsym_sections(o->d, layout_section, &l);
}

static struct obj *open_obj(const char *path, const char *name, bool module,
			    const char **why)
{
	struct obj *o;
	struct dsym *d;

	for (size_t i = 0; i < nobjs; i++)
		if (!strcmp(objs[i]->path, path))
			return objs[i];
	d = dsym_open(path, why);
	if (!d)
		return NULL;
	o = sd_calloc(1, sizeof(*o));
	o->path = sd_strdup(path);
	o->name = sd_strdup(name);
	o->d = d;
	o->dwarf = dsym_has_dwarf(d);
	index_syms(o);
	if (module)
		module_layout(o);
	sd_grow(&objs, &capobjs, nobjs + 1, sizeof(*objs));
	objs[nobjs++] = o;
	return o;
}

static void cache_free(void);

void kp_symbolize_done(void)
{
	kp_macos_done();
	cache_free();
	for (size_t i = 0; i < nobjs; i++) {
		struct obj *o = objs[i];

		dsym_close(o->d);
		free(o->path);
		free(o->name);
		free(o->syms);
		free(o->addrs);
		free(o->byaddr);
		free(o->names);
		for (size_t j = 0; j < o->ntext; j++)
			free(o->text[j].name);
		free(o->text);
		free(o);
	}
	free(objs);
	objs = NULL;
	nobjs = capobjs = 0;
}

/* ---- finding files ---- */

static bool readable(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, R_OK);
}

static char *find_vmlinux(const char *root, const char *rel)
{
	static const char *const fmt[] = {
		"%s/usr/lib/debug/boot/vmlinux-%s",
		"%s/usr/lib/debug/lib/modules/%s/vmlinux",
		"%s/boot/vmlinux-%s",
		"%s/lib/modules/%s/build/vmlinux",
		"%s/usr/lib/debug/boot/vmlinux-%s.debug",
	};
	char p[4096];

	for (size_t i = 0; i < ARRAY_SIZE(fmt); i++) {
		snprintf(p, sizeof(p), fmt[i], root, rel);
		if (readable(p))
			return sd_strdup(p);
	}
	return NULL;
}

/* module name from a file name: basename up to ".ko", '-' as '_' */
static void mod_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strcspn(b, ".");
	if (n >= len)
		n = len - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = b[i] == '-' ? '_' : b[i];
	out[n] = '\0';
}

static bool is_ko(const char *name)
{
	const char *k = strstr(name, ".ko");

	return k && (!k[3] || !strcmp(k + 3, ".debug") || !strcmp(k + 3, ".xz") ||
		     !strcmp(k + 3, ".zst") || !strcmp(k + 3, ".gz"));
}

static char *search_dir(const char *dir, const char *want, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	if (!d)
		return NULL;
	while (!found && (e = readdir(d))) {
		char p[4096], name[256];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR ||
		    (e->d_type == DT_UNKNOWN && !readable(p))) {
			if (depth > 0)
				found = search_dir(p, want, depth - 1);
			continue;
		}
		if (!is_ko(e->d_name))
			continue;
		mod_name(e->d_name, name, sizeof(name));
		if (!strcmp(name, want))
			found = sd_strdup(p);
	}
	closedir(d);
	return found;
}

static char *find_module(const struct kp_symopts *o, const char *rel,
			 const char *module)
{
	char want[256], p[4096], *found;

	mod_name(module, want, sizeof(want));
	for (size_t i = 0; i < o->nmodules; i++) {
		struct stat st;
		char name[256];

		if (stat(o->modules[i], &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if ((found = search_dir(o->modules[i], want, 8)))
				return found;
			continue;
		}
		mod_name(o->modules[i], name, sizeof(name));
		if (!strcmp(name, want))
			return sd_strdup(o->modules[i]);
	}
	if (!rel)
		return NULL;
	snprintf(p, sizeof(p), "%s/usr/lib/debug/lib/modules/%s", o->root, rel);
	if ((found = search_dir(p, want, 8)))
		return found;
	snprintf(p, sizeof(p), "%s/lib/modules/%s", o->root, rel);
	return search_dir(p, want, 8);
}

/* ---- lookups ---- */

/* Lookups already made: logs repeat frames (every report of a crash loop,
 * every CPU of an NMI backtrace). The strings belong to the dsym. */
struct cached {
	const struct obj *o;
	uint64_t addr;
	int n;
	struct dsym_loc locs[16];
};
static struct htab cache;

static bool cached_eq(const void *val, const void *key)
{
	const struct cached *c = val, *k = key;

	return c->o == k->o && c->addr == k->addr;
}

static void cache_free(void)
{
	for (size_t i = 0; i < cache.cap; i++)
		free(cache.slots[i].val);
	htab_free(&cache);
}

static int lookup_cached(const struct obj *o, uint64_t addr,
			 struct dsym_loc *locs)
{
	struct cached key = { .o = o, .addr = addr }, *c;
	uint64_t h = hash_u64(addr ^ (uint64_t)(uintptr_t)o);

	if (!(c = htab_get(&cache, h, cached_eq, &key))) {
		c = sd_malloc(sizeof(*c));
		*c = key;
		c->n = dsym_lookup(o->d, addr, c->locs, 16);
		htab_put(&cache, h, c);
	}
	memcpy(locs, c->locs, sizeof(c->locs));
	return c->n;
}

/* keep_name: the report printed the symbol this address is in (a label
 * such as entry_SYSCALL_64_after_hwframe inside an ELF function, or an
 * alias): its name and offset stay. */
static void set_location(struct kp_frame *f, struct obj *o, uint64_t lookup,
			 bool ret, bool keep_name)
{
	struct dsym_loc locs[16];
	int n = lookup_cached(o, lookup, locs);

	f->lookup = lookup;
	free(f->object);
	f->object = sd_strdup(o->name);
	if (!keep_name && (n <= 0 || !locs[n - 1].func)) {
		/* padding after a function: named as kallsyms names it */
		const struct sym *s = sym_before(o, lookup);

		if (s) {
			f->function = sd_strdup(s->name);
			f->func_off = lookup - s->addr + (ret ? 1 : 0);
		}
	}
	if (n <= 0)
		return;
	if (keep_name) {
		f->function = sd_strdup(f->sym);
		f->func_off = f->off;
	} else if (locs[n - 1].func && kallsyms_name(o, lookup) &&
		   kallsyms_name(o, lookup)->addr ==
			   lookup - locs[n - 1].func_off) {
		const struct sym *k = kallsyms_name(o, lookup);

		f->function = sd_strdup(k->name);
		f->func_off = locs[n - 1].func_off + (ret ? 1 : 0);
	} else if (locs[n - 1].func) {
		free(f->function);
		f->function = sd_strdup(locs[n - 1].func);
		f->func_off = locs[n - 1].func_off + (ret ? 1 : 0);
	}
	if (locs[n - 1].file) {
		f->file = sd_strdup(locs[n - 1].file);
		f->lineno = locs[n - 1].line;
	}
	if (n > 1) {
		f->inlines = sd_calloc((size_t)n - 1, sizeof(*f->inlines));
		for (int i = n - 2; i >= 0; i--) {
			struct kp_inline *in = &f->inlines[f->ninlines++];

			in->function = locs[i].func ? sd_strdup(locs[i].func) :
						      NULL;
			in->file = locs[i].file ? sd_strdup(locs[i].file) : NULL;
			in->line = locs[i].line;
		}
	}
}

/* Check a symbol file against the symbols the report printed with a
 * size: how many agree and disagree; the first disagreement in *ex. */
static void check_sizes(const struct kp_report *r, const struct obj *o,
			const char *module, int *ok, int *bad, char *ex,
			size_t exlen)
{
	char want[256], have[256];

	*ok = *bad = 0;
	if (module)
		mod_name(module, want, sizeof(want));
	for (size_t i = 0; i < r->nframes; i++) {
		const struct kp_frame *f = &r->frames[i];
		const struct sym *s;

		if (!f->sym || !f->has_size)
			continue;
		if (module) {
			if (!f->module)
				continue;
			mod_name(f->module, have, sizeof(have));
			if (strcmp(have, want))
				continue;
		} else if (f->module) {
			continue;
		}
		s = frame_sym(o, f, NULL);
		if (s && size_fits(o, s, f)) {
			(*ok)++;
		} else {
			if (!*bad) {
				if (s)
					snprintf(ex, exlen, "%s is 0x%" PRIx64
						 " bytes in the report but 0x%"
						 PRIx64 " in %s", f->sym,
						 f->size, s->size, o->path);
				else
					snprintf(ex, exlen, "%s is not in %s",
						 f->sym, o->path);
			}
			(*bad)++;
		}
	}
}

static struct obj *vmlinux_for(struct kp_report *r, const struct kp_symopts *o,
			       const char *rel, int *err)
{
	char *path = NULL, ex[512] = "";
	const char *why = NULL;
	struct obj *v;
	int ok, bad;

	*err = 0;
	if (o->vmlinux) {
		path = sd_strdup(o->vmlinux);
	} else if (rel) {
		path = find_vmlinux(o->root, rel);
		if (!path)
			kp_note(r, "no vmlinux for %s in /usr/lib/debug/boot, "
				"/usr/lib/debug/lib/modules/%s, /boot or "
				"/lib/modules/%s/build (install the -dbg "
				"package or give -k)", rel, rel, rel);
	} else {
		kp_note(r, "the report does not name its kernel release: "
			"give -r RELEASE or -k VMLINUX");
	}
	if (!path)
		return NULL;
	v = open_obj(path, "vmlinux", false, &why);
	if (!v) {
		if (o->vmlinux) {
			sd_err("%s: %s", path, why ? why : strerror(errno));
			*err = -ENOEXEC;
		} else {
			kp_note(r, "%s: %s", path, why ? why : strerror(errno));
		}
		free(path);
		return NULL;
	}
	free(path);
	check_sizes(r, v, NULL, &ok, &bad, ex, sizeof(ex));
	if (bad && bad >= ok) {
		kp_note(r, "%s does not match the report (%d of %d symbols "
			"differ: %s); not used", v->path, bad, ok + bad, ex);
		return NULL;
	}
	if (bad)
		kp_note(r, "%s: %d of %d symbols differ from the report (%s)",
			v->path, bad, ok + bad, ex);
	return v;
}

static struct obj *module_for(struct kp_report *r, const struct kp_symopts *o,
			      const char *rel, const char *module,
			      const char *buildid)
{
	char *path = find_module(o, rel, module), ex[512] = "";
	const char *why = NULL;
	struct obj *m;
	int ok, bad;

	if (!path) {
		kp_note(r, "module %s: no .ko found (give -M)", module);
		return NULL;
	}
	m = open_obj(path, module, true, &why);
	if (!m) {
		kp_note(r, "%s: %s", path, why ? why : strerror(errno));
		free(path);
		return NULL;
	}
	free(path);
	if (buildid && !*dsym_build_id(m->d))
		kp_note(r, "%s has no build-id to check against the report's "
			"%s", m->path, buildid);
	else if (buildid && strcmp(buildid, dsym_build_id(m->d))) {
		kp_note(r, "%s has build-id %s, the report %s; not used",
			m->path, dsym_build_id(m->d), buildid);
		return NULL;
	}
	check_sizes(r, m, module, &ok, &bad, ex, sizeof(ex));
	if (bad && bad >= ok) {
		kp_note(r, "%s does not match the report (%s); not used",
			m->path, ex);
		return NULL;
	}
	if (!m->dwarf)
		kp_note(r, "%s has no DWARF: function+offset only", m->path);
	return m;
}

/* The KASLR offset: --kaslr, the report's "Kernel Offset:", else derived
 * from a core-kernel frame printed with both address and symbol. */
static void kaslr_for(struct kp_report *r, const struct kp_symopts *o,
		      const struct obj *v)
{
	if (o->kaslr_set) {
		r->kaslr_used = o->kaslr;
		r->kaslr_source = "--kaslr";
		r->has_kaslr_used = true;
		return;
	}
	if (r->has_kaslr) {
		r->kaslr_used = r->kaslr;
		r->kaslr_source = "Kernel Offset line";
		r->has_kaslr_used = true;
		return;
	}
	if (!v)
		return;
	for (size_t i = 0; i < r->nframes; i++) {
		const struct kp_frame *f = &r->frames[i];
		const struct sym *s;
		bool unique;

		if (f->module || !f->has_addr || !f->sym || !f->has_off)
			continue;
		/* a name several functions share tells no offset */
		if (!(s = frame_sym(v, f, &unique)) || !unique)
			continue;
		r->kaslr_used = f->addr - (s->addr + f->off);
		r->kaslr_source = "derived from a frame";
		r->has_kaslr_used = true;
		return;
	}
}

/* Raw module address -> the module whose /proc/modules range holds it. */
static const struct kp_modbase *module_at(const struct kp_reports *rs,
					  uint64_t addr)
{
	for (size_t i = 0; rs && i < rs->nmodbases; i++)
		if (addr >= rs->modbases[i].base &&
		    addr < rs->modbases[i].base + rs->modbases[i].size)
			return &rs->modbases[i];
	return NULL;
}

/* The size of a section of the module's file, 0 if none. */
static uint64_t section_size(struct obj *m, const char *name)
{
	for (size_t i = 0; i < m->ntext; i++)
		if (!strcmp(m->text[i].name, name))
			return m->text[i].size;
	return 0;
}

/* A raw address in a section whose load address the log gave. */
static bool module_sec_raw(struct obj *m, const struct kp_reports *rs,
			   const char *module, uint64_t addr, uint64_t *lookup)
{
	char want[256], have[256];

	mod_name(module, want, sizeof(want));
	for (size_t i = 0; rs && i < rs->nmodsecs; i++) {
		const struct kp_modsec *ms = &rs->modsecs[i];
		uint64_t sec, size;

		mod_name(ms->module, have, sizeof(have));
		if (strcmp(have, want) || addr < ms->addr)
			continue;
		size = section_size(m, ms->section);
		if (addr - ms->addr < size &&
		    !dsym_section_addr(m->d, ms->section, &sec)) {
			*lookup = sec + (addr - ms->addr);
			return true;
		}
	}
	return false;
}

/* The module whose sections (as the log gave them) are near addr. */
static const char *module_by_section(const struct kp_reports *rs,
				     uint64_t addr)
{
	const struct kp_modsec *best = NULL;

	for (size_t i = 0; rs && i < rs->nmodsecs; i++) {
		const struct kp_modsec *ms = &rs->modsecs[i];

		if (addr >= ms->addr && addr - ms->addr < (1 << 20) &&
		    (!best || ms->addr > best->addr))
			best = ms;
	}
	return best ? best->module : NULL;
}

/* The lookup address for a module frame with only a runtime address. */
static bool module_raw(struct obj *m, const struct kp_modbase *mb,
		       uint64_t addr, uint64_t *lookup)
{
	uint64_t rel = addr - mb->base, sec;

	for (size_t i = 0; i < m->ntext; i++)
		if (m->text[i].off != UINT64_MAX && rel >= m->text[i].off &&
		    rel < m->text[i].off + m->text[i].size &&
		    !dsym_section_addr(m->d, m->text[i].name, &sec)) {
			*lookup = sec + (rel - m->text[i].off);
			return true;
		}
	return false;
}

static void fallback_table(struct kp_report *r, const struct kp_symopts *o,
			   const char *rel)
{
	char p[4096];
	struct ksym_table *t = NULL;
	struct utsname u;
	bool running = false;
	uint64_t delta = 0;
	bool have_delta = false;

	if (o->sysmap) {
		snprintf(p, sizeof(p), "%s", o->sysmap);
	} else if (rel) {
		snprintf(p, sizeof(p), "%s/boot/System.map-%s", o->root, rel);
		if (!readable(p) && !uname(&u) && !strcmp(u.release, rel) &&
		    !*o->root) {
			snprintf(p, sizeof(p), "/proc/kallsyms");
			running = true;
		}
	} else {
		return;
	}
	if (!readable(p) && !running)
		return;
	t = ksym_load(p);
	if (!t || !t->n || t->hidden) {
		if (t && t->hidden)
			kp_note(r, "%s hides addresses (kptr_restrict)", p);
		ksym_free(t);
		return;
	}
	/* addresses in the table vs the report: from a frame with both */
	for (size_t i = 0; i < r->nframes && !have_delta; i++) {
		const struct kp_frame *f = &r->frames[i];
		struct ksym k;

		if (!f->has_addr || !f->sym || !f->has_off)
			continue;
		if (ksym_by_name(t, f->sym, &k)) {
			delta = f->addr - (k.addr + f->off);
			have_delta = true;
		}
	}
	if (!have_delta && !running && r->has_kaslr_used)
		delta = r->kaslr_used;
	r->fallback = sd_strdup(p);
	for (size_t i = 0; i < r->nframes; i++) {
		struct kp_frame *f = &r->frames[i];
		struct ksym k;
		uint64_t a;

		if (f->function || !f->has_addr || f->user)
			continue;
		a = f->addr - delta - (f->pc ? 0 : 1);
		if (!ksym_lookup(t, a, &k))
			continue;
		f->function = sd_strdup(k.name);
		f->func_off = a - k.addr + (f->pc ? 0 : 1);
		if (k.module && strcmp(k.module, KSYM_KERNEL)) {
			free(f->object);
			f->object = sd_strdup(k.module);
		}
	}
	if (running)
		kp_note(r, "no vmlinux: symbols from /proc/kallsyms of the "
			"running kernel (right only for a report of this boot)");
	ksym_free(t);
}

int kp_symbolize(struct kp_report *r, const struct kp_reports *rs,
		 const struct kp_symopts *o)
{
	const char *rel = o->release ? o->release : r->release;
	struct obj *v;
	bool wide = false;
	int err;

	if (r->macos)
		return kp_macos_symbolize(r, o);
	/* a bare address below the kernel's half of a 64-bit address space
	 * is the task's user code (an old unwinder walked into it) */
	for (size_t i = 0; i < r->nframes; i++)
		wide |= r->frames[i].has_addr && r->frames[i].addr >> 63;
	for (size_t i = 0; i < r->nframes && wide; i++) {
		struct kp_frame *f = &r->frames[i];

		f->user = f->has_addr && !f->sym && !f->module &&
			  f->addr < USER_TOP;
	}
	v = vmlinux_for(r, o, rel, &err);
	if (err)
		return err;
	kaslr_for(r, o, v);
	if (v) {
		r->symfile = sd_strdup(v->path);
		r->dwarf = v->dwarf;
	}
	for (size_t i = 0; i < r->nframes; i++) {
		struct kp_frame *f = &r->frames[i];
		const struct kp_modbase *mb = NULL;
		struct obj *m = v;
		const char *module = f->module;
		uint64_t lookup = 0;
		bool ret = !f->pc, found = false, keep = false;

		if (f->user) {
			f->object = sd_strdup("user");
			continue;
		}
		if (f->object && !strcmp(f->object, "?")) {
			/* its module was not found: said once */
			free(f->object);
			f->object = NULL;
			continue;
		}

		if (!module && f->has_addr && !f->sym) {
			if ((mb = module_at(rs, f->addr)))
				module = mb->name;
			else
				module = module_by_section(rs, f->addr);
		}
		if (module) {
			m = NULL;
			for (size_t j = 0; j < nobjs; j++)
				if (!strcmp(objs[j]->name, module) &&
				    !objs[j]->bad)
					m = objs[j];
			if (!m)
				m = module_for(r, o, rel, module, f->buildid);
			if (!m) {
				/* remember the failure: one note per module */
				for (size_t j = i + 1; j < r->nframes; j++)
					if (r->frames[j].module &&
					    !strcmp(r->frames[j].module, module) &&
					    !r->frames[j].object)
						r->frames[j].object =
							sd_strdup("?");
				continue;
			}
			if (!f->module)
				f->module = sd_strdup(module);
		}
		if (!m)
			continue;
		if (f->sym && f->has_off) {
			const struct sym *s = frame_sym(m, f, NULL);

			if (s) {
				lookup = s->addr + f->off;
				found = true;
				keep = f->off > 0 || f->pc;
			}
		}
		if (!found && f->has_addr) {
			if (module) {
				found = module_sec_raw(m, rs, module, f->addr,
						       &lookup);
				if (!found && !mb)
					mb = module_at(rs, f->addr);
				if (!found)
					found = mb && module_raw(m, mb, f->addr,
								 &lookup);
			} else if (r->has_kaslr_used) {
				lookup = f->addr - r->kaslr_used;
				found = true;
			} else {
				lookup = f->addr;
				found = true;
			}
		}
		if (!found)
			continue;
		set_location(f, m, ret && lookup ? lookup - 1 : lookup, ret,
			     keep);
	}
	if (!v || !v->dwarf)
		fallback_table(r, o, rel);
	return 0;
}

/* The build directory of a kernel source file name: what comes before
 * its first top-level kernel directory ("/build/linux-6.1.76/" in
 * "/build/linux-6.1.76/drivers/tty/sysrq.c"), or 0. */
static size_t tree_prefix(const char *file)
{
	static const char *const top[] = {
		"arch", "block", "certs", "crypto", "drivers", "fs", "include",
		"init", "io_uring", "ipc", "kernel", "lib", "mm", "net", "rust",
		"samples", "security", "sound", "virt",
	};

	if (file[0] != '/')
		return 0;
	for (const char *p = file; (p = strchr(p, '/')); p++)
		for (size_t i = 0; i < ARRAY_SIZE(top); i++) {
			size_t n = strlen(top[i]);

			if (!strncmp(p + 1, top[i], n) && p[1 + n] == '/')
				return (size_t)(p - file) + 1;
		}
	return 0;
}

char *kp_detect_strip(struct kp_report *const *v, size_t n)
{
	const char *best = NULL;
	size_t blen = 0;
	int votes = 0;

	/* the build directory most file names start with */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < v[i]->nframes; j++) {
			const struct kp_frame *f = &v[i]->frames[j];
			const char *file = f->file;
			size_t m;

			/* the core kernel's files name the build tree;
			 * out-of-tree modules' files are elsewhere */
			if (!file || !f->object ||
			    strcmp(f->object, "vmlinux") ||
			    !(m = tree_prefix(file)))
				continue;
			if (best && m == blen && !strncmp(file, best, m)) {
				votes++;
			} else if (--votes < 0 || !best) {
				best = file;
				blen = m;
				votes = 1;
			}
		}
	return best ? sd_strndup(best, blen) : sd_strdup("");
}
