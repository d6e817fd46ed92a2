// SPDX-License-Identifier: GPL-2.0-only
/* consume — the user side of a running D program: records from the BPF
 * ring buffer printed as DTrace prints them (the "CPU ID FUNCTION:NAME"
 * columns unless quiet, trace() and printf() data, printa()), faults
 * reported as DTrace's "error on enabled probe" lines with the ERROR probe
 * fired, and aggregations read from their per-CPU maps, merged across
 * CPUs (and across probes whose names print alike), sorted by value then
 * key, and printed in DTrace's layout. */
#include "dtrace.h"
#include "agg.h"
#include "layout.h"
#include "fmt.h"
#include "print.h"
#include "snapshot.h"
#include "../lib/hash.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *probe_str(struct dt_session *s, uint32_t id, int which)
{
	struct dt_probe *p = dt_probe_by_id(s->provs, id);

	return p ? dt_probe_field(p, which) : "?";
}

/* probeprov, probemod, probefunc or probename of a record (which travels
 * as the probe's id) as a D string: strsize characters at most. */
static char *probe_val(struct dt_session *s, uint32_t id, int which)
{
	return sd_strndup(probe_str(s, id, which), s->prog.opt.strsize);
}

/* A string in a record: at most size bytes, NUL-terminated or not. */
static char *rec_str(const uint8_t *data, size_t size)
{
	return sd_strndup((const char *)data, strnlen((const char *)data,
						      size));
}

/* A KEY_SYM value (an address and the pid) as its text: readable for
 * people, the symbols as they are for merge keys (stacks.c). */
static char *sym_str(struct dt_session *s, const uint8_t *data, int which,
		     bool readable)
{
	uint64_t addr, pid;

	memcpy(&addr, data, 8);
	memcpy(&pid, data + 8, 8);
	return dt_sym_text(s, addr, (uint32_t)pid, which, readable);
}

/* An integer key's bits, as many as its size: dtrace-utils compares
 * keys unsigned (dt_aggregate_keycmp) and prints them from these. */
static uint64_t key_bits(const struct dt_key *k, uint64_t x)
{
	switch (k->size) {
	case 1: return (uint8_t)x;
	case 2: return (uint16_t)x;
	case 4: return (uint32_t)x;
	default: return x;
	}
}

static void print_rawbytes(FILE *f, const uint8_t *c, size_t n);

static void print_trace(struct dt_session *s, const struct dt_recval *v,
			const uint8_t *rec, uint32_t probe)
{
	FILE *f = s->out;
	bool q = s->prog.opt.quiet;

	if (v->kind == KEY_BYTES) {	/* a struct, union or array */
		print_rawbytes(f, rec + v->off, v->ssize);
		return;
	}
	if (s->prog.opt.rawbytes && v->kind == KEY_INT) {
		/* as dtrace-utils' dt_print_trace: a record's bytes */
		print_rawbytes(f, rec + v->off, v->size);
		return;
	}
	if (s->prog.opt.rawbytes && v->kind == KEY_STR) {
		print_rawbytes(f, rec + v->off, v->ssize);
		return;
	}
	if (s->prog.opt.rawbytes && v->kind == KEY_PROBESTR) {
		size_t n = s->prog.opt.strsize + 1;
		uint8_t *b = sd_calloc(1, n);
		char *str = probe_val(s, probe, v->which);

		memcpy(b, str, strlen(str));
		print_rawbytes(f, b, n);
		free(str);
		free(b);
		return;
	}

	if (v->kind == KEY_STACK) {
		uint64_t key;
		char *str;

		memcpy(&key, rec + v->off, 8);
		str = dt_stack_text(s, key, v->which, v->ssize, true);
		fprintf(f, "\n%s", str);
		free(str);
		return;
	}
	if (v->kind == KEY_SYM) {
		char *str = sym_str(s, rec + v->off, v->which, true);

		/* dtrace-utils' dt_print_sym/usym/mod/umod, quiet or not */
		fprintf(f, "  %-50s", str);
		free(str);
		return;
	}
	if (v->kind != KEY_INT) {
		char *str = v->kind == KEY_STR ? rec_str(rec + v->off, v->ssize) :
			    probe_val(s, probe, v->which);

		fprintf(f, q ? "%s" : "  %-33s", str);
		free(str);
		return;
	}
	uint64_t x;

	/* as dtrace-utils' dt_print_trace: the value's own size and
	 * signedness */
	memcpy(&x, rec + v->off, 8);
	if (v->sign) {
		switch (v->size) {
		case 1: fprintf(f, q ? "%d" : " %3d", (int)(int8_t)x); break;
		case 2: fprintf(f, q ? "%d" : " %5d", (int)(int16_t)x); break;
		case 4: fprintf(f, q ? "%d" : " %10d", (int)(int32_t)x); break;
		default: fprintf(f, q ? "%lld" : " %19lld", (long long)x);
		}
		return;
	}
	switch (v->size) {
	case 1: fprintf(f, q ? "%u" : " %3u", (unsigned)(uint8_t)x); break;
	case 2: fprintf(f, q ? "%u" : " %5u", (unsigned)(uint16_t)x); break;
	case 4: fprintf(f, q ? "%u" : " %10u", (unsigned)(uint32_t)x); break;
	default: fprintf(f, q ? "%llu" : " %20llu", (unsigned long long)x);
	}
}

static void fmt_vals(struct dt_session *s, const struct dt_action *a,
		     const uint8_t *rec,
		     uint32_t probe, struct dt_fmt_val *vals)
{
	for (int i = 0; i < a->nvals; i++) {
		const struct dt_recval *v = &a->vals[i];

		memset(&vals[i], 0, sizeof(vals[i]));
		if (v->kind == KEY_INT) {
			memcpy(&vals[i].v, rec + v->off, 8);
			vals[i].size = v->size;
			vals[i].sign = v->sign;
		} else if (v->kind == KEY_SYM) {
			vals[i].is_str = true;
			vals[i].s = sym_str(s, rec + v->off, v->which, true);
		} else if (v->kind == KEY_STACK) {
			uint64_t key;

			memcpy(&key, rec + v->off, 8);
			vals[i].is_str = true;
			vals[i].s = dt_stack_text(s, key, v->which, v->ssize,
						  true);
		} else {
			vals[i].is_str = true;
			vals[i].s = v->kind == KEY_STR ?
				    rec_str(rec + v->off, v->ssize) :
				    probe_val(s, probe, v->which);
		}
	}
}

