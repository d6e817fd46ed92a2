// SPDX-License-Identifier: GPL-2.0-only
/* record.bpf — sonde ktrace's kernel side: BPF programs on the syscall,
 * scheduler and signal tracepoints (BTF raw tracepoints, the cheapest kind)
 * that write trace-file records (format.h) for the processes in the traced
 * map into one ring buffer. Children join the map at fork; a process leaves
 * it when its last thread exits. Nothing is lost silently: a failed
 * reservation is counted per CPU and per process, and that process's next
 * record carries KTR_F_DROP after an explicit KTR_DROP record.
 *
 * The consumer is woken only when a quarter of the buffer is full (plus its
 * own poll timeout), at most once per CPU each time it sleeps: a wake-up
 * per record would cost more than the record. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "format.h"
#include "record.h"

char LICENSE[] SEC("license") = "GPL";

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
	__u64 args[KTR_MAX_ARGS];
	__s64 ret;
	__u32 nr, pers;
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
	__u64 args[KTR_MAX_ARGS];
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

static __always_inline void note_drop(__u32 pid, __u64 count)
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
static __always_inline __u64 wake_flag(__u64 len)
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
	__u32 zero = 0;
	struct ktr_batch *B;

	if (l->cpu < 0)
		B = bpf_map_lookup_elem(&batches, &zero);
	else
		B = bpf_map_lookup_percpu_elem(&batches, &zero, l->cpu);
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
	__sync_lock_test_and_set(&B->busy, 0);	/* a full barrier */
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
	off = B->len;
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
 * flag its next record carries. */
static __always_inline __u16 take_drops(__u32 pid, struct task_struct *t)
{
	struct ktr_drop *d;
	__u64 *p, n;

	if (!pending_drops)
		return 0;
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
	fill(&d->h, sizeof(*d), KTR_DROP, t);
	d->h.flags = KTR_F_DROP;
	d->count = n;
	submit(d);
	return KTR_F_DROP;
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

	if (!v)
		return 0;
	c = reserve_ts(sizeof(*c), KTR_CALL, v->pid, NULL, v->ts);
	if (!c)
		return 0;
	c->h.cpu = v->cpu;
	c->h.pers = v->pers;
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

/* Write t's batched records and kept entry, if any: they are on the CPU t
 * runs on (t is the current task, or one running elsewhere; one off any
 * CPU has none). */
static __always_inline void flush_task(struct task_struct *t)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct slot *v;
	__u32 zero = 0, vcpu = bpf_get_smp_processor_id();

	if (!(points & KTR_PT_SYSCALL))
		return;
	if (!t || t == cur) {
		v = bpf_map_lookup_elem(&slots, &zero);
	} else {
		__u32 cpu = BPF_CORE_READ(t, thread_info.cpu);
		struct ktr_batch *B;

		vcpu = cpu;

		/* t's latest records wait in its CPU's batch: they go
		 * first. */
		B = bpf_map_lookup_percpu_elem(&batches, &zero, cpu);
		if (B && B->len && batch_lock(B, cpu)) {
			batch_out(B);
			batch_unlock(B);
		}
		v = bpf_map_lookup_percpu_elem(&slots, &zero, cpu);
	}
	if (v && v->pending && v->task == (__u64)(t ? t : cur) &&
	    __sync_lock_test_and_set(&v->pending, 0))
		emit_call_g(vcpu);
}

/* This CPU's slot, made to describe t (the current task): on its first
 * syscall here, its state comes from the traced map. */
static __always_inline struct slot *task_slot(struct task_struct *t)
{
	__u32 zero = 0, pid;
	struct slot *v = bpf_map_lookup_elem(&slots, &zero);
	__u32 *st;

	if (!v)
		return NULL;
	if (v->task == (__u64)t && v->start == t->start_time && v->valid)
		return v;
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
	return v;
}

/* Assembled records (scratch) go out with one copy. */
static __always_inline void emit_scratch(struct ktr_rec *h, __u32 len,
					 __u32 pid)
{
	h->flags |= take_drops(pid, NULL);
	if (len > SCRATCH)
		return;
	if (output(h, len))
		note_drop(pid, 1);
}

static __always_inline struct ktr_rec *scratch_rec(__u16 type)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ktr_rec *h = bpf_map_lookup_elem(&scratch, &cpu);

	if (h)
		fill(h, 0, type, NULL);
	return h;
}

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
static __always_inline __u64 sc_arg(struct pt_regs *regs, int i)
{
	return i == 0 ? regs->orig_x0 : regs->regs[i & 7];
}
#define KTR_X32_BIT 0
static __always_inline __u32 sc_pers(long id)
{
	return KTR_PERS_NATIVE;
}

static __always_inline __u64 sc_arg_pers(struct pt_regs *regs, int i,
					 __u32 pers)
{
	return sc_arg(regs, i);
}
#else
#define SC_NR(regs) ((regs)->orig_ax)
static __always_inline __u64 sc_arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0: return regs->di;
	case 1: return regs->si;
	case 2: return regs->dx;
	case 3: return regs->r10;
	case 4: return regs->r8;
	default: return regs->r9;
	}
}

/* The ABI of the current syscall (id: its number as the entry saw it):
 * i386 when the kernel runs it as a 32-bit call (TS_COMPAT in the thread's
 * status: int 0x80, sysenter or syscall from 32-bit code), x32 when the
 * number has __X32_SYSCALL_BIT. */
#define KTR_TS_COMPAT 0x0002
#define KTR_X32_BIT 0x40000000
static __always_inline __u32 sc_pers(long id)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if (t->thread_info.status & KTR_TS_COMPAT)
		return KTR_PERS_COMPAT;
	if (id & KTR_X32_BIT)
		return KTR_PERS_X32;
	return KTR_PERS_NATIVE;
}

/* An argument of a call of ABI pers: i386 passes them in ebx, ecx, edx,
 * esi, edi, ebp. */
static __always_inline __u64 sc_arg_pers(struct pt_regs *regs, int i,
					 __u32 pers)
{
	if (pers != KTR_PERS_COMPAT)
		return sc_arg(regs, i);
	switch (i) {
	case 0: return (__u32)regs->bx;
	case 1: return (__u32)regs->cx;
	case 2: return (__u32)regs->dx;
	case 3: return (__u32)regs->si;
	case 4: return (__u32)regs->di;
	default: return (__u32)regs->bp;
	}
}
#endif

