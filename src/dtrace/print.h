// SPDX-License-Identifier: GPL-2.0-only
/* print — print() records as dtrace(1) shows them (print.c). */
#ifndef SONDE_DTRACE_PRINT_H
#define SONDE_DTRACE_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dt_prog;
struct dt_type;

/* "ADDR = *" and the len bytes of type t at data, member by member, at
 * most printsize bytes of them (0: all); p's enums name the values. */
void dt_print_type(FILE *f, const struct dt_prog *p, const struct dt_type *t,
		   uint64_t addr, const uint8_t *data, size_t len,
		   uint64_t printsize);

#endif
