// SPDX-License-Identifier: GPL-2.0-only
/* report — the text views of a pprof profile for `sonde prof`: folded
 * stacks (one line per distinct stack, root first, inlined frames expanded
 * as frames of their own) and a table of the hottest functions plus one
 * of the threads, C++ and Rust names demangled. Reads only the profile, so
 * it works on any pprof CPU profile, not just sonde's. */
#include "prof.h"
#include "../lib/demangle.h"
#include "../lib/flame.h"
#include "../lib/table.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which value to report: the CPU time when there is one, else the first. */
static size_t value_index(const struct pprof *p, bool *is_ns)
{
	for (size_t i = 0; i < p->ntypes; i++) {
		if (!strcmp(pprof_string(p, p->types[i].unit), "nanoseconds")) {
			*is_ns = true;
			return i;
		}
	}
	*is_ns = false;
	return 0;
}

/* A function's name as shown (kinds: lib/demangle's, 0 for none): sonde
 * writes C++ and Rust names demangled with the symbol as system_name,
 * other profilers may not, so a name still mangled is demangled here;
 * without demangling, the symbol (interned in p). */
static const char *fn_name(struct pprof *p, const struct pprof_function *fn,
			   unsigned kinds)
{
	const char *name = pprof_string(p, fn->name);
	char buf[DEMANGLE_MAX];
	const char *d;

	if (!kinds && fn->system_name && *pprof_string(p, fn->system_name))
		return pprof_string(p, fn->system_name);
	d = demangle_name(name, kinds, buf, sizeof(buf));
	return d == name ? name : pprof_string(p, pprof_str(p, d));
}

/* The name of one line of a location, or of a location without lines. */
static const char *line_name(struct pprof *p, const struct pprof_line *l,
			     unsigned kinds)
{
	if (l->function && l->function <= p->nfunctions)
		return fn_name(p, &p->functions[l->function - 1], kinds);
	return "??";
}

static const char *addr_name(const struct pprof *p,
			     const struct pprof_location *l, char *buf,
			     size_t len)
{
	if (l->mapping && l->mapping <= p->nmappings) {
		const struct pprof_mapping *m = &p->mappings[l->mapping - 1];
		const char *file = pprof_string(p, m->file);
		const char *b = strrchr(file, '/');

		snprintf(buf, len, "%s+0x%" PRIx64, b ? b + 1 : file,
			 l->address - m->start + m->offset);
	} else {
		snprintf(buf, len, "0x%" PRIx64, l->address);
	}
	return buf;
}

/* Frames of sample s, root first, into names (interned in p). */
static size_t sample_frames(struct pprof *p, const struct pprof_sample *s,
			    unsigned kinds, const char ***names, size_t *cap)
{
	size_t n = 0;
	char buf[512];

	for (size_t i = s->nlocs; i-- > 0;) {
		const struct pprof_location *l;

		if (!s->locs[i] || s->locs[i] > p->nlocations)
			continue;
		l = &p->locations[s->locs[i] - 1];
		if (!l->nlines) {
			sd_grow(names, cap, n + 1, sizeof(**names));
			(*names)[n++] = pprof_string(p,
				pprof_str(p, addr_name(p, l, buf, sizeof(buf))));
			continue;
		}
		for (size_t j = l->nlines; j-- > 0;) {
			sd_grow(names, cap, n + 1, sizeof(**names));
			(*names)[n++] = line_name(p, &l->lines[j], kinds);
		}
	}
	return n;
}

/* Write the profile's stacks, merged, through out: folded text or an
 * SVG flame graph. */
static void write_stacks(struct pprof *p, FILE *f, unsigned kinds,
			 const char *svg_title)
{
	struct flame_stack *st = sd_calloc(p->nsamples + 1, sizeof(*st));
	const char ***keep;
	uint64_t total = 0;
	size_t n = 0;

	/* Folded stacks count samples: the first value (samples/count). */
	for (size_t i = 0; i < p->nsamples; i++) {
		const char **names = NULL;
		size_t cap = 0, nf = sample_frames(p, &p->samples[i], kinds,
						   &names, &cap);

		if (p->samples[i].values[0] <= 0) {
			free(names);
			continue;
		}
		st[n].frames = names;
		st[n].n = nf;
		st[n].count = (uint64_t)p->samples[i].values[0];
		total += st[n].count;
		n++;
	}
	/* flame_sort merges equal stacks; keep the arrays to free them. */
	keep = sd_calloc(n + 1, sizeof(*keep));
	for (size_t i = 0; i < n; i++)
		keep[i] = st[i].frames;
	n = flame_sort(st, n);
	if (svg_title) {
		char sub[128];

		snprintf(sub, sizeof(sub), "%llu samples",
			 (unsigned long long)total);
		flame_write_svg(f, st, n, svg_title, sub);
	} else {
		flame_write_folded(f, st, n);
	}
	for (size_t i = 0; keep[i]; i++)
		free(keep[i]);
	free(keep);
	free(st);
}

void prof_write_folded(struct pprof *p, FILE *f, unsigned kinds)
{
	write_stacks(p, f, kinds, NULL);
}

void prof_write_svg(struct pprof *p, FILE *f, unsigned kinds,
		    const char *title)
{
	write_stacks(p, f, kinds, title);
}

struct fn_row {
	const char *name;
	const char *file;
	int64_t self, total;
	size_t seen;		/* last sample that counted it in total */
};

