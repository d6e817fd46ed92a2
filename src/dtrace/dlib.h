// SPDX-License-Identifier: GPL-2.0-only
/* dlib — the integer constants of DTrace's D library (signal.d, errno.d,
 * procfs.d, regs.d, net.d...): a name D knows without a declaration.
 * Looked up only when a name is otherwise undefined, so a script that
 * uses none costs nothing. The Linux values come from the system's
 * headers (scripts/gen-dlib.sh); DTrace's own (DTRACEFLT_*, R_*, SRUN...)
 * are in dlib.c. */
#ifndef SONDE_DTRACE_DLIB_H
#define SONDE_DTRACE_DLIB_H

#include <stdbool.h>
#include <stdint.h>

struct dt_dlib_const {
	const char *name;
	long long value;
};
/* generated: errno, signals, si_code values, address families,
 * protocols, ARP hardware types */
extern const struct dt_dlib_const dt_dlib_consts[];
extern const unsigned dt_dlib_nconsts;

/* The D library's constant name: its value and size in bytes (an int is
 * 4, DTrace's char constants 1); false when there is none. */
bool dt_dlib_const(const char *name, int64_t *value, int *size);

#endif
