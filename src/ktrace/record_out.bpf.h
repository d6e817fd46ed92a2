// SPDX-License-Identifier: GPL-2.0-only
/* record_out.bpf.h — the recorder's maps and its way out (part of
 * record.bpf.c, included there once): the traced set, the per-CPU slots
 * holding a call's entry until its return, the ring buffer with per-CPU
 * batches and drop accounting, record headers, and the syscall argument
 * readers for each ABI. */
#ifndef SONDE_RECORD_OUT_BPF_H
#define SONDE_RECORD_OUT_BPF_H


/* Set by the loader before load. */
const volatile __u32 points = KTR_PT_DEFAULT;
const volatile __u32 maxdata = 4096;
const volatile bool inherit = true;
const volatile __u64 wake_bytes = 1 << 20;
/* Per ABI (KTR_PERS_*): the numbers the program treats apart. */
const volatile __u32 nr_execve[4] = { ~0u, ~0u, ~0u, ~0u };
const volatile __u32 nr_execveat[4] = { ~0u, ~0u, ~0u, ~0u };
const volatile __u32 nr_rt_sigreturn[4] = { ~0u, ~0u, ~0u, ~0u };

/* Read by the loader while tracing. */
__s64 live;		/* traced processes alive */
__u64 pending_drops;	/* processes whose drops are not yet reported */
/* Written by the loader: its writer thread's sleeps, counted. */
__u32 epoch;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} traced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KTR_NPERS * KTR_NR_MAX);	/* KTR_SI_KEY */
	__type(key, __u32);
	__type(value, __u32);
} sysinfo SEC(".maps");

/* How to capture each syscall's structures (KTR_SI_KEY), and the
 * arguments the capture reads (one call at a time per CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KTR_NPERS * KTR_NR_MAX);
	__type(key, __u32);
	__type(value, struct ktr_captures);
} captures SEC(".maps");

struct cargs {
	__u64 args[8];		/* KTR_MAX_ARGS of them (8: indexed & 7) */
	__s64 ret;
	__u32 nr, pers;
	__u32 what, have;	/* exit_slow's decisions (reread) */
	__u32 off;		/* emit_named_g's offset (reread) */
	/* emit_gio's walk of an iovec array (in a map value, not on the
	 * stack: the verifier then walks its bpf_loop body once, not until
	 * the fields' ranges stop changing). */
	__u32 w_off;
	__u32 w_compat;		/* 32-bit iovecs (i386, x32) */
	__u64 w_left, w_iovp, w_niov;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cargs);
} cargs SEC(".maps");

/* What each CPU knows about the task running on it, so that the syscall
 * programs (run for every syscall of every process) find out with plain
 * per-CPU loads, without a hash look-up or a task-storage call:
 *
 * - whether the task is traced: its state in the traced map, cached on the
 *   task's first syscall on this CPU (the key is the task_struct's address
 *   and its start time, since a freed task_struct's address is reused),
 *   with its ids and comm. A context switch (on_switch) marks them stale
 *   (a rename, on_rename, updates the comm); until then a syscall entry
 *   takes them as the current task's without asking which task that is;
 * - the entry of its syscall in progress, kept until the return so that
 *   both go out in one KTR_CALLRET record (one reservation instead of
 *   two). Anything else recorded for the thread in between first writes
 *   it out as a plain KTR_CALL (flush_task), so the file's order is that
 *   of the events; so does the task's switching off the CPU (on_switch),
 *   which is why the entry can stay on the CPU. */
struct slot {
	__u64 task;		/* the task_struct the fields below are about */
	__u64 start;		/* its start_time */
	__u32 state;		/* its traced state: 0, KTR_ST_ARMED or _TRACING */
	__u32 pending;		/* the entry below is the task's and not yet
				 * written; taken with an atomic exchange */
	__u32 pid, tid;		/* the task's ids and comm, read at its first */
	__u64 comm[2];		/* syscall since it came on the CPU (a rename
				 * writes the new comm: on_rename) */
	__u32 valid;		/* the fields above describe the current task:
				 * cleared when a task leaves the CPU (with the
				 * c points only) */
	__u32 nr;		/* the entry */
	__u64 ts;
	__u64 args[8];		/* KTR_MAX_ARGS of them (8: indexed & 7) */
	__u16 cpu;
	__u8 pers;		/* the entry's ABI */
	__u8 reserved[5];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slot);
} slots SEC(".maps");

