// SPDX-License-Identifier: GPL-2.0-only
/* report — the output half of `sonde hot`: name every frame through
 * lib/symbolizer (kernel addresses, user (file, offset) pairs, JIT code
 * by its perf map), aggregate leaves into rows by PC, function or module,
 * and write the table, folded stacks, JSON and flame-graph SVG. Rows and
 * stacks are keyed by the symbols' names; C++ and Rust ones are shown
 * demangled unless --no-demangle (JSON keeps the symbol, with "demangled"
 * beside it on rows). */
#include "report.h"
#include "../lib/demangle.h"
#include "../lib/flame.h"
#include "../lib/json.h"
#include "../lib/outfile.h"
#include "../lib/pprof.h"
#include "../lib/table.h"
#include "../lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A symbolized frame. Strings are owned by the symbolizer and live until
 * the report ends. */
struct frame {
	const char *module;
	const char *func;	/* NULL: no symbol */
	uint64_t off;		/* from func; the address when func is NULL */
};

struct resolver {
	const struct hot_opts *o;
	struct hot_data *d;
};

static struct frame resolve(struct resolver *r, uint64_t f)
{
	struct sym_info s;

	if (HOT_IS_USER(f)) {
		const struct hot_uframe *u =
			&r->d->uframes[f & ~HOT_USER_TAG];

		symbolizer_file(r->d->sym, u->pid, u->file, u->off, &s);
	} else {
		symbolizer_kernel(r->d->sym, f, &s);
	}
	return (struct frame){ s.module, s.function, s.offset };
}

/* "func+0x1f" (PC), "func" (function), or the address in hex; shown
 * (the demangle kinds, 0 for none): the function as people read it (C++
 * and Rust demangled), else its symbol. */
static void method(const struct frame *fr, bool with_off, unsigned shown,
		   struct sbuf *sb)
{
	char buf[DEMANGLE_MAX];
	const char *fn = demangle_name(fr->func, shown, buf, sizeof(buf));

	if (!fn)
		sbuf_printf(sb, "0x%" PRIx64, fr->off);
	else if (with_off)
		sbuf_printf(sb, "%s+0x%" PRIx64, fn, fr->off);
	else
		sbuf_puts(sb, fn);
}

/* A flame-graph frame: kernel functions bare, everything else
 * "module`function". */
static void stack_frame(const struct frame *fr, unsigned shown,
			struct sbuf *sb)
{
	if (fr->module != KSYM_KERNEL)
		sbuf_printf(sb, "%s`", fr->module);
	method(fr, false, shown, sb);
}

struct row {
	char *module;
	char *method;		/* NULL for module rows; the symbol's name */
	char *shown;		/* method demangled; NULL: as method */
	uint64_t calls;
};

struct row_key {
	const char *module, *method;
};

static bool row_eq(const void *val, const void *key)
{
	const struct row *r = val;
	const struct row_key *k = key;

	return strcmp(r->module, k->module) == 0 &&
	       (r->method == k->method ||
		(r->method && k->method && strcmp(r->method, k->method) == 0));
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a;
	const struct row *y = *(const struct row *const *)b;
	int c;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	c = strcmp(x->module, y->module);
	if (c || !x->method)
		return c;
	return strcmp(x->method, y->method);
}

struct report {
	struct row **rows;
	size_t nrows;
	struct flame_stack *stacks;	/* symbols' names (JSON) */
	struct flame_stack *shown;	/* demangled (folded, SVG) */
	size_t nstacks, nshown;
	void **allocs;		/* frame names and arrays the stacks use */
	size_t nallocs, capallocs;
	uint64_t total, unknown;
};

/* Stacks point into these; flame_sort merges stacks, so the report owns
 * every allocation rather than each stack its own. */
static void *keep(struct report *rep, void *p)
{
	sd_grow(&rep->allocs, &rep->capallocs, rep->nallocs + 1,
		sizeof(*rep->allocs));
	rep->allocs[rep->nallocs++] = p;
	return p;
}