__noinline int emit_entry(__u32 key);

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *t = NULL;
	struct slot *v;
	struct ktr_call *c;
	__u32 zero = 0, pers, nr;
	bool exec;

	v = bpf_map_lookup_elem(&slots, &zero);
	if (!v)
		return 0;
	if (!v->valid) {
		t = bpf_get_current_task_btf();
		v = task_slot(t);
	}
	if (!v || !v->state)
		return 0;
	pers = sc_pers(id) & 3;
	nr = pers == KTR_PERS_X32 ? id & ~KTR_X32_BIT : id;
	exec = nr == nr_execve[pers] || nr == nr_execveat[pers];
	if (v->state != KTR_ST_TRACING) {
		__u32 pid = v->pid, *st;

		/* Armed by `-- COMMAND`: tracing starts with its execve. */
		if (!exec)
			return 0;
		st = traced_state(pid);
		if (st)
			*st = KTR_ST_TRACING;
		v->state = KTR_ST_TRACING;
	}
	if (!(points & KTR_PT_SYSCALL))
		return 0;
	/* An entry still kept never returned. */
	if (v->pending && __sync_lock_test_and_set(&v->pending, 0))
		emit_call(v);
	/* execve changes comm and maybe the thread id before it returns:
	 * its CALL goes out now. */
	if (!exec) {
		v->ts = bpf_ktime_get_ns();
		v->cpu = bpf_get_smp_processor_id();
		v->nr = nr;
		v->pers = pers;
		v->args[0] = sc_arg_pers(regs, 0, pers);
		v->args[1] = sc_arg_pers(regs, 1, pers);
		v->args[2] = sc_arg_pers(regs, 2, pers);
		v->args[3] = sc_arg_pers(regs, 3, pers);
		v->args[4] = sc_arg_pers(regs, 4, pers);
		v->args[5] = sc_arg_pers(regs, 5, pers);
		__sync_lock_test_and_set(&v->pending, 1);
		/* A call that reads structures writes its CALL and them
		 * now: they may be overwritten (select's fd sets) or the
		 * call fail. */
		if (points & KTR_PT_STRU) {
			__u32 key = KTR_SI_KEY(pers, nr), *info;

			info = bpf_map_lookup_elem(&sysinfo, &key);
			if (info && (*info & KTR_SI_STRU_IN) &&
			    __sync_lock_test_and_set(&v->pending, 0))
				emit_entry(key);
		}
		return 0;
	}
	/* (exec renames the thread and may change its id.) */
	v->valid = 0;
	c = reserve(sizeof(*c), KTR_CALL, v->pid, t);
	if (!c)
		return 0;
	c->h.pers = pers;
	c->nr = nr;
	c->reserved = 0;
	c->args[0] = sc_arg_pers(regs, 0, pers);
	c->args[1] = sc_arg_pers(regs, 1, pers);
	c->args[2] = sc_arg_pers(regs, 2, pers);
	c->args[3] = sc_arg_pers(regs, 3, pers);
	c->args[4] = sc_arg_pers(regs, 4, pers);
	c->args[5] = sc_arg_pers(regs, 5, pers);
	submit(c);
	return 0;
}

/* Global (separately verified, once) functions take scalars only. */
__noinline int emit_nami(__u64 path, __u32 kernel, __u32 pid)
{
	struct ktr_rec *h = scratch_rec(KTR_NAMI);
	char *b = (char *)h;
	long n;

	if (!h || !path)
		return 0;
	if (kernel)
		n = bpf_probe_read_kernel_str(b + sizeof(*h), KTR_PATH_MAX,
					      (void *)path);
	else
		n = bpf_probe_read_user_str(b + sizeof(*h), KTR_PATH_MAX,
					    (void *)path);
	if (n <= 0) {
		/* Unreadable (a bad pointer, or a page not present): an
		 * empty name says a path was there. */
		b[sizeof(*h)] = 0;
		n = 1;
	}
	h->len = pad8(b, sizeof(*h) + (n & (KTR_PATH_MAX * 2 - 1)));
	emit_scratch(h, h->len, pid);
	return 0;
}

/* The user path at path, NUL-terminated, into dst (8-byte aligned, with
 * KTR_PATH_MAX bytes of room): its length with the NUL, or <= 0 when
 * unreadable. A path that fits KTR_PATH_SMALL is read into the stack and
 * copied a word at a time: the hardened-usercopy check of the read's
 * destination (read_small()) costs a range compare there and a page walk
 * for a map value. The bytes after the NUL in its last word are not the
 * path's: the caller zeroes them (pad8). */
#define KTR_PATH_SMALL 192
static __always_inline long read_path(char *dst, __u64 path)
{
	__u64 tmp[KTR_PATH_SMALL / 8];
	long n = bpf_probe_read_user_str(tmp, sizeof(tmp), (void *)path);

	if (n <= 0 || n >= KTR_PATH_SMALL)
		return bpf_probe_read_user_str(dst, KTR_PATH_MAX,
					       (void *)path);
	for (int i = 0; i < KTR_PATH_SMALL / 8; i++) {
		if (i * 8 >= n)
			break;
		((__u64 *)dst)[i] = tmp[i];
	}
	return n;
}

/* A NAMI record for the user path at path, of time ts, at offset off of
 * this CPU's scratch buffer (filled in by the caller before and after
 * it): the offset after it, or off when there is no room. */
__noinline __u32 nami_at(__u32 off, __u64 path, __u64 ts, __u32 pers)
{
	__u32 cpu = bpf_get_smp_processor_id();
	char *b = bpf_map_lookup_elem(&scratch, &cpu);
	struct ktr_rec *h;
	long n;

	if (!b || off > SCRATCH / 2)
		return off;
	off &= SCRATCH / 2 - 1;
	h = (struct ktr_rec *)(b + off);
	fill_ts(h, 0, KTR_NAMI, NULL, ts);
	h->pers = pers;
	n = read_path(b + off + sizeof(*h), path);
	if (n <= 0) {
		b[off + sizeof(*h)] = 0;
		n = 1;
	}
	n = pad8(b, off + sizeof(*h) + (n & (KTR_PATH_MAX * 2 - 1)));
	h->len = n - off;
	return n;
}