/* Each CPU's batch (record.h): the records of the thread on the CPU
 * written at its syscalls' returns (CALLRET) wait there and go to the ring
 * buffer together, one reservation for up to a page of them. Whatever else
 * is recorded on the CPU, and the thread's switching off it, writes the
 * batch out first; so does a record about the thread written on another
 * CPU (a signal sent to it), under the batch's lock. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ktr_batch);
} batches SEC(".maps");

struct wake {
	__u32 epoch;		/* the consumer's sleep these bytes count in */
	__u32 reserved;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wake);
} wakes SEC(".maps");

/* Failed reservations: per CPU for the totals, per process for the
 * KTR_DROP record. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

/* Where variable-length records are assembled, one per CPU (the syscall
 * and exec programs that use it do not nest). */
#define KTR_GIO_SMALL 64
#define SCRATCH 65536
#define SMASK (SCRATCH - 1)
struct scratch {
	char b[SCRATCH];
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* the loader sets the number of CPUs */
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

__noinline int note_drop(__u32 pid, __u64 count)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&drops, &zero), *p;

	if (n)
		*n += count;
	p = bpf_map_lookup_elem(&dropped, &pid);
	if (p) {
		__sync_fetch_and_add(p, count);
	} else if (!bpf_map_update_elem(&dropped, &pid, &count, BPF_NOEXIST)) {
		__sync_fetch_and_add(&pending_drops, 1);
	} else if ((p = bpf_map_lookup_elem(&dropped, &pid))) {
		__sync_fetch_and_add(p, count);
	}
	return 0;
}

/* A record header for t (NULL: the current task) at time ts. */
static __always_inline void fill_ts(struct ktr_rec *h, __u32 len, __u16 type,
				    struct task_struct *t, __u64 ts)
{
	h->len = len;
	h->type = type;
	h->flags = 0;
	h->ts = ts;
	h->cpu = bpf_get_smp_processor_id();
	h->pers = 0;
	h->reserved = 0;
	h->reserved2 = 0;
	/* Plain loads through the BTF pointer: bpf_get_current_comm()'s
	 * string copy and padding cost more than the rest of the record. */
	if (!t)
		t = bpf_get_current_task_btf();
	h->pid = t->tgid;
	h->tid = t->pid;
	__builtin_memcpy(h->comm, t->comm, sizeof(h->comm));
}

static __always_inline void fill(struct ktr_rec *h, __u32 len, __u16 type,
				 struct task_struct *t)
{
	fill_ts(h, len, type, t, bpf_ktime_get_ns());
}

/* Whether the consumer is to be woken: when this CPU's records since the
 * consumer last went to sleep (it counts its sleeps in epoch) pass
 * wake_bytes (the loader's share of the mark per CPU: at least one CPU
 * passes its share once the buffer holds the mark). So at most one
 * wake-up per CPU and sleep, and no query of the buffer per record: a
 * wake-up is an interrupt to oneself, one per record past the mark would
 * cost more than the records. */