static void build(struct resolver *r, struct report *rep)
{
	const struct hot_opts *o = r->o;
	unsigned kinds = o->no_demangle ? 0 : DEMANGLE_ALL;
	struct htab rows = { 0 };
	struct sbuf sb;
	size_t caprows = 0, capstacks = 0, capshown = 0;

	sbuf_init(&sb);
	for (size_t i = 0; i < r->d->chains.cap; i++) {
		const struct hot_chain *c = r->d->chains.slots[i].val;
		struct frame leaf;
		struct row_key key;
		struct row *row;
		uint64_t h;

		if (!c)
			continue;
		rep->total += c->count;
		leaf = resolve(r, c->f[0]);
		if (!leaf.func)
			rep->unknown += c->count;

		sbuf_reset(&sb);
		if (o->agg != HOT_AGG_MODULE)
			method(&leaf, o->agg == HOT_AGG_PC, 0, &sb);
		key.module = leaf.module;
		key.method = o->agg == HOT_AGG_MODULE ? NULL : sb.buf;
		h = hash_bytes(key.module, strlen(key.module), 0);
		if (key.method)
			h = hash_bytes(key.method, strlen(key.method), h);
		row = htab_get(&rows, h, row_eq, &key);
		if (!row) {
			row = sd_calloc(1, sizeof(*row));
			row->module = sd_strdup(key.module);
			row->method = key.method ? sd_strdup(key.method) : NULL;
			if (row->method) {
				sbuf_reset(&sb);
				method(&leaf, o->agg == HOT_AGG_PC, kinds, &sb);
				if (strcmp(sb.buf, row->method))
					row->shown = sd_strdup(sb.buf);
			}
			htab_put(&rows, h, row);
			sd_grow(&rep->rows, &caprows, rep->nrows + 1,
				sizeof(*rep->rows));
			rep->rows[rep->nrows++] = row;
		}
		row->calls += c->count;

		/* The same chain, root first, for folded output: by symbol
		 * and as shown (equal when no frame is C++ or Rust). */
		sd_grow(&rep->stacks, &capstacks, rep->nstacks + 1,
			sizeof(*rep->stacks));
		sd_grow(&rep->shown, &capshown, rep->nstacks + 1,
			sizeof(*rep->shown));
		struct flame_stack *st = &rep->stacks[rep->nstacks];
		struct flame_stack *sh = &rep->shown[rep->nstacks++];

		st->n = sh->n = c->n;
		st->count = sh->count = c->count;
		st->frames = keep(rep, sd_calloc(c->n, sizeof(*st->frames)));
		sh->frames = keep(rep, sd_calloc(c->n, sizeof(*sh->frames)));
		for (uint32_t k = 0; k < c->n; k++) {
			struct frame fr = k ? resolve(r, c->f[k]) : leaf;
			const char **raw = &st->frames[c->n - 1 - k];

			sbuf_reset(&sb);
			stack_frame(&fr, 0, &sb);
			*raw = keep(rep, sd_strdup(sb.buf));
			sbuf_reset(&sb);
			stack_frame(&fr, kinds, &sb);
			sh->frames[c->n - 1 - k] = strcmp(sb.buf, *raw) ?
				keep(rep, sd_strdup(sb.buf)) : *raw;
		}
	}
	if (rep->nrows)
		qsort(rep->rows, rep->nrows, sizeof(*rep->rows), row_cmp);
	/* Sorted apart: two symbols may read the same once demangled
	 * (legacy Rust drops the hash), and their stacks then merge. */
	rep->nshown = flame_sort(rep->shown, rep->nstacks);
	rep->nstacks = flame_sort(rep->stacks, rep->nstacks);
	htab_free(&rows);
	sbuf_free(&sb);
}

static void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++) {
		free(rep->rows[i]->module);
		free(rep->rows[i]->method);
		free(rep->rows[i]->shown);
		free(rep->rows[i]);
	}
	free(rep->rows);
	free(rep->stacks);
	free(rep->shown);
	for (size_t i = 0; i < rep->nallocs; i++)
		free(rep->allocs[i]);
	free(rep->allocs);
}

static double share(uint64_t calls, uint64_t total)
{
	return total ? 100.0 * calls / total : 0.0;
}

