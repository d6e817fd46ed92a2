// SPDX-License-Identifier: GPL-2.0-only
/* script — one D script run by sonde agent, and the scrape. A script is
 * compiled by src/dtrace as `sonde dtrace -q -s` would; each of its
 * aggregations becomes one metric family: count() and sum() counters,
 * min(), max(), avg() and stddev() gauges, quantize(), lquantize() and
 * llquantize() histograms whose buckets are DTrace's (cumulative `le`
 * bounds: a bucket's largest value), keys as labels. Values are read from
 * the maps on every scrape, merged as printa() merges them, and never
 * reset by reading; trunc() and clear() reset them (a counter reset to
 * Prometheus). */
#include "agent.h"
#include "../dtrace/agg.h"
#include "../dtrace/snapshot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

static const char *fn_name(enum dt_aggfn fn)
{
	static const char *const names[] = {
		[AGG_COUNT] = "count()", [AGG_SUM] = "sum()",
		[AGG_AVG] = "avg()", [AGG_MIN] = "min()", [AGG_MAX] = "max()",
		[AGG_STDDEV] = "stddev()", [AGG_QUANTIZE] = "quantize()",
		[AGG_LQUANTIZE] = "lquantize()",
		[AGG_LLQUANTIZE] = "llquantize()",
	};
	return fn < ARRAY_SIZE(names) && names[fn] ? names[fn] : "?";
}

/* ---- histogram buckets ---- */

static int bucket_of(const struct dt_var *v, int64_t x)
{
	switch (v->fn) {
	case AGG_QUANTIZE:
		return dt_quantize_bucket(x);
	case AGG_LQUANTIZE:
		return dt_lquantize_bucket(v->qarg[0], v->qarg[2], v->qarg[3],
					   x);
	default:
		return dt_llquantize_bucket(v->qarg[0], v->qarg[1], v->qarg[2],
					    v->qarg[3], x);
	}
}

/* The smallest value in bucket b or past it (the bucket functions never
 * decrease). */
static int64_t lower_of(const struct dt_var *v, int b)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	if (bucket_of(v, lo) >= b)
		return lo;
	/* bucket(lo) < b <= bucket(hi); differences taken unsigned */
	while ((uint64_t)hi - (uint64_t)lo > 1) {
		int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);

		if (bucket_of(v, mid) >= b)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static void hist_bounds(struct ag_family *f)
{
	const struct dt_var *v = f->v;
	int n = dt_agg_words(v);

	f->nbuckets = n;
	f->upper = sd_calloc((size_t)n, sizeof(*f->upper));
	f->near0 = sd_calloc((size_t)n, sizeof(*f->near0));
	f->lo = f->hi = -1;
	for (int b = 0; b < n; b++) {
		int64_t lo = b ? lower_of(v, b) : INT64_MIN;

		f->upper[b] = b + 1 < n ? lower_of(v, b + 1) - 1 : INT64_MAX;
		f->near0[b] = lo >= 0 ? lo : f->upper[b] <= 0 ? f->upper[b] : 0;
		if (b == 0)
			f->near0[b] = f->upper[b] < 0 ? f->upper[b] : 0;
	}
}

/* ---- compiling ---- */

static const char *stem(const char *path, size_t *len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 2 && !strcmp(b + n - 2, ".d"))
		n -= 2;
	*len = n;
	return b;
}

static char *msgf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *msgf(const char *fmt, ...)
{
	struct sbuf sb;
	va_list ap;

	sbuf_init(&sb);
	va_start(ap, fmt);
	sbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	return sbuf_steal(&sb);
}

static void free_family(struct ag_family *f)
{
	free(f->agg);
	free(f->name);
	free(f->help);
	for (int i = 0; f->labels && i < f->nlabels; i++)
		free(f->labels[i]);
	free(f->labels);
	free(f->upper);
	free(f->near0);
}