static void free_vals(struct dt_fmt_val *vals, int n)
{
	for (int i = 0; i < n; i++)
		if (vals[i].is_str)
			free((char *)vals[i].s);
}

static void print_printf(struct dt_session *s, const struct dt_action *a,
			 const uint8_t *rec,
			 uint32_t probe, FILE *f)
{
	struct dt_fmt fmt;
	struct dt_fmt_val *vals = sd_calloc((size_t)a->nvals + 1,
					    sizeof(*vals));
	char err[128];

	if (dt_fmt_parse(a->fmt, &fmt, err, sizeof(err)) == 0) {
		fmt_vals(s, a, rec, probe, vals);
		dt_fmt_print(f, &fmt, vals, a->nvals, NULL, 0);
		free_vals(vals, a->nvals);
		dt_fmt_free(&fmt);
	}
	free(vals);
}

/* system(): the formatted command runs through /bin/sh with its output
 * where sonde's goes, before the next record prints. */
static void run_system(struct dt_session *s, const struct dt_action *a,
		       const uint8_t *rec, uint32_t probe)
{
	char *cmd = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&cmd, &len);
	pid_t pid;

	if (!m)
		return;
	print_printf(s, a, rec, probe, m);
	fclose(m);
	fflush(s->out);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(s->out), STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	else
		sd_warn("system(): cannot fork: %s", strerror(errno));
	free(cmd);
}

/* freopen(): output to the file the text names, appended to ("" is the
 * output the run began with); a file that cannot be opened, "." or ".."
 * is reported and the output stays where it was (dtrace-utils'
 * dt_freopen). */
static void do_freopen(struct dt_session *s, const struct dt_action *a,
		       const uint8_t *rec, uint32_t probe)
{
	char *path = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&path, &len), *f;

	if (!m)
		return;
	if (a->fmt[0])
		print_printf(s, a, rec, probe, m);
	fclose(m);
	fflush(s->out);
	if (!path[0]) {
		if (s->out_orig) {
			fclose(s->out);
			s->out = s->out_orig;
			s->out_orig = NULL;
		}
	} else if (!strcmp(path, ".") || !strcmp(path, "..")) {
		sd_warn("freopen(): '%s' is not a file", path);
	} else if (!(f = fopen(path, "a"))) {
		sd_warn("freopen(): cannot open '%s': %s", path,
			strerror(errno));
	} else {
		if (s->out_orig)
			fclose(s->out);
		else
			s->out_orig = s->out;
		s->out = f;
	}
	free(path);
}

/* ftruncate(): the output file emptied, written from its start again. */
static void do_ftruncate(struct dt_session *s)
{
	fflush(s->out);
	if (ftruncate(fileno(s->out), 0) == 0)
		rewind(s->out);
	else
		sd_warn("ftruncate(): %s", strerror(errno));
}

/* ---- aggregations ---- */

struct kv {
	bool is_str;
	bool is_stack;		/* s: the frames, one a line */
	uint64_t v;
	char *s;
};

struct aggent {
	struct kv *keys;
	uint8_t *ser;		/* the keys serialized: the merge key */
	size_t serlen;
	int64_t *val;		/* merged across CPUs and probes */
	int64_t *pcpu;		/* -x aggpercpu: each CPU's, merged across
				 * probes (possible CPUs x words) */
	uint8_t **raw;		/* the map keys merged into this entry */
	size_t nraw, rawcap;
};

struct aggtab {
	struct htab h;
	struct aggent **ents;
	size_t n, cap;
	const struct dt_var *v;
	int words;
};

static bool ent_eq(const void *val, const void *key)
{
	const struct aggent *a = val, *b = key;

	return a->serlen == b->serlen && !memcmp(a->ser, b->ser, a->serlen);
}

static struct aggent *add_entry(struct dt_session *s, struct aggtab *t,
			       const uint8_t *key)
{
	const struct dt_var *v = t->v;
	struct aggent e = { 0 }, *found;
	struct sbuf sb;

	e.keys = sd_calloc((size_t)v->nkeys + 1, sizeof(*e.keys));
	sbuf_init(&sb);
	for (int i = 0; i < v->nkeys; i++) {
		const struct dt_key *k = &v->keys[i];
		char *raw = NULL;
		uint64_t x;

		if (k->kind == KEY_INT) {
			memcpy(&x, key + k->off, 8);
			e.keys[i].v = x;
			sbuf_put(&sb, (char *)&x, 8);
			continue;
		}
		e.keys[i].is_str = true;
		if (k->kind == KEY_STACK) {
			/* merged by the symbols, shown readable */
			memcpy(&x, key + k->off, 8);
			e.keys[i].is_stack = true;
			raw = dt_stack_text(s, x, k->which, k->ssize, false);
			e.keys[i].s = dt_stack_text(s, x, k->which, k->ssize,
						    true);
		} else if (k->kind == KEY_SYM) {
			raw = sym_str(s, key + k->off, k->which, false);
			e.keys[i].s = sym_str(s, key + k->off, k->which, true);
		} else if (k->kind == KEY_STR) {
			e.keys[i].s = rec_str(key + k->off, k->ssize);
		} else {
			memcpy(&x, key + k->off, 8);
			e.keys[i].s = probe_val(s, (uint32_t)x, k->which);
		}
		const char *mk = raw ? raw : e.keys[i].s;

		sbuf_put(&sb, mk, strlen(mk) + 1);
		free(raw);
	}
	e.ser = sb.buf ? (uint8_t *)sb.buf : sd_calloc(1, 1);
	e.serlen = sb.len;
	uint64_t h = hash_bytes(e.ser, e.serlen, 0);

	found = htab_get(&t->h, h, ent_eq, &e);
	if (found) {
		for (int i = 0; i < v->nkeys; i++)
			free(e.keys[i].s);
		free(e.keys);
		free(e.ser);
	} else {
		found = sd_malloc(sizeof(*found));
		*found = e;
		found->val = sd_calloc((size_t)t->words, 8);
		htab_put(&t->h, h, found);
		sd_grow(&t->ents, &t->cap, t->n + 1, sizeof(*t->ents));
		t->ents[t->n++] = found;
	}
	sd_grow(&found->raw, &found->rawcap, found->nraw + 1,
		sizeof(*found->raw));
	found->raw[found->nraw] = sd_malloc((size_t)v->key_size);
	memcpy(found->raw[found->nraw++], key, (size_t)v->key_size);
	return found;
}

