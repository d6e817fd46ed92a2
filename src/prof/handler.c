// SPDX-License-Identifier: GPL-2.0-only
/* handler — the SIGPROF handler of libsonde-prof.so and everything it
 * calls, in one place to audit: it runs at any instruction of the program,
 * so it is async-signal-safe throughout — no malloc (tables grow with
 * mmap), no locks (each thread counts into its own slot; the slot's busy
 * and closed flags keep its retirement off a running handler), no stdio,
 * errno preserved. It walks the stack (unwind.c) within the bounds found
 * here and counts the stack in the thread's hash table; with --kernel it
 * adds the kernel frames of the thread's perf event ring. See rt.h. */
#include "rt.h"
#include "../lib/hash.h"	/* hash_u64 alone: inline, no link */

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <ucontext.h>

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
	    idx >= atomic_load_explicit(&rt.nslots, memory_order_acquire))
		return NULL;
	*ours = true;
	s = rt.slots[idx];
	return s && (s->gen & 0xffffff) == gen ? s : NULL;
}

__thread __attribute__((tls_model("initial-exec"))) struct slot *rt_cur_slot;

static struct slot *slot_of_fd(int fd)
{
	uint32_t n = atomic_load_explicit(&rt.nslots, memory_order_acquire);

	for (uint32_t i = 0; i < n; i++)
		if (rt.slots[i] && rt.slots[i]->state == SLOT_LIVE &&
		    rt.slots[i]->perf_fd == fd)
			return rt.slots[i];
	return NULL;
}

void rt_on_sigprof(int sig, siginfo_t *si, void *uc)
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
	if (si->si_code == SI_TIMER && rt.mode == SPROF_TIMER) {
		s = slot_of_sival((uint64_t)(uintptr_t)si->si_value.sival_ptr,
				  &ours);
	} else if (si->si_code >= POLL_IN && si->si_code <= POLL_HUP &&
		   rt.mode == SPROF_PERF) {
		/* From an fd whose owner set F_SETSIG to SIGPROF: only ours
		 * do. Without a live slot it is a late one of a thread that
		 * ended (the kernel wakes an event's owner when its task
		 * exits). */
		s = rt_cur_slot;
		if (!s || s->perf_fd != si->si_fd || s->state != SLOT_LIVE)
			s = slot_of_fd(si->si_fd);
		ours = true;
	}
	if (!s) {
		if (!ours)
			atomic_fetch_add_explicit(&rt.foreign, 1,
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
	if (rt.mode == SPROF_TIMER) {
		count = 1 + (uint64_t)(si->si_overrun > 0 ? si->si_overrun : 0);
		ns = count * rt.period_ns;
	} else {
		rt_cur_slot = s;
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