static size_t shown_rows(const struct hot_opts *o, const struct report *rep)
{
	return o->top && o->top < rep->nrows ? o->top : rep->nrows;
}

static void footer(const struct hot_opts *o, const struct hot_data *d,
		   const struct report *rep, FILE *f)
{
	const struct hot_stats *st = &d->st;
	char dur[32];

	fprintf(f, "# %llu samples in %s on %d CPU%s (%s, %llu Hz)",
		(unsigned long long)rep->total,
		sd_fmt_duration(st->elapsed_ns, dur, sizeof(dur)),
		st->ncpus_sampled, st->ncpus_sampled == 1 ? "" : "s",
		o->event, (unsigned long long)o->freq);
	if (st->idle)
		fprintf(f, "; dropped %llu idle", (unsigned long long)st->idle);
	if (st->other)
		fprintf(f, "; dropped %llu of other processes",
			(unsigned long long)st->other);
	fprintf(f, "; lost %llu, throttled %llu, unknown %llu",
		(unsigned long long)st->lost,
		(unsigned long long)st->throttled,
		(unsigned long long)rep->unknown);
	if (st->own)
		fprintf(f, ", own %llu", (unsigned long long)st->own);
	if (st->user)
		fprintf(f, "; user mode %.1f %% (not shown without --user)",
			share(st->user, st->user + rep->total));
	if (shown_rows(o, rep) < rep->nrows)
		fprintf(f, "; top %zu of %zu rows", shown_rows(o, rep),
			rep->nrows);
	fputc('\n', f);
}

static void write_table(const struct hot_opts *o, const struct hot_data *d,
			const struct report *rep, FILE *f)
{
	static const char *hdr3[] = { "Module", "Calls", "Share" };
	static const char *hdr4[] = { "Module", "Method", "Calls", "Share" };
	static const enum table_align al3[] = { TABLE_LEFT, TABLE_RIGHT,
						TABLE_RIGHT };
	static const enum table_align al4[] = { TABLE_LEFT, TABLE_LEFT,
						TABLE_RIGHT, TABLE_RIGHT };
	bool mod = o->agg == HOT_AGG_MODULE;
	struct table t;

	table_init(&t, mod ? 3 : 4, mod ? hdr3 : hdr4, mod ? al3 : al4);
	for (size_t i = 0; i < shown_rows(o, rep); i++) {
		const struct row *r = rep->rows[i];
		char calls[24], sh[24];
		const char *cells[4];
		size_t n = 0;

		snprintf(calls, sizeof(calls), "%llu",
			 (unsigned long long)r->calls);
		snprintf(sh, sizeof(sh), "%8.4f %%", share(r->calls, rep->total));
		cells[n++] = r->module;
		if (!mod)
			cells[n++] = r->shown ? r->shown : r->method;
		cells[n++] = calls;
		cells[n++] = sh;
		table_add(&t, cells);
	}
	table_print(&t, f);
	table_free(&t);
	fputc('\n', f);
	footer(o, d, rep, f);
}

static const char *agg_name(enum hot_agg a)
{
	return a == HOT_AGG_PC ? "pc" : a == HOT_AGG_FUNC ? "function"
							  : "module";
}

