// SPDX-License-Identifier: GPL-2.0-only
/* fatal — libsonde-prof.so when the program dies by a signal: the
 * signals whose default action kills (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * and the crashes: SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT; SIGPROF once
 * sonde has stepped aside) are caught while the program leaves them at
 * their default, and the handler writes the samples as a raw dump
 * (dump.h) with write(2) alone before the signal kills the process as it
 * would have. Async-signal-safe throughout. See rt.h. */
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>

/* ---- death by signal ---- */

/* The signals caught when the program leaves them at their default
 * (death): the handler stops sampling, writes a raw dump (dump.h) with
 * write(2) alone, and lets the signal kill the process as it would have.
 * `sonde prof` turns the dump into the profile. A crash in a handler's
 * own code or on an overflowed stack (no sigaltstack is set up: the
 * program may have its own) still kills without a dump. */
static const int fatal_sigs[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
};
static _Atomic int dumping;		/* 1: in progress, 2: done */

bool rt_is_fatal_ours(int sig)
{
	return sig > 0 && sig < NSIG && rt.fatal_ours[sig];
}

static bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

static bool write_pad(int fd, size_t n)
{
	static const char zero[8];

	return write_all(fd, zero, (8 - n % 8) % 8);
}

/* /proc/self/stat field 22, without stdio. */
static uint64_t start_time_raw(void)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	char *p;
	uint64_t v = 0;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (int field = 2; p && *p && field < 22; p++)
		if (*p == ' ')
			field++;
	while (p && *p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	return v;
}

/* What would have been said at exit ("sonde prof: " and each note),
 * with write(2) alone. */
static void say_notes(void)
{
	const char *p = rt.notes, *end = rt.notes + rt.notes_len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (!write_all(STDERR_FILENO, "sonde prof: ", 12) ||
		    !write_all(STDERR_FILENO, p, n))
			return;
		p += n;
	}
}

static void dump_raw(int sig)
{
	struct sprof_raw h;
	char path[4200], buf[4096];
	int fd, mfd;

	rt_out_name(path, sizeof(path) - 8);
	strcat(path, ".raw");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPROF_RAW_MAGIC, 8);
	h.version = SPROF_VERSION;
	h.mode = rt.mode;
	h.pid = (int32_t)rt.self_pid;
	h.hz = rt.hz;
	h.period_ns = rt.period_ns;
	h.start_ns = rt.start_ns;
	h.duration_ns = now_ns(CLOCK_MONOTONIC) - rt.start_mono;
	h.foreign = atomic_load(&rt.foreign);
	h.starttime = start_time_raw();
	h.entry = getauxval(AT_ENTRY);
	h.notes_len = rt.notes_len;
	h.log_len = rt.log_len;
	h.signal = sig;
	if (!write_all(fd, &h, sizeof(h)) || !write_all(fd, rt.notes, rt.notes_len) ||
	    !write_pad(fd, rt.notes_len))
		goto out;
	mfd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	for (ssize_t n; mfd >= 0 && (n = read(mfd, buf, sizeof(buf))) > 0;) {
		if (!write_all(fd, buf, (size_t)n))
			break;
		h.maps_len += (size_t)n;
	}
	if (mfd >= 0)
		close(mfd);
	if (write_pad(fd, h.maps_len) && write_all(fd, rt.logbuf, rt.log_len))
		pwrite(fd, &h, sizeof(h), 0);
out:
	close(fd);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;
	sigset_t set;
	int expected = 0;

	(void)si;
	(void)uc;
	if (rt.active && getpid() == rt.self_pid &&
	    atomic_compare_exchange_strong(&dumping, &expected, 1)) {
		atomic_store(&rt.stopping, 1);
		spin_lock();
		rt_stop_all(true);
		spin_unlock();
		dump_raw(sig);
		say_notes();
		rt.active = false;
		atomic_store(&dumping, 2);
	} else {
		/* Another thread dumps: let it finish before dying. */
		while (atomic_load(&dumping) == 1)
			sched_yield();
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	rt.real_sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), gettid_raw(), sig);
}

bool rt_catch_fatal_sig(int sig, const struct sigaction *prog)
{
	struct sigaction act;

	if (prog->sa_handler != SIG_DFL || (prog->sa_flags & SA_SIGINFO))
		return false;
	memset(&act, 0, sizeof(act));
	act.sa_sigaction = on_fatal;
	act.sa_flags = SA_SIGINFO;
	sigfillset(&act.sa_mask);
	rt.prog_fatal[sig] = *prog;
	if (rt.real_sigaction(sig, &act, NULL))
		return false;
	rt.fatal_ours[sig] = true;
	return true;
}

void rt_catch_fatal(void)
{
	struct sigaction cur;

	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		if (!rt.real_sigaction(fatal_sigs[i], NULL, &cur))
			rt_catch_fatal_sig(fatal_sigs[i], &cur);
}