/* Data of a buffer of len bytes at ubuf, appended at off. */
static __always_inline __u32 copy_data(char *b, __u32 off, const void *ubuf,
				       __u64 len)
{
	if (len > KTR_GIO_MAX)
		len = KTR_GIO_MAX;
	if (off > SCRATCH - 2 * KTR_GIO_MAX)
		return off;
	if (len && !bpf_probe_read_user(b + off, len & (2 * KTR_GIO_MAX - 1),
					ubuf))
		return off + len;
	return off;
}

/* copy_data at off of this CPU's scratch buffer, as a global function:
 * the verifier walks bpf_loop's callback until its state repeats, and
 * an offset it can follow grows at each step; one it cannot (this
 * function's return) does not. */
__noinline __u32 copy_at(__u32 off, __u64 ubuf, __u64 len)
{
	__u32 cpu = bpf_get_smp_processor_id();
	char *b = bpf_map_lookup_elem(&scratch, &cpu);

	if (!b)
		return off;
	return copy_data(b, off, (const void *)ubuf, len);
}

struct iov {
	__u64 base, len;
};

struct iov_walk {
	__u32 off;
	__u32 compat;		/* 32-bit iovecs (i386, x32) */
	__u64 left, iovp, niov;
};

static long iov_step(__u32 i, void *ctx)
{
	struct iov_walk *w = ctx;
	struct iov v;
	__u64 n;

	if (i >= w->niov || !w->left)
		return 1;
	if (w->compat) {
		__u32 c[2];

		if (bpf_probe_read_user(c, sizeof(c), (void *)(w->iovp + i * 8)))
			return 1;
		v.base = c[0];
		v.len = c[1];
	} else if (bpf_probe_read_user(&v, sizeof(v),
				       (void *)(w->iovp + i * sizeof(v)))) {
		return 1;
	}
	n = v.len < w->left ? v.len : w->left;
	w->off = copy_at(w->off, v.base, n);
	w->left -= n;
	return 0;
}

/* Up to KTR_GIO_SMALL bytes of user data at ubuf into d, zero-padded to
 * KTR_GIO_SMALL: how many were read (0: unreadable). The copy goes
 * through the stack: the kernel's hardened-usercopy check of a copy's
 * destination walks the page of a map value (is it vmalloc, slab, a
 * compound page) for ~70 ns, while for the current stack it is a range
 * compare — that check was half of what the default set cost per call. */
static __always_inline __u64 read_small(__u64 *d, __u64 n, __u64 ubuf)
{
	__u64 tmp[KTR_GIO_SMALL / 8] = {};

	if (n > KTR_GIO_SMALL)
		n = KTR_GIO_SMALL;
	if (n && bpf_probe_read_user(tmp, n, (void *)ubuf))
		n = 0;		/* (and tmp zeroed again) */
	for (int i = 0; i < KTR_GIO_SMALL / 8; i++)
		d[i] = tmp[i];
	return n;
}

/* kind_fd: the fd in bits 0-31, the KTR_IO_* kind in 32-39, the call's
 * ABI (KTR_PERS_*) in 40-47. */
__noinline int emit_gio(__u64 ubuf, __u64 cnt, __s64 ret, __u64 kind_fd,
			__u32 nr)
{
	__u32 kind = (kind_fd >> 32) & 0xff, pers = (kind_fd >> 40) & 3;
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 left = ret < maxdata ? ret : maxdata, iovp, niov;
	__u32 off = sizeof(struct ktr_gio);
	struct ktr_gio *g;
	char *b;

	/* Small data from one buffer: straight into a fixed-size
	 * reservation (the record's len says how much of it is used), no
	 * copy through the scratch buffer. */
	if ((kind == KTR_IO_READ || kind == KTR_IO_WRITE) &&
	    left <= KTR_GIO_SMALL) {
		struct gio_small {
			char b[sizeof(struct ktr_gio) + KTR_GIO_SMALL];
		} *r = reserve(sizeof(*r), KTR_GIO, pid, NULL);
		__u64 *d;

		if (!r)
			return 0;
		g = (struct ktr_gio *)r;
		d = (__u64 *)(r->b + sizeof(*g));
		g->h.pers = pers;
		g->fd = (__s32)kind_fd;
		g->nr = nr;
		g->dir = kind == KTR_IO_WRITE ? KTR_GIO_WRITE : KTR_GIO_READ;
		g->reserved[0] = g->reserved[1] = g->reserved[2] = 0;
		g->total = ret;
		left = read_small(d, left, ubuf);
		g->data_len = left;
		g->h.len = (sizeof(*g) + left + 7) & ~7u;
		submit(r);
		return 0;
	}
	g = (struct ktr_gio *)scratch_rec(KTR_GIO);
	b = (char *)g;
	if (!g)
		return 0;
	g->h.pers = pers;
	g->fd = (__s32)kind_fd;
	g->nr = nr;
	g->dir = (kind == KTR_IO_WRITE || kind == KTR_IO_WRITEV ||
		  kind == KTR_IO_SENDMSG) ? KTR_GIO_WRITE : KTR_GIO_READ;
	g->reserved[0] = g->reserved[1] = g->reserved[2] = 0;
	g->total = ret;
	if (kind == KTR_IO_READ || kind == KTR_IO_WRITE) {
		off = copy_data(b, off, (void *)ubuf, left);
	} else {
		if ((kind == KTR_IO_RECVMSG || kind == KTR_IO_SENDMSG) &&
		    pers != KTR_PERS_NATIVE) {
			/* compat_msghdr: msg_iov and msg_iovlen are u32s at
			 * offsets 8 and 12. */
			__u32 m[4];

			if (bpf_probe_read_user(m, sizeof(m), (void *)ubuf))
				goto out;
			iovp = m[2];
			niov = m[3];
		} else if (kind == KTR_IO_RECVMSG || kind == KTR_IO_SENDMSG) {
			struct user_msghdr m;

			if (bpf_probe_read_user(&m, sizeof(m), (void *)ubuf))
				goto out;
			iovp = (__u64)m.msg_iov;
			niov = m.msg_iovlen;
		} else {
			iovp = ubuf;
			niov = cnt;
		}
		struct iov_walk w = { .off = off, .left = left,
				      .iovp = iovp, .niov = niov,
				      .compat = pers != KTR_PERS_NATIVE };

		/* bpf_loop: the verifier checks the body once. */
		bpf_loop(KTR_IOV_MAX, iov_step, &w, 0);
		off = w.off;
	}
out:
	g->data_len = off - sizeof(*g);
	g->h.len = pad8(b, off);
	emit_scratch(&g->h, g->h.len, pid);
	return 0;
}