/* The families of sc's aggregations, named by the pragmas or by default. */
static int make_families(struct ag_script *sc, struct ag_pragma *pr, int npr,
			 char **msg)
{
	bool *used = sd_calloc((size_t)npr + 1, sizeof(bool));
	size_t cap = 0;

	for (struct dt_var *v = sc->s.prog.vars; v; v = v->next) {
		struct ag_pragma *p = NULL;
		struct ag_family f = { .v = v };
		bool hist = dt_agg_is_hist(v);
		const char *an = v->name[0] == '@' ? v->name + 1 : v->name;
		size_t sl;
		const char *st = stem(sc->path, &sl);
		char *base;

		if (v->scope != DT_AGGVAR)
			continue;
		for (int i = 0; i < npr; i++)
			if (!strcmp(pr[i].agg, an)) {
				p = &pr[i];
				used[i] = true;
			}
		f.agg = sd_strdup(*an ? v->name : "@");
		if (p && p->nlabels >= 0 && p->nlabels != v->nkeys) {
			*msg = msgf("%s:%d: #pragma sonde: %s has %d key%s, "
				    "labels() names %d\n", sc->path, p->line,
				    f.agg, v->nkeys, v->nkeys == 1 ? "" : "s",
				    p->nlabels);
			free_family(&f);
			goto fail;
		}
		if (p && p->type >= 0 && hist) {
			*msg = msgf("%s:%d: #pragma sonde: %s is a %s "
				    "histogram; type() is for scalars\n",
				    sc->path, p->line, f.agg, fn_name(v->fn));
			free_family(&f);
			goto fail;
		}
		f.type = hist ? AG_HISTOGRAM :
			 p && p->type >= 0 ? (enum ag_type)p->type :
			 v->fn == AGG_COUNT || v->fn == AGG_SUM ? AG_COUNTER :
			 AG_GAUGE;
		if (p && p->name) {
			base = sd_strdup(p->name);
		} else {
			char *raw = *an ? msgf("sonde_%s", an) :
				    msgf("sonde_%.*s", (int)sl, st);

			base = ag_metric_name(raw);
			free(raw);
		}
		if (f.type == AG_COUNTER && (strlen(base) < 6 ||
		    strcmp(base + strlen(base) - 6, "_total"))) {
			f.name = msgf("%s_total", base);
			free(base);
		} else {
			f.name = base;
		}
		f.labels = sd_calloc((size_t)v->nkeys + 1, sizeof(char *));
		f.nlabels = v->nkeys;
		for (int k = 0; k < v->nkeys; k++)
			f.labels[k] = p && p->nlabels >= 0 ?
				      sd_strdup(p->labels[k]) : msgf("key%d", k);
		if (p && p->help)
			f.help = sd_strdup(p->help);
		else
			f.help = msgf("%s of %s in %s", fn_name(v->fn), f.agg,
				      sc->path);
		if (hist)
			hist_bounds(&f);
		sd_grow(&sc->fams, &cap, (size_t)sc->nfams + 1,
			sizeof(*sc->fams));
		sc->fams[sc->nfams++] = f;
	}
	for (int i = 0; i < npr; i++)
		if (!used[i]) {
			*msg = msgf("%s:%d: #pragma sonde: no aggregation @%s "
				    "in the script\n", sc->path, pr[i].line,
				    pr[i].agg);
			goto fail;
		}
	free(used);
	return 0;
fail:
	free(used);
	return -1;
}

struct ag_script *ag_script_compile(const char *path, char **msg)
{
	struct ag_script *sc = sd_calloc(1, sizeof(*sc));
	struct ag_pragma *pr = NULL;
	char err[512];
	size_t len;
	char *text;
	int npr = 0;

	*msg = NULL;
	sc->path = sd_strdup(path);
	text = sd_read_file(path, &len);
	if (!text) {
		*msg = msgf("cannot read %s: %s\n", path, strerror(errno));
		goto fail;
	}
	if (ag_pragmas_parse(path, text, &pr, &npr, err, sizeof(err))) {
		*msg = msgf("%s\n", err);
		goto fail;
	}
	dt_session_init(&sc->s);
	sc->session = true;
	sc->s.opt.quiet = true;	/* printf() output only, as with -q */
	/* The ring buffer carries only printf() and the like, drained at
	 * once; its pages are mapped (and resident) in the agent: 32 KiB
	 * rather than dtrace's 256 KiB (#pragma D option bufsize= sets it). */
	sc->s.opt.bufsize = 32 << 10;
	dt_session_add(&sc->s, path, text, len, 's');
	if (dt_compile(&sc->s)) {
		*msg = dt_compile_message(&sc->s);
		goto fail;
	}
	if (make_families(sc, pr, npr, msg))
		goto fail;
	free(text);
	ag_pragmas_free(pr, npr);
	return sc;
fail:
	free(text);
	ag_pragmas_free(pr, npr);
	ag_script_free(sc);
	return NULL;
}

