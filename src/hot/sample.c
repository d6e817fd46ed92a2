// SPDX-License-Identifier: GPL-2.0-only
/* sample — the sampling half of `sonde hot`: one perf_event per CPU, their
 * mmap rings drained on wake-ups and timer ticks, samples reduced to call
 * chains and counted. User-space addresses are resolved to (file, offset)
 * while the process still exists, through the symbolizer's process maps,
 * fed by perf's MMAP2, COMM and FORK records. */
#include "sample.h"
#include "../lib/perf.h"
#include "../lib/util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAMES 256

struct hot_sampler {
	const struct hot_opts *o;
	struct hot_data *d;
	struct perf_ring *rings;
	int nrings;
	uint64_t sample_type;
	pid_t self;		/* sonde's own samples are dropped */
	int sigfd, pidfd;
	bool tty;
};

/* Events sonde hot knows by name. */
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
};

static void setup_attr(const struct hot_opts *o, struct perf_event_attr *a,
		       size_t ring_bytes)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(events); i++)
		if (strcmp(events[i].name, o->event) == 0)
			break;
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = events[i].type;
	a->config = events[i].config;
	a->freq = 1;
	a->sample_freq = o->freq;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU;
	if (o->stacks)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	/* User-mode samples are always taken: without --user they are only
	 * counted (a counting cpu-clock event cannot tell user time from
	 * kernel time: software events apply exclude_* to samples alone). */
	a->exclude_user = 0;
	a->exclude_callchain_user = !o->user;
	a->exclude_hv = 1;
	a->disabled = 1;
	a->watermark = 1;
	a->wakeup_watermark = ring_bytes / 4;
	a->sample_id_all = 1;
	if (o->format == HOT_FMT_PPROF) {	/* threads' names: labels */
		a->comm = 1;
		a->comm_exec = 1;
	}
	if (o->user) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
	}
}

bool hot_event_known(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (strcmp(events[i].name, name) == 0)
			return true;
	return false;
}

static void open_events(struct hot_sampler *s)
{
	const struct hot_opts *o = s->o;
	size_t pages = o->stacks ? 256 : 64;
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;

	s->rings = sd_calloc(o->ncpus, sizeof(*s->rings));
	for (int cpu = 0; cpu < o->ncpus; cpu++) {
		char why[256];
		int fd, err;

		if (!o->cpus[cpu])
			continue;
		setup_attr(o, &attr, pages * psz);
		s->sample_type = attr.sample_type;
		fd = perf_event_open(&attr, -1, cpu, -1, 0);
		if (fd < 0) {
			bool hw = attr.type == PERF_TYPE_HARDWARE;

			sd_err("cannot open %s events on CPU %d: %s", o->event,
			       cpu, perf_open_error(fd, hw, why, sizeof(why)));
			exit(SD_EXIT_FAIL);
		}
		/* Without CAP_IPC_LOCK the locked-memory limit applies:
		 * halve the ring until it fits. */
		while ((err = perf_ring_map(&s->rings[s->nrings], fd, cpu,
					    pages)) == -EPERM && pages > 4)
			pages /= 2;
		if (err) {
			sd_err("cannot map the perf ring buffer of CPU %d: %s "
			       "(see kernel.perf_event_mlock_kb)", cpu,
			       strerror(-err));
			exit(SD_EXIT_FAIL);
		}
		s->nrings++;
	}
	s->d->st.ncpus_sampled = s->nrings;
}

static void enable_events(struct hot_sampler *s, bool on)
{
	for (int i = 0; i < s->nrings; i++)
		ioctl(s->rings[i].fd, on ? PERF_EVENT_IOC_ENABLE
					 : PERF_EVENT_IOC_DISABLE, 0);
}

/* MMAP2, COMM and FORK records keep the process maps current (lib/
 * symbolizer); COMM records name threads for pprof's labels. */
