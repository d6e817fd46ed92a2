// SPDX-License-Identifier: GPL-2.0-only
/* tracefs — where the kernel's tracing filesystem is (mounting it at
 * /sys/kernel/tracing when it is absent) and what its events are: the
 * numeric id of a tracepoint, whether one exists. */
#ifndef SONDE_TRACEFS_H
#define SONDE_TRACEFS_H

#include <stdbool.h>

/* The tracefs mount point, mounting it if needed; NULL with errno set. */
const char *tracefs_root(void);
/* The id of events/<category>/<name>, or -errno (-ENOENT: no such event). */
int tracefs_event_id(const char *category, const char *name);
bool tracefs_event_exists(const char *category, const char *name);
/* Whether a file exists under the tracefs root ("kprobe_events", ...). */
bool tracefs_has(const char *file);

#endif
