// SPDX-License-Identifier: GPL-2.0-only
/* opts — what the command line of `sonde hot` asks for: read by the
 * sampler (sample.c) and the report (report.c), set by hot.c. */
#ifndef SONDE_HOT_OPTS_H
#define SONDE_HOT_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum hot_agg { HOT_AGG_PC, HOT_AGG_FUNC, HOT_AGG_MODULE };
enum hot_fmt { HOT_FMT_TABLE, HOT_FMT_FOLDED, HOT_FMT_JSON, HOT_FMT_PPROF };

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
	bool no_demangle;	/* C++ and Rust symbols as they are */
	enum hot_fmt format;
	const char *out_path;
	const char *svg_path;
};

#endif
