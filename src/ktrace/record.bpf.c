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

/* The maps, output and argument readers; then user memory and records. */
#include "record_out.bpf.h"
#include "record_user.bpf.h"

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	struct slot *v;
	__u32 zero = 0, pers, nr;
	bool exec;

	v = bpf_map_lookup_elem(&slots, &zero);
	if (!v)
		return 0;
	if (!v->valid)
		task_slot_g();
	if (!v->state)
		return 0;
	pers = sc_pers(id) & 3;
	nr = id & ~(KTR_X32_BIT * (pers >> 1));	/* (x32: the bit off) */
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
	v->ts = bpf_ktime_get_ns();
	v->cpu = bpf_get_smp_processor_id();
	v->nr = nr;
	v->pers = pers;
	sc_args(v->args, regs, pers);
	/* execve changes comm and maybe the thread id before it returns:
	 * its CALL goes out now (and the slot is read again after it). */
	if (exec) {
		v->valid = 0;
		emit_call(v);
		return 0;
	}
	store_release(&v->pending, 1);
	/* A call that reads structures writes its CALL and them now: they
	 * may be overwritten (select's fd sets) or the call fail. */
	if (points & KTR_PT_STRU) {
		__u32 key = KTR_SI_KEY(pers, nr), *info;

		info = bpf_map_lookup_elem(&sysinfo, &key);
		if (info && (*info & KTR_SI_STRU_IN) &&
		    __sync_lock_test_and_set(&v->pending, 0))
			emit_entry(key);
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 nr, info = 0, zero = 0, pers, key, have = 0, *infop;
	struct cargs *a;
	struct slot *s;

	if (never)
		bpf_tail_call(ctx, &task_stack, 0);
	/* An entry kept on this CPU is the current task's: a thread leaving
	 * the CPU writes its entry out, and so does another task's syscall
	 * entry. The return then needs no look-up of the current task: its
	 * pid, tid and comm are the entry's. */
	s = bpf_map_lookup_elem(&slots, &zero);
	if (!s)
		return 0;
	if ((points & KTR_PT_SYSCALL) && s->pending &&
	    __sync_lock_test_and_set(&s->pending, 0)) {
		have = 1;
		/* (The entry knows the number: rt_sigreturn returns with
		 * -1, i386's sigreturn too.) */
		nr = s->nr;
		pers = s->pers & 3;
	} else {
		if (!s->valid)
			task_slot_g();
		if (s->state != KTR_ST_TRACING)
			return 0;
		nr = SC_NR(regs);
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
	/* Most returns: the entry kept, no path name, no structure, no data
	 * or a small read or write's. */
	if (have && !pending_drops &&
	    !((points & KTR_PT_NAMEI) && KTR_SI_PATHMASK(info)) &&
	    !((points & KTR_PT_STRU) && (info & KTR_SI_STRU_OUT))) {
		__u32 kind = KTR_SI_IO(info);

		if (!(points & KTR_PT_GENIO) || ret <= 0 || !kind)
			return emit_callret(0, ret, 0);
		if ((ret < maxdata ? ret : maxdata) <= KTR_GIO_SMALL &&
		    (kind == KTR_IO_READ || kind == KTR_IO_WRITE)) {
			__u64 fd = (__u32)s->args[KTR_SI_FD(info) & 7];

			return emit_callret(s->args[KTR_SI_BUF(info) & 7], ret,
					    (__u64)pers << 40 |
					    (__u64)kind << 32 | fd);
		}
	}
	/* The rest, with the call's arguments in cargs. */
	a = bpf_map_lookup_elem(&cargs, &zero);
	if (!a)
		return 0;
	if (have) {
		for (int i = 0; i < KTR_MAX_ARGS; i++)
			a->args[i] = s->args[i];
	} else {
		sc_args(a->args, regs, pers);
	}
	return exit_slow(ret, nr << 8 | pers, info, have);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 pid = parent->tgid, cpid = child->tgid, tracing = KTR_ST_TRACING;
	__u32 *st = traced_state(pid);
	struct ktr_fork *f;

	if (!st || *st != KTR_ST_TRACING)
		return 0;
	flush_self();
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
	flush_self();
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
	/* (Read, not loaded through the BTF pointer: the verifier looks
	 * up whether a pointer field is trusted by walking the kernel's
	 * whole BTF, four times per path: 3 of on_exec's 5.5 ms.) */
	mm = BPF_CORE_READ(p, mm);
	as = BPF_CORE_READ(mm, arg_start);
	ae = BPF_CORE_READ(mm, arg_end);
	m = ae > as ? ae - as : 0;
	e->argv_total = m;
	if (m > KTR_ARGV_MAX)
		m = KTR_ARGV_MAX;
	n = reread(e->path_len) & (KTR_PATH_MAX * 2 - 1);
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
	h->len = pad8(b, sizeof(*e) + n +
		      (reread(e->argv_len) & (KTR_ARGV_MAX * 2 - 1)));
	/* The environment, bounded like argv, in a STRU record after it:
	 * one copy for both. */
	if (points & KTR_PT_STRU) {
		__u32 off = reread(h->len) & (SCRATCH / 2 - 1);
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
		m = reread(s->data_len) & (KTR_ENV_MAX * 2 - 1);
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
		flush_self();	/* exit, exit_group: no return (p is current) */
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
	flush_self();	/* (prev is the current task) */
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

/* A siginfo's head as the ABI lays it out on a 64-bit kernel (siginfo_t:
 * si_signo, si_errno, si_code, the union at 16), and a sigaction's (the
 * handler, then the flags), read at these fixed offsets rather than CO-RE
 * relocated: each kernel type libbpf relocates costs the start-up a walk
 * of the kernel's whole BTF (~1 ms). */
struct ktr_siginfo {
	int si_signo, si_errno, si_code, pad;
	union {
		struct { int pid; unsigned int uid; } kill;
		struct { int pid; unsigned int uid; int status; } chld;
		__u64 addr;
	};
};

struct ktr_sigaction {
	__u64 handler, flags;
};

static __always_inline int si_code(struct kernel_siginfo *info, __u64 iv)
{
	int code = 0;

	if (iv <= 1)
		return iv == 1 ? 0x80 /* SI_KERNEL */ : 0;
	bpf_probe_read_kernel(&code, sizeof(code),
			      (char *)info + offsetof(struct ktr_siginfo, si_code));
	return code;
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
	struct ktr_siginfo si;

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
	if (bpf_probe_read_kernel(&si, sizeof(si), info))
		return;
	if (code == 0 || code == -1 || code == -6) {
		/* SI_USER, SI_QUEUE, SI_TKILL */
		s->sender_pid = si.kill.pid;
	} else if (sig == KTR_SIGCHLD && code > 0 && code < 0x80) {
		s->sender_pid = si.chld.pid;
		s->status = si.chld.status;
	} else if (code > 0 && code < 0x80 &&
		   (sig == 4 || sig == 5 || sig == 7 || sig == 8 || sig == 11)) {
		/* SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV */
		s->addr = si.addr;
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
	flush_self();
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
	flush_self();
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
	{
		struct ktr_sigaction sa = {};

		bpf_probe_read_kernel(&sa, sizeof(sa), ka);
		s->sa_flags = sa.flags;
		s->handler = sa.handler;
	}
	submit(s);
	return 0;
}

