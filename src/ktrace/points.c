// SPDX-License-Identifier: GPL-2.0-only
/* points — the trace-point letters of ktrace -t and kdump -t (BSD's). */
#include "ktrace.h"
#include "record.h"

#include <errno.h>

int ktrace_parse_points(const char *s, uint32_t *points)
{
	uint32_t p = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		switch (*s) {
		case 'c': p |= KTR_PT_SYSCALL; break;
		case 'n': p |= KTR_PT_NAMEI; break;
		case 'i': p |= KTR_PT_GENIO; break;
		case 's': p |= KTR_PT_SIG; break;
		case 'w': p |= KTR_PT_CSW; break;
		case 'p': p |= KTR_PT_PROC; break;
		case 't': p |= KTR_PT_STRU; break;
		case '+': p |= KTR_PT_DEFAULT; break;
		default: return -EINVAL;
		}
	}
	*points = p;
	return 0;
}
