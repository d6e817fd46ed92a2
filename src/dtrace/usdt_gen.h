// SPDX-License-Identifier: GPL-2.0-only
/* dtrace -h and -G: a USDT provider's header and link object from the
 * provider declarations of a .d file (usdt_gen.c). */
#ifndef SONDE_DTRACE_USDT_GEN_H
#define SONDE_DTRACE_USDT_GEN_H

#include <stddef.h>

/* Both return 0; 1 when the declarations do not parse (err says where:
 * "line N: ..."); 2 when the output cannot be written or an object is
 * refused (err says why). out is replaced only when all went well. */
int dt_usdt_header(const char *dfile, const char *text, size_t len,
		   const char *out, char *err, size_t errlen);
int dt_usdt_link(const char *dfile, const char *text, size_t len,
		 const char *out, char **objv, int objc, char *err,
		 size_t errlen);

#endif