int ag_script_start(struct ag_script *sc, char **msg)
{
	char err[512];

	*msg = NULL;
	if (dt_load(&sc->s, msg)) {
		if (!*msg)
			*msg = msgf("%s: cannot load the programs\n", sc->path);
		return -1;
	}
	sc->loaded = true;
	if (dt_consume_open(&sc->s)) {
		*msg = msgf("%s: cannot read the BPF ring buffer: %s\n",
			    sc->path, strerror(errno));
		return -1;
	}
	if (dt_fire(&sc->s, sc->s.begin)) {
		*msg = msgf("%s: cannot run BEGIN: %s\n", sc->path,
			    strerror(errno));
		return -1;
	}
	if (sc->s.done) {
		sc->exited = true;
		return 0;
	}
	if (dt_attach(&sc->s, err, sizeof(err))) {
		*msg = msgf("%s: %s\n", sc->path, err);
		return -1;
	}
	return 0;
}

void ag_script_consume(struct ag_script *sc)
{
	if (!sc->loaded || !sc->s.rb || sc->exited)
		return;
	dt_consume(&sc->s, 0);
	if (sc->s.done) {
		dt_detach(&sc->s);
		sc->exited = true;
		sd_warn("%s called exit(%d): its probes are detached, its "
			"metrics keep their last values", sc->path,
			sc->s.status);
	}
}

void ag_script_free(struct ag_script *sc)
{
	if (!sc)
		return;
	if (sc->loaded) {
		dt_detach(&sc->s);
		if (sc->s.rb) {
			FILE *null = fopen("/dev/null", "w");

			if (!sc->exited && dt_fire(&sc->s, sc->s.end))
				sd_warn("%s: cannot run END: %s", sc->path,
					strerror(errno));
			fflush(sc->s.out);
			/* what dt_consume_finish prints is not wanted here:
			 * the metrics had it */
			if (null)
				sc->s.out = null;
			dt_consume_finish(&sc->s);
			sc->s.out = stdout;
			if (null)
				fclose(null);
		}
		dt_unload(&sc->s);
	}
	for (int i = 0; i < sc->nfams; i++)
		free_family(&sc->fams[i]);
	free(sc->fams);
	if (sc->session) {
		dt_stacks_free(&sc->s);
		dt_session_free(&sc->s);
	}
	free(sc->path);
	free(sc);
}

/* ---- names ---- */

/* The agent's own metrics: no family of a script may take these. */
static const char *const own_names[] = {
	"process_cpu_seconds_total", "process_resident_memory_bytes",
	"process_start_time_seconds", "process_open_fds",
};

/* The sample names a family writes (and OpenMetrics' family name). */
static int owned(const struct ag_family *f, char out[4][256])
{
	size_t n = strlen(f->name);

	snprintf(out[0], 256, "%s", f->name);
	if (f->type == AG_COUNTER) {
		snprintf(out[1], 256, "%.*s", (int)(n - 6), f->name);
		return 2;
	}
	if (f->type == AG_HISTOGRAM) {
		snprintf(out[1], 256, "%s_bucket", f->name);
		snprintf(out[2], 256, "%s_sum", f->name);
		snprintf(out[3], 256, "%s_count", f->name);
		return 4;
	}
	return 1;
}

int ag_scripts_check_names(struct ag_script *const *v, int n, char *err,
			   size_t len)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < v[i]->nfams; j++) {
			const struct ag_family *f = &v[i]->fams[j];
			char a[4][256], b[4][256];
			int na = owned(f, a);

			if (!strncmp(f->name, "sonde_agent_", 12) ||
			    !strncmp(f->name, "process_", 8)) {
				for (size_t k = 0; k < ARRAY_SIZE(own_names); k++)
					if (strcmp(f->name, own_names[k]) &&
					    strncmp(f->name, "sonde_agent_", 12))
						continue;
					else
						goto reserved;
				continue;
reserved:
				snprintf(err, len, "%s: %s: metric name %s is "
					 "the agent's own (rename it with "
					 "#pragma sonde metric %s name(...))",
					 v[i]->path, f->agg, f->name,
					 f->agg[1] ? f->agg + 1 : "@");
				return -1;
			}
			for (int i2 = i; i2 < n; i2++)
				for (int j2 = i2 == i ? j + 1 : 0;
				     j2 < v[i2]->nfams; j2++) {
					const struct ag_family *g =
						&v[i2]->fams[j2];
					int nb = owned(g, b);

					for (int x = 0; x < na; x++)
						for (int y = 0; y < nb; y++)
							if (!strcmp(a[x], b[y]))
								goto clash;
					continue;
clash:
					snprintf(err, len, "%s: %s and %s: %s "
						 "both make metrics named %s "
						 "(rename one with #pragma "
						 "sonde metric AGG name(...))",
						 v[i]->path, f->agg,
						 i2 == i ? g->agg : v[i2]->path,
						 i2 == i ? "" : g->agg,
						 f->name);
					return -1;
				}
		}
	return 0;
}