__noinline __u64 wake_flag(__u64 len)
{
	__u32 zero = 0;
	struct wake *w = bpf_map_lookup_elem(&wakes, &zero);

	if (!w)
		return BPF_RB_NO_WAKEUP;
	if (w->epoch != epoch) {
		w->epoch = epoch;
		w->bytes = 0;
	}
	w->bytes += len;
	if (w->bytes >= wake_bytes && w->bytes - len < wake_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void submit(void *r)
{
	bpf_ringbuf_submit(r, wake_flag(((struct ktr_rec *)r)->len));
}

/* A store that publishes what the program wrote before it (a release):
 * on x86, whose stores are seen in program order, a plain store after a
 * compiler barrier (an atomic exchange is a locked instruction, ~20
 * cycles, and the syscall programs made four per call); elsewhere an
 * atomic exchange, a full barrier. Taking (the exchanges that decide
 * who owns a slot's entry or a batch) stays atomic everywhere. */
#if defined(__TARGET_ARCH_x86)
#define store_release(p, x) do {					\
		asm volatile("" ::: "memory");				\
		*(volatile typeof(*(p)) *)(p) = (x);			\
	} while (0)
#else
#define store_release(p, x) ((void)__sync_lock_test_and_set((p), (x)))
#endif

/* The batch lock: programs on other CPUs take it to write the batch out,
 * which takes well under a microsecond. A program that interrupts one
 * holding it on the same CPU (a signal sent from an interrupt) cannot get
 * it: it gives up after some thousands of tries and writes its record
 * straight to the ring buffer. */
struct lock_ctx {
	__s32 cpu;		/* the batch's CPU, or -1 for this one */
	__u32 got;
};

static long lock_try(__u32 i, void *ctx)
{
	struct lock_ctx *l = ctx;
	__u32 zero = 0, cpu = l->cpu;
	struct ktr_batch *B;

	/* (One look-up: the verifier walks one path.) */
	if (l->cpu < 0)
		cpu = bpf_get_smp_processor_id();
	B = bpf_map_lookup_percpu_elem(&batches, &zero, cpu);
	if (!B)
		return 1;
	if (!B->busy && !__sync_lock_test_and_set(&B->busy, 1)) {
		l->got = 1;
		return 1;
	}
	return 0;
}

/* Lock B, the batch of CPU cpu (-1: this CPU's). */
static __always_inline bool batch_lock(struct ktr_batch *B, __s32 cpu)
{
	struct lock_ctx l = { .cpu = cpu };

	if (!__sync_lock_test_and_set(&B->busy, 1))
		return true;
	bpf_loop(4096, lock_try, &l, 0);
	return l.got;
}

static __always_inline void batch_unlock(struct ktr_batch *B)
{
	store_release(&B->busy, 0);
}

/* With the lock held: the batch to the ring buffer, emptied. A failed
 * copy counts every record it held. */
static __always_inline void batch_out(struct ktr_batch *B)
{
	__u32 len = B->len;

	if (len && len <= KTR_BATCH_MAX &&
	    bpf_ringbuf_output(&rb, B->b, len, wake_flag(len)))
		note_drop(B->pid, B->n);
	B->len = 0;
	B->n = 0;
}

/* Write out this CPU's batch before a record of another kind goes
 * straight to the ring buffer. */
__noinline int batch_flush_g(void)
{
	__u32 zero = 0;
	struct ktr_batch *B = bpf_map_lookup_elem(&batches, &zero);

	if (!B || !B->len || !batch_lock(B, -1))
		return 0;
	batch_out(B);
	batch_unlock(B);
	return 0;
}

static __always_inline void batch_flush(void)
{
	__u32 zero = 0;
	struct ktr_batch *B = bpf_map_lookup_elem(&batches, &zero);

	/* (Most of the time there is nothing to write.) */
	if (B && B->len)
		batch_flush_g();
}

/* Room for size bytes at the end of this CPU's batch for a record of
 * process pid, with the lock held (batch_commit releases it); NULL when
 * the record is to go straight to the ring buffer. */
static __always_inline char *batch_begin(struct ktr_batch **Bp, __u32 size,
					 __u32 pid)
{
	__u32 zero = 0;
	struct ktr_batch *B = bpf_map_lookup_elem(&batches, &zero);
	__u32 off;

	/* Lost records: the KTR_DROP record goes first, straight. */
	if (!B || pending_drops || !batch_lock(B, -1))
		return NULL;
	if (B->len + size > KTR_BATCH_MAX || (B->len && B->pid != pid))
		batch_out(B);
	/* (Loaded again, 0 or not: one state for the verifier.) */
	off = *(volatile __u32 *)&B->len;
	/* (A batch just lost: its DROP record goes before the next one.) */
	if (pending_drops || off > KTR_BATCH_MAX - size) {
		batch_unlock(B);
		return NULL;
	}
	B->pid = pid;
	*Bp = B;
	return B->b + (off & (KTR_BATCH_MAX - 1));
}

static __always_inline void batch_commit(struct ktr_batch *B, __u32 len)
{
	B->len += len;
	B->n++;
	batch_unlock(B);
}

/* A record assembled elsewhere, copied to the ring buffer after the
 * batch. */
static __always_inline long output(void *data, __u64 len)
{
	batch_flush();
	return bpf_ringbuf_output(&rb, data, len, wake_flag(len));
}

/* If records of pid were lost, write the KTR_DROP record and return the
 * flag its next record carries; the record is of thread tid with name
 * comm (tid 0: the current thread). A global function: verified once per
 * program, not at each of its callers. */
__noinline __u32 take_drops_g(__u32 pid, __u32 tid, __u64 comm0, __u64 comm1)
{
	struct ktr_drop *d;
	__u64 *p, n;

	p = bpf_map_lookup_elem(&dropped, &pid);
	if (!p)
		return 0;
	n = *p;
	batch_flush();
	d = bpf_ringbuf_reserve(&rb, sizeof(*d), 0);
	if (!d)
		return 0;	/* still full: keep counting */
	bpf_map_delete_elem(&dropped, &pid);
	__sync_fetch_and_add(&pending_drops, -1);
	fill(&d->h, sizeof(*d), KTR_DROP, NULL);
	if (tid) {
		__u64 c[2] = { comm0, comm1 };

		d->h.pid = pid;
		d->h.tid = tid;
		__builtin_memcpy(d->h.comm, c, sizeof(c));
	}
	d->h.flags = KTR_F_DROP;
	d->count = n;
	submit(d);
	return KTR_F_DROP;
}

/* take_drops_g for the task t (NULL: the current one). */
static __always_inline __u16 take_drops(__u32 pid, struct task_struct *t)
{
	__u64 comm[2] = {};

	if (!pending_drops)
		return 0;
	if (!t)
		return take_drops_g(pid, 0, 0, 0);
	__builtin_memcpy(comm, t->comm, sizeof(comm));
	return take_drops_g(pid, t->pid, comm[0], comm[1]);
}

/* A record of len bytes for process pid in the ring buffer, its header
 * filled in for t (NULL: the current task) at time ts (0: now). */
static __always_inline void *reserve_ts(__u32 len, __u16 type, __u32 pid,
					struct task_struct *t, __u64 ts)
{
	__u16 flags;
	struct ktr_rec *h;

	batch_flush();
	flags = take_drops(pid, t);
	h = bpf_ringbuf_reserve(&rb, len, 0);
	if (!h) {
		note_drop(pid, 1);
		return NULL;
	}
	fill_ts(h, len, type, t, ts ? ts : bpf_ktime_get_ns());
	h->flags = flags;
	return h;
}

static __always_inline void *reserve(__u32 len, __u16 type, __u32 pid,
				     struct task_struct *t)
{
	return reserve_ts(len, type, pid, t, 0);
}

/* Write the entry kept in v (taken from it) as a plain KTR_CALL record;
 * it may be another thread's than the current one's. */
/* (A global function, as some below: verified once, not at each call;
 * cpu says whose slot.) */
__noinline int emit_call_g(__u32 cpu)
{
	__u32 zero = 0;
	struct slot *v = bpf_map_lookup_percpu_elem(&slots, &zero, cpu);
	struct ktr_call *c;

	__u16 flags;

	if (!v)
		return 0;
	/* (reserve_ts() but with the whole header from the slot: no clock
	 * read, no look at the current task.) */
	batch_flush();
	flags = take_drops(v->pid, NULL);
	c = bpf_ringbuf_reserve(&rb, sizeof(*c), 0);
	if (!c) {
		note_drop(v->pid, 1);
		return 0;
	}
	c->h.len = sizeof(*c);
	c->h.type = KTR_CALL;
	c->h.flags = flags;
	c->h.ts = v->ts;
	c->h.cpu = v->cpu;
	c->h.pers = v->pers;
	c->h.reserved = 0;
	c->h.reserved2 = 0;
	c->h.pid = v->pid;
	c->h.tid = v->tid;
	__builtin_memcpy(c->h.comm, v->comm, sizeof(c->h.comm));
	c->nr = v->nr;
	c->reserved = 0;
	for (int i = 0; i < KTR_MAX_ARGS; i++)
		c->args[i] = v->args[i];
	submit(c);
	return 0;
}

/* The entry in this CPU's slot v, taken from it. */
static __always_inline void emit_call(struct slot *v)
{
	(void)v;
	emit_call_g(bpf_get_smp_processor_id());
}

/* Write the kept entry of the current task, if any (its batched records
 * go out before the next record: reserve, output). */
static __always_inline void flush_self(void)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 zero = 0;
	struct slot *v;

	if (!(points & KTR_PT_SYSCALL))
		return;
	v = bpf_map_lookup_elem(&slots, &zero);
	if (v && v->pending && v->task == (__u64)cur &&
	    __sync_lock_test_and_set(&v->pending, 0))
		emit_call_g(bpf_get_smp_processor_id());
}

