// SPDX-License-Identifier: GPL-2.0-only
/* sample — the sampling half of `sonde hot` (see sample.c). */
#ifndef SONDE_HOT_SAMPLE_H
#define SONDE_HOT_SAMPLE_H

#include <stdbool.h>

#include "data.h"
#include "opts.h"

/* Whether -e names an event sonde hot can open. */
bool hot_event_known(const char *name);

/* Sample until the duration ends, a signal arrives or -p's process exits.
 * Returns 0, or exits with a message on failures the user must fix. */
int hot_sample(const struct hot_opts *o, struct hot_data *d);

#endif