/* The order printa() and the end of the run print in: by value then by
 * key (keys from aggsortkeypos on), or by key then value with
 * aggsortkey; aggsortrev reverses it. */
static const struct dt_var *sort_var;
static const struct dt_options *sort_opt;

static int key_cmp(const struct aggent *a, const struct aggent *b)
{
	int n = sort_var->nkeys;
	int from = sort_opt && sort_opt->aggsortkeypos < (uint64_t)n ?
		   (int)sort_opt->aggsortkeypos : 0;

	for (int j = 0; j < n; j++) {
		int i = (from + j) % n;
		const struct kv *x = &a->keys[i], *y = &b->keys[i];
		int c;

		if (x->is_str) {
			c = strcmp(x->s, y->s);
			if (c)
				return c;
			continue;
		}
		/* unsigned, as dtrace-utils' dt_aggregate_keycmp */
		uint64_t xv = key_bits(&sort_var->keys[i], x->v),
			 yv = key_bits(&sort_var->keys[i], y->v);

		if (xv != yv)
			return xv < yv ? -1 : 1;
	}
	return 0;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct aggent *a = *(struct aggent *const *)pa;
	const struct aggent *b = *(struct aggent *const *)pb;
	int c;

	if (sort_opt && sort_opt->aggsortkey) {
		c = key_cmp(a, b);
		if (!c)
			c = dt_agg_valcmp(sort_var, a->val, b->val);
	} else {
		c = dt_agg_valcmp(sort_var, a->val, b->val);
		if (!c)
			c = key_cmp(a, b);
	}
	return sort_opt && sort_opt->aggsortrev ? -c : c;
}

/* By value only, ascending: trunc() keeps the ends of this. */
static int ent_valcmp(const void *pa, const void *pb)
{
	const struct aggent *a = *(struct aggent *const *)pa;
	const struct aggent *b = *(struct aggent *const *)pb;
	int c = dt_agg_valcmp(sort_var, a->val, b->val);

	return c ? c : key_cmp(a, b);
}

/* One map entry: its per-CPU values merged into the entry of its key. */
static void take_value(struct dt_session *s, struct aggtab *t,
		       const uint8_t *key, const uint8_t *vals, size_t vsz)
{
	struct aggent *e = add_entry(s, t, key);

	if (s->prog.opt.aggpercpu && !e->pcpu)
		e->pcpu = sd_calloc((size_t)s->possible_cpus *
				    (size_t)t->words, 8);
	for (int c = 0; c < s->possible_cpus; c++) {
		dt_agg_merge(t->v, e->val, (const int64_t *)(vals + c * vsz));
		if (e->pcpu)
			dt_agg_merge(t->v, e->pcpu + (size_t)c * t->words,
				     (const int64_t *)(vals + c * vsz));
	}
}

/* The whole map in a few bpf() calls (BPF_MAP_LOOKUP_BATCH, Linux 5.6):
 * one call per key and one per value cost about 20 ms for 10,000 keys.
 * -errno when batches are not supported and nothing was read. */
static int read_batch(struct dt_session *s, struct aggtab *t, int fd,
		      size_t vsz)
{
	const struct dt_var *v = t->v;
	uint32_t cap = 1024, count;
	uint64_t in = 0, out = 0;	/* a hash map's batch token: a u32 */
	uint8_t *keys = sd_malloc(cap * (size_t)v->key_size);
	uint8_t *vals = sd_malloc(cap * (size_t)s->possible_cpus * vsz);
	bool first = true;
	int err = 0;

	for (;;) {
		count = cap;
		if (bpf_map_lookup_batch(fd, first ? NULL : &in, &out, keys,
					 vals, &count, NULL))
			err = -errno;
		if (err == -ENOSPC && !count) {
			/* one bucket holds more than cap keys */
			cap *= 2;
			keys = sd_realloc(keys, cap * (size_t)v->key_size);
			vals = sd_realloc(vals, cap *
					  (size_t)s->possible_cpus * vsz);
			err = 0;
			continue;
		}
		if (err && err != -ENOENT && first)
			break;
		for (uint32_t i = 0; i < count; i++)
			take_value(s, t, keys + i * (size_t)v->key_size,
				   vals + i * (size_t)s->possible_cpus * vsz,
				   vsz);
		if (err)	/* -ENOENT: the end; else what was read */
			break;
		in = out;
		first = false;
	}
	free(keys);
	free(vals);
	return err == -ENOENT || !first ? 0 : err;
}

static int read_agg(struct dt_session *s, const struct dt_var *v,
		    struct aggtab *t, bool sorted)
{
	int fd = s->map_fds[DT_MAP_FIRST_VAR + v->map];
	size_t vsz = ((size_t)v->val_size + 7) & ~(size_t)7;
	uint8_t *key, *next, *vals;
	bool first = true;

	memset(t, 0, sizeof(*t));
	t->v = v;
	t->words = dt_agg_words(v);
	if (read_batch(s, t, fd, vsz) == 0)
		goto sort;
	key = sd_calloc(1, (size_t)v->key_size);
	next = sd_calloc(1, (size_t)v->key_size);
	vals = sd_calloc((size_t)s->possible_cpus, vsz);
	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		first = false;
		memcpy(key, next, (size_t)v->key_size);
		if (bpf_map_lookup_elem(fd, key, vals))
			continue;	/* deleted meanwhile */
		take_value(s, t, key, vals, vsz);
	}
	free(key);
	free(next);
	free(vals);
sort:
	sort_var = v;
	sort_opt = &s->prog.opt;
	if (t->n && sorted)
		qsort(t->ents, t->n, sizeof(*t->ents), ent_cmp);
	return 0;
}

static void free_aggtab(struct aggtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct aggent *e = t->ents[i];

		for (int k = 0; k < t->v->nkeys; k++)
			free(e->keys[k].s);
		for (size_t r = 0; r < e->nraw; r++)
			free(e->raw[r]);
		free(e->raw);
		free(e->keys);
		free(e->ser);
		free(e->val);
		free(e->pcpu);
		free(e);
	}
	free(t->ents);
	htab_free(&t->h);
}