static void write_json(const struct hot_opts *o, const struct hot_data *d,
		       const struct report *rep, FILE *f)
{
	const struct hot_stats *st = &d->st;
	struct json j;

	json_init(&j, f, true);
	json_obj_begin(&j);
	json_key(&j, "tool");
	json_str(&j, "sonde hot");
	json_key(&j, "schema");
	json_u64(&j, 1);
	json_key(&j, "event");
	json_str(&j, o->event);
	json_key(&j, "frequency_hz");
	json_u64(&j, o->freq);
	json_key(&j, "duration_ns");
	json_u64(&j, st->elapsed_ns);
	json_key(&j, "cpus");
	json_arr_begin(&j);
	for (int c = 0; c < o->ncpus; c++)
		if (o->cpus[c])
			json_u64(&j, c);
	json_arr_end(&j);
	json_key(&j, "aggregate");
	json_str(&j, agg_name(o->agg));
	json_key(&j, "samples");
	json_u64(&j, rep->total);
	json_key(&j, "dropped_idle");
	json_u64(&j, st->idle);
	json_key(&j, "dropped_other_processes");
	json_u64(&j, st->other);
	json_key(&j, "lost");
	json_u64(&j, st->lost);
	json_key(&j, "throttled");
	json_u64(&j, st->throttled);
	json_key(&j, "unknown");
	json_u64(&j, rep->unknown);
	if (st->own) {
		json_key(&j, "dropped_own");
		json_u64(&j, st->own);
	}
	if (st->user) {
		json_key(&j, "dropped_user_mode");
		json_u64(&j, st->user);
	}
	json_key(&j, "interrupted");
	json_bool(&j, st->interrupted);
	json_key(&j, "rows");
	json_arr_begin(&j);
	for (size_t i = 0; i < shown_rows(o, rep); i++) {
		const struct row *r = rep->rows[i];

		json_obj_begin(&j);
		json_key(&j, "module");
		json_str(&j, r->module);
		if (r->method) {
			json_key(&j, "method");
			json_str(&j, r->method);
		}
		if (r->shown) {
			json_key(&j, "demangled");
			json_str(&j, r->shown);
		}
		json_key(&j, "calls");
		json_u64(&j, r->calls);
		json_key(&j, "share");
		json_double(&j, share(r->calls, rep->total), 4);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	if (o->stacks) {
		json_key(&j, "stacks");
		json_arr_begin(&j);
		for (size_t i = 0; i < rep->nstacks; i++) {
			json_obj_begin(&j);
			json_key(&j, "frames");
			json_arr_begin(&j);
			for (size_t k = 0; k < rep->stacks[i].n; k++)
				json_str(&j, rep->stacks[i].frames[k]);
			json_arr_end(&j);
			json_key(&j, "count");
			json_u64(&j, rep->stacks[i].count);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	}
	json_obj_end(&j);
	json_end(&j);
}

static void warn_losses(const struct hot_data *d)
{
	if (d->st.lost)
		sd_warn("%llu samples lost: the ring buffer overflowed",
			(unsigned long long)d->st.lost);
	if (d->st.throttled)
		sd_warn("the kernel throttled sampling %llu times "
			"(kernel.perf_cpu_time_max_percent); shares are still "
			"comparable, totals are low",
			(unsigned long long)d->st.throttled);
	if (d->st.bad)
		sd_warn("%llu malformed sample records skipped",
			(unsigned long long)d->st.bad);
}

/* ---- pprof ---- */

/* Synthetic address ranges for pprof's mappings: hot keeps user frames as
 * (file, offset), so each file gets its own range above user space
 * (address = base + file offset), anonymous code keeps its address below
 * 2^48, the kernel its own from 2^63. */
#define PP_FILE_BASE(i) ((uint64_t)((i) + 1) << 48)
#define PP_KERNEL_START (1ull << 63)

struct pp {
	struct pprof p;
	struct resolver *r;
	unsigned kinds;
	struct htab locs;	/* frame -> struct pp_loc */
	uint64_t kernel_map, anon_map;
	uint64_t *file_maps;	/* by procmaps file index; 0: not yet */
	size_t nfile_maps;
};

struct pp_loc {
	uint64_t frame, id;
};

static bool pp_loc_eq(const void *val, const void *key)
{
	return ((const struct pp_loc *)val)->frame == *(const uint64_t *)key;
}

static uint64_t pp_mapping(struct pp *x, uint32_t file)
{
	struct pprof_mapping m = { 0 };
	struct sym_file_info fi;
	struct procmaps *pm = symbolizer_maps(x->r->d->sym);

	if (file == PROCMAPS_ANON) {
		if (!x->anon_map) {
			m.start = 0;
			m.limit = 1ull << 48;
			m.file = pprof_str(&x->p, "[anon]");
			m.build_id = pprof_str(&x->p, "");
			x->anon_map = pprof_add_mapping(&x->p, &m);
		}
		return x->anon_map;
	}
	if (file >= x->nfile_maps) {
		x->file_maps = sd_realloc(x->file_maps,
					  (file + 1) * sizeof(*x->file_maps));
		memset(x->file_maps + x->nfile_maps, 0,
		       (file + 1 - x->nfile_maps) * sizeof(*x->file_maps));
		x->nfile_maps = file + 1;
	}
	if (!x->file_maps[file]) {
		symbolizer_file_info(x->r->d->sym, file, &fi);
		m.start = PP_FILE_BASE(file);
		m.limit = PP_FILE_BASE(file) + (1ull << 48) - 1;
		m.offset = 0;
		m.file = pprof_str(&x->p, procmaps_file(pm, file));
		m.build_id = pprof_str(&x->p, fi.build_id);
		m.has_functions = fi.has_symbols;
		x->file_maps[file] = pprof_add_mapping(&x->p, &m);
	}
	return x->file_maps[file];
}

/* The location of one frame: its function, demangled as the name and the
 * symbol as system_name; a kernel module's functions carry " [module]",
 * as prof --kernel writes them. */
static uint64_t pp_location(struct pp *x, uint64_t f)
{
	uint64_t h = hash_u64(f), mapping, addr;
	struct pp_loc *l = htab_get(&x->locs, h, pp_loc_eq, &f);
	struct frame fr;
	struct pprof_line line = { 0, 0, 0 };

	if (l)
		return l->id;
	fr = resolve(x->r, f);
	if (HOT_IS_USER(f)) {
		const struct hot_uframe *u =
			&x->r->d->uframes[f & ~HOT_USER_TAG];

		mapping = pp_mapping(x, u->file);
		addr = u->file == PROCMAPS_ANON ? u->off :
		       PP_FILE_BASE(u->file) + u->off;
	} else {
		mapping = x->kernel_map;
		addr = f;
	}
	if (fr.func) {
		char shown[DEMANGLE_MAX], name[DEMANGLE_MAX + 80], sys[600];
		const char *d = demangle_name(fr.func, x->kinds, shown,
					      sizeof(shown));
		bool mod = !HOT_IS_USER(f) && fr.module != KSYM_KERNEL;

		snprintf(name, sizeof(name), mod ? "%s [%s]" : "%s", d,
			 fr.module);
		snprintf(sys, sizeof(sys), mod ? "%s [%s]" : "%s", fr.func,
			 fr.module);
		line.function = pprof_function(&x->p, name, sys, "", 0);
	}
	l = sd_malloc(sizeof(*l));
	l->frame = f;
	l->id = pprof_location(&x->p, mapping, addr, &line, fr.func ? 1 : 0);
	htab_put(&x->locs, h, l);
	return l->id;
}

/* A process's pid in its own pid namespace (a container's), read once. */
struct nspid {
	pid_t pid, ns;
};

static bool nspid_eq(const void *val, const void *key)
{
	return ((const struct nspid *)val)->pid == *(const pid_t *)key;
}

static pid_t nspid_of(struct htab *t, pid_t pid)
{
	uint64_t h = hash_u64((uint64_t)pid);
	struct nspid *n = htab_get(t, h, nspid_eq, &pid);

	if (!n) {
		n = sd_malloc(sizeof(*n));
		n->pid = pid;
		n->ns = pid > 0 ? procmaps_nspid(pid) : 0;
		htab_put(t, h, n);
	}
	return n->ns;
}

static void render_pprof(const struct hot_opts *o, const struct hot_data *d,
			 const struct report *rep, FILE *f)
{
	struct resolver r = { .o = o, .d = (struct hot_data *)d };
	struct pp x = { .r = &r, .kinds = o->no_demangle ? 0 : DEMANGLE_ALL };
	int64_t period = (int64_t)(1000000000ull / (o->freq ? o->freq : 1));
	int64_t k_cpu, k_pid, k_tid, k_comm, k_nspid;
	struct htab nspids = { 0 };
	uint64_t *locs = NULL;
	size_t caplocs = 0, len;
	char comment[256], dur[32];
	uint8_t *buf;

	(void)rep;
	pprof_init(&x.p);
	pprof_add_type(&x.p, "samples", "count");
	pprof_add_type(&x.p, "cpu", "nanoseconds");
	pprof_set_period(&x.p, "cpu", "nanoseconds", period);
	x.p.default_type = pprof_str(&x.p, "cpu");
	x.p.time_ns = (int64_t)d->st.start_ns;
	x.p.duration_ns = (int64_t)d->st.elapsed_ns;
	snprintf(comment, sizeof(comment), "sonde hot: %s at %llu Hz on %d "
		 "CPU%s for %s%s%s; lost %llu, throttled %llu, own %llu",
		 o->event, (unsigned long long)o->freq, d->st.ncpus_sampled,
		 d->st.ncpus_sampled == 1 ? "" : "s",
		 sd_fmt_duration(d->st.elapsed_ns, dur, sizeof(dur)),
		 o->user ? ", user mode too" : "",
		 o->stacks ? ", call chains" : "",
		 (unsigned long long)d->st.lost,
		 (unsigned long long)d->st.throttled,
		 (unsigned long long)d->st.own);
	pprof_add_comment(&x.p, comment);
	{	/* the first mapping is pprof's main binary: the kernel */
		struct pprof_mapping m = { 0 };

		m.start = PP_KERNEL_START;
		m.limit = UINT64_MAX;
		m.file = pprof_str(&x.p, "[kernel.kallsyms]");
		m.build_id = pprof_str(&x.p, "");
		m.has_functions = true;
		x.kernel_map = pprof_add_mapping(&x.p, &m);
	}
	k_cpu = pprof_str(&x.p, "cpu");
	k_pid = pprof_str(&x.p, "pid");
	k_tid = pprof_str(&x.p, "tid");
	k_comm = pprof_str(&x.p, "comm");
	k_nspid = pprof_str(&x.p, "nspid");
	for (size_t i = 0; i < d->chains.cap; i++) {
		const struct hot_chain *c = d->chains.slots[i].val;
		struct pprof_label labels[5];
		int64_t vals[2];
		size_t nlabels = 4;
		pid_t ns;

		if (!c)
			continue;
		sd_grow(&locs, &caplocs, c->n, sizeof(*locs));
		for (uint32_t k = 0; k < c->n; k++)
			locs[k] = pp_location(&x, c->f[k]);
		labels[0] = (struct pprof_label){ k_cpu, 0, c->cpu, 0 };
		labels[1] = (struct pprof_label){ k_pid, 0, c->pid, 0 };
		labels[2] = (struct pprof_label){ k_tid, 0, c->tid, 0 };
		labels[3] = (struct pprof_label){ k_comm,
			pprof_str(&x.p, hot_data_comm((struct hot_data *)d,
						      c->pid, c->tid, NULL)),
			0, 0 };
		/* in a container: the pid it knows itself by, too */
		if ((ns = nspid_of(&nspids, c->pid)))
			labels[nlabels++] = (struct pprof_label){ k_nspid, 0,
								  ns, 0 };
		vals[0] = (int64_t)c->count;
		vals[1] = (int64_t)c->count * period;
		pprof_add_sample(&x.p, locs, c->n, vals, labels, nlabels);
	}
	for (size_t i = 0; i < nspids.cap; i++)
		free(nspids.slots[i].val);
	htab_free(&nspids);
	buf = pprof_encode_gzip(&x.p, &len);
	fwrite(buf, 1, len, f);
	free(buf);
	free(locs);
	for (size_t i = 0; i < x.locs.cap; i++)
		free(x.locs.slots[i].val);
	htab_free(&x.locs);
	free(x.file_maps);
	pprof_free(&x.p);
}

/* One output, rendered in memory first so that a failure to write it
 * loses nothing: to stdout, or into of (NULL: stdout). */
typedef void (*render_fn)(const struct hot_opts *o, const struct hot_data *d,
			  const struct report *rep, FILE *f);

static void render_main(const struct hot_opts *o, const struct hot_data *d,
			const struct report *rep, FILE *f)
{
	switch (o->format) {
	case HOT_FMT_TABLE:
		write_table(o, d, rep, f);
		break;
	case HOT_FMT_FOLDED:
		flame_write_folded(f, rep->shown, rep->nshown);
		break;
	case HOT_FMT_JSON:
		write_json(o, d, rep, f);
		break;
	case HOT_FMT_PPROF:
		render_pprof(o, d, rep, f);
		break;
	}
}

static void render_svg(const struct hot_opts *o, const struct hot_data *d,
		       const struct report *rep, FILE *f)
{
	char sub[160], dur[32];

	snprintf(sub, sizeof(sub), "%llu samples in %s on %d CPUs (%s, %llu Hz)",
		 (unsigned long long)rep->total,
		 sd_fmt_duration(d->st.elapsed_ns, dur, sizeof(dur)),
		 d->st.ncpus_sampled, o->event, (unsigned long long)o->freq);
	flame_write_svg(f, rep->shown, rep->nshown, "sonde hot", sub);
}

/* Where an output that could not be written is kept instead:
 * $TMPDIR/sonde-hot.PID.N.EXT (another file system than the one that
 * failed, as a rule). Its path in buf, or "" when that failed too. */
static void rescue(const char *buf, size_t len, const char *ext,
		   char *path, size_t plen)
{
	const char *dir = getenv("TMPDIR");
	static int n;
	FILE *f;

	snprintf(path, plen, "%s/sonde-hot.%d.%d.%s", dir && *dir ? dir : "/tmp",
		 (int)getpid(), n++, ext);
	f = fopen(path, "wx");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		if (f)
			fclose(f);
		unlink(path);
		path[0] = '\0';
	}
}

static int emit(const struct hot_opts *o, const struct hot_data *d,
		const struct report *rep, render_fn fn, struct sd_outfile *of,
		const char *ext)
{
	char *buf = NULL, kept[4200];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err;

	fn(o, d, rep, m);
	fclose(m);
	if (!of) {
		fwrite(buf, 1, len, stdout);
		err = fflush(stdout) ? -errno : 0;
		free(buf);
		return err;
	}
	err = sd_outfile_write(of, buf, len);
	if (!err)
		err = sd_outfile_close(of);
	else
		sd_outfile_discard(of);
	if (err) {
		rescue(buf, len, ext, kept, sizeof(kept));
		if (kept[0]) {
			if (sd_outfile_kept(of))
				unlink(sd_outfile_kept(of));
			sd_err("cannot write %s: %s; it is in %s instead",
			       of->path, strerror(-err), kept);
		} else {
			sd_err("cannot write %s: %s%s%s", of->path,
			       strerror(-err),
			       sd_outfile_kept(of) ? "; what was written is in " : "",
			       sd_outfile_kept(of) ? sd_outfile_kept(of) : "");
		}
	}
	sd_outfile_free(of);
	free(buf);
	return err;
}

int hot_report_to(const struct hot_opts *o, struct hot_data *d,
		  struct hot_ksyms *ks, struct sd_outfile *out,
		  struct sd_outfile *svg)
{
	struct resolver r = { .o = o, .d = d };
	struct report rep = { 0 };
	static const char *const ext[] = { "txt", "folded", "json", "pb.gz" };
	int ret;

	symbolizer_use_kernel(d->sym, ks->tab, ks->path != NULL);
	build(&r, &rep);
	warn_losses(d);
	ret = emit(o, d, &rep, render_main, out, ext[o->format]);
	if (svg && emit(o, d, &rep, render_svg, svg, "svg"))
		ret = -EIO;
	report_free(&rep);
	return ret ? -EIO : 0;
}

int hot_open_output(const char *path, struct sd_outfile *of)
{
	int err = sd_outfile_open(of, path, 0644, 0);

	if (err)
		sd_err("cannot write %s: %s", path, strerror(-err));
	return err;
}

int hot_report(const struct hot_opts *o, struct hot_data *d,
	       struct hot_ksyms *ks)
{
	struct sd_outfile out, svg;
	bool has_out = false;

	if (o->out_path && strcmp(o->out_path, "-")) {
		if (hot_open_output(o->out_path, &out))
			return -EIO;
		has_out = true;
	}
	if (o->svg_path && hot_open_output(o->svg_path, &svg)) {
		if (has_out) {
			sd_outfile_discard(&out);
			sd_outfile_free(&out);
		}
		return -EIO;
	}
	return hot_report_to(o, d, ks, has_out ? &out : NULL,
			     o->svg_path ? &svg : NULL);
}
