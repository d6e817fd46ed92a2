// SPDX-License-Identifier: GPL-2.0-only
/* hot — `sonde hot`, the kernel sampling profiler: the options, the raw
 * samples the sampler collects (call chains with counts) and the report
 * that symbolizes and prints them. Private to src/hot. */
#ifndef SONDE_HOT_H
#define SONDE_HOT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/hash.h"
#include "../lib/ksym.h"
#include "../lib/procmaps.h"

enum hot_agg { HOT_AGG_PC, HOT_AGG_FUNC, HOT_AGG_MODULE };
enum hot_fmt { HOT_FMT_TABLE, HOT_FMT_FOLDED, HOT_FMT_JSON };

struct hot_opts {
	uint64_t duration_ns;
	uint64_t freq;
	const char *event;	/* "cpu-clock", "cycles", ... */
	enum hot_agg agg;
	uint64_t top;		/* 0: every row */
	bool *cpus;		/* ncpus entries, true = sample it */
	int ncpus;		/* size of the cpus array (possible CPUs) */
	pid_t pid;		/* 0: every process */
	bool user, no_idle, stacks, verbose;
	enum hot_fmt format;
	const char *out_path;
	const char *svg_path;
};

/* Frames inside a chain. Kernel frames are raw addresses (the top bit is
 * set on every kernel address sonde supports); user frames are indices
 * into the user frame table, tagged. Callers' return addresses are stored
 * minus one so they symbolize inside the calling function. */
#define HOT_USER_TAG (1ull << 62)
#define HOT_IS_KERNEL(f) ((f) >> 63)
#define HOT_IS_USER(f) (((f) >> 62) == 1)

struct hot_chain {
	uint64_t count;
	uint32_t n;
	uint64_t f[];		/* leaf first */
};

struct hot_uframe {
	uint32_t file;		/* procmaps file index */
	uint64_t off;		/* file offset, or the raw address for anon */
};

struct hot_stats {
	uint64_t read;		/* every sample record read */
	uint64_t kept;		/* counted in the profile */
	uint64_t idle;		/* dropped: idle task (--no-idle) */
	uint64_t other;		/* dropped: another process (-p) */
	uint64_t lost;		/* PERF_RECORD_LOST totals */
	uint64_t throttled;	/* PERF_RECORD_THROTTLE events */
	uint64_t bad;		/* malformed records */
	uint64_t elapsed_ns;
	int ncpus_sampled;
	bool interrupted;	/* Ctrl-C / SIGTERM */
	bool target_exited;	/* -p PID exited before the end */
};

struct hot_data {
	struct htab chains;	/* struct hot_chain, keyed by frames */
	struct htab uindex;	/* struct hot_uframe -> index + 1 */
	struct hot_uframe *uframes;
	size_t nuframes, capuframes;
	struct procmaps maps;
	struct hot_stats st;
};

/* Kernel symbols load in a thread while sampling runs. */
struct hot_ksyms {
	pthread_t thread;
	bool thread_started;
	struct ksym_table *tab;
	const char *path;	/* re-read for symbols that appeared during
				 * the run (BPF programs); NULL: never */
	int err;
	uint64_t ns;		/* time spent reading and parsing */
};

void hot_data_init(struct hot_data *d);
void hot_data_free(struct hot_data *d);
/* Count one chain of n frames (leaf first). */
void hot_data_add(struct hot_data *d, const uint64_t *f, uint32_t n);
uint64_t hot_data_uframe(struct hot_data *d, uint32_t file, uint64_t off);

/* Whether -e names an event sonde hot can open. */
bool hot_event_known(const char *name);

/* Sample until the duration ends, a signal arrives or -p's process exits.
 * Returns 0, or exits with a message on failures the user must fix. */
int hot_sample(const struct hot_opts *o, struct hot_data *d);

/* Symbolize and write every requested output. Returns 0 or -errno. */
int hot_report(const struct hot_opts *o, struct hot_data *d,
	       struct hot_ksyms *ks);

#endif