/* ---- the scrape ---- */

struct walk {
	struct ag_family *f;
	struct ag_expo *e;
	struct sbuf lbl;
	const char **vals;
	int64_t *ints;
	bool *sign;
	size_t entries;		/* map entries seen */
	bool widened;		/* a histogram needs more buckets */
};

/* An integer key as its type reads: sign- or zero-extended from size. */
static int64_t key_int(const struct dt_key *k, uint64_t v)
{
	int bits = k->size && k->size < 8 ? k->size * 8 : 64;

	if (bits == 64)
		return (int64_t)v;
	v &= (1ull << bits) - 1;
	if (k->sign && (v >> (bits - 1)))
		v |= ~0ull << bits;
	return (int64_t)v;
}

static void write_hist(struct walk *w, const int64_t *val)
{
	struct ag_family *f = w->f;
	struct ag_expo *e = w->e;
	char le[64];
	int64_t cum = 0, prev = 0;
	double sum = 0;
	bool any = false;

	for (int b = 0; b < f->nbuckets; b++) {
		if (!val[b])
			continue;
		sum += (double)val[b] * (double)f->near0[b];
		cum += val[b];
		if (f->lo < 0 || b < f->lo || b > f->hi) {
			w->widened = true;
			if (f->lo < 0 || b < f->lo)
				f->lo = b;
			if (f->hi < 0 || b > f->hi)
				f->hi = b;
		}
	}
	if (w->widened)
		return;		/* written again on the next pass */
	int64_t total = cum;

	cum = 0;
	for (int b = f->lo; b >= 0 && b <= f->hi; b++) {
		cum += val[b];
		if (b == f->nbuckets - 1)
			break;	/* its bound is +Inf */
		if (any && f->upper[b] == prev)
			continue;	/* a bucket no value reaches */
		ag_expo_le(e, f->upper[b], false, le, sizeof(le));
		ag_expo_sample_int(e, f->name, "_bucket", w->lbl.buf, le, cum);
		prev = f->upper[b];
		any = true;
	}
	ag_expo_le(e, 0, true, le, sizeof(le));
	ag_expo_sample_int(e, f->name, "_bucket", w->lbl.buf, le, total);
	/* OpenMetrics: no _sum when a bucket bound is negative */
	if (!e->om || f->lo < 0 || f->upper[f->lo] >= 0)
		ag_expo_sample(e, f->name, "_sum", w->lbl.buf, NULL, sum);
	ag_expo_sample_int(e, f->name, "_count", w->lbl.buf, NULL, total);
}

static int write_entry(void *ctx, const struct dt_aggkey *keys,
		       const int64_t *val, size_t nraw)
{
	struct walk *w = ctx;
	struct ag_family *f = w->f;
	const struct dt_var *v = f->v;

	w->entries += nraw;
	for (int k = 0; k < v->nkeys; k++) {
		w->vals[k] = keys[k].is_str ? keys[k].s : NULL;
		w->ints[k] = key_int(&v->keys[k], keys[k].v);
		w->sign[k] = v->keys[k].sign;
	}
	sbuf_reset(&w->lbl);
	ag_expo_labelset(&w->lbl, f->labels, w->vals, w->ints, w->sign,
			 v->nkeys);
	sbuf_putc(&w->lbl, '\0');
	switch (v->fn) {
	case AGG_COUNT:
	case AGG_SUM:
		ag_expo_sample_int(w->e, f->name, NULL, w->lbl.buf, NULL,
				   val[0]);
		break;
	case AGG_MIN:
	case AGG_MAX:
		if (val[1])	/* cleared: no value until the next one */
			ag_expo_sample_int(w->e, f->name, NULL, w->lbl.buf,
					   NULL, val[0]);
		break;
	case AGG_AVG:
		if (val[0])
			ag_expo_sample(w->e, f->name, NULL, w->lbl.buf, NULL,
				       (double)val[1] / (double)val[0]);
		break;
	case AGG_STDDEV:
		if (val[0])
			ag_expo_sample(w->e, f->name, NULL, w->lbl.buf, NULL,
				       (double)(uint64_t)dt_agg_scalar(v, val,
								       1));
		break;
	default:
		write_hist(w, val);
	}
	return 0;
}