static void side_band(struct hot_sampler *s, const struct perf_event_header *h)
{
	const char *p = (const char *)(h + 1);
	uint32_t v[2];

	symbolizer_side_band(s->d->sym, h, s->sample_type);
	if (h->type == PERF_RECORD_COMM && s->o->format == HOT_FMT_PPROF &&
	    h->size > sizeof(*h) + 8 &&
	    memchr(p + 8, '\0', h->size - sizeof(*h) - 8)) {
		memcpy(v, p, sizeof(v));	/* pid, tid */
		hot_data_comm(s->d, (pid_t)v[0], (pid_t)v[1], p + 8);
	}
}

static uint64_t user_frame(struct hot_sampler *s, uint32_t pid, uint64_t addr,
			   uint64_t t)
{
	return hot_data_uframe(s->d, (pid_t)pid, addr, t);
}

static void sample(struct hot_sampler *s, const struct perf_event_header *h)
{
	const struct hot_opts *o = s->o;
	struct hot_stats *st = &s->d->st;
	uint64_t f[MAX_FRAMES];
	struct perf_sample ps;
	uint32_t n = 0;

	if (perf_parse_sample(h, s->sample_type, &ps)) {
		st->bad++;
		return;
	}
	st->read++;
	/* sonde's own threads: not what is measured */
	if (ps.pid == (uint32_t)s->self) {
		st->own++;
		return;
	}
	if (o->pid && ps.pid != (uint32_t)o->pid) {
		st->other++;
		return;
	}
	if (o->no_idle && ps.pid == 0) {
		st->idle++;
		return;
	}
	/* Without --user, user-mode samples are taken only to be counted:
	 * the footer says how much of the time they were. */
	if (!o->user && (ps.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
			PERF_RECORD_MISC_USER) {
		st->user++;
		return;
	}
	if (ps.nr) {
		uint64_t ctx = 0;
		bool first_k = true, first_u = true;

		for (uint64_t i = 0; i < ps.nr && n < MAX_FRAMES; i++) {
			uint64_t v = ps.chain[i];

			if (v >= (uint64_t)PERF_CONTEXT_MAX) {
				ctx = v;
				continue;
			}
			if (ctx == (uint64_t)PERF_CONTEXT_KERNEL) {
				f[n++] = first_k ? v : v - 1;
				first_k = false;
			} else if (ctx == (uint64_t)PERF_CONTEXT_USER &&
				   o->user) {
				f[n++] = user_frame(s, ps.pid,
						    first_u ? v : v - 1,
						    ps.time);
				first_u = false;
			}
		}
	}
	if (n == 0) {
		uint16_t mode = ps.misc & PERF_RECORD_MISC_CPUMODE_MASK;

		if (mode == PERF_RECORD_MISC_USER)
			f[n++] = user_frame(s, ps.pid, ps.ip, ps.time);
		else
			f[n++] = ps.ip;
	}
	st->kept++;
	if (o->format == HOT_FMT_PPROF) {	/* labels: where it was */
		hot_data_comm(s->d, (pid_t)ps.pid, (pid_t)ps.tid, NULL);
		hot_data_add_at(s->d, f, n, ps.cpu, (pid_t)ps.pid,
				(pid_t)ps.tid);
	} else {
		hot_data_add(s->d, f, n);
	}
}

static void drain(struct hot_sampler *s)
{
	const struct perf_event_header *h;
	uint64_t pos;

	for (int i = 0; i < s->nrings; i++)
		perf_ring_begin(&s->rings[i]);
	if (s->o->user || s->o->format == HOT_FMT_PPROF) {
		for (int i = 0; i < s->nrings; i++) {
			pos = perf_ring_tail(&s->rings[i]);
			while ((h = perf_ring_next(&s->rings[i], &pos)))
				if (h->type != PERF_RECORD_SAMPLE)
					side_band(s, h);
		}
	}
	for (int i = 0; i < s->nrings; i++) {
		pos = perf_ring_tail(&s->rings[i]);
		while ((h = perf_ring_next(&s->rings[i], &pos))) {
			switch (h->type) {
			case PERF_RECORD_SAMPLE:
				sample(s, h);
				break;
			case PERF_RECORD_LOST: {
				uint64_t v[2];	/* id, lost */

				if (h->size >= sizeof(*h) + sizeof(v)) {
					memcpy(v, h + 1, sizeof(v));
					s->d->st.lost += v[1];
				}
				break;
			}
			case PERF_RECORD_THROTTLE:
				s->d->st.throttled++;
				break;
			}
		}
		perf_ring_end(&s->rings[i]);
	}
}

static void progress(struct hot_sampler *s, uint64_t elapsed, bool done)
{
	char a[32], b[32];

	if (!s->tty)
		return;
	if (done) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[Ksonde hot: %s elapsed, %s left, %llu samples",
		sd_fmt_duration(elapsed, a, sizeof(a)),
		sd_fmt_duration(s->o->duration_ns > elapsed ?
				s->o->duration_ns - elapsed : 0, b, sizeof(b)),
		(unsigned long long)s->d->st.kept);
	fflush(stderr);
}

static int open_signals(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		sd_die("signalfd: %s", strerror(errno));
	return fd;
}

struct hot_sampler *hot_sampler_open(const struct hot_opts *o,
				     struct hot_data *d)
{
	struct hot_sampler *s = sd_calloc(1, sizeof(*s));

	s->o = o;
	s->d = d;
	s->tty = isatty(2);
	s->pidfd = -1;
	s->self = getpid();
	s->sigfd = open_signals();
	open_events(s);
	if (o->pid) {
		s->pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
		if (s->pidfd < 0 && errno == ESRCH)
			sd_die("no process with pid %d", (int)o->pid);
	}
	return s;
}

int hot_sampler_run(struct hot_sampler *s)
{
	const struct hot_opts *o = s->o;
	struct hot_data *d = s->d;
	/* Drain often enough that a ring never fills, and with --user soon
	 * enough that short-lived processes still have their /proc maps. */
	uint64_t tick = s->tty || o->user ? 250000000ull : 1000000000ull;
	struct pollfd *pfd;
	int npfd;
	uint64_t t0, now;

	pfd = sd_calloc(s->nrings + 2, sizeof(*pfd));
	for (int i = 0; i < s->nrings; i++)
		pfd[i] = (struct pollfd){ .fd = s->rings[i].fd, .events = POLLIN };
	npfd = s->nrings;
	pfd[npfd++] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
	if (s->pidfd >= 0)
		pfd[npfd++] = (struct pollfd){ .fd = s->pidfd, .events = POLLIN };

	t0 = sd_now_ns();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		d->st.start_ns = (uint64_t)ts.tv_sec * 1000000000ull +
				 (uint64_t)ts.tv_nsec;
	}
	enable_events(s, true);
	for (;;) {
		uint64_t left, wait;

		now = sd_now_ns();
		if (now - t0 >= o->duration_ns)
			break;
		left = o->duration_ns - (now - t0);
		wait = left < tick ? left : tick;
		if (poll(pfd, npfd, (int)((wait + 999999) / 1000000)) < 0 &&
		    errno != EINTR)
			sd_die("poll: %s", strerror(errno));
		drain(s);
		if (pfd[s->nrings].revents & POLLIN) {
			d->st.interrupted = true;
			break;
		}
		if (s->pidfd >= 0 && pfd[s->nrings + 1].revents & POLLIN) {
			d->st.target_exited = true;
			break;
		}
		progress(s, sd_now_ns() - t0, false);
	}
	enable_events(s, false);
	d->st.elapsed_ns = sd_now_ns() - t0;
	drain(s);
	progress(s, 0, true);

	for (int i = 0; i < s->nrings; i++) {
		close(s->rings[i].fd);
		perf_ring_unmap(&s->rings[i]);
	}
	free(s->rings);
	free(pfd);
	close(s->sigfd);
	if (s->pidfd >= 0)
		close(s->pidfd);
	free(s);
	return 0;
}
