// SPDX-License-Identifier: GPL-2.0-only
/* sample — the sampling half of `sonde hot` (see sample.c). */
#ifndef SONDE_HOT_SAMPLE_H
#define SONDE_HOT_SAMPLE_H

#include <stdbool.h>

#include "data.h"
#include "opts.h"

/* Whether -e names an event sonde hot can open. */
bool hot_event_known(const char *name);

struct hot_sampler;

/* Open the perf events, disabled, and take the signals that end a run;
 * exits with a message on failures the user must fix. */
struct hot_sampler *hot_sampler_open(const struct hot_opts *o,
				     struct hot_data *d);
/* Enable the events and sample until the duration ends, a signal arrives
 * or -p's process exits; then close everything and free s. Returns 0. */
int hot_sampler_run(struct hot_sampler *s);

#endif
