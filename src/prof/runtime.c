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
 * docs/prof.md. */
#include "dump.h"
#include "unwind.h"
#include "../lib/hash.h"	/* hash_u64 alone: inline, no link */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

#define MAX_FRAMES 128
#define MAX_KFRAMES 64
#define MAX_SLOTS (1u << 20)
#define SIVAL_MAGIC 0x50f1ull	/* top 16 bits of our timers' sival */
#define RING_PAGES 8

enum slot_state { SLOT_FREE, SLOT_LIVE, SLOT_RETIRED };

struct ent {
	uint64_t hash, count, ns;
	uint32_t off;		/* into the arena, in words */
	uint16_t nkernel, nuser;
};

struct slot {
	_Atomic int busy;	/* inside the handler */
	_Atomic int closed;	/* the handler must not touch the tables */
	int state;
	uint32_t index, gen;
	pid_t tid;
	bool hooked;		/* ours: it retires itself at its end */
	bool has_timer;
	timer_t timer;
	int perf_fd;
	struct perf_event_mmap_page *ring;
	uintptr_t stack_lo, stack_hi;	/* 0: unknown yet */
	uintptr_t other_lo, other_hi;	/* the last other stack seen */
	struct ent *tab;
	uint32_t cap, used;
	uint64_t *arena;
	size_t arena_cap, arena_used;	/* words */
	uint64_t signals, periods, ns, dropped, truncated;
	char name[16];		/* comm when armed from outside the thread */
	struct slot *next_free;
};

/* ---- global state ---- */

static bool active;		/* SONDE_PROF was set and sampling runs */
static _Atomic int stopping;	/* exit or exec: no new threads armed */
static bool handed_over;	/* the program took SIGPROF */
static enum sprof_mode mode;
static uint32_t hz = 100;
static uint64_t period_ns;
static pid_t self_pid;
static uint64_t start_ns, start_mono;
static char out_base[4096];	/* SONDE_PROF */
static bool is_root;		/* this process writes FILE, not FILE.PID */
static _Atomic uint64_t foreign;
static _Atomic uint32_t blocked_threads;	/* ended with SIGPROF blocked */
static pthread_key_t slot_key;

static struct slot **slots;	/* MAX_SLOTS pointers, populated lazily */
static _Atomic uint32_t nslots;
static struct slot *free_slots;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static char *logbuf;		/* records of finished threads (dump.h) */
static size_t log_len, log_cap;

static char notes[2048];	/* conflicts etc.: reported at exit */
static size_t notes_len;

/* What the program believes SIGPROF's disposition is. */
static struct sigaction prog_sigprof;

static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *,
				  void *(*)(void *), void *);
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

/* ---- small helpers ---- */

/* The functions this library interposes on, resolved once when it starts:
 * dlsym must not run later in a vfork child or after fork in a threaded
 * program (it takes the loader's lock), and _exit and the exec calls are
 * made exactly there. Before the library starts (another library's
 * constructor), they are looked up on the spot. */
enum {
	REAL_EXIT, REAL_EXECVE, REAL_EXECVPE, REAL_EXECV, REAL_EXECVP,
	REAL_FEXECVE, REAL_SIGNAL, REAL_SYSV_SIGNAL, REAL_SETITIMER,
	REAL_TIMER_CREATE, NREAL,
};
static const char *const real_names[NREAL] = {
	"_exit", "execve", "execvpe", "execv", "execvp", "fexecve", "signal",
	"sysv_signal", "setitimer", "timer_create",
};
static void *real_fns[NREAL];

static void *next_sym(int which)
{
	if (!real_fns[which])
		real_fns[which] = dlsym(RTLD_NEXT, real_names[which]);
	return real_fns[which];
}

static void resolve_all(void)
{
	for (int i = 0; i < NREAL; i++)
		next_sym(i);
}

static void spin_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		sched_yield();
}

