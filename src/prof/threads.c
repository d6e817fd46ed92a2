// SPDX-License-Identifier: GPL-2.0-only
/* threads — the threads libsonde-prof.so samples: each gets a slot and
 * its own timer on its own CPU clock (or, with --kernel, a perf event)
 * when the library starts (the threads already in /proc/self/task), when
 * pthread_create starts one (an interposed start routine) and after fork.
 * A thread that ends moves its table into the process-wide log under the
 * spinlock, outside any signal handler, so its slot can be reused. See
 * rt.h. */
#include "rt.h"
#include "../lib/hash.h"	/* hash_u64 alone: inline, no link */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>

/* ---- arming threads ---- */

static clockid_t thread_cpu_clock(pid_t tid)
{
	/* MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), as glibc's
	 * pthread_getcpuclockid computes it. */
	return (clockid_t)((~(unsigned)tid << 3) | 4 | 2);
}

static uint64_t next_rand(void)
{
	/* Racy on purpose: any value will do. */
	uint64_t x = rt.rand_state += 0x9e3779b97f4a7c15ull;

	return hash_u64(x);
}

static int arm_timer(struct slot *s)
{
	struct sigevent sev;
	struct itimerspec its;
	uint64_t first = 1 + next_rand() % rt.period_ns;
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
	its.it_interval.tv_sec = (time_t)(rt.period_ns / 1000000000ull);
	its.it_interval.tv_nsec = (long)(rt.period_ns % 1000000000ull);
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
	a.sample_period = rt.period_ns;
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

void rt_disarm(struct slot *s)
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
	return rt.mode == SPROF_TIMER ? arm_timer(s) : open_perf(s);
}

/* A slot for tid (free list first), live and armed. Caller holds lock. */
static struct slot *new_slot(pid_t tid)
{
	struct slot *s = rt.free_slots;
	uint32_t n;

	if (s) {
		rt.free_slots = s->next_free;
	} else {
		n = atomic_load(&rt.nslots);
		if (n == MAX_SLOTS || !(s = map_anon(sizeof(*s))))
			return NULL;
		s->index = n;
		rt.slots[n] = s;
		atomic_store_explicit(&rt.nslots, n + 1, memory_order_release);
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
	if (rt.log_len + n > rt.log_cap) {
		size_t cap = rt.log_cap ? rt.log_cap : 1 << 20;
		char *p;

		while (cap < rt.log_len + n)
			cap *= 2;
		p = rt.logbuf ? mremap(rt.logbuf, rt.log_cap, cap, MREMAP_MAYMOVE)
			   : mmap(NULL, cap, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		rt.logbuf = p;
		rt.log_cap = cap;
	}
	return rt.logbuf + rt.log_len;
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

void rt_read_comm(pid_t tid, char *name)
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
void rt_retire(struct slot *s, const char *name, uint64_t cpu_ns)
{
	struct sprof_thread *t;
	size_t need = sizeof(*t);

	rt_disarm(s);
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->tab[i].count)
			need += sizeof(struct sprof_stack) +
				8 * ((size_t)s->tab[i].nkernel + s->tab[i].nuser);
	if (s->signals || s->dropped) {
		t = log_reserve(need);
		if (!t) {
			rt_note("out of memory for the samples of thread %d",
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
			rt.log_len += need;
		}
	}
	s->state = SLOT_RETIRED;
	s->next_free = rt.free_slots;
	rt.free_slots = s;
	s->state = SLOT_FREE;
}

void rt_close_slot(struct slot *s)
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
void rt_register_self(void)
{
	struct slot *s;
	sigset_t all, old;
	int err;

	struct slot bounds = { .stack_lo = 0 };

	if (!rt.active || rt.handed_over || atomic_load(&rt.stopping))
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
			rt_note("cannot arm a profiling %s for thread %d: %s",
				rt.mode == SPROF_TIMER ? "timer" : "perf event",
				(int)s->tid, strerror(-err));
			s->state = SLOT_FREE;
			s->next_free = rt.free_slots;
			rt.free_slots = s;
			s = NULL;
		}
	}
	rt_cur_slot = s;
	spin_unlock();
	if (s)
		pthread_setspecific(rt.slot_key, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The thread ends (pthread_exit or return from its start routine). */
void rt_on_thread_end(void *p)
{
	struct slot *s = p;
	sigset_t all, old;
	char name[16];

	if (!s)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (sigismember(&old, SIGPROF))
		atomic_fetch_add(&rt.blocked_threads, 1);
	prctl(PR_GET_NAME, name);
	name[15] = '\0';
	spin_lock();
	if (s->state == SLOT_LIVE && s->tid == gettid_raw()) {
		rt_close_slot(s);
		rt_retire(s, name, now_ns(CLOCK_THREAD_CPUTIME_ID));
	}
	rt_cur_slot = NULL;
	spin_unlock();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Threads that existed before the library initialized. */
void rt_register_others(void)
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
			rt_read_comm(tid, s->name);
		if (s && (err = arm(s))) {
			rt_note("cannot arm a profiling %s for thread %d: %s",
				rt.mode == SPROF_TIMER ? "timer" : "perf event",
				(int)tid, strerror(-err));
			s->state = SLOT_FREE;
			s->next_free = rt.free_slots;
			rt.free_slots = s;
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
	rt_register_self();
	return st.fn(st.arg);
}

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct start *st;
	int r;

	if (!rt.real_pthread_create)
		rt.real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	if (!rt.active || rt.handed_over || !(st = malloc(sizeof(*st))))
		return rt.real_pthread_create(t, attr, fn, arg);
	st->fn = fn;
	st->arg = arg;
	r = rt.real_pthread_create(t, attr, start_thread, st);
	if (r)
		free(st);
	return r;
}
