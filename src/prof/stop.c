// SPDX-License-Identifier: GPL-2.0-only
/* stop — the end of sampling in libsonde-prof.so: every live thread's
 * samples go to the log, and at exit (the destructor, or _exit) or before
 * an exec the log goes to the writer, libsonde-prof-write.so, loaded only
 * then, which symbolizes it and writes the pprof file. See rt.h. */
#include "rt.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Under the launcher, a mark beside the profile that it could not be
 * written (this process said why): the launcher adds no message of its
 * own. */
static void failed(const char *path)
{
	char mark[4300];
	const char *v = getenv("SONDE_PROF_LAUNCHED");
	int fd;

	if (!v || strcmp(v, "1"))
		return;
	snprintf(mark, sizeof(mark), "%s.err", path);
	fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

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
		failed(path);
		return;
	}
	err = fn(&run, why, sizeof(why));
	if (err) {
		rt_report("cannot write %s: %s", path, why);
		failed(path);
	}
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
