// SPDX-License-Identifier: GPL-2.0-only
/* data — the store behind `sonde hot`: the call chains the sampler
 * collects, each with its count, the user-space frames they point into,
 * the symbolizer that holds the processes' mappings, and the run's
 * counters. Filled by sample.c, read by report.c. */
#ifndef SONDE_HOT_DATA_H
#define SONDE_HOT_DATA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/hash.h"
#include "../lib/symbolizer.h"

/* Frames inside a chain. Kernel frames are raw addresses (the top bit is
 * set on every kernel address sonde supports); user frames are indices
 * into the user frame table, tagged. Callers' return addresses are stored
 * minus one so they symbolize inside the calling function. */
#define HOT_USER_TAG (1ull << 62)
#define HOT_IS_KERNEL(f) ((f) >> 63)
#define HOT_IS_USER(f) (((f) >> 62) == 1)

/* A call chain and how often it was sampled. For pprof output chains are
 * told apart by where they were sampled too (cpu, pid, tid: labels);
 * else those are 0. */
struct hot_chain {
	uint64_t count;
	uint32_t cpu;
	pid_t pid, tid;
	uint32_t n;
	uint64_t f[];		/* leaf first */
};

/* A user frame resolved while its process lived: a mapped file (procmaps
 * index) and offset, or for anonymous code (PROCMAPS_ANON) the address
 * and the process, whose perf map may name it. */
struct hot_uframe {
	uint32_t file;
	pid_t pid;		/* anonymous code only; else 0 */
	uint64_t off;
};

struct hot_stats {
	uint64_t read;		/* every sample record read */
	uint64_t kept;		/* counted in the profile */
	uint64_t idle;		/* dropped: idle task (--no-idle) */
	uint64_t other;		/* dropped: another process (-p) */
	uint64_t own;		/* dropped: sonde's own threads */
	uint64_t user;		/* dropped: user mode, without --user */
	uint64_t lost;		/* PERF_RECORD_LOST totals */
	uint64_t throttled;	/* PERF_RECORD_THROTTLE events */
	uint64_t bad;		/* malformed records */
	uint64_t elapsed_ns;
	uint64_t start_ns;	/* CLOCK_REALTIME when sampling started */
	int ncpus_sampled;
	bool interrupted;	/* Ctrl-C / SIGTERM */
	bool target_exited;	/* -p PID exited before the end */
};

struct hot_data {
	struct htab chains;	/* struct hot_chain, keyed by frames */
	struct htab uindex;	/* struct hot_uframe -> index + 1 */
	struct hot_uframe *uframes;
	size_t nuframes, capuframes;
	struct symbolizer *sym;	/* process maps, symbols */
	struct htab comms;	/* tid -> struct hot_comm (pprof labels) */
	struct hot_stats st;
};

void hot_data_init(struct hot_data *d);
void hot_data_free(struct hot_data *d);
/* Count one chain of n frames (leaf first). */
void hot_data_add(struct hot_data *d, const uint64_t *f, uint32_t n);
/* The same, told apart by where it was sampled. */
void hot_data_add_at(struct hot_data *d, const uint64_t *f, uint32_t n,
		     uint32_t cpu, pid_t pid, pid_t tid);

/* A thread's name as sampled, for pprof's comm label. */
struct hot_comm {
	pid_t tid;
	char comm[16];
};
/* The name of tid (of process pid): set by a COMM record (comm non-NULL),
 * else read from /proc on first sight. Never NULL. */
const char *hot_data_comm(struct hot_data *d, pid_t pid, pid_t tid,
			  const char *comm);
/* The frame of a user address of pid at time t, resolved now. */
uint64_t hot_data_uframe(struct hot_data *d, pid_t pid, uint64_t addr,
			 uint64_t t);

#endif