/* Write the batched records and kept entry, if any, of thread tid, not the
 * current one, which runs on CPU cpu (one off any CPU has none): a global
 * function, verified once per program. */
__noinline int flush_other_g(__u32 tid, __u32 cpu)
{
	struct ktr_batch *B;
	struct slot *v;
	__u32 zero = 0;

	/* Its latest records wait in its CPU's batch: they go first. */
	B = bpf_map_lookup_percpu_elem(&batches, &zero, cpu);
	if (B && B->len && batch_lock(B, cpu)) {
		batch_out(B);
		batch_unlock(B);
	}
	v = bpf_map_lookup_percpu_elem(&slots, &zero, cpu);
	if (v && v->pending && v->tid == tid &&
	    __sync_lock_test_and_set(&v->pending, 0))
		emit_call_g(cpu);
	return 0;
}

/* Write t's batched records and kept entry, if any: they are on the CPU t
 * runs on (t is the current task, or one running elsewhere). */
static __always_inline void flush_task(struct task_struct *t)
{
	if (!(points & KTR_PT_SYSCALL))
		return;
	if (t == bpf_get_current_task_btf())
		flush_self();
	else
		flush_other_g(t->pid, BPF_CORE_READ(t, thread_info.cpu));
}

/* This CPU's slot made to describe the current task: on its first
 * syscall here, its state comes from the traced map. Its state (a global
 * function: the syscall programs call it when the slot is not valid). */