struct histctx {
	const struct dt_var *v;
	const int64_t *val;
	uint64_t normal;
};

static void print_hist_cb(FILE *f, const void *ctx)
{
	const struct histctx *h = ctx;

	dt_agg_print_hist(f, h->v, h->val, h->normal);
}

static uint64_t agg_normal(struct dt_session *s, const struct dt_var *v)
{
	return s->normal && s->normal[v->id] ? s->normal[v->id] : 1;
}

/* An aggregation's value as a printa() format's %@ takes it. */
static void agg_fmt_val(struct dt_fmt_val *av, struct histctx *hc,
			const struct dt_var *v, const int64_t *val,
			uint64_t normal)
{
	*av = (struct dt_fmt_val){ .size = 8, .sign = true };
	*hc = (struct histctx){ v, val, normal };
	if (dt_agg_is_hist(v)) {
		av->print = print_hist_cb;
		av->ctx = hc;
	} else {
		av->v = (uint64_t)dt_agg_scalar(v, val, normal);
	}
}

/* The keys of e as a format's arguments. */
static struct dt_fmt_val *key_fmt_vals(const struct dt_var *v,
				       const struct aggent *e)
{
	struct dt_fmt_val *vals = sd_calloc((size_t)v->nkeys + 1,
					    sizeof(*vals));

	for (int k = 0; k < v->nkeys; k++) {
		vals[k].is_str = e->keys[k].is_str;
		vals[k].s = e->keys[k].s;
		vals[k].v = e->keys[k].v;
		vals[k].size = v->keys[k].size ? v->keys[k].size : 8;
		vals[k].sign = v->keys[k].sign;
	}
	return vals;
}

/* The keys of e without a format, as dtrace-utils' dt_print_datum. */
static void print_keys(FILE *f, const struct dt_var *v, const struct aggent *e)
{
	for (int k = 0; k < v->nkeys; k++) {
		const struct kv *x = &e->keys[k];

		if (x->is_stack) {
			fprintf(f, "\n%s", x->s);
			continue;
		}
		if (x->is_str) {
			fprintf(f, "  %-50s", x->s);
			continue;
		}
		/* by size, 1- and 2-byte keys as unsigned, 4-byte as int */
		uint64_t kb = key_bits(&v->keys[k], x->v);

		switch (v->keys[k].size) {
		case 1: fprintf(f, " %3d", (int)kb); break;
		case 2: fprintf(f, " %5d", (int)kb); break;
		case 4: fprintf(f, " %8d", (int)(uint32_t)kb); break;
		default: fprintf(f, " %16lld", (long long)kb);
		}
	}
}

/* A value without a format. */
static void print_value(FILE *f, const struct dt_var *v, const int64_t *val,
			uint64_t normal)
{
	if (dt_agg_is_hist(v))
		dt_agg_print_hist(f, v, val, normal);
	else if (v->fn == AGG_STDDEV)
		fprintf(f, " %16llu", (unsigned long long)
			dt_agg_scalar(v, val, normal));
	else
		fprintf(f, " %16lld", (long long)dt_agg_scalar(v, val, normal));
}

static void print_agg(struct dt_session *s, const struct dt_var *v,
		      const char *fmtstr)
{
	struct aggtab t;
	FILE *f = s->out;
	struct dt_fmt fmt;
	char err[128];
	bool have_fmt = false;
	uint64_t normal = agg_normal(s, v);

	read_agg(s, v, &t, true);
	if (fmtstr && !dt_fmt_parse(fmtstr, &fmt, err, sizeof(err)))
		have_fmt = true;
	for (size_t i = 0; i < t.n; i++) {
		struct aggent *e = t.ents[i];

		if (have_fmt) {
			struct dt_fmt_val *vals = key_fmt_vals(v, e), av;
			struct histctx hc;

			agg_fmt_val(&av, &hc, v, e->val, normal);
			dt_fmt_print(f, &fmt, vals, v->nkeys, &av, 1);
			free(vals);
			continue;
		}
		print_keys(f, v, e);
		print_value(f, v, e->val, normal);
		for (int c = 0; e->pcpu && c < s->possible_cpus; c++) {
			const int64_t *pv = e->pcpu + (size_t)c * t.words;

			/* -x aggpercpu: each CPU's value after the total, as
			 * dtrace-utils' dt_print_aggs; an empty min or max is
			 * its starting value */
			fprintf(f, "\n    [CPU %d]", c);
			if ((v->fn == AGG_MIN || v->fn == AGG_MAX) && !pv[1])
				fprintf(f, " %16lld", v->fn == AGG_MIN ?
					(long long)INT64_MAX :
					(long long)INT64_MIN);
			else
				print_value(f, v, pv, normal);
		}
		fputc('\n', f);
	}
	if (have_fmt)
		dt_fmt_free(&fmt);
	free_aggtab(&t);
}

/* printa() of several aggregations (dtrace-utils'
 * dtrace_aggregate_walk_joined): one row per key any of them has, each
 * one's value (zero where it has none), sorted by the values from the
 * aggsortpos'th aggregation on, then by key (by key first with
 * aggsortkey). */
struct bundle {
	const uint8_t *ser;
	size_t serlen;
	struct aggent **e;	/* per aggregation; NULL: none */
	const struct aggent *rep;	/* whose keys are printed */
};

static int bundle_n, bundle_pos;
static const struct dt_var *const *bundle_vars;
static int64_t **bundle_zero;

static bool bundle_eq(const void *val, const void *key)
{
	const struct bundle *a = val, *b = key;

	return a->serlen == b->serlen && !memcmp(a->ser, b->ser, a->serlen);
}

static const int64_t *bundle_val(const struct bundle *b, int i)
{
	return b->e[i] ? b->e[i]->val : bundle_zero[i];
}

static int bundle_cmp(const void *pa, const void *pb)
{
	const struct bundle *a = *(struct bundle *const *)pa;
	const struct bundle *b = *(struct bundle *const *)pb;
	bool bykey = sort_opt && sort_opt->aggsortkey;
	int c = 0;

	if (bykey)
		c = key_cmp(a->rep, b->rep);
	for (int j = 0; !c && j < bundle_n; j++) {
		int i = (j + bundle_pos) % bundle_n;

		c = dt_agg_valcmp(bundle_vars[i], bundle_val(a, i),
				  bundle_val(b, i));
	}
	if (!c && !bykey)
		c = key_cmp(a->rep, b->rep);
	return sort_opt && sort_opt->aggsortrev ? -c : c;
}