/* The i-th capture of the call (key: KTR_SI_KEY) in direction dir, as a
 * STRU record of time ts at offset off of this CPU's scratch buffer, its
 * arguments and return value in cargs: the offset after it (off when
 * there is nothing to record or no room). */
__noinline __u32 cap_one(__u32 off, __u32 key, __u32 i, __u32 dir, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, total = 0, n;
	char *b = bpf_map_lookup_elem(&scratch, &cpu);
	struct ktr_captures *caps = bpf_map_lookup_elem(&captures, &key);
	struct cargs *a = bpf_map_lookup_elem(&cargs, &zero);
	struct ktr_capture *c;
	struct ktr_stru *st;
	__u64 ptr, next;

	if (!b || !caps || !a || i >= KTR_CAPS)
		return off;
	c = &caps->c[i];
	if (c->rule == KTR_CAP_NONE || c->dir != dir || c->arg >= 5)
		return off;
	ptr = a->args[c->arg];
	next = a->args[c->arg + 1];
	if (!ptr)
		return off;
	switch (c->rule) {
	case KTR_CAP_FIXED:
		total = c->size;
		break;
	case KTR_CAP_LEN_ARG:
		total = (__u32)next;
		break;
	case KTR_CAP_LEN_PTR:
		if (!next || bpf_probe_read_user(&total, 4, (void *)next))
			return off;
		break;
	case KTR_CAP_COUNT_ARG:
		total = (__u32)next * c->size;
		break;
	case KTR_CAP_COUNT_RET:
		total = a->ret > 0 ? (__u32)a->ret * c->size : 0;
		break;
	case KTR_CAP_BYTES_RET:
		total = a->ret > 0 ? (__u32)a->ret : 0;
		break;
	case KTR_CAP_MSGNAME:
		/* msg_name, msg_namelen: a pointer and an int, 8 and 4
		 * bytes (compat: 4 and 4). */
		if (c->size == 56) {
			__u64 m[2];

			if (bpf_probe_read_user(m, sizeof(m), (void *)ptr))
				return off;
			ptr = m[0];
			total = (__u32)m[1];
		} else {
			__u32 m[2];

			if (bpf_probe_read_user(m, sizeof(m), (void *)ptr))
				return off;
			ptr = m[0];
			total = m[1];
		}
		if (!ptr)
			return off;
		break;
	default:
		return off;
	}
	n = total < c->max ? total : c->max;
	if (n > KTR_STRU_MAX)
		n = KTR_STRU_MAX;
	if (off > SCRATCH - 2 * KTR_STRU_MAX)
		return off;
	off &= SCRATCH - 1;
	st = (struct ktr_stru *)(b + off);
	fill_ts(&st->h, 0, KTR_STRU, NULL, ts);
	st->h.pers = a->pers;
	st->nr = a->nr;
	st->kind = c->kind;
	st->arg = c->arg;
	st->dir = dir;
	st->total = total;
	{
		/* (Bounded for the verifier, which does not see n's.) */
		__u64 len = n;

		barrier_var(len);
		len &= KTR_STRU_MAX * 2 - 1;
		if (len && bpf_probe_read_user(b + off + sizeof(*st), len,
					       (void *)ptr))
			n = 0;
	}
	st->data_len = n;
	n = pad8(b, off + sizeof(*st) + n);
	st->h.len = n - off;
	return n;
}

/* A call that reads structures: its CALL record (from this CPU's slot,
 * whose entry the caller took) and a STRU record for each, written at
 * entry in one copy (a plain CALL then: its RET comes on its own). */
__noinline int emit_entry(__u32 key)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, off, pid;
	char *b = bpf_map_lookup_elem(&scratch, &cpu);
	struct slot *v = bpf_map_lookup_elem(&slots, &zero);
	struct cargs *a = bpf_map_lookup_elem(&cargs, &zero);
	struct ktr_call *c;

	if (!b || !v || !a)
		return 0;
	pid = v->pid;
	c = (struct ktr_call *)b;
	fill_ts(&c->h, sizeof(*c), KTR_CALL, NULL, v->ts);
	c->h.cpu = v->cpu;
	c->h.pers = v->pers;
	__builtin_memcpy(c->h.comm, v->comm, sizeof(c->h.comm));
	c->nr = v->nr;
	c->reserved = 0;
	for (int i = 0; i < KTR_MAX_ARGS; i++)
		a->args[i] = c->args[i] = v->args[i];
	a->ret = 0;
	a->nr = v->nr;
	a->pers = v->pers;
	off = sizeof(*c);
	for (int i = 0; i < KTR_CAPS; i++)
		off = cap_one(off, key, i, KTR_STRU_IN, v->ts);
	c->h.flags |= take_drops(pid, NULL);
	if (off > SCRATCH)
		return 0;
	if (output(b, off))
		note_drop(pid, 1);
	return 0;
}

/* A small read or write and its return, in one RETGIO record: one
 * reservation instead of two. */
