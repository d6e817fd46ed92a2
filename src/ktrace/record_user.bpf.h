// SPDX-License-Identifier: GPL-2.0-only
/* record_user.bpf.h — what the recorder reads from the traced process's
 * memory and the records it makes of it (part of record.bpf.c, included
 * there once, after record_out.bpf.h): path names (NAMI), I/O data (GIO,
 * iovecs), structures (STRU), a call's entry, and its return with a small
 * read's or write's data in one record. The global (__noinline)
 * functions here are verified once each, not per caller. */
#ifndef SONDE_RECORD_USER_BPF_H
#define SONDE_RECORD_USER_BPF_H

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
	/* (All of it: a copy that stops at n multiplies the verifier's
	 * paths by the words it could stop at. What follows the path is
	 * overwritten by the next record or not written out.) */
	for (int i = 0; i < KTR_PATH_SMALL / 8; i++)
		((__u64 *)dst)[i] = tmp[i];
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

static long iov_step(__u32 i, void *ctx)
{
	__u32 zero = 0;
	struct cargs *w = bpf_map_lookup_elem(&cargs, &zero);
	struct iov v;
	__u64 n;

	if (!w || i >= w->w_niov || !w->w_left)
		return 1;
	if (w->w_compat) {
		__u32 c[2];

		if (bpf_probe_read_user(c, sizeof(c),
					(void *)(w->w_iovp + i * 8)))
			return 1;
		v.base = c[0];
		v.len = c[1];
	} else if (bpf_probe_read_user(&v, sizeof(v),
				       (void *)(w->w_iovp + i * sizeof(v)))) {
		return 1;
	}
	n = v.len < w->w_left ? v.len : w->w_left;
	w->w_off = copy_at(w->w_off, v.base, n);
	w->w_left -= n;
	return 0;
}

/* Up to KTR_GIO_SMALL bytes of user data at ubuf into d, zero-padded to
 * KTR_GIO_SMALL: as many as the return value at retp says were moved, up
 * to maxdata; how many were read (0: unreadable). The copy goes through
 * the stack: the kernel's hardened-usercopy check of a copy's destination
 * walks the page of a map value (is it vmalloc, slab, a compound page) for
 * ~70 ns, while for the current stack it is a range compare — that check
 * was half of what the default set cost per call. The return value is
 * read back from the record (retp), not taken from a register: the
 * verifier then knows nothing of it from before, and does not walk the
 * caller's paths again for each range it had for it. The count is
 * stored at lenp (the record's data_len) too. */
static __always_inline __u64 read_small(__u64 *d, __s64 *retp, __u64 ubuf,
				       __u32 *lenp)
{
	__u64 tmp[KTR_GIO_SMALL / 8] = {};
	__s64 ret = *(volatile __s64 *)retp;
	__u64 n = ret > 0 ? ret : 0;

	if (n > maxdata)
		n = maxdata;
	if (n > KTR_GIO_SMALL)
		n = KTR_GIO_SMALL;
	if (n && bpf_probe_read_user(tmp, n, (void *)ubuf))
		n = 0;		/* (and tmp zeroed again) */
	/* (The count goes to the record, *lenp, before the copy and is
	 * read back after it: the copy is then one path.) */
	*lenp = n;
	for (int i = 0; i < KTR_GIO_SMALL / 8; i++)
		d[i] = tmp[i];
	return reread(*lenp);
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
		off = copy_at(off, ubuf, left);
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
			/* struct user_msghdr (UAPI: not CO-RE relocated):
			 * msg_name, msg_namelen, msg_iov, msg_iovlen. */
			__u64 m[4];

			if (bpf_probe_read_user(m, sizeof(m), (void *)ubuf))
				goto out;
			iovp = m[2];
			niov = m[3];
		} else {
			iovp = ubuf;
			niov = cnt;
		}
		__u32 zero = 0;
		struct cargs *w = bpf_map_lookup_elem(&cargs, &zero);

		if (!w)
			goto out;
		w->w_off = off;
		w->w_left = left;
		w->w_iovp = iovp;
		w->w_niov = niov;
		w->w_compat = pers != KTR_PERS_NATIVE;
		/* bpf_loop: the verifier checks the body once. */
		bpf_loop(KTR_IOV_MAX, iov_step, NULL, 0);
		off = w->w_off;
	}