static void print_aggs(struct dt_session *s, const struct dt_action *a)
{
	int n = a->naggs;
	struct aggtab *t = sd_calloc((size_t)n, sizeof(*t));
	int64_t **zero = sd_calloc((size_t)n, sizeof(*zero));
	struct bundle **bs = NULL;
	size_t nb = 0, cap = 0;
	struct htab h = { 0 };
	FILE *f = s->out;
	struct dt_fmt fmt;
	char err[128];
	bool have_fmt = a->fmt && !dt_fmt_parse(a->fmt, &fmt, err,
						  sizeof(err));
	const struct dt_var *v0 = a->aggs[0];

	for (int i = 0; i < n; i++) {
		read_agg(s, a->aggs[i], &t[i], false);
		zero[i] = sd_calloc((size_t)dt_agg_words(a->aggs[i]), 8);
		for (size_t j = 0; j < t[i].n; j++) {
			struct aggent *e = t[i].ents[j];
			struct bundle key = { e->ser, e->serlen, NULL, e }, *b;
			uint64_t hv = hash_bytes(e->ser, e->serlen, 0);

			b = htab_get(&h, hv, bundle_eq, &key);
			if (!b) {
				b = sd_malloc(sizeof(*b));
				*b = key;
				b->e = sd_calloc((size_t)n, sizeof(*b->e));
				htab_put(&h, hv, b);
				sd_grow(&bs, &cap, nb + 1, sizeof(*bs));
				bs[nb++] = b;
			}
			if (!b->e[i])
				b->e[i] = e;
		}
	}
	bundle_n = n;
	bundle_vars = (const struct dt_var *const *)a->aggs;
	bundle_zero = zero;
	bundle_pos = s->prog.opt.aggsortpos < (uint64_t)n ?
		     (int)s->prog.opt.aggsortpos : 0;
	sort_var = v0;
	sort_opt = &s->prog.opt;
	if (nb)
		qsort(bs, nb, sizeof(*bs), bundle_cmp);
	for (size_t j = 0; j < nb; j++) {
		const struct bundle *b = bs[j];

		if (have_fmt) {
			struct dt_fmt_val *vals = key_fmt_vals(v0, b->rep);
			struct dt_fmt_val *av = sd_calloc((size_t)n, sizeof(*av));
			struct histctx *hc = sd_calloc((size_t)n, sizeof(*hc));

			for (int i = 0; i < n; i++)
				agg_fmt_val(&av[i], &hc[i], a->aggs[i],
					    bundle_val(b, i),
					    agg_normal(s, a->aggs[i]));
			dt_fmt_print(f, &fmt, vals, v0->nkeys, av, n);
			free(hc);
			free(av);
			free(vals);
			continue;
		}
		print_keys(f, v0, b->rep);
		for (int i = 0; i < n; i++)
			print_value(f, a->aggs[i], bundle_val(b, i),
				    agg_normal(s, a->aggs[i]));
		fputc('\n', f);
	}
	if (have_fmt)
		dt_fmt_free(&fmt);
	for (size_t j = 0; j < nb; j++) {
		free(bs[j]->e);
		free(bs[j]);
	}
	free(bs);
	htab_free(&h);
	for (int i = 0; i < n; i++) {
		free_aggtab(&t[i]);
		free(zero[i]);
	}
	free(zero);
	free(t);
}

/* clear(): every value back to zero, the keys kept. */
static void agg_clear(struct dt_session *s, const struct dt_var *v)
{
	int fd = s->map_fds[DT_MAP_FIRST_VAR + v->map];
	size_t vsz = ((size_t)v->val_size + 7) & ~(size_t)7;
	uint8_t *zeros = sd_calloc((size_t)s->possible_cpus, vsz);
	uint8_t *key = sd_calloc(1, (size_t)v->key_size);
	uint8_t *next = sd_calloc(1, (size_t)v->key_size);
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		first = false;
		memcpy(key, next, (size_t)v->key_size);
		bpf_map_update_elem(fd, key, zeros, BPF_EXIST);
	}
	free(zeros);
	free(key);
	free(next);
}

/* trunc(@, n): keep the n largest values (the n smallest when n < 0);
 * trunc(@): keep nothing. */
static void agg_trunc(struct dt_session *s, const struct dt_var *v,
		      bool all, int64_t n)
{
	int fd = s->map_fds[DT_MAP_FIRST_VAR + v->map];
	struct aggtab t;
	size_t keep_lo = 0, keep_hi = 0;	/* kept: [keep_lo, keep_hi) */

	read_agg(s, v, &t, false);	/* sorted by value below */
	if (t.n)
		qsort(t.ents, t.n, sizeof(*t.ents), ent_valcmp);
	if (!all) {
		uint64_t m = n < 0 ? -(uint64_t)n : (uint64_t)n;

		if (m > t.n)
			m = t.n;
		keep_lo = n < 0 ? 0 : t.n - m;
		keep_hi = n < 0 ? m : t.n;
	}
	for (size_t i = 0; i < t.n; i++) {
		if (i >= keep_lo && i < keep_hi)
			continue;
		for (size_t r = 0; r < t.ents[i]->nraw; r++)
			bpf_map_delete_elem(fd, t.ents[i]->raw[r]);
	}
	free_aggtab(&t);
}

/* ---- records ---- */

static const char *fault_name(uint32_t fault)
{
	static const char *const names[] = {
		"unknown fault", "invalid address", "invalid alignment",
		"illegal operation", "divide-by-zero", "out of scratch space",
		"invalid kernel access", "invalid user access",
		"tuple stack overflow", "bad stack", "invalid size",
		"index out of bounds",
	};
	return fault < sizeof(names) / sizeof(names[0]) ? names[fault] :
	       fault == 1000 ? "library-level fault" : "unknown fault";
}

/* The N of dtrace-utils' dt_clause_N: it compiles a clause once per
 * probe description (BEGIN,END { } is two), numbering them in order;
 * the description that matched probe p decides. */