static void spin_unlock(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

static pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *map_anon(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (notes_len >= sizeof(notes) - 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(notes + notes_len, sizeof(notes) - notes_len - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	notes_len += (size_t)n;
	if (notes_len > sizeof(notes) - 2)
		notes_len = sizeof(notes) - 2;
	notes[notes_len++] = '\n';
	notes[notes_len] = '\0';
}

/* ---- per-thread stack tables (signal handler side) ---- */

static uint64_t hash_frames(const uint64_t *f, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (size_t i = 0; i < n; i++)
		h = hash_u64(h ^ f[i]);
	return h | 1;	/* 0 never is a hash: count 0 marks empty slots */
}

static bool grow_table(struct slot *s)
{
	uint32_t cap = s->cap ? s->cap * 2 : 256;
	struct ent *t = map_anon(cap * sizeof(*t));

	if (!t)
		return false;
	for (uint32_t i = 0; i < s->cap; i++) {
		const struct ent *e = &s->tab[i];
		uint32_t j;

		if (!e->count)
			continue;
		for (j = (uint32_t)e->hash & (cap - 1); t[j].count;
		     j = (j + 1) & (cap - 1))
			;
		t[j] = *e;
	}
	if (s->tab)
		munmap(s->tab, s->cap * sizeof(*s->tab));
	s->tab = t;
	s->cap = cap;
	return true;
}

static bool grow_arena(struct slot *s, size_t need)
{
	size_t cap = s->arena_cap ? s->arena_cap * 2 : 4096;
	uint64_t *a;

	while (cap < s->arena_used + need)
		cap *= 2;
	a = map_anon(cap * sizeof(*a));
	if (!a)
		return false;
	if (s->arena) {
		memcpy(a, s->arena, s->arena_used * sizeof(*a));
		munmap(s->arena, s->arena_cap * sizeof(*a));
	}
	s->arena = a;
	s->arena_cap = cap;
	return true;
}

static void count_stack(struct slot *s, const uint64_t *f, uint16_t nkernel,
			uint16_t nuser, uint64_t count, uint64_t ns)
{
	size_t n = (size_t)nkernel + nuser;
	uint64_t h = hash_frames(f, n) ^ ((uint64_t)nkernel << 48);
	uint32_t i;

	if ((s->used + 1) * 2 > s->cap && !grow_table(s)) {
		s->dropped += count;
		return;
	}
	for (i = (uint32_t)h & (s->cap - 1); s->tab[i].count;
	     i = (i + 1) & (s->cap - 1)) {
		struct ent *e = &s->tab[i];

		if (e->hash == h && e->nkernel == nkernel && e->nuser == nuser &&
		    !memcmp(s->arena + e->off, f, n * sizeof(*f))) {
			e->count += count;
			e->ns += ns;
			return;
		}
	}
	if (s->arena_used + n > s->arena_cap && !grow_arena(s, n)) {
		s->dropped += count;
		return;
	}
	memcpy(s->arena + s->arena_used, f, n * sizeof(*f));
	s->tab[i] = (struct ent){ h, count, ns, (uint32_t)s->arena_used,
				  nkernel, nuser };
	s->arena_used += n;
	s->used++;
}

/* ---- stack bounds, found from the handler when unknown ---- */

static bool parse_hex(const char **p, const char *end, uintptr_t *v)
{
	uintptr_t r = 0;
	const char *q = *p;

	while (q < end) {
		char c = *q;
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			break;
		r = r << 4 | (uintptr_t)d;
		q++;
	}
	if (q == *p)
		return false;
	*p = q;
	*v = r;
	return true;
}

/* The mapping containing addr, from /proc/self/maps with raw syscalls
 * (async-signal-safe). */
static bool mapping_of(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	char buf[4096];
	size_t have = 0;
	bool found = false;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps",
			      O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (;;) {
		ssize_t r = syscall(SYS_read, fd, buf + have, sizeof(buf) - have);
		char *line = buf, *nl;

		if (r <= 0)
			break;
		have += (size_t)r;
		while ((nl = memchr(line, '\n', buf + have - line))) {
			const char *p = line;
			uintptr_t a, b;

			if (parse_hex(&p, nl, &a) && p < nl && *p++ == '-' &&
			    parse_hex(&p, nl, &b) && addr >= a && addr < b) {
				*lo = a;
				*hi = b;
				found = true;
				break;
			}
			line = nl + 1;
		}
		if (found)
			break;
		have = (size_t)(buf + have - line);
		if (have == sizeof(buf))
			have = 0;	/* an absurd line: drop it */
		memmove(buf, line, have);
	}
	syscall(SYS_close, fd);
	return found;
}

static void stack_bounds(struct slot *s, uintptr_t sp, struct unw_stack *st)
{
	stack_t ss;

	memset(st, 0, 2 * sizeof(*st));
	if (!s->stack_hi && !mapping_of(sp, &s->stack_lo, &s->stack_hi))
		return;
	if (sp >= s->stack_lo && sp < s->stack_hi) {
		st[0] = (struct unw_stack){ sp, s->stack_hi };
		return;
	}
	/* Interrupted on a sigaltstack: walk it, then the thread's stack. */
	if (syscall(SYS_sigaltstack, NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE) &&
	    sp >= (uintptr_t)ss.ss_sp && sp < (uintptr_t)ss.ss_sp + ss.ss_size) {
		st[0] = (struct unw_stack){ sp, (uintptr_t)ss.ss_sp + ss.ss_size };
		st[1] = (struct unw_stack){ s->stack_lo, s->stack_hi };
		return;
	}
	/* A stack we did not know about (a coroutine, a stack switched by the
	 * program): its own mapping bounds the walk; the last one is kept,
	 * as a coroutine tends to be sampled again. */
	if (!(sp >= s->other_lo && sp < s->other_hi) &&
	    !mapping_of(sp, &s->other_lo, &s->other_hi))
		return;
	st[0] = (struct unw_stack){ sp, s->other_hi };
}

/* ---- perf events (--kernel) ---- */

/* Copy the kernel frames of the records in s's ring; returns the period
 * sum and stores the newest record's chain. */
static uint64_t drain_ring(struct slot *s, uint64_t *kf, uint16_t *nk,
			   uint64_t *nrec)
{
	struct perf_event_mmap_page *m = s->ring;
	const char *data = (const char *)m + m->data_offset;
	uint64_t size = m->data_size, head, tail, ns = 0;

	*nk = 0;
	*nrec = 0;
	head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	tail = m->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		uint64_t rec[2 + MAX_KFRAMES + 4];
		size_t off = tail & (size - 1), len;

		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		len = h.size > sizeof(h) + sizeof(rec) ? sizeof(rec) :
			h.size - sizeof(h);
		for (size_t i = 0; i < len; i++)
			((char *)rec)[i] = data[(tail + sizeof(h) + i) & (size - 1)];
		if (h.type == PERF_RECORD_SAMPLE && len >= 16) {
			/* PERIOD, CALLCHAIN: period, nr, ips[nr] */
			uint64_t nr = rec[1], n = 0;

			ns += rec[0];
			(*nrec)++;
			for (uint64_t i = 0; i < nr && 2 + i < len / 8; i++) {
				uint64_t ip = rec[2 + i];

				if (ip >= PERF_CONTEXT_MAX)
					continue;	/* context markers */
				if (n < MAX_KFRAMES) {
					kf[n] = n ? ip - 1 : ip;
					n++;
				}
			}
			*nk = (uint16_t)n;
		}
		tail += h.size;
	}
	__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
	return ns;
}

/* ---- the signal handler ---- */

/* Our timers carry SIVAL_MAGIC, the slot index and its generation. A
 * signal of a timer deleted since (its slot reused) is stale: *ours is
 * set but NULL is returned. */
static struct slot *slot_of_sival(uint64_t v, bool *ours)
{
	uint32_t idx = (uint32_t)(v & 0xffffff), gen = (uint32_t)(v >> 24) & 0xffffff;
	struct slot *s;

	*ours = false;
	if (v >> 48 != SIVAL_MAGIC ||
	    idx >= atomic_load_explicit(&nslots, memory_order_acquire))
		return NULL;
	*ours = true;
	s = slots[idx];
	return s && (s->gen & 0xffffff) == gen ? s : NULL;
}

static __thread __attribute__((tls_model("initial-exec"))) struct slot *cur_slot;

static struct slot *slot_of_fd(int fd)
{
	uint32_t n = atomic_load_explicit(&nslots, memory_order_acquire);

	for (uint32_t i = 0; i < n; i++)
		if (slots[i] && slots[i]->state == SLOT_LIVE &&
		    slots[i]->perf_fd == fd)
			return slots[i];
	return NULL;
}

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	uint64_t f[MAX_KFRAMES + MAX_FRAMES];
	struct unw_stack st[2];
	enum unw_end why;
	struct slot *s = NULL;
	uint64_t count, ns;
	uint16_t nk = 0;
	bool ours = false;
	int nu;

	(void)sig;
	if (si->si_code == SI_TIMER && mode == SPROF_TIMER) {
		s = slot_of_sival((uint64_t)(uintptr_t)si->si_value.sival_ptr,
				  &ours);
	} else if (si->si_code >= POLL_IN && si->si_code <= POLL_HUP &&
		   mode == SPROF_PERF) {
		/* From an fd whose owner set F_SETSIG to SIGPROF: only ours
		 * do. Without a live slot it is a late one of a thread that
		 * ended (the kernel wakes an event's owner when its task
		 * exits). */
		s = cur_slot;
		if (!s || s->perf_fd != si->si_fd || s->state != SLOT_LIVE)
			s = slot_of_fd(si->si_fd);
		ours = true;
	}
	if (!s) {
		if (!ours)
			atomic_fetch_add_explicit(&foreign, 1,
						  memory_order_relaxed);
		errno = saved_errno;
		return;
	}
	atomic_store(&s->busy, 1);
	if (atomic_load(&s->closed) || s->state != SLOT_LIVE) {
		atomic_store(&s->busy, 0);
		errno = saved_errno;
		return;
	}
	if (mode == SPROF_TIMER) {
		count = 1 + (uint64_t)(si->si_overrun > 0 ? si->si_overrun : 0);
		ns = count * period_ns;
	} else {
		cur_slot = s;
		ns = drain_ring(s, f, &nk, &count);
		if (!count)
			goto out;
	}
	s->signals++;
	stack_bounds(s, (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP],
		     st);
	nu = unw_walk(uc, st, (uintptr_t *)f + nk, MAX_FRAMES, &why);
	if (why == UNW_END_MAX)
		s->truncated += count;
	s->periods += count;
	s->ns += ns;
	count_stack(s, f, nk, (uint16_t)nu, count, ns);
out:
	atomic_store(&s->busy, 0);
	errno = saved_errno;
}

/* ---- arming threads ---- */

static clockid_t thread_cpu_clock(pid_t tid)
{
	/* MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), as glibc's
	 * pthread_getcpuclockid computes it. */
	return (clockid_t)((~(unsigned)tid << 3) | 4 | 2);
}

static uint64_t rand_state;

static uint64_t next_rand(void)
{
	/* Racy on purpose: any value will do. */
	uint64_t x = rand_state += 0x9e3779b97f4a7c15ull;

	return hash_u64(x);
}

static int arm_timer(struct slot *s)
{
	struct sigevent sev;
	struct itimerspec its;
	uint64_t first = 1 + next_rand() % period_ns;
	int kid;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = s->tid;
	sev.sigev_value.sival_ptr = (void *)(uintptr_t)(
		SIVAL_MAGIC << 48 | (uint64_t)(s->gen & 0xffffff) << 24 | s->index);
	if (syscall(SYS_timer_create, thread_cpu_clock(s->tid), &sev, &kid))
		return -errno;
	s->timer = (timer_t)(intptr_t)kid;
	s->has_timer = true;
	its.it_interval.tv_sec = (time_t)(period_ns / 1000000000ull);
	its.it_interval.tv_nsec = (long)(period_ns % 1000000000ull);
	/* The first expiry falls anywhere in the first period, so threads
	 * shorter than a period are sampled in proportion to their CPU. */
	its.it_value.tv_sec = (time_t)(first / 1000000000ull);
	its.it_value.tv_nsec = (long)(first % 1000000000ull);
	if (syscall(SYS_timer_settime, kid, 0, &its, NULL))
		return -errno;
	return 0;
}

static int open_perf(struct slot *s)
{
	struct perf_event_attr a;
	struct f_owner_ex owner = { F_OWNER_TID, s->tid };
	long psz = sysconf(_SC_PAGESIZE);
	void *ring;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period_ns;
	a.sample_type = PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.exclude_callchain_user = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, s->tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ring = mmap(NULL, (RING_PAGES + 1) * psz, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (fcntl(fd, F_SETOWN_EX, &owner) || fcntl(fd, F_SETSIG, SIGPROF) ||
	    fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK)) {
		int err = -errno;

		munmap(ring, (RING_PAGES + 1) * psz);
		close(fd);
		return err;
	}
	s->perf_fd = fd;
	s->ring = ring;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

static void disarm(struct slot *s)
{
	if (s->has_timer) {
		syscall(SYS_timer_delete, (int)(intptr_t)s->timer);
		s->has_timer = false;
	}
	if (s->perf_fd >= 0) {
		ioctl(s->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
		munmap(s->ring, (RING_PAGES + 1) * sysconf(_SC_PAGESIZE));
		close(s->perf_fd);
		s->perf_fd = -1;
		s->ring = NULL;
	}
}

static int arm(struct slot *s)
{
	return mode == SPROF_TIMER ? arm_timer(s) : open_perf(s);
}

/* A slot for tid (free list first), live and armed. Caller holds lock. */
static struct slot *new_slot(pid_t tid)
{
	struct slot *s = free_slots;
	uint32_t n;

	if (s) {
		free_slots = s->next_free;
	} else {
		n = atomic_load(&nslots);
		if (n == MAX_SLOTS || !(s = map_anon(sizeof(*s))))
			return NULL;
		s->index = n;
		slots[n] = s;
		atomic_store_explicit(&nslots, n + 1, memory_order_release);
	}
	s->gen++;
	s->tid = tid;
	s->hooked = false;
	s->has_timer = false;
	s->perf_fd = -1;
	s->stack_lo = s->stack_hi = 0;
	s->other_lo = s->other_hi = 0;
	s->used = 0;
	s->arena_used = 0;
	if (s->tab)
		memset(s->tab, 0, s->cap * sizeof(*s->tab));
	s->signals = s->periods = s->ns = s->dropped = s->truncated = 0;
	s->name[0] = '\0';
	atomic_store(&s->closed, 0);
	s->state = SLOT_LIVE;
	return s;
}

/* ---- the log of finished threads ---- */

static void *log_reserve(size_t n)
{
	if (log_len + n > log_cap) {
		size_t cap = log_cap ? log_cap : 1 << 20;
		char *p;

		while (cap < log_len + n)
			cap *= 2;
		p = logbuf ? mremap(logbuf, log_cap, cap, MREMAP_MAYMOVE)
			   : mmap(NULL, cap, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		logbuf = p;
		log_cap = cap;
	}
	return logbuf + log_len;
}

/* "/proc/self/task/TID/comm" without stdio: also used from the handler of
 * a fatal signal. */
static void task_path(char *buf, pid_t tid, const char *leaf)
{
	char digits[16];
	int n = 0;
	unsigned v = (unsigned)tid;

	strcpy(buf, "/proc/self/task/");
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf += strlen(buf);
	while (n)
		*buf++ = digits[--n];
	*buf++ = '/';
	strcpy(buf, leaf);
}

static void read_comm(pid_t tid, char *name)
{
	char path[64];
	int fd;
	ssize_t n;

	task_path(path, tid, "comm");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, name, 15) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	name[n] = '\0';
	if (n && name[n - 1] == '\n')
		name[n - 1] = '\0';
}

/* Move s's samples to the log and free the slot. Lock held; s is closed
 * (no handler can be running on it). */
static void retire(struct slot *s, const char *name, uint64_t cpu_ns)
{
	struct sprof_thread *t;
	size_t need = sizeof(*t);

	disarm(s);
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->tab[i].count)
			need += sizeof(struct sprof_stack) +
				8 * ((size_t)s->tab[i].nkernel + s->tab[i].nuser);
	if (s->signals || s->dropped) {
		t = log_reserve(need);
		if (!t) {
			note("out of memory for the samples of thread %d",
			     (int)s->tid);
		} else {
			char *p = (char *)(t + 1);

			memset(t, 0, sizeof(*t));
			t->tid = (uint32_t)s->tid;
			t->nstacks = s->used;
			strncpy(t->name, name, sizeof(t->name) - 1);
			t->signals = s->signals;
			t->periods = s->periods;
			t->ns = s->ns;
			t->dropped = s->dropped;
			t->truncated = s->truncated;
			t->cpu_ns = cpu_ns;
			for (uint32_t i = 0; i < s->cap; i++) {
				const struct ent *e = &s->tab[i];
				struct sprof_stack *k = (void *)p;
				size_t n = (size_t)e->nkernel + e->nuser;

				if (!e->count)
					continue;
				k->count = e->count;
				k->ns = e->ns;
				k->nkernel = e->nkernel;
				k->nuser = e->nuser;
				memcpy(k->frames, s->arena + e->off, n * 8);
				p += sizeof(*k) + n * 8;
			}
			log_len += need;
		}
	}
	s->state = SLOT_RETIRED;
	s->next_free = free_slots;
	free_slots = s;
	s->state = SLOT_FREE;
}

static void close_slot(struct slot *s)
{
	atomic_store(&s->closed, 1);
	while (atomic_load(&s->busy))
		sched_yield();
}

/* ---- registering threads ---- */

static void set_stack_of_self(struct slot *s)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a))
		return;
	if (!pthread_attr_getstack(&a, &addr, &size)) {
		s->stack_lo = (uintptr_t)addr;
		s->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&a);
}

