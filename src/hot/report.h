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

struct sd_outfile;

/* Symbolize and write every requested output: the main one into out
 * (NULL: stdout), the flame graph into svg (NULL: none), both opened by
 * hot_open_output before sampling and closed here. An output that cannot
 * be written is kept in $TMPDIR and named. Returns 0 or -EIO. */
int hot_report_to(const struct hot_opts *o, struct hot_data *d,
		  struct hot_ksyms *ks, struct sd_outfile *out,
		  struct sd_outfile *svg);
/* Check and open an output path now (lib/outfile); says why not. 0 or
 * -errno. */
int hot_open_output(const char *path, struct sd_outfile *of);
/* hot_report_to with the outputs opened from o's paths. */
int hot_report(const struct hot_opts *o, struct hot_data *d,
	       struct hot_ksyms *ks);

#endif