static unsigned stmt_id(const struct dt_session *s, uint32_t ci,
			const struct dt_probe *p)
{
	unsigned n = 0;

	if (ci >= (uint32_t)s->prog.nclauses)
		return ci;
	for (uint32_t i = 0; i < ci; i++)
		n += (unsigned)s->prog.clauses[i]->npds;
	const struct dt_clause *cl = s->prog.clauses[ci];

	for (int j = 0; p && j < cl->npds; j++) {
		const struct dt_pdesc *pd = &cl->pds[j];

		if (dt_glob(pd->prov ? pd->prov : "", dt_probe_field(p, 0)) &&
		    dt_glob(pd->mod ? pd->mod : "", p->mod) &&
		    dt_glob(pd->func ? pd->func : "", p->func) &&
		    dt_glob(pd->name ? pd->name : "", p->name))
			return n + (unsigned)j;
	}
	return n;
}

/* A fault, in dtrace-utils' words (dt_handle_err): the clause by its
 * name, the probe, the fault and its detail, the BPF instruction. */
static void on_error(struct dt_session *s, const struct dt_rechdr *h,
		     const struct dt_errrec *e)
{
	struct dt_probe *p = dt_probe_by_id(s->provs, h->probe);

	/* A fault in an ERROR clause is a double error: counted and
	 * reported with the drops, as dtrace(1) does — never fed back to
	 * ERROR, which would fault again, and again. */
	if (p && !strcmp(dt_probe_field(p, 0), "dtrace") &&
	    !strcmp(p->name, "ERROR")) {
		s->dblerrors++;
		return;
	}
	s->errors++;
	fflush(s->out);
	char details[32] = "";

	if ((e->fault == DTRACEFLT_BADADDR && e->addr != UINT64_MAX) ||
	    e->fault == 2 || e->fault == 9 || e->fault == 10)
		snprintf(details, sizeof(details), " (0x%llx)",
			 (unsigned long long)e->addr);
	else if (e->fault == 11)
		snprintf(details, sizeof(details), " (%lld)",
			 (long long)e->addr);
	unsigned n = stmt_id(s, h->clause, p);

	fprintf(stderr, "dtrace: error in dt_clause_%u for probe ID %u "
		"(%s:%s:%s:%s): %s%s at BPF pc %u\n", n, h->probe,
		p ? dt_probe_field(p, 0) : "?", p ? p->mod : "?",
		p ? p->func : "?", p ? p->name : "?", fault_name(e->fault),
		details, e->insn);
	if (s->error) {
		/* dtrace-utils' dt_probe_error: the probe ID, the clause
		 * (dt_clause_N's N), the BPF pc, the fault, its value */
		uint64_t args[6] = { 0, h->probe, n, e->insn,
				     e->fault, e->addr };

		dt_dtrace_fire(s->error, args, 6);
	}
}

/* setopt(): options dtrace(1) lets a running program change are set;
 * the others, and bad names or values, are reported in dtrace-utils'
 * words (dt_setopt, dt_handle_liberr). */
static void do_setopt(struct dt_session *s, const struct dt_action *a,
		      const uint8_t *rec, const struct dt_rechdr *h)
{
	/* dtrace-utils' _dtrace_rtoptions: set before tracing only */
	static const char *const before[] = { "aggsize", "bpflog",
		"bpflogsize", "bufsize", "bufpolicy", "bufresize", "cleanrate",
		"cpu", "destructive", "dynvarsize", "grabanon", "jstackframes",
		"jstackstrsize", "lockmem", "maxframes", "nspec", "pcapsize",
		"scratchsize", "specsize", "stackframes", "statusrate",
		"strsize", "ustackframes", "noresolve", NULL };
	char *name = rec_str(rec + a->vals[0].off, a->vals[0].ssize);
	char *val = a->nvals > 1 ? rec_str(rec + a->vals[1].off,
					   a->vals[1].ssize) : sd_strdup("1");
	struct dt_options tmp = s->prog.opt;
	char err[128] = "";
	int rc = dt_set_option(&tmp, name, a->nvals > 1 ? val : NULL, err,
			       sizeof(err));

	if (!rc) {
		for (const char *const *b = before; *b; b++)
			if (!strcmp(*b, name)) {
				snprintf(err, sizeof(err), "Operation illegal "
					 "when tracing is active");
				rc = -EBUSY;
			}
	}
	if (!rc) {
		s->prog.opt = tmp;
	} else {
		struct dt_probe *p = dt_probe_by_id(s->provs, h->probe);

		fflush(s->out);
		fprintf(stderr, "dtrace: error in dt_clause_%u for probe ID %u "
			"(%s:%s:%s:%s): couldn't set option \"%s\" to \"%s\": "
			"%s\n\n", stmt_id(s, h->clause, p), h->probe,
			p ? dt_probe_field(p, 0) : "?", p ? p->mod : "?",
			p ? p->func : "?", p ? p->name : "?", name, val, err);
	}
	free(name);
	free(val);
}

/* tracemem(): dtrace(1)'s dump, 16 bytes a row with their characters. */
static void print_rawbytes(FILE *f, const uint8_t *c, size_t n)
{
	fprintf(f, "\n%*s      ", 5, "");
	for (int i = 0; i < 16; i++)
		fprintf(f, "  %c", "0123456789abcdef"[i]);
	fprintf(f, "  0123456789abcdef\n");
	for (size_t i = 0; i < n; i += 16) {
		size_t j;

		fprintf(f, "%*s%5zx:", 5, "", i);
		for (j = i; j < i + 16 && j < n; j++)
			fprintf(f, " %02x", c[j]);
		while (j++ % 16)
			fputs("   ", f);
		fputs("  ", f);
		for (j = i; j < i + 16 && j < n; j++)
			fputc(c[j] < ' ' || c[j] > '~' ? '.' : c[j], f);
		fputc('\n', f);
	}
}

/* ---- speculations ---- */

struct dt_specbuf {
	struct { uint8_t *data; size_t size; } *recs;
	size_t n, cap, bytes;
};

static void spec_clear(struct dt_specbuf *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->recs[i].data);
	free(b->recs);
	memset(b, 0, sizeof(*b));
}

/* A record of a speculating clause: kept until commit() or discard();
 * speculate() on an id not handed out by speculation() drops it, as a
 * full buffer (specsize) does. */
