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
 * This file holds the state, the start (the constructor) and the stop
 * (the destructor, and the writer it loads); rt.h lists the other parts:
 * the handler, the threads, death by signal, the interposed calls. */
#include "rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

struct rt_state rt = { .hz = 100, .lock = ATOMIC_FLAG_INIT };

/* ---- helpers ---- */

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

static void resolve_all(void)
{
	for (int i = 0; i < NREAL; i++)
		rt_next_sym(i);
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

/* ---- stopping and writing ---- */

/* Whether a thread blocks SIGPROF now (SigBlk in its status). */
static bool sigprof_blocked(pid_t tid)
{
	char path[64], buf[2048], *p;
	unsigned long long mask;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strstr(buf, "\nSigBlk:");
	if (!p || sscanf(p + 8, "%llx", &mask) != 1)
		return false;
	return mask >> (SIGPROF - 1) & 1;
}

/* Stop sampling and move every live thread's samples to the log. In a
 * signal handler (in_handler) only async-signal-safe calls are made. */
void rt_stop_all(bool in_handler)
{
	uint32_t n = atomic_load(&rt.nslots);
	pid_t me = gettid_raw();	/* its mask is ours now: not checked */
	char name[16];

	for (uint32_t i = 0; i < n; i++) {
		struct slot *s = rt.slots[i];

		if (s->state != SLOT_LIVE)
			continue;
		rt_disarm(s);
		rt_close_slot(s);
		/* The name now if the thread lives, else the one it had. */
		rt_read_comm(s->tid, name);
		if (!in_handler && s->tid != me && sigprof_blocked(s->tid))
			atomic_fetch_add(&rt.blocked_threads, 1);
		rt_retire(s, name[0] ? name : s->name, 0);
	}
}

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

static sprof_write_fn load_writer(char *why, size_t len)
{
	Dl_info info;
	char path[4096];
	const char *dir = getenv("SONDE_PROF_LIBDIR");
	void *h;
	sprof_write_fn fn;

	if (dir && *dir) {
		snprintf(path, sizeof(path), "%s/%s", dir, SPROF_WRITER_LIB);
	} else if (dladdr((void *)load_writer, &info) && info.dli_fname &&
		   strrchr(info.dli_fname, '/')) {
		const char *slash = strrchr(info.dli_fname, '/');

		snprintf(path, sizeof(path), "%.*s/%s",
			 (int)(slash - info.dli_fname), info.dli_fname,
			 SPROF_WRITER_LIB);
	} else {
		snprintf(path, sizeof(path), "%s", SPROF_WRITER_LIB);
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, len, "%s", dlerror());
		return NULL;
	}
	fn = (sprof_write_fn)dlsym(h, SPROF_WRITE_SYMBOL);
	if (!fn)
		snprintf(why, len, "%s has no %s", path, SPROF_WRITE_SYMBOL);
	return fn;
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
void rt_write_profile(void)
{
	struct sprof_run run;
	char path[4200], why[512] = "";
	sprof_write_fn fn;
	int err;

	/* A process other than the one the user started writes a file only
	 * when it has samples: a build's hundreds of short helpers would
	 * otherwise leave as many empty profiles. */
	if (!rt.is_root && !rt.log_len)
		return;
	rt_out_name(path, sizeof(path));
	memset(&run, 0, sizeof(run));
	run.version = SPROF_VERSION;
	run.mode = rt.mode;
	run.pid = (int32_t)getpid();
	run.hz = rt.hz;
	run.period_ns = rt.period_ns;
	run.start_ns = rt.start_ns;
	run.duration_ns = now_ns(CLOCK_MONOTONIC) - rt.start_mono;
	run.foreign = atomic_load(&rt.foreign);
	run.log = rt.logbuf;
	run.log_len = rt.log_len;
	run.notes = rt.notes;
	run.out_path = path;
	fn = load_writer(why, sizeof(why));
	if (!fn) {
		rt_report("cannot load the profile writer: %s (no profile written)",
			  why);
		return;
	}
	err = fn(&run, why, sizeof(why));
	if (err)
		rt_report("cannot write %s: %s", path, why);
	rt.log_len = 0;
}

static void report_notes(void)
{
	const char *p = rt.notes;

	while (*p) {
		const char *nl = strchr(p, '\n');

		rt_report("%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (atomic_load(&rt.foreign))
		rt_report("ignored %llu SIGPROF signals that were not sonde's",
			  (unsigned long long)atomic_load(&rt.foreign));
}

__attribute__((destructor)) void rt_prof_fini(void)
{
	sigset_t all, old;

	if (!rt.active || getpid() != rt.self_pid)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	atomic_store(&rt.stopping, 1);
	spin_lock();
	rt_stop_all(false);
	spin_unlock();
	if (atomic_load(&rt.blocked_threads))
		rt_note("%u thread(s) had SIGPROF blocked when they ended: a thread "
			"is not sampled while it blocks SIGPROF",
			(unsigned)atomic_load(&rt.blocked_threads));
	rt_write_profile();
	report_notes();
	rt.active = false;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- start ---- */

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
