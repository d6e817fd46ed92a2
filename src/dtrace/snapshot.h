// SPDX-License-Identifier: GPL-2.0-only
/* snapshot — a running D program's state read as data instead of printed:
 * each aggregation's entries (merged across CPUs and probes as printa()
 * merges them) handed to a callback, the drop and error counters, the
 * programs attached and an aggregation map's capacity. For consumers that
 * are not dtrace(1)'s printer: sonde agent exports them as metrics. */
#ifndef SONDE_DTRACE_SNAPSHOT_H
#define SONDE_DTRACE_SNAPSHOT_H

#include "dtrace.h"

#include <stdint.h>

/* One member of an entry's key: text (strings, probe names, symbols, stack
 * frames one a line, readable) or an integer (v, of the key's type). */
struct dt_aggkey {
	bool is_str;
	uint64_t v;
	const char *s;
};

/* Called once per entry, in no particular order (not printa()'s: sorting
 * costs): keys has v->nkeys members,
 * val dt_agg_words(v) words; nraw is the number of map entries merged into
 * it. A non-zero return stops the walk and is returned. */
typedef int (*dt_agg_fn)(void *ctx, const struct dt_aggkey *keys,
			 const int64_t *val, size_t nraw);
/* (consume.c) 0, or the callback's non-zero return. */
int dt_agg_foreach(struct dt_session *s, const struct dt_var *v,
		   dt_agg_fn fn, void *ctx);

struct dt_drops {
	uint64_t drops;		/* records lost: the ring buffer was full */
	uint64_t aggdrops;	/* aggregation map full */
	uint64_t dyndrops;	/* thread-local / associative array map full */
	uint64_t specdrops;	/* speculation buffer full */
	uint64_t errors;	/* probe faults the consumer reported */
};

/* The counters summed over CPUs; 0 or -errno. */
int dt_drop_counts(struct dt_session *s, struct dt_drops *d);
/* Programs attached now (links, kprobes, perf events). */
int dt_attached(const struct dt_session *s);
/* The most entries v's map holds (aggsize), or 0 when unknown. */
uint32_t dt_agg_capacity(const struct dt_session *s, const struct dt_var *v);

#endif