__noinline int emit_retgio(__u64 ubuf, __s64 ret, __u64 kind_fd, __u32 nr)
{
	__u32 kind = (kind_fd >> 32) & 0xff;
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 n = ret < maxdata ? ret : maxdata;
	struct retgio_small {
		char b[sizeof(struct ktr_retgio) + KTR_GIO_SMALL];
	} *r = reserve(sizeof(*r), KTR_RETGIO, pid, NULL);
	struct ktr_retgio *g;
	__u64 *d;

	if (!r)
		return 0;
	g = (struct ktr_retgio *)r;
	d = (__u64 *)(r->b + sizeof(*g));
	g->h.pers = (kind_fd >> 40) & 3;
	g->nr = nr;
	g->fd = (__s32)kind_fd;
	g->ret = ret;
	g->dir = kind == KTR_IO_WRITE ? KTR_GIO_WRITE : KTR_GIO_READ;
	g->reserved[0] = g->reserved[1] = g->reserved[2] = 0;
	n = read_small(d, n, ubuf);
	g->data_len = n;
	g->h.len = (sizeof(*g) + n + 7) & ~7u;
	submit(r);
	return 0;
}

/* A record header for the current task, now, whose pid, tid and comm
 * are those of the entry kept in v (the task's own). */
static __always_inline void fill_entry(struct ktr_rec *h, __u16 type,
				       struct slot *v)
{
	h->len = 0;
	h->type = type;
	h->flags = 0;
	h->ts = bpf_ktime_get_ns();
	h->cpu = bpf_get_smp_processor_id();
	h->pers = v->pers;
	h->reserved = 0;
	h->reserved2 = 0;
	h->pid = v->pid;
	h->tid = v->tid;
	__builtin_memcpy(h->comm, v->comm, sizeof(h->comm));
}

/* The entry in v and this return, and for a small read or write its data,
 * in one KTR_CALLRET record. */
static __always_inline int emit_callret_g(__u64 ubuf, __s64 ret,
					  __u64 kind_fd)
{
	__u32 zero = 0;
	struct slot *v = bpf_map_lookup_elem(&slots, &zero);
	struct task_struct *t = NULL;
	__u32 kind = (kind_fd >> 32) & 0xff, pid;
	__u64 n = ret < maxdata ? ret : maxdata;
	struct callret_small {
		char b[sizeof(struct ktr_callret) + KTR_GIO_SMALL];
	} *r;
	struct ktr_callret *c;
	struct ktr_batch *B = NULL;
	__u32 len = sizeof(*c);
	__u64 *d;

	if (!v)
		return 0;
	pid = v->pid;
	/* Into the batch; straight to the ring buffer when it cannot be. */
	r = (void *)batch_begin(&B, kind ? sizeof(*r) : sizeof(*c), pid);
	if (r)
		fill_entry((struct ktr_rec *)r, KTR_CALLRET, v);
	else if (kind)
		r = reserve(sizeof(*r), KTR_CALLRET, pid, t);
	else
		r = reserve(sizeof(*c), KTR_CALLRET, pid, t);
	if (!r)
		return 0;
	c = (struct ktr_callret *)r;
	c->h.pers = v->pers;
	c->call_ts = v->ts;
	c->call_cpu = v->cpu;
	c->gio = kind != 0;
	c->dir = kind == KTR_IO_WRITE ? KTR_GIO_WRITE : KTR_GIO_READ;
	c->fd = (__s32)kind_fd;
	c->nr = v->nr;
	c->ret = ret;
	for (int i = 0; i < KTR_MAX_ARGS; i++)
		c->args[i] = v->args[i];
	c->data_len = 0;
	if (kind) {
		d = (__u64 *)(r->b + sizeof(*c));
		n = read_small(d, n, ubuf);
		c->data_len = n;
		len = (sizeof(*c) + n + 7) & ~7u;
	}
	c->h.len = len;
	if (B)
		batch_commit(B, len);
	else
		submit(r);
	return 0;
}

__noinline int emit_named_g(__u32 info, __s64 ret, __u32 nr_pers,
			    __u32 flags)
{
	__u32 cpu = bpf_get_smp_processor_id(), off = 0, pid, n = 0, zero = 0;
	__u32 nr = nr_pers >> 8, pers = nr_pers & 3;
	char *b = bpf_map_lookup_elem(&scratch, &cpu);
	struct cargs *a = bpf_map_lookup_elem(&cargs, &zero);
	struct slot *v = NULL;
	struct ktr_call *c;
	struct ktr_ret *r;
	bool with_ret = flags & 2, stru = flags & 4;
	__u64 now;

	if (!b || !a)
		return 0;
	if (flags & 1)
		v = bpf_map_lookup_elem(&slots, &zero);
	pid = bpf_get_current_pid_tgid() >> 32;
	/* The names and the return are of one moment: one clock read. */
	now = bpf_ktime_get_ns();
	if (v) {
		c = (struct ktr_call *)b;
		fill_ts(&c->h, sizeof(*c), KTR_CALL, NULL, v->ts);
		c->h.cpu = v->cpu;
		c->h.pers = pers;
		__builtin_memcpy(c->h.comm, v->comm, sizeof(c->h.comm));
		c->nr = v->nr;
		c->reserved = 0;
		for (int i = 0; i < KTR_MAX_ARGS; i++)
			c->args[i] = v->args[i];
		off = sizeof(*c);
		n++;
	}
	for (int i = 0; i < KTR_MAX_ARGS; i++) {
		if (KTR_SI_PATHMASK(info) & (1u << i)) {
			off = nami_at(off, a->args[i], now, pers);
			n++;
		}
	}
	/* Structures the call wrote, after its names. */
	if (stru) {
		__u32 key = KTR_SI_KEY(pers, nr);

		for (int i = 0; i < KTR_CAPS; i++)
			off = cap_one(off, key, i, KTR_STRU_OUT, now);
		n += KTR_CAPS;
	}
	if (with_ret && off <= SCRATCH - sizeof(*r)) {
		off &= SCRATCH - 1;
		r = (struct ktr_ret *)(b + off);
		fill_ts(&r->h, sizeof(*r), KTR_RET, NULL, now);
		r->h.pers = pers;
		r->nr = nr;
		r->reserved = 0;
		r->ret = ret;
		off += sizeof(*r);
		n++;
	}
	((struct ktr_rec *)b)->flags |= take_drops(pid, NULL);
	if (off > SCRATCH)
		return with_ret;
	if (output(b, off))
		note_drop(pid, n);
	return with_ret;
}

/* A call that takes path names or writes structures: its entry v (if
 * kept) as a CALL, a NAMI record per name, a STRU record per structure,
 * and with_ret its RET, assembled in the scratch buffer and written with
 * one copy (emit_named_g reads the arguments from cargs). Whether the RET
 * went out. */