static int cmp_row(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct th_row {
	const char *name;
	int64_t tid;
	int64_t count, value;
};

static int cmp_th(const void *a, const void *b)
{
	const struct th_row *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void fmt_value(int64_t v, bool ns, char *buf, size_t len)
{
	if (ns)
		sd_fmt_duration((uint64_t)v, buf, len);
	else
		snprintf(buf, len, "%" PRId64, v);
}

static void fmt_share(int64_t v, int64_t total, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f %%", total ? 100.0 * (double)v / (double)total : 0.0);
}

static const char *label_str(const struct pprof *p, const struct pprof_sample *s,
			     const char *key, int64_t *num)
{
	for (size_t i = 0; i < s->nlabels; i++) {
		if (strcmp(pprof_string(p, s->labels[i].key), key))
			continue;
		if (num)
			*num = s->labels[i].num;
		return pprof_string(p, s->labels[i].str);
	}
	return NULL;
}

void prof_write_table(struct pprof *p, FILE *f, uint64_t top,
		      unsigned kinds)
{
	static const char *fh[] = { "Function", "File", "Self", "Self share",
				    "Total", "Total share" };
	static const enum table_align fa[] = { TABLE_LEFT, TABLE_LEFT,
		TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT };
	static const char *th[] = { "Thread", "TID", "Samples", "CPU", "Share" };
	static const enum table_align ta[] = { TABLE_LEFT, TABLE_RIGHT,
		TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT };
	bool ns;
	size_t vi = value_index(p, &ns);
	struct fn_row *rows = sd_calloc(p->nfunctions + 1, sizeof(*rows));
	struct th_row *threads = NULL;
	size_t nthreads = 0, capthreads = 0, nrows = 0;
	int64_t total = 0, count = 0;
	struct table t;
	char b[6][64];

	for (size_t i = 0; i < p->nfunctions; i++) {
		const char *file = pprof_string(p, p->functions[i].file);
		const char *base = strrchr(file, '/');

		rows[i].name = fn_name(p, &p->functions[i], kinds);
		rows[i].file = base ? base + 1 : file;
		rows[i].seen = SIZE_MAX;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pprof_sample *s = &p->samples[i];
		int64_t v = s->values[vi], tid = 0;
		const char *tname = label_str(p, s, "thread", NULL);
		size_t k;
		bool leaf = true;

		total += v;
		count += s->values[0];
		label_str(p, s, "tid", &tid);
		for (k = 0; k < nthreads; k++)
			if (threads[k].tid == tid)
				break;
		if (k == nthreads) {
			sd_grow(&threads, &capthreads, nthreads + 1,
				sizeof(*threads));
			threads[nthreads++] = (struct th_row){
				tname ? tname : "?", tid, 0, 0 };
		}
		threads[k].count += s->values[0];
		threads[k].value += v;
		for (size_t j = 0; j < s->nlocs; j++) {
			const struct pprof_location *l;

			if (!s->locs[j] || s->locs[j] > p->nlocations)
				continue;
			l = &p->locations[s->locs[j] - 1];
			for (size_t m = 0; m < l->nlines; m++) {
				uint64_t fn = l->lines[m].function;
				struct fn_row *r;

				if (!fn || fn > p->nfunctions)
					continue;
				r = &rows[fn - 1];
				if (leaf)
					r->self += v;
				leaf = false;
				if (r->seen != i) {
					r->total += v;
					r->seen = i;
				}
			}
			leaf = false;
		}
	}
	qsort(rows, p->nfunctions, sizeof(*rows), cmp_row);

	table_init(&t, 6, fh, fa);
	for (size_t i = 0; i < p->nfunctions; i++) {
		const char *cells[6];

		if (!rows[i].total || (top && nrows == top))
			break;
		fmt_value(rows[i].self, ns, b[0], sizeof(b[0]));
		fmt_share(rows[i].self, total, b[1], sizeof(b[1]));
		fmt_value(rows[i].total, ns, b[2], sizeof(b[2]));
		fmt_share(rows[i].total, total, b[3], sizeof(b[3]));
		cells[0] = rows[i].name;
		cells[1] = rows[i].file;
		cells[2] = b[0];
		cells[3] = b[1];
		cells[4] = b[2];
		cells[5] = b[3];
		table_add(&t, cells);
		nrows++;
	}
	table_print(&t, f);
	table_free(&t);

	if (nthreads) {
		qsort(threads, nthreads, sizeof(*threads), cmp_th);
		fputc('\n', f);
		table_init(&t, 5, th, ta);
		for (size_t i = 0; i < nthreads; i++) {
			const char *cells[5];

			snprintf(b[0], sizeof(b[0]), "%" PRId64, threads[i].tid);
			snprintf(b[1], sizeof(b[1]), "%" PRId64, threads[i].count);
			fmt_value(threads[i].value, ns, b[2], sizeof(b[2]));
			fmt_share(threads[i].value, total, b[3], sizeof(b[3]));
			cells[0] = threads[i].name;
			cells[1] = b[0];
			cells[2] = b[1];
			cells[3] = b[2];
			cells[4] = b[3];
			table_add(&t, cells);
		}
		table_print(&t, f);
		table_free(&t);
	}
	fmt_value(total, ns, b[0], sizeof(b[0]));
	sd_fmt_duration((uint64_t)p->duration_ns, b[1], sizeof(b[1]));
	fprintf(f, "\n# %" PRId64 " samples, %s %s in %zu thread%s over %s",
		count, b[0], ns ? "CPU" : "total", nthreads,
		nthreads == 1 ? "" : "s", b[1]);
	if (p->period && !strcmp(pprof_string(p, p->period_type.unit),
				 "nanoseconds"))
		fprintf(f, " (%.0f Hz)", 1e9 / (double)p->period);
	fputc('\n', f);
	free(rows);
	free(threads);
}