static void write_family(struct ag_script *sc, struct ag_family *f,
			 struct ag_expo *e, size_t *entries)
{
	struct walk w = { .f = f, .e = e };
	int nk = f->v->nkeys + 1;
	size_t start = e->sb.len;

	sbuf_init(&w.lbl);
	w.vals = sd_calloc((size_t)nk, sizeof(*w.vals));
	w.ints = sd_calloc((size_t)nk, sizeof(*w.ints));
	w.sign = sd_calloc((size_t)nk, sizeof(*w.sign));
	/* A histogram whose buckets widen is read again: every series of a
	 * family shows the same bounds. The range only grows, so this ends. */
	for (int pass = 0; pass < 2 * f->nbuckets + 2; pass++) {
		e->sb.len = start;
		ag_expo_head(e, f->name, f->type, f->help);
		w.entries = 0;
		w.widened = false;
		dt_agg_foreach(&sc->s, f->v, write_entry, &w);
		if (!w.widened)
			break;
	}
	*entries = w.entries;
	sbuf_free(&w.lbl);
	free(w.vals);
	free(w.ints);
	free(w.sign);
}

/* ---- the agent's own metrics ---- */

static void own_metrics(struct agent *a, struct ag_expo *e, uint64_t t0,
			size_t **entries)
{
	struct sbuf l;
	struct rusage ru;
	char *names[3] = { "script", "aggregation", "kind" };
	const char *vals[3];
	long rss_pages = 0;
	char *statm = sd_read_file("/proc/self/statm", NULL);

	sbuf_init(&l);
	if (statm)
		sscanf(statm, "%*d %ld", &rss_pages);
	free(statm);

	ag_expo_head(e, "sonde_agent_scripts", AG_GAUGE,
		     "D scripts loaded");
	ag_expo_sample_int(e, "sonde_agent_scripts", NULL, NULL, NULL,
			   a->nscripts);

	ag_expo_head(e, "sonde_agent_programs_attached", AG_GAUGE,
		     "BPF programs attached per script (0 once it called "
		     "exit())");
	for (int i = 0; i < a->nscripts; i++) {
		vals[0] = a->scripts[i]->path;
		sbuf_reset(&l);
		ag_expo_labelset(&l, names, vals, NULL, NULL, 1);
		sbuf_putc(&l, '\0');
		ag_expo_sample_int(e, "sonde_agent_programs_attached", NULL,
				   l.buf, NULL, dt_attached(&a->scripts[i]->s));
	}

	ag_expo_head(e, "sonde_agent_map_entries", AG_GAUGE,
		     "entries in an aggregation's BPF map");
	for (int i = 0; i < a->nscripts; i++)
		for (int j = 0; j < a->scripts[i]->nfams; j++) {
			vals[0] = a->scripts[i]->path;
			vals[1] = a->scripts[i]->fams[j].agg;
			sbuf_reset(&l);
			ag_expo_labelset(&l, names, vals, NULL, NULL, 2);
			sbuf_putc(&l, '\0');
			ag_expo_sample_int(e, "sonde_agent_map_entries", NULL,
					   l.buf, NULL,
					   (int64_t)entries[i][j]);
		}
	ag_expo_head(e, "sonde_agent_map_capacity", AG_GAUGE,
		     "the most entries an aggregation's BPF map holds "
		     "(aggsize)");
	for (int i = 0; i < a->nscripts; i++)
		for (int j = 0; j < a->scripts[i]->nfams; j++) {
			vals[0] = a->scripts[i]->path;
			vals[1] = a->scripts[i]->fams[j].agg;
			sbuf_reset(&l);
			ag_expo_labelset(&l, names, vals, NULL, NULL, 2);
			sbuf_putc(&l, '\0');
			ag_expo_sample_int(e, "sonde_agent_map_capacity", NULL,
					   l.buf, NULL,
					   dt_agg_capacity(&a->scripts[i]->s,
							   a->scripts[i]->
							   fams[j].v));
		}

	ag_expo_head(e, "sonde_agent_drops_total", AG_COUNTER,
		     "data a script's probes could not record: buffer (ring "
		     "buffer full), aggregation (map full), dynamic "
		     "(thread-local or array map full), speculative");
	for (int i = 0; i < a->nscripts; i++) {
		static const char *const kinds[] = {
			"buffer", "aggregation", "dynamic", "speculative",
		};
		struct dt_drops d;
		uint64_t n[4];

		dt_drop_counts(&a->scripts[i]->s, &d);
		n[0] = d.drops;
		n[1] = d.aggdrops;
		n[2] = d.dyndrops;
		n[3] = d.specdrops;
		for (int k = 0; k < 4; k++) {
			char *nm[2] = { names[0], names[2] };

			vals[0] = a->scripts[i]->path;
			vals[1] = kinds[k];
			sbuf_reset(&l);
			ag_expo_labelset(&l, nm, vals, NULL, NULL, 2);
			sbuf_putc(&l, '\0');
			ag_expo_sample_int(e, "sonde_agent_drops_total", NULL,
					   l.buf, NULL, (int64_t)n[k]);
		}
	}
	ag_expo_head(e, "sonde_agent_probe_errors_total", AG_COUNTER,
		     "probe faults (DTrace's \"error on enabled probe\")");
	for (int i = 0; i < a->nscripts; i++) {
		vals[0] = a->scripts[i]->path;
		sbuf_reset(&l);
		ag_expo_labelset(&l, names, vals, NULL, NULL, 1);
		sbuf_putc(&l, '\0');
		ag_expo_sample_int(e, "sonde_agent_probe_errors_total", NULL,
				   l.buf, NULL, (int64_t)a->scripts[i]->s.errors);
	}

	ag_expo_head(e, "sonde_agent_reloads_total", AG_COUNTER,
		     "script reloads (SIGHUP) by result");
	ag_expo_sample_int(e, "sonde_agent_reloads_total", NULL,
			   "result=\"success\"", NULL, (int64_t)a->reloads_ok);
	ag_expo_sample_int(e, "sonde_agent_reloads_total", NULL,
			   "result=\"failure\"", NULL,
			   (int64_t)a->reloads_failed);
	ag_expo_head(e, "sonde_agent_last_reload_successful", AG_GAUGE,
		     "1 when the last reload compiled and attached every "
		     "script (or none happened)");
	ag_expo_sample_int(e, "sonde_agent_last_reload_successful", NULL, NULL,
			   NULL, a->last_reload_ok);

	ag_expo_head(e, "sonde_agent_info", AG_GAUGE,
		     "the agent's version");
	ag_expo_sample_int(e, "sonde_agent_info", NULL,
			   "version=\"" SONDE_VERSION "\"", NULL, 1);

	getrusage(RUSAGE_SELF, &ru);
	ag_expo_head(e, "process_cpu_seconds_total", AG_COUNTER,
		     "user and system CPU time of the agent");
	ag_expo_sample(e, "process_cpu_seconds_total", NULL, NULL, NULL,
		       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
		       1e6);
	ag_expo_head(e, "process_resident_memory_bytes", AG_GAUGE,
		     "resident memory of the agent");
	ag_expo_sample_int(e, "process_resident_memory_bytes", NULL, NULL,
			   NULL, (int64_t)rss_pages * sysconf(_SC_PAGESIZE));
	ag_expo_head(e, "process_start_time_seconds", AG_GAUGE,
		     "when the agent started, seconds since the epoch");
	ag_expo_sample(e, "process_start_time_seconds", NULL, NULL, NULL,
		       (double)a->start_unix);

	ag_expo_head(e, "sonde_agent_scrape_duration_seconds", AG_GAUGE,
		     "time this scrape took to read every aggregation");
	ag_expo_sample(e, "sonde_agent_scrape_duration_seconds", NULL, NULL,
		       NULL, (double)(sd_now_ns() - t0) / 1e9);
	sbuf_free(&l);
}

char *ag_scrape(struct agent *a, bool om, size_t *len)
{
	struct ag_expo e = { .om = om };
	uint64_t t0 = sd_now_ns();
	size_t **entries;
	int n;

	sbuf_init(&e.sb);
	pthread_mutex_lock(&a->lock);
	n = a->nscripts;
	entries = sd_calloc((size_t)n + 1, sizeof(*entries));
	for (int i = 0; i < a->nscripts; i++) {
		struct ag_script *sc = a->scripts[i];

		entries[i] = sd_calloc((size_t)sc->nfams + 1, sizeof(size_t));
		for (int j = 0; j < sc->nfams; j++)
			write_family(sc, &sc->fams[j], &e, &entries[i][j]);
	}
	own_metrics(a, &e, t0, entries);
	pthread_mutex_unlock(&a->lock);
	for (int i = 0; i < n; i++)
		free(entries[i]);
	free(entries);
	ag_expo_end(&e);
	*len = e.sb.len;
	sbuf_putc(&e.sb, '\0');
	return sbuf_steal(&e.sb);
}