static __always_inline bool emit_named(struct slot *v, struct pt_regs *regs,
				       __u32 info, long ret, __u32 nr,
				       __u32 pers, bool with_ret, bool stru)
{
	__u32 zero = 0;
	struct cargs *a = bpf_map_lookup_elem(&cargs, &zero);

	if (!a)
		return false;
	for (int i = 0; i < KTR_MAX_ARGS; i++)
		a->args[i] = sc_arg_pers(regs, i, pers);
	a->ret = ret;
	a->nr = nr;
	a->pers = pers;
	emit_named_g(info, ret, nr << 8 | pers,
		     (v ? 1 : 0) | (with_ret ? 2 : 0) | (stru ? 4 : 0));
	return with_ret;
}

/* A tail call, never made, that keeps the exit program on the task's
 * own kernel stack: since Linux 6.13 a tracing program whose stack passes
 * 64 bytes otherwise runs on a per-CPU private stack (a program with a
 * tail call never does), and the kernel's hardened-usercopy check of a
 * bpf_probe_read_user() into the task stack is a range compare, while
 * into any other memory it walks the page (is it vmalloc, slab, a
 * compound page): ~70 ns a read or write's data, half of what the data
 * cost per call. read_small() reads through the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} task_stack SEC(".maps");
const volatile bool never = false;

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t = NULL;
	struct slot *s, *v = NULL;
	__u32 pid, nr, *infop, info = 0, zero = 0, pers, key;
	struct ktr_ret *r;
	bool paths = false, stru;

	if (never)
		bpf_tail_call(ctx, &task_stack, 0);
	nr = SC_NR(regs);
	/* An entry kept on this CPU is the current task's: a thread leaving
	 * the CPU writes its entry out, and so does another task's syscall
	 * entry. The return then needs no look-up of the current task: its
	 * pid, tid and comm are the entry's. */
	s = bpf_map_lookup_elem(&slots, &zero);
	if (!s)
		return 0;
	if ((points & KTR_PT_SYSCALL) && s->pending &&
	    __sync_lock_test_and_set(&s->pending, 0)) {
		v = s;
		pid = v->pid;
		barrier_var(pid);	/* (one load per pointer type) */
		/* (The entry knows the number: rt_sigreturn returns with
		 * -1, i386's sigreturn too.) */
		nr = v->nr;
		pers = v->pers & 3;
	} else {
		t = bpf_get_current_task_btf();
		s = task_slot(t);
		if (!s || s->state != KTR_ST_TRACING)
			return 0;
		pid = t->tgid;
		pers = sc_pers(nr) & 3;
		if (pers == KTR_PERS_X32)
			nr &= ~KTR_X32_BIT;
		/* rt_sigreturn sets the number to -1 so that it is not
		 * restarted; nothing else returns with it. */
		if (nr == ~0u)
			nr = nr_rt_sigreturn[pers];
	}
	if (points & (KTR_PT_NAMEI | KTR_PT_GENIO | KTR_PT_STRU)) {
		key = KTR_SI_KEY(pers, nr);
		infop = bpf_map_lookup_elem(&sysinfo, &key);
		if (infop)
			info = *infop;
	}
	paths = (points & KTR_PT_NAMEI) && KTR_SI_PATHMASK(info) &&
		!(ret == 0 && (nr == nr_execve[pers] ||
			       nr == nr_execveat[pers]));
	stru = (points & KTR_PT_STRU) && (info & KTR_SI_STRU_OUT) && ret >= 0;
	/* The entry goes out on its own when something comes between (data
	 * that does not fit, a drop record; a rename wrote it already). */
	if (v && pending_drops && bpf_map_lookup_elem(&dropped, &pid)) {
		emit_call(v);
		v = NULL;
	}
	/* Path names are read at return: the kernel has copied them, so
	 * their pages are present. A successful exec's name comes from the
	 * exec tracepoint (the old memory is gone). The call's CALL, NAMI
	 * and (unless data comes between) RET records go out together, as
	 * one ring-buffer record. */
	if (paths || stru) {
		bool gio = (points & KTR_PT_GENIO) && ret > 0 &&
			   KTR_SI_IO(info);

		if (!paths)
			info &= ~KTR_SI_PATHS;
		if (emit_named(v, regs, info, ret, nr, pers,
			       !gio && (points & KTR_PT_SYSCALL), stru))
			return 0;
		v = NULL;
	}
	/* Data at return, with the real byte count: for writes the buffer
	 * is the one the call has just written from. */
	if ((points & KTR_PT_GENIO) && ret > 0 &&
	    KTR_SI_IO(info)) {
		int buf_arg = KTR_SI_BUF(info);
		__u64 fd = (__u32)sc_arg_pers(regs, KTR_SI_FD(info), pers);
		__u32 kind = KTR_SI_IO(info);
		__u64 kfd = (__u64)pers << 40 | (__u64)kind << 32 | fd;

		if ((points & KTR_PT_SYSCALL) &&
		    (ret < maxdata ? ret : maxdata) <= KTR_GIO_SMALL &&
		    (kind == KTR_IO_READ || kind == KTR_IO_WRITE)) {
			if (v)
				emit_callret_g(sc_arg_pers(regs, buf_arg, pers),
					       ret, kfd);
			else
				emit_retgio(sc_arg_pers(regs, buf_arg, pers),
					    ret, kfd, nr);
			return 0;
		}
		if (v) {
			emit_call(v);
			v = NULL;
		}
		emit_gio(sc_arg_pers(regs, buf_arg, pers),
			 sc_arg_pers(regs, buf_arg + 1, pers), ret, kfd, nr);
	}
	if (!(points & KTR_PT_SYSCALL))
		return 0;
	if (v) {
		emit_callret_g(0, ret, 0);
		return 0;
	}
	r = reserve(sizeof(*r), KTR_RET, pid, NULL);
	if (!r)
		return 0;
	r->h.pers = pers;
	r->nr = nr;
	r->reserved = 0;
	r->ret = ret;
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 pid = parent->tgid, cpid = child->tgid, tracing = KTR_ST_TRACING;
	__u32 *st = traced_state(pid);
	struct ktr_fork *f;

	if (!st || *st != KTR_ST_TRACING)
		return 0;
	flush_task(NULL);
	if (cpid != pid && inherit &&
	    !bpf_map_update_elem(&traced, &cpid, &tracing, BPF_NOEXIST))
		__sync_fetch_and_add(&live, 1);
	if (!(points & KTR_PT_PROC))
		return 0;
	f = reserve(sizeof(*f), KTR_FORK, pid, NULL);
	if (!f)
		return 0;
	f->child_pid = cpid;
	f->child_tid = child->pid;
	f->flags = cpid == pid ? KTR_FORK_THREAD : 0;
	f->reserved = 0;
	submit(f);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 pid = p->tgid;
	__u32 *st = traced_state(pid);
	struct ktr_exec *e;
	struct ktr_rec *h;
	const char *fname = BPF_CORE_READ(bprm, filename);
	char *b;
	long n, m;
	__u64 as, ae;
	struct mm_struct *mm;

	if (!st || *st != KTR_ST_TRACING)
		return 0;
	flush_task(NULL);
	if (points & KTR_PT_NAMEI)
		emit_nami((__u64)fname, 1, pid);
	if (!(points & KTR_PT_PROC))
		return 0;
	h = scratch_rec(KTR_EXEC);
	if (!h)
		return 0;
	e = (struct ktr_exec *)h;
	b = (char *)h;
	e->old_tid = old_pid;
	n = bpf_probe_read_kernel_str(b + sizeof(*e), KTR_PATH_MAX, fname);
	if (n <= 0) {
		b[sizeof(*e)] = 0;
		n = 1;
	}
	n &= KTR_PATH_MAX * 2 - 1;
	e->path_len = n;
	mm = p->mm;
	as = BPF_CORE_READ(mm, arg_start);
	ae = BPF_CORE_READ(mm, arg_end);
	m = ae > as ? ae - as : 0;
	e->argv_total = m;
	if (m > KTR_ARGV_MAX)
		m = KTR_ARGV_MAX;
	if (m && bpf_probe_read_user(b + sizeof(*e) + n,
				     m & (KTR_ARGV_MAX * 2 - 1), (void *)as))
		m = 0;
	e->argv_len = m;
	/* argc heads the new stack (mm->start_stack points at it after an
	 * ELF load): a long, of 4 bytes for a 32-bit program, whose argv[0]
	 * pointer follows; argc is far below 2^32 (little-endian: the low
	 * half of the first 8 bytes). 0 when it cannot be read. */
	{
		__u64 sp = BPF_CORE_READ(mm, start_stack);
		__u32 argc = 0;

		if (bpf_probe_read_user(&argc, sizeof(argc), (void *)sp))
			argc = 0;
		e->argc = argc;
	}
	h->len = pad8(b, sizeof(*e) + n + m);
	/* The environment, bounded like argv, in a STRU record after it:
	 * one copy for both. */
	if (points & KTR_PT_STRU) {
		__u32 off = h->len & (SCRATCH / 2 - 1);
		struct ktr_stru *s = (struct ktr_stru *)(b + off);

		fill(&s->h, 0, KTR_STRU, NULL);
		s->nr = 0;
		s->kind = KTR_STRU_ENVP;
		s->arg = KTR_STRU_NOARG;
		s->dir = KTR_STRU_IN;
		as = BPF_CORE_READ(mm, env_start);
		ae = BPF_CORE_READ(mm, env_end);
		m = ae > as ? ae - as : 0;
		s->total = m;
		if (m > KTR_ENV_MAX)
			m = KTR_ENV_MAX;
		if (m && bpf_probe_read_user(b + off + sizeof(*s),
					     m & (KTR_ENV_MAX * 2 - 1),
					     (void *)as))
			m = 0;
		s->data_len = m;
		s->h.len = pad8(b, off + sizeof(*s) + m) - off;
		emit_scratch(h, off + s->h.len, pid);
		return 0;
	}
	emit_scratch(h, h->len, pid);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 pid = p->tgid;
	__u32 *st = traced_state(pid);
	bool group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;
	struct ktr_exit *x;

	if (!st)
		return 0;
	if (*st == KTR_ST_TRACING)
		flush_task(p);	/* exit, exit_group: no return */
	/* The process's losses are written out when it ends (with p, by
	 * the EXIT record's reservation); what is still held then, the
	 * recorder writes when it stops. */
	if (*st == KTR_ST_TRACING && group_dead && !(points & KTR_PT_PROC) &&
	    pending_drops)
		take_drops(pid, NULL);
	if (*st == KTR_ST_TRACING && (points & KTR_PT_PROC)) {
		x = reserve(sizeof(*x), KTR_EXIT, pid, NULL);
		if (x) {
			x->code = p->exit_code;
			x->group_dead = group_dead;
			x->reserved[0] = x->reserved[1] = x->reserved[2] = 0;
			submit(x);
		}
	}
	if (group_dead && !bpf_map_delete_elem(&traced, &pid))
		__sync_fetch_and_add(&live, -1);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u32 ppid = prev->tgid, npid = next->tgid, *st;
	struct ktr_csw *c;

	struct slot *v;
	__u32 zero = 0;

	/* The entry of a syscall in progress does not stay on a CPU the
	 * thread leaves (so a slot holds the current task's entry only),
	 * and what the slot knows of the task is about the one leaving. */
	flush_task(prev);
	batch_flush();
	v = bpf_map_lookup_elem(&slots, &zero);
	if (v)
		v->valid = 0;
	if (!(points & KTR_PT_CSW))
		return 0;
	st = traced_state(ppid);
	if (st && *st == KTR_ST_TRACING) {
		c = reserve(sizeof(*c), KTR_CSW, ppid, prev);
		if (c) {
			c->dir = KTR_CSW_OUT;
			c->voluntary = !preempt && prev_state != 0;
			__builtin_memset(c->reserved, 0, sizeof(c->reserved));
			submit(c);
		}
	}
	st = traced_state(npid);
	if (st && *st == KTR_ST_TRACING) {
		c = reserve(sizeof(*c), KTR_CSW, npid, next);
		if (c) {
			c->dir = KTR_CSW_IN;
			c->voluntary = 0;
			__builtin_memset(c->reserved, 0, sizeof(c->reserved));
			submit(c);
		}
	}
	return 0;
}