out:
	g->data_len = off - sizeof(*g);
	/* (Read back: one path on for the verifier.) */
	off = sizeof(*g) + (reread(g->data_len) & (SCRATCH / 2 - 1));
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
	if (!ptr || off > SCRATCH - 2 * KTR_STRU_MAX)
		return off;
	off &= SCRATCH - 1;
	st = (struct ktr_stru *)(b + off);
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
	/* (One path on from here, whatever the rule.) */
	st->total = total;
	total = reread(st->total);
	n = total < c->max ? total : c->max;
	if (n > KTR_STRU_MAX)
		n = KTR_STRU_MAX;
	fill_ts(&st->h, 0, KTR_STRU, NULL, ts);
	st->h.pers = a->pers;
	st->nr = a->nr;
	st->kind = c->kind;
	st->arg = c->arg;
	st->dir = dir;
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
	n = reread(st->data_len) & (KTR_STRU_MAX * 2 - 1);
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

/* A small read's or write's data straight into a fixed-size reservation
 * (the record's len says how much of it is used), no copy through the
 * scratch buffer: with retgio its return too, in one RETGIO record (one
 * reservation instead of two), else a GIO record. */
__noinline int emit_iosmall(__u64 ubuf, __s64 ret, __u64 kind_fd, __u32 nr,
			    __u32 retgio)
{
	__u32 kind = (kind_fd >> 32) & 0xff;
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 n;
	struct io_small {
		char b[sizeof(struct ktr_retgio) + KTR_GIO_SMALL];
	} *r;
	struct ktr_retgio *g;
	struct ktr_gio *gi;
	__u8 dir;

	_Static_assert(sizeof(struct ktr_retgio) == sizeof(struct ktr_gio),
		       "GIO and RETGIO heads differ");
	r = reserve(sizeof(*r), retgio ? KTR_RETGIO : KTR_GIO, pid, NULL);
	if (!r)
		return 0;
	g = (struct ktr_retgio *)r;
	gi = (struct ktr_gio *)r;
	g->h.pers = (kind_fd >> 40) & 3;
	dir = kind == KTR_IO_WRITE ? KTR_GIO_WRITE : KTR_GIO_READ;
	if (retgio) {
		g->nr = nr;
		g->fd = (__s32)kind_fd;
		g->ret = ret;
		g->dir = dir;
		g->reserved[0] = g->reserved[1] = g->reserved[2] = 0;
		n = read_small((__u64 *)(r->b + sizeof(*g)), &g->ret, ubuf,
			       &g->data_len);
	} else {
		gi->fd = (__s32)kind_fd;
		gi->nr = nr;
		gi->total = ret;
		gi->dir = dir;
		gi->reserved[0] = gi->reserved[1] = gi->reserved[2] = 0;
		n = read_small((__u64 *)(r->b + sizeof(*g)),
			       (__s64 *)&gi->total, ubuf, &gi->data_len);
	}
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

/* A KTR_CALLRET record's body after its header: the entry in v, this
 * return, and with a kind (kind_fd as emit_gio's) the data of a small read
 * or write from ubuf, zero-padded to KTR_GIO_SMALL after the record. Its
 * length. */
static __always_inline __u32 callret_body(struct ktr_callret *c,
					  struct slot *v, __u64 ubuf,
					  __s64 ret, __u64 kind_fd)
{
	__u32 kind = (kind_fd >> 32) & 0xff;
	__u64 n = 0;

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
	if (kind)
		n = read_small((__u64 *)((char *)c + sizeof(*c)), &c->ret,
			       ubuf, &c->data_len);
	return (sizeof(*c) + n + 7) & ~7u;
}

/* A return written on its own (its entry went out before it). */
__noinline int emit_ret(__s64 ret, __u32 nr_pers)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct ktr_ret *r = reserve(sizeof(*r), KTR_RET, pid, NULL);

	if (!r)
		return 0;
	r->h.pers = nr_pers & 3;
	r->nr = nr_pers >> 8;
	r->reserved = 0;
	r->ret = ret;
	submit(r);
	return 0;
}

struct callret_small {
	char b[sizeof(struct ktr_callret) + KTR_GIO_SMALL];
};

/* The entry in this CPU's slot and this return, and for a small read or
 * write its data, in one KTR_CALLRET record (kind_fd as emit_gio's; 0:
 * no data), in this CPU's batch. */
