// SPDX-License-Identifier: GPL-2.0-only
/* agent — `sonde agent`, the long-running exporter: D scripts whose
 * aggregations are served as Prometheus metrics, and CPU profiles in pprof,
 * over HTTP. The files of src/agent and what each owns:
 *   agent.c    command line, start-up, the main loop (signals, the scripts'
 *              ring buffers), reload and shutdown
 *   script.c   one D script: compiled, loaded, attached; its aggregations
 *              as metric families; the scrape that reads them all
 *   pragma.c   `#pragma sonde metric` and Prometheus' naming rules
 *   expo.c     the exposition formats (Prometheus text 0.0.4, OpenMetrics)
 *   http.c     the HTTP server (libmicrohttpd): routes, limits, TLS, auth
 *   profile.c  /debug/pprof/profile: one system-wide sampling session
 * Private to src/agent. */
#ifndef SONDE_AGENT_H
#define SONDE_AGENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../lib/util.h"
#include "../dtrace/dtrace.h"

/* ---- pragma.c: names ---- */

enum ag_type { AG_COUNTER, AG_GAUGE, AG_HISTOGRAM };

/* `#pragma sonde metric AGG [name(N)] [labels(A, B)] [help("T")]
 * [type(counter|gauge)]`: what a script says about one aggregation. */
struct ag_pragma {
	char *agg;		/* aggregation name without '@' ("" for @) */
	char *name;		/* NULL: sonde_AGG */
	char *help;		/* NULL: a default naming the script */
	char **labels;
	int nlabels;		/* -1: not given */
	int type;		/* -1: from the function; else enum ag_type */
	int line;
};

/* Every `#pragma sonde` line of text (block comments skipped). 0, or -1
 * with "FILE:LINE: problem" in err. */
int ag_pragmas_parse(const char *path, const char *text,
		     struct ag_pragma **out, int *n, char *err, size_t len);
void ag_pragmas_free(struct ag_pragma *p, int n);

/* s made a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or label name
 * ([a-zA-Z_][a-zA-Z0-9_]*): other characters become '_', a leading digit
 * gets a '_' in front. malloc'd. */
char *ag_metric_name(const char *s);
char *ag_label_name(const char *s);

/* ---- expo.c: the exposition formats ---- */

/* Text written for one scrape. om: OpenMetrics 1.0.0, else Prometheus'
 * text format 0.0.4. */
struct ag_expo {
	struct sbuf sb;
	bool om;
};

/* The Content-Type of the format, and whether an Accept header prefers
 * OpenMetrics to the text format (by their q-values). */
const char *ag_expo_content_type(bool om);
bool ag_expo_wants_om(const char *accept);

/* # HELP and # TYPE of a family. name is the full name: counters end in
 * _total (OpenMetrics' family name is the name without it). */
void ag_expo_head(struct ag_expo *e, const char *name, enum ag_type t,
		  const char *help);
/* A label set for sample lines: `a="x",b="y"` (no braces), values escaped
 * and made valid UTF-8. values[i] NULL: the integer ints[i]. */
void ag_expo_labelset(struct sbuf *out, char *const *names,
		      const char *const *values, const int64_t *ints,
		      const bool *sign, int n);
/* name[suffix]{labels[,extra]} value */
void ag_expo_sample(struct ag_expo *e, const char *name, const char *suffix,
		    const char *labels, const char *extra, double value);
void ag_expo_sample_int(struct ag_expo *e, const char *name,
			const char *suffix, const char *labels,
			const char *extra, int64_t value);
/* A histogram's bucket bound as the format spells it ("7", "7.0",
 * "+Inf"). */
void ag_expo_le(struct ag_expo *e, int64_t bound, bool inf, char *buf,
		size_t len);
/* The end of the exposition (# EOF for OpenMetrics). */
void ag_expo_end(struct ag_expo *e);

/* ---- script.c: a D script and its metric families ---- */

/* One aggregation exported as one metric family. */
struct ag_family {
	const struct dt_var *v;
	char *agg;		/* "@reads" as the script names it */
	char *name;		/* full metric name (counters: ..._total) */
	char *help;
	enum ag_type type;
	char **labels;		/* one name per key */
	int nlabels;
	/* histograms: per bucket the largest value it holds (the last is
	 * +Inf) and the value it adds to _sum (its bound nearest zero) */
	int nbuckets;
	int64_t *upper, *near0;
	int lo, hi;		/* buckets shown: the widest range any entry
				 * has had data in (-1: none yet); it only
				 * grows, so every series of a family always
				 * has the same le bounds */
};

struct ag_script {
	char *path;
	struct dt_session s;
	bool session;		/* s initialised */
	bool loaded;		/* maps and programs created */
	bool exited;		/* exit() ran: detached, values kept */
	struct ag_family *fams;
	int nfams;
};

/* Compile path into a new script: its source, the pragmas, the names.
 * NULL with the message (the compiler's) in *msg (malloc'd). */
struct ag_script *ag_script_compile(const char *path, char **msg);
/* Load, run BEGIN, attach. 0, or -1 with *msg. */
int ag_script_start(struct ag_script *sc, char **msg);
/* Consume what the programs wrote (printf() output, trunc(), clear(),
 * exit()). */
void ag_script_consume(struct ag_script *sc);
/* Detach, run END, unload and free. */
void ag_script_free(struct ag_script *sc);
/* Metric names of a set of scripts do not clash with each other nor with
 * the agent's own. 0, or -1 with a message in err. */
int ag_scripts_check_names(struct ag_script *const *v, int n, char *err,
			   size_t len);

/* ---- agent.c: the daemon ---- */

struct agent {
	pthread_mutex_t lock;	/* the scripts and every D session call */
	struct ag_script **scripts;
	int nscripts;
	char **paths;		/* --script, in order */
	int npaths;
	uint64_t reloads_ok, reloads_failed;
	bool last_reload_ok;
	time_t start_unix;
	/* http.c */
	struct ag_http *http;
	uint64_t profile_hz;	/* profile.c */
	volatile bool stopping;
	bool verbose;
};

/* The whole /metrics body: every script's families, then the agent's own
 * (scrape duration, map usage, drops, programs attached, reloads). */
char *ag_scrape(struct agent *a, bool om, size_t *len);

/* ---- http.c ---- */

struct ag_http_opts {
	const char *listen;	/* ADDR:PORT */
	const char *tls_cert, *tls_key;	/* PEM files */
	const char *basic_auth;	/* user:crypt-hash lines */
	unsigned max_conns;
};

/* Parse and bind the address, read the TLS and auth files, start serving.
 * 0, or the exit status (1, or 2 for a bad address) after saying why. */
int ag_http_start(struct agent *a, const struct ag_http_opts *o);
void ag_http_stop(struct agent *a);
/* Whether addr (ADDR:PORT) is a loopback address; -1 when it does not
 * parse. */
int ag_listen_is_loopback(const char *addr);

/* ---- profile.c ---- */

/* The profile of seconds s of every CPU at hz, gzipped pprof; concurrent
 * callers: the second gets -EBUSY with the seconds left in *busy_left.
 * 0 or -errno with a message in err. */
int ag_profile_take(struct agent *a, uint64_t seconds, uint8_t **out,
		    size_t *len, uint64_t *busy_left, char *err, size_t elen);

#endif