/* The signal tracepoints' info argument is a pointer, or SEND_SIG_NOINFO
 * (0) or SEND_SIG_PRIV (1): it is compared as a number read from the
 * context (arg_word), since the verifier takes a BTF pointer argument for
 * one that is never NULL and drops a test of it, even of the context's
 * word. */
static __always_inline __u64 arg_word(void *ctx, int i)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + i * 8);
	return v;
}

static __always_inline int si_code(struct kernel_siginfo *info, __u64 iv)
{
	if (iv <= 1)
		return iv == 1 ? 0x80 /* SI_KERNEL */ : 0;
	return BPF_CORE_READ(info, si_code);
}

#define KTR_SIGCHLD 17
#define KTR_SIGKILL 9
#define KTR_SIGNAL_GROUP_EXIT 0x00000004

/* What the siginfo of sig (code: its si_code) says into s: who sent it
 * (si_pid of a signal a process sent, and of SIGCHLD: the child; 0 for
 * what the kernel raised: SEND_SIG_PRIV, timers, faults), the faulting
 * address, SIGCHLD's status. */
static __always_inline void sig_info(struct ktr_psig *s, int sig, int code,
				     struct kernel_siginfo *info, __u64 iv)
{
	s->sender_pid = 0;
	s->addr = 0;
	s->status = 0;
	s->reserved2 = 0;
	if (iv == 0) {
		/* SEND_SIG_NOINFO: SI_USER from the current process. */
		s->sender_pid = bpf_get_current_pid_tgid() >> 32;
		return;
	}
	if (iv == 1)
		return;
	if (code == 0 || code == -1 || code == -6) {
		/* SI_USER, SI_QUEUE, SI_TKILL */
		s->sender_pid = BPF_CORE_READ(info, _sifields._kill._pid);
	} else if (sig == KTR_SIGCHLD && code > 0 && code < 0x80) {
		s->sender_pid = BPF_CORE_READ(info, _sifields._sigchld._pid);
		s->status = BPF_CORE_READ(info, _sifields._sigchld._status);
	} else if (code > 0 && code < 0x80 &&
		   (sig == 4 || sig == 5 || sig == 7 || sig == 8 || sig == 11)) {
		/* SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV */
		s->addr = (__u64)BPF_CORE_READ(info, _sifields._sigfault._addr);
	}
}