static void spec_keep(struct dt_session *s, const struct dt_rechdr *h,
		      size_t size)
{
	uint32_t id = (h->kind >> DT_REC_SPEC_SHIFT) & DT_REC_SPEC_MAX;
	struct dt_specbuf *b;

	if (!id || id > s->prog.opt.nspec)
		return;
	b = &s->spec[id];
	if (b->bytes + size > s->prog.opt.specsize) {
		s->specdrops++;
		return;
	}
	sd_grow(&b->recs, &b->cap, b->n + 1, sizeof(*b->recs));
	b->recs[b->n].data = sd_malloc(size);
	memcpy(b->recs[b->n].data, h, size);
	b->recs[b->n++].size = size;
	b->bytes += size;
}

static int on_record(void *ctx, void *data, size_t size);

static void spec_end(struct dt_session *s, const struct dt_action *a,
		     const uint8_t *rec, bool commit)
{
	int64_t id;
	struct dt_specbuf b;

	memcpy(&id, rec + a->vals[0].off, 8);
	if (id <= 0 || (uint64_t)id > s->prog.opt.nspec)
		return;
	b = s->spec[id];
	memset(&s->spec[id], 0, sizeof(b));
	for (size_t i = 0; commit && i < b.n; i++) {
		struct dt_rechdr *h = (struct dt_rechdr *)b.recs[i].data;

		h->kind = DT_REC_DATA;
		on_record(s, b.recs[i].data, b.recs[i].size);
	}
	spec_clear(&b);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct dt_session *s = ctx;
	const struct dt_rechdr *h = data;
	const uint8_t *rec = data;
	bool q = s->prog.opt.quiet;
	struct dt_clause *cl;

	if (size < sizeof(*h))
		return 0;
	if (h->kind == DT_REC_ERROR) {
		if (size >= sizeof(*h) + sizeof(struct dt_errrec))
			on_error(s, h, (const struct dt_errrec *)(h + 1));
		return 0;
	}
	if ((h->kind & DT_REC_SPEC) && (h->kind & 0xff) == DT_REC_DATA) {
		if (h->clause < (uint32_t)s->prog.nclauses)
			spec_keep(s, h, size);
		return 0;
	}
	if (h->kind != DT_REC_DATA || h->clause >= (uint32_t)s->prog.nclauses)
		return 0;
	cl = s->prog.clauses[h->clause];
	if ((size_t)cl->rec_size > size)
		return 0;
	/* a clause that only commits or discards shows nothing itself */
	bool shows = false;

	for (int i = 0; i < cl->nacts; i++)
		shows |= cl->acts[i].kind != ACT_COMMIT &&
			 cl->acts[i].kind != ACT_DISCARD;
	if (!cl->nacts)
		shows = true;
	q |= !shows;
	if (!q) {
		char name[256];

		/* test mode (dtrace(1)'s g_testing) leaves out the CPU and
		 * the probe ID, which vary from run to run */
		if (!s->heading) {
			if (s->testing)
				fprintf(s->out, "%32s\n", "FUNCTION:NAME");
			else
				fprintf(s->out, "%3s %6s %32s\n", "CPU", "ID",
					"FUNCTION:NAME");
			s->heading = true;
		}
		snprintf(name, sizeof(name), "%s:%s", probe_str(s, h->probe, 2),
			 probe_str(s, h->probe, 3));
		if (s->testing)
			fprintf(s->out, "%32s ", name);
		else
			fprintf(s->out, "%3u %6u %32s ", h->cpu, h->probe,
				name);
	}
	for (int i = 0; i < cl->nacts; i++) {
		const struct dt_action *a = &cl->acts[i];

		switch (a->kind) {
		case ACT_TRACE:
			print_trace(s, &a->vals[0], rec, h->probe);
			break;
		case ACT_PRINTF:
			print_printf(s, a, rec, h->probe, s->out);
			break;
		case ACT_PRINTA:
			if (!a->fmt)
				fputc('\n', s->out);
			if (a->naggs > 1)
				print_aggs(s, a);
			else
				print_agg(s, a->agg, a->fmt);
			for (int j = 0; j < a->naggs; j++)
				s->printed[a->aggs[j]->id] = true;
			break;
		case ACT_TRUNC: {
			int64_t n = 0;

			if (a->nvals)
				memcpy(&n, rec + a->vals[0].off, 8);
			agg_trunc(s, a->agg, !a->nvals, n);
			break;
		}
		case ACT_CLEAR:
			agg_clear(s, a->agg);
			break;
		case ACT_SYSTEM:
			run_system(s, a, rec, h->probe);
			break;
		case ACT_SETOPT:
			do_setopt(s, a, rec, h);
			break;
		case ACT_FREOPEN:
			do_freopen(s, a, rec, h->probe);
			break;
		case ACT_FTRUNCATE:
			do_ftruncate(s);
			break;
		case ACT_TRACEMEM:
			print_rawbytes(s->out, rec + a->vals[0].off,
				       a->vals[0].ssize);
			break;
		case ACT_PRINT: {
			uint64_t addr;

			memcpy(&addr, rec + a->vals[0].off, 8);
			dt_print_type(s->out, &s->prog, &a->ptype, addr,
				      rec + a->vals[1].off, a->vals[1].ssize,
				      s->prog.opt.printsize);
			break;
		}
		case ACT_COMMIT:
		case ACT_DISCARD:
			spec_end(s, a, rec, a->kind == ACT_COMMIT);
			break;
		case ACT_NORMALIZE: {
			int64_t n;

			memcpy(&n, rec + a->vals[0].off, 8);
			s->normal[a->agg->id] = n > 0 ? (uint64_t)n : 1;
			break;
		}
		case ACT_DENORMALIZE:
			s->normal[a->agg->id] = 1;
			break;
		case ACT_EXIT: {
			int64_t st;

			memcpy(&st, rec + a->vals[0].off, 8);
			s->status = (int)st;
			s->done = true;
			break;
		}
		}
	}
	if (!q)
		fputc('\n', s->out);
	return 0;
}

/* exit() sets a flag and the status in the globals too: a dropped exit
 * record still ends the run. */