__noinline __u32 task_slot_g(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 zero = 0, pid;
	struct slot *v = bpf_map_lookup_elem(&slots, &zero);
	__u32 *st;

	if (!v)
		return 0;
	if (v->task == (__u64)t && v->start == t->start_time && v->valid)
		return v->state;
	/* Left by another task (its switch off the CPU writes it; this is
	 * for safety only), or by this one before an exec. */
	if (v->pending && __sync_lock_test_and_set(&v->pending, 0))
		emit_call(v);
	if (v->task != (__u64)t || v->start != t->start_time) {
		pid = t->tgid;
		st = bpf_map_lookup_elem(&traced, &pid);
		v->task = (__u64)t;
		v->start = t->start_time;
		v->state = st ? *st : 0;
	}
	v->pid = t->tgid;
	v->tid = t->pid;
	__builtin_memcpy(v->comm, t->comm, sizeof(v->comm));
	/* (Without the c points no switch marks it stale.) */
	v->valid = !!(points & KTR_PT_SYSCALL);
	return v->state;
}

/* Records assembled at the start of this CPU's scratch buffer (scratch_rec)
 * go out with one copy: len bytes, of process pid. */
__noinline int emit_scratch_g(__u32 len, __u32 pid)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ktr_rec *h = bpf_map_lookup_elem(&scratch, &cpu);

	if (!h)
		return 0;
	h->flags |= take_drops(pid, NULL);
	if (len > SCRATCH)
		return 0;
	if (output(h, len))
		note_drop(pid, 1);
	return 0;
}

/* (h: the scratch buffer's start.) */
static __always_inline void emit_scratch(struct ktr_rec *h, __u32 len,
					 __u32 pid)
{
	(void)h;
	emit_scratch_g(len, pid);
}