/* A traced thread renamed (prctl, a write to its /proc comm file): the
 * entry of a call it is in goes out under the old name (the return then
 * shows the new one), and the slot of the CPU it runs on, if it describes
 * it, takes the new name — from the tracepoint's argument: the kernel
 * copies it into the task just after. (exec renames too: its syscall
 * entry already made the slot read everything again.) */
SEC("tp_btf/task_rename")
int BPF_PROG(on_rename, struct task_struct *task, const char *comm)
{
	__u32 zero = 0, pid = task->tgid, cpu;
	__u32 *st = traced_state(pid);
	__u64 name[2] = {};
	struct slot *v;

	if (!st || *st != KTR_ST_TRACING)
		return 0;
	flush_task(task);
	bpf_probe_read_kernel_str(name, sizeof(name), comm);
	cpu = BPF_CORE_READ(task, thread_info.cpu);
	v = bpf_map_lookup_percpu_elem(&slots, &zero, cpu);
	if (v && v->task == (__u64)task) {
		v->comm[0] = name[0];
		v->comm[1] = name[1];
	}
	return 0;
}

SEC("tp_btf/signal_generate")
int BPF_PROG(on_sig_generate, int sig, struct kernel_siginfo *info,
	     struct task_struct *task, int group, int result)
{
	__u32 pid = task->tgid, *st = traced_state(pid);
	struct ktr_psig *s;
	__u64 iv;

	if (!st || *st != KTR_ST_TRACING)
		return 0;
	/* The sending call's entry (kill, tgkill...) goes before the
	 * signal it sends, and the target's own records before it too. */
	flush_task(NULL);
	flush_task(task);
	s = reserve(sizeof(*s), KTR_PSIG, pid, task);
	if (!s)
		return 0;
	s->sig = sig;
	iv = arg_word(ctx, 1);
	s->code = si_code(info, iv);
	s->kind = KTR_SIG_GENERATED;
	s->fatal = 0;
	s->reserved[0] = s->reserved[1] = 0;
	s->result = result;
	sig_info(s, sig, s->code, info, iv);
	s->sa_flags = 0;
	s->handler = 0;
	submit(s);
	return 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(on_sig_deliver, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32, *st = traced_state(pid);
	struct ktr_psig *s;
	__u64 iv;

	if (!st || *st != KTR_ST_TRACING)
		return 0;
	flush_task(NULL);
	s = reserve(sizeof(*s), KTR_PSIG, pid, NULL);
	if (!s)
		return 0;
	s->sig = sig;
	iv = arg_word(ctx, 1);
	s->code = si_code(info, iv);
	s->kind = KTR_SIG_DELIVERED;
	s->fatal = 0;
	s->reserved[0] = s->reserved[1] = 0;
	s->result = 0;
	sig_info(s, sig, s->code, info, iv);
	/* The kernel's group exit: a SIGKILL without info, once the process
	 * is marked for death; the fatal signal is the group's exit code
	 * (an exit_group() call's status has no signal in it). */
	if (sig == KTR_SIGKILL && iv == 0) {
		struct task_struct *t = bpf_get_current_task_btf();
		int code = BPF_CORE_READ(t, signal, group_exit_code);

		if (BPF_CORE_READ(t, signal, flags) & KTR_SIGNAL_GROUP_EXIT) {
			s->fatal = 1;
			s->sender_pid = 0;
			if (code & 0x7f)
				s->sig = code & 0x7f;
		}
	}
	s->sa_flags = BPF_CORE_READ(ka, sa.sa_flags);
	s->handler = (__u64)BPF_CORE_READ(ka, sa.sa_handler);
	submit(s);
	return 0;
}