/* Arm the calling thread; it retires itself at its end (slot_key). */
static void register_self(void)
{
	struct slot *s;
	sigset_t all, old;
	int err;

	struct slot bounds = { .stack_lo = 0 };

	if (!active || handed_over || atomic_load(&stopping))
		return;
	set_stack_of_self(&bounds);	/* may read /proc: not under the lock */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	spin_lock();
	s = new_slot(gettid_raw());
	if (s) {
		s->hooked = true;
		s->stack_lo = bounds.stack_lo;
		s->stack_hi = bounds.stack_hi;
		err = arm(s);
		if (err) {
			note("cannot arm a profiling %s for thread %d: %s",
			     mode == SPROF_TIMER ? "timer" : "perf event",
			     (int)s->tid, strerror(-err));
			s->state = SLOT_FREE;
			s->next_free = free_slots;
			free_slots = s;
			s = NULL;
		}
	}
	cur_slot = s;
	spin_unlock();
	if (s)
		pthread_setspecific(slot_key, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The thread ends (pthread_exit or return from its start routine). */
static void on_thread_end(void *p)
{
	struct slot *s = p;
	sigset_t all, old;
	char name[16];

	if (!s)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (sigismember(&old, SIGPROF))
		atomic_fetch_add(&blocked_threads, 1);
	prctl(PR_GET_NAME, name);
	name[15] = '\0';
	spin_lock();
	if (s->state == SLOT_LIVE && s->tid == gettid_raw()) {
		close_slot(s);
		retire(s, name, now_ns(CLOCK_THREAD_CPUTIME_ID));
	}
	cur_slot = NULL;
	spin_unlock();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Threads that existed before the library initialized. */
static void register_others(void)
{
	pid_t me = gettid_raw();
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		struct slot *s;
		int err;

		if (tid <= 0 || tid == me)
			continue;
		spin_lock();
		s = new_slot(tid);
		if (s)
			read_comm(tid, s->name);
		if (s && (err = arm(s))) {
			note("cannot arm a profiling %s for thread %d: %s",
			     mode == SPROF_TIMER ? "timer" : "perf event",
			     (int)tid, strerror(-err));
			s->state = SLOT_FREE;
			s->next_free = free_slots;
			free_slots = s;
		}
		spin_unlock();
	}
	closedir(d);
}

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *start_thread(void *p)
{
	struct start st = *(struct start *)p;

	free(p);
	register_self();
	return st.fn(st.arg);
}

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct start *st;
	int r;

	if (!real_pthread_create)
		real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	if (!active || handed_over || !(st = malloc(sizeof(*st))))
		return real_pthread_create(t, attr, fn, arg);
	st->fn = fn;
	st->arg = arg;
	r = real_pthread_create(t, attr, start_thread, st);
	if (r)
		free(st);
	return r;
}

/* ---- stopping, dumping, resuming ---- */

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
static void stop_all(bool in_handler)
{
	uint32_t n = atomic_load(&nslots);
	pid_t me = gettid_raw();	/* its mask is ours now: not checked */
	char name[16];

	for (uint32_t i = 0; i < n; i++) {
		struct slot *s = slots[i];

		if (s->state != SLOT_LIVE)
			continue;
		disarm(s);
		close_slot(s);
		/* The name now if the thread lives, else the one it had. */
		read_comm(s->tid, name);
		if (!in_handler && s->tid != me && sigprof_blocked(s->tid))
			atomic_fetch_add(&blocked_threads, 1);
		retire(s, name[0] ? name : s->name, 0);
	}
}

static void out_name(char *buf, size_t len)
{
	size_t n = strlen(out_base);
	const char *ext = ".pb.gz";

	if (is_root) {
		snprintf(buf, len, "%s", out_base);
	} else if (n > strlen(ext) && !strcmp(out_base + n - strlen(ext), ext)) {
		snprintf(buf, len, "%.*s.%d%s", (int)(n - strlen(ext)), out_base,
			 (int)getpid(), ext);
	} else {
		snprintf(buf, len, "%s.%d", out_base, (int)getpid());
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

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
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
static void write_profile(void)
{
	struct sprof_run run;
	char path[4200], why[512] = "";
	sprof_write_fn fn;
	int err;

	/* A process other than the one the user started writes a file only
	 * when it has samples: a build's hundreds of short helpers would
	 * otherwise leave as many empty profiles. */
	if (!is_root && !log_len)
		return;
	out_name(path, sizeof(path));
	memset(&run, 0, sizeof(run));
	run.version = SPROF_VERSION;
	run.mode = mode;
	run.pid = (int32_t)getpid();
	run.hz = hz;
	run.period_ns = period_ns;
	run.start_ns = start_ns;
	run.duration_ns = now_ns(CLOCK_MONOTONIC) - start_mono;
	run.foreign = atomic_load(&foreign);
	run.log = logbuf;
	run.log_len = log_len;
	run.notes = notes;
	run.out_path = path;
	fn = load_writer(why, sizeof(why));
	if (!fn) {
		report("cannot load the profile writer: %s (no profile written)",
		       why);
		return;
	}
	err = fn(&run, why, sizeof(why));
	if (err)
		report("cannot write %s: %s", path, why);
	log_len = 0;
}

static void report_notes(void)
{
	const char *p = notes;

	while (*p) {
		const char *nl = strchr(p, '\n');

		report("%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (atomic_load(&foreign))
		report("ignored %llu SIGPROF signals that were not sonde's",
		       (unsigned long long)atomic_load(&foreign));
}

__attribute__((destructor)) static void prof_fini(void)
{
	sigset_t all, old;

	if (!active || getpid() != self_pid)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	atomic_store(&stopping, 1);
	spin_lock();
	stop_all(false);
	spin_unlock();
	if (atomic_load(&blocked_threads))
		note("%u thread(s) had SIGPROF blocked when they ended: a thread "
		     "is not sampled while it blocks SIGPROF",
		     (unsigned)atomic_load(&blocked_threads));
	write_profile();
	report_notes();
	active = false;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- death by signal ---- */

/* SIGINT, SIGTERM and SIGHUP, when the program leaves them at their
 * default (death), are caught: the handler stops sampling, writes a raw
 * dump (dump.h) with write(2) alone, and lets the signal kill the process
 * as it would have. `sonde prof` turns the dump into the profile. */
static const int fatal_sigs[] = { SIGINT, SIGTERM, SIGHUP };
static bool fatal_ours[NSIG];
static struct sigaction prog_fatal[NSIG];	/* the program's view */
static _Atomic int dumping;		/* 1: in progress, 2: done */

static bool is_fatal_ours(int sig)
{
	return sig > 0 && sig < NSIG && fatal_ours[sig];
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

static void dump_raw(int sig)
{
	struct sprof_raw h;
	char path[4200], buf[4096];
	int fd, mfd;

	out_name(path, sizeof(path) - 8);
	strcat(path, ".raw");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPROF_RAW_MAGIC, 8);
	h.version = SPROF_VERSION;
	h.mode = mode;
	h.pid = (int32_t)self_pid;
	h.hz = hz;
	h.period_ns = period_ns;
	h.start_ns = start_ns;
	h.duration_ns = now_ns(CLOCK_MONOTONIC) - start_mono;
	h.foreign = atomic_load(&foreign);
	h.starttime = start_time_raw();
	h.entry = getauxval(AT_ENTRY);
	h.notes_len = notes_len;
	h.log_len = log_len;
	h.signal = sig;
	if (!write_all(fd, &h, sizeof(h)) || !write_all(fd, notes, notes_len) ||
	    !write_pad(fd, notes_len))
		goto out;
	mfd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	for (ssize_t n; mfd >= 0 && (n = read(mfd, buf, sizeof(buf))) > 0;) {
		if (!write_all(fd, buf, (size_t)n))
			break;
		h.maps_len += (size_t)n;
	}
	if (mfd >= 0)
		close(mfd);
	if (write_pad(fd, h.maps_len) && write_all(fd, logbuf, log_len))
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
	if (active && getpid() == self_pid &&
	    atomic_compare_exchange_strong(&dumping, &expected, 1)) {
		atomic_store(&stopping, 1);
		spin_lock();
		stop_all(true);
		spin_unlock();
		dump_raw(sig);
		active = false;
		atomic_store(&dumping, 2);
	} else {
		/* Another thread dumps: let it finish before dying. */
		while (atomic_load(&dumping) == 1)
			sched_yield();
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), gettid_raw(), sig);
}

static void catch_fatal(void)
{
	struct sigaction act, cur;

	memset(&act, 0, sizeof(act));
	act.sa_sigaction = on_fatal;
	act.sa_flags = SA_SIGINFO;
	sigfillset(&act.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++) {
		int sig = fatal_sigs[i];

		if (real_sigaction(sig, NULL, &cur) || cur.sa_handler != SIG_DFL ||
		    (cur.sa_flags & SA_SIGINFO))
			continue;
		prog_fatal[sig] = cur;
		if (!real_sigaction(sig, &act, NULL))
			fatal_ours[sig] = true;
	}
}

/* Programs that end with _exit (shells do) skip the destructor above: the
 * profile is written on the way out all the same. */
EXPORT _Noreturn void _exit(int status)
{
	void (*f)(int) = next_sym(REAL_EXIT);

	prof_fini();
	if (f)
		f(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT _Noreturn void _Exit(int status)
{
	_exit(status);
}

/* ---- fork and exec ---- */

static void atfork_prepare(void)
{
	if (active)
		spin_lock();
}

static void atfork_parent(void)
{
	if (active)
		spin_unlock();
}

/* The child has one thread: forget the parent's samples and threads, and
 * arm this one. It writes FILE.PID at its exit. */
static void atfork_child(void)
{
	uint32_t n = atomic_load(&nslots);

	if (!active)
		return;
	atomic_flag_clear(&lock);
	self_pid = getpid();
	is_root = false;
	log_len = 0;
	notes_len = 0;
	notes[0] = '\0';
	atomic_store(&foreign, 0);
	start_ns = now_ns(CLOCK_REALTIME);
	start_mono = now_ns(CLOCK_MONOTONIC);
	free_slots = NULL;
	for (uint32_t i = 0; i < n; i++) {
		struct slot *s = slots[i];

		/* Timers and perf events are not inherited; the fds are. */
		if (s->perf_fd >= 0) {
			munmap(s->ring, (RING_PAGES + 1) * sysconf(_SC_PAGESIZE));
			close(s->perf_fd);
			s->perf_fd = -1;
		}
		s->has_timer = false;
		s->state = SLOT_FREE;
		s->next_free = free_slots;
		free_slots = s;
	}
	register_self();
}

/* Before an exec the image's samples would vanish: write them now (the
 * next image, profiled too, merges this file into its own at its exit). */
static void before_exec(void)
{
	sigset_t all, old;

	if (!active || getpid() != self_pid || handed_over)
		return;	/* also a vfork child, which shares our memory */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	atomic_store(&stopping, 1);
	spin_lock();
	stop_all(false);
	spin_unlock();
	if (log_len)
		write_profile();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The exec failed: sampling goes on (the file already written is merged at
 * exit). Threads other than the caller were retired: re-arm them. */
static void after_failed_exec(void)
{
	if (!active || getpid() != self_pid || handed_over)
		return;
	atomic_store(&stopping, 0);
	register_others();
	register_self();
}

#define EXEC_WRAP(call)                                                  \
	do {                                                             \
		int r_, e_;                                              \
		before_exec();                                           \
		r_ = (call);                                             \
		e_ = errno;                                              \
		after_failed_exec();                                     \
		errno = e_;                                              \
		return r_;                                               \
	} while (0)

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);


EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn f = (execve_fn)next_sym(REAL_EXECVE);

	EXEC_WRAP(f(path, argv, envp));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn f = (execve_fn)next_sym(REAL_EXECVPE);

	EXEC_WRAP(f(file, argv, envp));
}

EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn f = (execv_fn)next_sym(REAL_EXECV);

	EXEC_WRAP(f(path, argv));
}

EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn f = (execv_fn)next_sym(REAL_EXECVP);

	EXEC_WRAP(f(file, argv));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn f = (fexecve_fn)next_sym(REAL_FEXECVE);

	EXEC_WRAP(f(fd, argv, envp));
}

/* execl, execlp, execle: the variadic arguments as an array on the stack
 * (no malloc: these run in vfork children too), as glibc's own do. */
#define MAX_LIST_ARGS 4096

enum exec_kind { EXEC_V, EXEC_VP, EXEC_VE };

static int exec_list(enum exec_kind kind, const char *path, const char *arg0,
		     va_list ap)
{
	va_list count;
	size_t n = 1;
	char **envp = NULL;

	va_copy(count, ap);
	while (arg0 && va_arg(count, const char *))
		n++;
	va_end(count);
	if (n >= MAX_LIST_ARGS) {
		errno = E2BIG;
		return -1;
	}
	{
		char *v[n + 1];

		v[0] = (char *)arg0;
		for (size_t i = 1; i < n; i++)
			v[i] = va_arg(ap, char *);
		v[arg0 ? n : 0] = NULL;
		if (kind == EXEC_VE) {
			(void)va_arg(ap, char *);	/* the NULL */
			envp = va_arg(ap, char **);
		}
		return kind == EXEC_VP ? execvp(path, v) :
		       kind == EXEC_VE ? execve(path, v, envp) : execv(path, v);
	}
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(EXEC_V, path, arg, ap);
	va_end(ap);
	return r;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(EXEC_VP, file, arg, ap);
	va_end(ap);
	return r;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(EXEC_VE, path, arg, ap);
	va_end(ap);
	return r;
}

/* ---- SIGPROF conflicts ---- */

static double since_start(void)
{
	return (double)(now_ns(CLOCK_MONOTONIC) - start_mono) / 1e9;
}

/* The program takes SIGPROF for itself: stop sampling, step aside. */
static void hand_over(const char *what)
{
	sigset_t all, old;

	if (!active || handed_over)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	spin_lock();
	handed_over = true;
	{
		uint32_t n = atomic_load(&nslots);

		for (uint32_t i = 0; i < n; i++)
			if (slots[i]->state == SLOT_LIVE)
				disarm(slots[i]);
	}
	spin_unlock();
	note("the program %s after %.3f s: sampling stopped there, the "
	     "profile covers only the time before (sonde prof needs SIGPROF "
	     "for itself)", what, since_start());
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static bool is_handler(const struct sigaction *act)
{
	return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

EXPORT int sigaction(int sig, const struct sigaction *act,
		     struct sigaction *old)
{
	if (!real_sigaction)
		real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	if (is_fatal_ours(sig)) {
		/* The program sees the default it left. Setting the default
		 * again (shells do) changes nothing; a handler or SIG_IGN gives
		 * the signal back to it. */
		if (old)
			*old = prog_fatal[sig];
		if (!act)
			return 0;
		if (act->sa_handler == SIG_DFL && !(act->sa_flags & SA_SIGINFO)) {
			prog_fatal[sig] = *act;
			return 0;
		}
		fatal_ours[sig] = false;
		return real_sigaction(sig, act, NULL);
	}
	if (sig != SIGPROF || !active || handed_over)
		return real_sigaction(sig, act, old);
	/* While sonde samples, the program sees and sets its own idea of
	 * SIGPROF; a real handler means it wants SIGPROF itself. */
	if (old)
		*old = prog_sigprof;
	if (!act)
		return 0;
	if (is_handler(act)) {
		hand_over("installed its own SIGPROF handler");
		return real_sigaction(sig, act, NULL);
	}
	prog_sigprof = *act;
	return 0;
}

static sighandler_t set_handler(int sig, sighandler_t h, int flags)
{
	struct sigaction act, old;

	memset(&act, 0, sizeof(act));
	act.sa_handler = h;
	act.sa_flags = flags;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old))
		return SIG_ERR;
	return old.sa_handler;
}

EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	if ((sig != SIGPROF || !active || handed_over) && !is_fatal_ours(sig)) {
		sighandler_t (*f)(int, sighandler_t) = next_sym(REAL_SIGNAL);

		return f(sig, h);
	}
	return set_handler(sig, h, SA_RESTART);
}

EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	if ((sig != SIGPROF || !active || handed_over) && !is_fatal_ours(sig)) {
		sighandler_t (*f)(int, sighandler_t) = next_sym(REAL_SYSV_SIGNAL);

		return f(sig, h);
	}
	return set_handler(sig, h, (int)(SA_RESETHAND | SA_NODEFER));
}

sighandler_t bsd_signal(int sig, sighandler_t h);

EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return signal(sig, h);
}

EXPORT int setitimer(__itimer_which_t which, const struct itimerval *nv,
		     struct itimerval *ov)
{
	int (*f)(__itimer_which_t, const struct itimerval *,
		 struct itimerval *) = next_sym(REAL_SETITIMER);

	if (which == ITIMER_PROF && active && !handed_over && nv &&
	    (nv->it_value.tv_sec || nv->it_value.tv_usec))
		note("the program armed ITIMER_PROF after %.3f s; its SIGPROF "
		     "signals were ignored (sonde prof owns SIGPROF)",
		     since_start());
	return f(which, nv, ov);
}

EXPORT int timer_create(clockid_t clk, struct sigevent *sev, timer_t *id)
{
	int (*f)(clockid_t, struct sigevent *, timer_t *) =
		next_sym(REAL_TIMER_CREATE);

	if (active && !handed_over && sev && sev->sigev_signo == SIGPROF &&
	    (sev->sigev_notify == SIGEV_SIGNAL ||
	     sev->sigev_notify == SIGEV_THREAD_ID))
		note("the program created a timer that sends SIGPROF after "
		     "%.3f s; its signals were ignored (sonde prof owns "
		     "SIGPROF)", since_start());
	return f(clk, sev, id);
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

	real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	resolve_all();
	if (!out || !*out || !real_sigaction || !real_pthread_create)
		return;
	snprintf(out_base, sizeof(out_base), "%s", out);
	if ((v = getenv("SONDE_PROF_HZ"))) {
		long x = strtol(v, NULL, 10);

		if (x < 1 || x > 100000) {
			report("SONDE_PROF_HZ=%s is not a rate from 1 to 100000 "
			       "Hz; using 100", v);
			x = 100;
		}
		hz = (uint32_t)x;
	}
	period_ns = 1000000000ull / hz;
	mode = env_true("SONDE_PROF_KERNEL") ? SPROF_PERF : SPROF_TIMER;
	self_pid = getpid();
	/* The process the user started writes FILE; every other process
	 * (forks, and programs they exec) FILE.PID. The root's pid is passed
	 * on in the environment. */
	v = getenv("SONDE_PROF_PID");
	if (!v || !*v) {
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)self_pid);
		setenv("SONDE_PROF_PID", pidbuf, 1);
		is_root = true;
	} else {
		is_root = atoi(v) == (int)self_pid;
	}
	rand_state = now_ns(CLOCK_MONOTONIC) ^ ((uint64_t)self_pid << 32);
	start_ns = now_ns(CLOCK_REALTIME);
	start_mono = now_ns(CLOCK_MONOTONIC);

	slots = mmap(NULL, MAX_SLOTS * sizeof(*slots), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (slots == MAP_FAILED || pthread_key_create(&slot_key, on_thread_end)) {
		report("cannot allocate its tables; not profiling");
		return;
	}

	/* Someone already owns SIGPROF: say so, and do not sample. */
	real_sigaction(SIGPROF, NULL, &cur);
	if (is_handler(&cur)) {
		report("SIGPROF already has a handler in this process (another "
		       "profiler?); not profiling");
		return;
	}
	if (!getitimer(ITIMER_PROF, &it) &&
	    (it.it_value.tv_sec || it.it_value.tv_usec)) {
		report("ITIMER_PROF is already armed in this process (another "
		       "profiler?); not profiling");
		return;
	}
	prog_sigprof = cur;
	memset(&act, 0, sizeof(act));
	act.sa_sigaction = on_sigprof;
	act.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&act.sa_mask);
	if (real_sigaction(SIGPROF, &act, NULL)) {
		report("cannot install the SIGPROF handler: %s; not profiling",
		       strerror(errno));
		return;
	}
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	catch_fatal();
	active = true;
	register_self();
	register_others();
}
