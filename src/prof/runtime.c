// SPDX-License-Identifier: GPL-2.0-only
/* runtime — libsonde-prof.so: the CPU profiler that runs inside the
 * profiled program (LD_PRELOAD, SONDE_PROF=FILE).
 *
 * Every thread gets its own POSIX timer on its own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID), so SIGPROF goes to the thread
 * that burned the CPU; the first expiry is random within the first period
 * and each signal weighs 1 + si_overrun periods, which keeps totals right
 * above the kernel's HZ. The handler walks the stack (unwind.c) and counts
 * it in the thread's own hash table: no malloc, no locks, no stdio; its
 * memory grows with mmap. Threads are armed when the library initializes
 * (all threads already in /proc/self/task), when pthread_create starts one
 * (an interposed start routine), and in the child after fork. A thread that
 * ends moves its table into a process-wide log under a spinlock (outside
 * any signal handler) so its slot can be reused.
 *
 * With SONDE_PROF_KERNEL=1 each thread gets a perf_event (task clock,
 * kernel call chains) instead of a timer; its overflow signal is SIGPROF
 * too, and the handler adds the kernel frames from the event's ring.
 *
 * At exit (exit, return from main, _exit) and before an exec, sampling
 * stops and the log goes to the writer, libsonde-prof-write.so, loaded only
 * then, which symbolizes it and writes the pprof file. Killed by SIGINT,
 * SIGTERM or SIGHUP, the process writes the log as a raw dump from the
 * signal handler instead, for `sonde prof` to symbolize. See dump.h and
 * docs/prof.md.
 *
 * This file is the start (the constructor); rt.h lists the other parts.
 * They call one another downwards only: runtime.c -> interpose.c ->
 * fatal.c -> stop.c -> threads.c -> state.c, handler.c -> state.c. */
#include "rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

/* Resolved once when the library starts: see rt_next_sym. */
static void resolve_all(void)
{
	for (int i = 0; i < NREAL; i++)
		rt_next_sym(i);
}

static bool env_true(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

__attribute__((constructor)) static void prof_init(void)
{
	const char *out = getenv("SONDE_PROF"), *v;
	struct sigaction act, cur;
	struct itimerval it;
	char pidbuf[32];

	rt.real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	rt.real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	resolve_all();
	if (!out || !*out || !rt.real_sigaction || !rt.real_pthread_create)
		return;
	snprintf(rt.out_base, sizeof(rt.out_base), "%s", out);
	if ((v = getenv("SONDE_PROF_HZ"))) {
		long x = strtol(v, NULL, 10);

		if (x < 1 || x > 100000) {
			rt_report("SONDE_PROF_HZ=%s is not a rate from 1 to 100000 "
				  "Hz; using 100", v);
			x = 100;
		}
		rt.hz = (uint32_t)x;
	}
	rt.period_ns = 1000000000ull / rt.hz;
	rt.mode = env_true("SONDE_PROF_KERNEL") ? SPROF_PERF : SPROF_TIMER;
	rt.self_pid = getpid();
	/* The process the user started writes FILE; every other process
	 * (forks, and programs they exec) FILE.PID. The root's pid is passed
	 * on in the environment. */
	v = getenv("SONDE_PROF_PID");
	if (!v || !*v) {
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)rt.self_pid);
		setenv("SONDE_PROF_PID", pidbuf, 1);
		rt.is_root = true;
	} else {
		rt.is_root = atoi(v) == (int)rt.self_pid;
	}
	rt.rand_state = now_ns(CLOCK_MONOTONIC) ^ ((uint64_t)rt.self_pid << 32);
	rt.start_ns = now_ns(CLOCK_REALTIME);
	rt.start_mono = now_ns(CLOCK_MONOTONIC);

	rt.slots = mmap(NULL, MAX_SLOTS * sizeof(*rt.slots), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (rt.slots == MAP_FAILED || pthread_key_create(&rt.slot_key, rt_on_thread_end)) {
		rt_report("cannot allocate its tables; not profiling");
		return;
	}

	/* Someone already owns SIGPROF: say so, and do not sample. */
	rt.real_sigaction(SIGPROF, NULL, &cur);
	if (rt_is_handler(&cur)) {
		rt_report("SIGPROF already has a handler in this process (another "
			  "profiler?); not profiling");
		return;
	}
	if (!getitimer(ITIMER_PROF, &it) &&
	    (it.it_value.tv_sec || it.it_value.tv_usec)) {
		rt_report("ITIMER_PROF is already armed in this process (another "
			  "profiler?); not profiling");
		return;
	}
	rt.prog_sigprof = cur;
	memset(&act, 0, sizeof(act));
	act.sa_sigaction = rt_on_sigprof;
	act.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&act.sa_mask);
	if (rt.real_sigaction(SIGPROF, &act, NULL)) {
		rt_report("cannot install the SIGPROF handler: %s; not profiling",
			  strerror(errno));
		return;
	}
	pthread_atfork(rt_atfork_prepare, rt_atfork_parent, rt_atfork_child);
	rt_catch_fatal();
	rt.active = true;
	rt_register_self();
	rt_register_others();
}
