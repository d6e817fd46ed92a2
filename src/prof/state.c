// SPDX-License-Identifier: GPL-2.0-only
/* state — what every part of libsonde-prof.so stands on: the process-wide
 * state `rt`, the interposed functions' next definitions, the notes kept
 * for the end, messages, and the name of the file this process writes.
 * Calls no other part. See rt.h. */
#include "rt.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct rt_state rt = { .hz = 100, .lock = ATOMIC_FLAG_INIT };

/* The functions this library interposes on, resolved once when it starts:
 * dlsym must not run later in a vfork child or after fork in a threaded
 * program (it takes the loader's lock), and _exit and the exec calls are
 * made exactly there. Before the library starts (another library's
 * constructor), they are looked up on the spot. */
static const char *const real_names[NREAL] = {
	"_exit", "execve", "execvpe", "execv", "execvp", "fexecve", "signal",
	"sysv_signal", "setitimer", "timer_create",
};
static void *real_fns[NREAL];

void *rt_next_sym(int which)
{
	if (!real_fns[which])
		real_fns[which] = dlsym(RTLD_NEXT, real_names[which]);
	return real_fns[which];
}

void rt_note(const char *fmt, ...)
	     {
	     va_list ap;
	int n;

	if (rt.notes_len >= sizeof(rt.notes) - 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(rt.notes + rt.notes_len,
		      sizeof(rt.notes) - rt.notes_len - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	rt.notes_len += (size_t)n;
	if (rt.notes_len > sizeof(rt.notes) - 2)
		rt.notes_len = sizeof(rt.notes) - 2;
	rt.notes[rt.notes_len++] = '\n';
	rt.notes[rt.notes_len] = '\0';
}

void rt_report(const char *fmt, ...)
	       {
	       char buf[1024];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "sonde prof: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

/* Write what was sampled so far; the log is emptied. */

void rt_out_name(char *buf, size_t len)
{
	size_t n = strlen(rt.out_base);
	const char *ext = ".pb.gz";

	if (rt.is_root) {
		snprintf(buf, len, "%s", rt.out_base);
	} else if (n > strlen(ext) && !strcmp(rt.out_base + n - strlen(ext), ext)) {
		snprintf(buf, len, "%.*s.%d%s", (int)(n - strlen(ext)), rt.out_base,
			 (int)getpid(), ext);
	} else {
		snprintf(buf, len, "%s.%d", rt.out_base, (int)getpid());
	}
}
