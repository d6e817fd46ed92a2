// SPDX-License-Identifier: GPL-2.0-only
/* report — the output half of `sonde hot` (see report.c). */
#ifndef SONDE_HOT_REPORT_H
#define SONDE_HOT_REPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "data.h"
#include "opts.h"
#include "../lib/ksym.h"

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

/* Symbolize and write every requested output. Returns 0 or -errno. */
int hot_report(const struct hot_opts *o, struct hot_data *d,
	       struct hot_ksyms *ks);

#endif