static void check_exit_flag(struct dt_session *s)
{
	uint32_t zero = 0;
	struct dt_globals *g;

	if (s->done)
		return;
	g = sd_calloc(1, (size_t)s->prog.globals_size + 8);
	if (!bpf_map_lookup_elem(s->map_fds[DT_MAP_GLOBALS], &zero, g) &&
	    g->exited) {
		s->done = true;
		s->status = (int)g->status;
	}
	free(g);
}

int dt_consume_open(struct dt_session *s)
{
	s->printed = sd_calloc((size_t)s->prog.naggs + 1, sizeof(bool));
	s->normal = sd_calloc((size_t)s->prog.naggs + 1, sizeof(uint64_t));
	s->spec = sd_calloc((size_t)s->prog.opt.nspec + 1, sizeof(*s->spec));
	s->rb = ring_buffer__new(s->map_fds[DT_MAP_OUT], on_record, s, NULL);
	return s->rb ? 0 : -errno;
}

int dt_consume(struct dt_session *s, int timeout_ms)
{
	int n = ring_buffer__poll(s->rb, timeout_ms);

	if (n == -EINTR)
		n = 0;
	fflush(s->out);
	check_exit_flag(s);
	return n;
}

int dt_fire_only(struct dt_session *s, struct dt_unit *u)
{
	int ret;

	if (!u)
		return 0;
	ret = dt_dtrace_fire(u, NULL, 0);
	check_exit_flag(s);
	return ret;
}

int dt_fire(struct dt_session *s, struct dt_unit *u)
{
	int ret;

	if (!u)
		return 0;
	ret = dt_dtrace_fire(u, NULL, 0);
	ring_buffer__consume(s->rb);
	fflush(s->out);
	check_exit_flag(s);
	return ret;
}

void dt_consume_finish(struct dt_session *s)
{
	ring_buffer__consume(s->rb);
	fputc('\n', s->out);
	/* in the order of their ids; aggsortrev reverses it too, as
	 * dtrace-utils' dt_aggregate_varkeyrevcmp compares the ids first */
	int nv = 0;

	for (struct dt_var *v = s->prog.vars; v; v = v->next)
		nv += v->scope == DT_AGGVAR;
	struct dt_var **aggs = sd_calloc((size_t)nv + 1, sizeof(*aggs));

	nv = 0;
	for (struct dt_var *v = s->prog.vars; v; v = v->next)
		if (v->scope == DT_AGGVAR)
			aggs[nv++] = v;
	for (int i = 0; i < nv; i++) {
		struct dt_var *v = aggs[s->prog.opt.aggsortrev ? nv - 1 - i : i];

		if (!s->printed[v->id])
			print_agg(s, v, NULL);
	}
	free(aggs);
	fflush(s->out);
	ring_buffer__free(s->rb);
	s->rb = NULL;
	for (uint64_t i = 0; s->spec && i <= s->prog.opt.nspec; i++)
		spec_clear(&s->spec[i]);
	free(s->spec);
	s->spec = NULL;
}

/* -x droptags: dtrace(1)'s "[DTRACEDROP_...] " before each drop report */
#define DROPTAG(s, kind) ((s)->prog.opt.droptags ? "[DTRACEDROP_" #kind "] " : "")

void dt_print_drops(struct dt_session *s)
{
	int ncpu = s->possible_cpus;
	size_t vsz = ((size_t)s->scratch_size + 7) & ~(size_t)7;
	uint8_t *vals = sd_calloc((size_t)ncpu, vsz);
	uint32_t zero = 0;
	uint64_t dyn = 0, unavail = 0, specdrops = s->specdrops;

	if (bpf_map_lookup_elem(s->map_fds[DT_MAP_SCRATCH], &zero, vals)) {
		free(vals);
		return;
	}
	for (int c = 0; c < ncpu; c++) {
		struct dt_counters ct;

		memcpy(&ct, vals + c * vsz, sizeof(ct));
		if (ct.drops)
			fprintf(stderr, "dtrace: %s%llu drop%s on CPU %d\n",
				DROPTAG(s, PRINCIPAL),
				(unsigned long long)ct.drops,
				ct.drops == 1 ? "" : "s", c);
		if (ct.aggdrops)
			fprintf(stderr, "dtrace: %s%llu aggregation drop%s "
				"on CPU %d\n", DROPTAG(s, AGGREGATION),
				(unsigned long long)ct.aggdrops,
				ct.aggdrops == 1 ? "" : "s", c);
		dyn += ct.dyndrops;
		unavail += ct.specunavail;
		specdrops += ct.specdrops;
	}
	if (dyn)
		fprintf(stderr, "dtrace: %s%llu dynamic variable drop%s\n",
			DROPTAG(s, DYNAMIC), (unsigned long long)dyn,
			dyn == 1 ? "" : "s");
	if (specdrops)
		fprintf(stderr, "dtrace: %s%llu speculative drop%s\n",
			DROPTAG(s, SPEC), (unsigned long long)specdrops,
			specdrops == 1 ? "" : "s");
	if (s->dblerrors)
		fprintf(stderr, "dtrace: %s%llu error%s in ERROR probe "
			"enabling\n", DROPTAG(s, DBLERROR),
			(unsigned long long)s->dblerrors,
			s->dblerrors == 1 ? "" : "s");
	if (unavail)
		fprintf(stderr, "dtrace: %s%llu failed speculation%s (no "
			"speculative buffer available)\n",
			DROPTAG(s, SPECUNAVAIL), (unsigned long long)unavail,
			unavail == 1 ? "" : "s");
	free(vals);
}

/* ---- for consumers other than the printer (snapshot.h) ---- */

int dt_agg_foreach(struct dt_session *s, const struct dt_var *v,
		   dt_agg_fn fn, void *ctx)
{
	struct dt_aggkey *keys = sd_calloc((size_t)v->nkeys + 1, sizeof(*keys));
	struct aggtab t;
	int ret = 0;

	read_agg(s, v, &t, false);
	for (size_t i = 0; i < t.n && !ret; i++) {
		struct aggent *e = t.ents[i];

		for (int k = 0; k < v->nkeys; k++)
			keys[k] = (struct dt_aggkey){ e->keys[k].is_str,
						      e->keys[k].v,
						      e->keys[k].s };
		ret = fn(ctx, keys, e->val, e->nraw);
	}
	free_aggtab(&t);
	free(keys);
	return ret;
}