__noinline int emit_callret(__u64 ubuf, __s64 ret, __u64 kind_fd)
{
	__u32 zero = 0, len;
	struct slot *v = bpf_map_lookup_elem(&slots, &zero);
	struct ktr_batch *B = NULL;
	struct ktr_callret *c;

	if (!v)
		return 0;
	c = (void *)batch_begin(&B, sizeof(struct callret_small), v->pid);
	if (!c || !B) {
		/* Straight to the ring buffer (records lost, or the batch
		 * held elsewhere): the entry as a CALL, then the return as
		 * a RETGIO or a RET, which kdump shows the same. */
		emit_call_g(bpf_get_smp_processor_id());
		if ((points & KTR_PT_GENIO) && (kind_fd >> 32))
			emit_iosmall(ubuf, ret, kind_fd, v->nr, 1);
		else
			emit_ret(ret, v->nr << 8 | (v->pers & 3));
		return 0;
	}
	fill_entry(&c->h, KTR_CALLRET, v);
	len = callret_body(c, v, ubuf, ret, kind_fd);
	c->h.len = len;
	batch_commit(B, len);
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
	/* (Read back: with or without the entry, one path on.) */
	a->off = off;
	off = reread(a->off);
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

/* What a syscall's return writes beyond a plain KTR_CALLRET: path names
 * and structures (with the entry, if kept: have, and the return, in one
 * copy: emit_named_g), data (GIO, RETGIO), the return on its own. The
 * call's arguments are in cargs (nr_pers: its number << 8 | its ABI). */
__noinline int exit_slow(__s64 ret, __u32 nr_pers, __u32 info, __u32 have)
{
	__u32 zero = 0, nr = nr_pers >> 8, pers = nr_pers & 3, what = 0;
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct cargs *a = bpf_map_lookup_elem(&cargs, &zero);

	if (!a)
		return 0;
	a->ret = ret;
	a->nr = nr;
	a->pers = pers;
	/* The entry goes out on its own when something comes between (data
	 * that does not fit, a drop record; a rename wrote it already). */
	if (have && pending_drops && bpf_map_lookup_elem(&dropped, &pid)) {
		emit_call_g(bpf_get_smp_processor_id());
		have = 0;
	}
	/* Path names are read at return: the kernel has copied them, so
	 * their pages are present. A successful exec's name comes from the
	 * exec tracepoint (the old memory is gone). */
	if ((points & KTR_PT_NAMEI) && KTR_SI_PATHMASK(info) &&
	    !(ret == 0 && (nr == nr_execve[pers] || nr == nr_execveat[pers])))
		what |= 1;
	if ((points & KTR_PT_STRU) && (info & KTR_SI_STRU_OUT) && ret >= 0)
		what |= 2;
	if ((points & KTR_PT_GENIO) && ret > 0 && KTR_SI_IO(info))
		what |= 4;
	/* (Read back: one path on from here for the verifier, not one per
	 * combination.) */
	a->what = what;
	a->have = have;
	what = reread(a->what);
	have = reread(a->have) & 1;
	ret = reread(a->ret);
	/* The call's CALL, NAMI, STRU and (unless data comes between) RET
	 * records go out together, as one ring-buffer record. */
	/* (points again: what is read back, the verifier does not know
	 * which bits the points leave out.) */
	if ((points & (KTR_PT_NAMEI | KTR_PT_STRU)) && (what & 3)) {
		__u32 with_ret = !(what & 4) && (points & KTR_PT_SYSCALL);

		if (!(what & 1))
			info &= ~KTR_SI_PATHS;
		emit_named_g(info, ret, nr_pers,
			     have | with_ret << 1 | (what & 2) << 1);
		if (with_ret)
			return 0;
		have = 0;
	}
	/* Data at return, with the real byte count: for writes the buffer
	 * is the one the call has just written from. */
	if ((points & KTR_PT_GENIO) && (what & 4)) {
		__u32 buf_arg = KTR_SI_BUF(info);
		__u64 fd = (__u32)a->args[KTR_SI_FD(info) & 7];
		__u32 kind = KTR_SI_IO(info);
		__u64 kfd = (__u64)pers << 40 | (__u64)kind << 32 | fd;
		__u64 ubuf = a->args[buf_arg & 7];

		if ((ret < maxdata ? ret : maxdata) <= KTR_GIO_SMALL &&
		    (kind == KTR_IO_READ || kind == KTR_IO_WRITE)) {
			if (have)
				emit_callret(ubuf, ret, kfd);
			else
				emit_iosmall(ubuf, ret, kfd, nr,
					     !!(points & KTR_PT_SYSCALL));
			return 0;
		}
		if (have) {
			emit_call_g(bpf_get_smp_processor_id());
			have = 0;
		}
		emit_gio(ubuf, a->args[(buf_arg + 1) & 7], ret, kfd, nr);
	}
	if (!(points & KTR_PT_SYSCALL))
		return 0;
	if (have)
		emit_callret(0, ret, 0);
	else
		emit_ret(ret, nr_pers);
	return 0;
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

#endif