static __always_inline struct ktr_rec *scratch_rec(__u16 type)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ktr_rec *h = bpf_map_lookup_elem(&scratch, &cpu);

	if (h)
		fill(h, 0, type, NULL);
	return h;
}

/* x read back from memory (a map value's or a record's field): the
 * verifier then knows nothing of it from before, so the paths that
 * differed only in it (its ranges, 0 or not) are one from there on. */
#define reread(x) (*(volatile typeof(x) *)&(x))

/* Zero the bytes from off to the next multiple of 8 (what was there came
 * from an earlier record) and return that multiple. One masked store: a
 * loop of byte stores multiplies the verifier's paths. */
static __always_inline __u32 pad8(char *b, __u32 off)
{
	__u32 a = off & (SMASK & ~7u), k = off & 7;

	if (k) {
		__u64 *p = (__u64 *)(b + a);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		*p &= (1ull << (k * 8)) - 1;
#else
		*p &= ~((1ull << (64 - k * 8)) - 1);
#endif
	}
	return (off + 7) & ~7u;
}

static __always_inline __u32 *traced_state(__u32 pid)
{
	return bpf_map_lookup_elem(&traced, &pid);
}

#if defined(__TARGET_ARCH_arm64)
#define SC_NR(regs) ((regs)->syscallno)
#define KTR_X32_BIT 0
static __always_inline __u32 sc_pers(long id)
{
	return KTR_PERS_NATIVE;
}

static __always_inline void sc_args(__u64 *d, struct pt_regs *regs,
				    __u32 pers)
{
	d[0] = regs->orig_x0;
	d[1] = regs->regs[1];
	d[2] = regs->regs[2];
	d[3] = regs->regs[3];
	d[4] = regs->regs[4];
	d[5] = regs->regs[5];
}
#else
/* The registers as the ptrace ABI lays them out (struct user_regs_struct,
 * the head of the kernel's pt_regs): plain offsets, not CO-RE relocated —
 * each kernel type libbpf relocates costs the start-up a walk of the
 * kernel's whole BTF (~1 ms). */
struct ktr_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
#define KTR_REGS(regs) ((struct ktr_regs *)(regs))
#define SC_NR(regs) (KTR_REGS(regs)->orig_ax)
/* The ABI of the current syscall (id: its number as the entry saw it):
 * i386 when the kernel runs it as a 32-bit call (TS_COMPAT in the thread's
 * status: int 0x80, sysenter or syscall from 32-bit code), x32 when the
 * number has __X32_SYSCALL_BIT. */
#define KTR_TS_COMPAT 0x0002
#define KTR_X32_BIT 0x40000000
static __always_inline __u32 sc_pers(long id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 compat = !!(t->thread_info.status & KTR_TS_COMPAT);
	__u32 x32 = !!(id & KTR_X32_BIT);

	_Static_assert(KTR_PERS_NATIVE == 0 && KTR_PERS_COMPAT == 1 &&
		       KTR_PERS_X32 == 2, "sc_pers computes the values");
	/* (Without branches: the verifier would follow each ABI apart
	 * through the rest of the program.) */
	return compat | (x32 & ~compat) << 1;
}

/* The six arguments of a call of ABI pers into d, with one branch on the
 * ABI: i386 passes them in ebx, ecx, edx, esi, edi, ebp. */
static __always_inline void sc_args(__u64 *d, struct pt_regs *regs,
				    __u32 pers)
{
	struct ktr_regs *r = KTR_REGS(regs);

	if (pers == KTR_PERS_COMPAT) {
		d[0] = (__u32)r->bx;
		d[1] = (__u32)r->cx;
		d[2] = (__u32)r->dx;
		d[3] = (__u32)r->si;
		d[4] = (__u32)r->di;
		d[5] = (__u32)r->bp;
	} else {
		d[0] = r->di;
		d[1] = r->si;
		d[2] = r->dx;
		d[3] = r->r10;
		d[4] = r->r8;
		d[5] = r->r9;
	}
}
#endif

#endif
