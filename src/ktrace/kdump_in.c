// SPDX-License-Identifier: GPL-2.0-only
/* kdump_in — the input stage of kdump (kdump.h): each file record becomes
 * the events it stands for (a CALLRET is a CALL, maybe a GIO, and a RET),
 * each event gets what only the thread's own history knows — the call it
 * belongs to, a RET's duration, the time since the thread's previous
 * record — and the filters that need that history run here: -p, -t,
 * -e trace= (a call's NAMI, GIO and STRU records go with it) and
 * -e status= (a call's records are held until its RET says whether it
 * failed). A thread's records are in time order in the file, so this
 * stage works in file order; kdump_order.c then merges the threads. */
#include "kdump.h"
#include "record.h"

#include <stdlib.h>
#include <string.h>

/* A call's records held for -e status are bounded: past this many bytes
 * they are let through undecided rather than held without end. */
#define GROUP_MAX (8u << 20)

static uint32_t type_point(uint16_t type)
{
	switch (type) {
	case KTR_CALL: case KTR_RET: return KTR_PT_SYSCALL;
	case KTR_NAMI: return KTR_PT_NAMEI;
	case KTR_GIO: return KTR_PT_GENIO;
	case KTR_PSIG: return KTR_PT_SIG;
	case KTR_CSW: return KTR_PT_CSW;
	case KTR_FORK: case KTR_EXEC: case KTR_EXIT: return KTR_PT_PROC;
	case KTR_STRU: return KTR_PT_STRU;
	/* What a process held at the attach: its state, as FORK's. */
	case KTR_FD: return KTR_PT_PROC;
	/* END closes a recording: its totals are no process's record (to
	 * be reported as such: cut short, losses). */
	case KTR_END: return 0;
	default: return ~0u;	/* DROP and unknown types always show */
	}
}

/* ---- the thread table: open addressing, linear probing ---- */

static size_t thash(uint32_t tid, size_t cap)
{
	return (tid * 0x9e3779b1u) & (cap - 1);
}

static struct kd_thread *thread_find(struct kdump *k, uint32_t tid)
{
	size_t i;

	if (!k->cap_threads)
		return NULL;
	for (i = thash(tid, k->cap_threads);; i = (i + 1) & (k->cap_threads - 1)) {
		struct kd_thread *t = &k->threads[i];

		if (!t->tid)
			return NULL;
		if (t->tid == tid)
			return t;
	}
}

static void thread_grow(struct kdump *k)
{
	struct kd_thread *old = k->threads;
	size_t oldcap = k->cap_threads;

	k->cap_threads = oldcap ? oldcap * 2 : 64;
	k->threads = sd_calloc(k->cap_threads, sizeof(*k->threads));
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].tid)
			continue;
		for (j = thash(old[i].tid, k->cap_threads); k->threads[j].tid;
		     j = (j + 1) & (k->cap_threads - 1))
			;
		k->threads[j] = old[i];
	}
	free(old);
}

static struct kd_thread *thread_get(struct kdump *k, uint32_t tid,
				    uint32_t pid)
{
	struct kd_thread *t = thread_find(k, tid);
	size_t i;

	if (t)
		return t;
	if ((k->nthreads + 1) * 2 > k->cap_threads)
		thread_grow(k);
	for (i = thash(tid, k->cap_threads); k->threads[i].tid;
	     i = (i + 1) & (k->cap_threads - 1))
		;
	t = &k->threads[i];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	k->nthreads++;
	return t;
}

/* Backward-shift deletion keeps every probe chain whole. */
static void thread_del(struct kdump *k, struct kd_thread *t)
{
	size_t mask = k->cap_threads - 1;
	size_t i = t - k->threads, j = i;

	sbuf_free(&t->group);
	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!k->threads[j].tid)
			break;
		h = thash(k->threads[j].tid, k->cap_threads);
		/* Move j into the hole at i when its home is not in (i, j]. */
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			k->threads[i] = k->threads[j];
			i = j;
		}
	}
	memset(&k->threads[i], 0, sizeof(k->threads[i]));
	k->nthreads--;
}

/* ---- -e status: a call's events held until its RET ---- */

static size_t ev_size(const struct kev *e)
{
	return sizeof(*e) + ((e->r->len + 7) & ~7u);
}

static void group_add(struct kd_thread *t, const struct kev *e)
{
	struct kev copy = *e;

	sbuf_put(&t->group, (const char *)&copy, sizeof(copy));
	sbuf_put(&t->group, (const char *)e->r, e->r->len);
	while (t->group.len % 8)
		sbuf_putc(&t->group, '\0');
	t->ngroup++;
}

/* An event goes on, shown or (for -y's fd tables only) hidden. */
static void emit(struct kdump *k, struct kev *e, bool show)
{
	if (show) {
		e->hidden = false;
		kd_order_push(k, e);
	} else if (k->o->fds) {
		e->hidden = true;
		kd_order_push(k, e);
	}
}

/* Push (keep) or drop the held events. */
static void group_end(struct kdump *k, struct kd_thread *t, bool keep)
{
	size_t off = 0;

	while ((keep || k->o->fds) && off < t->group.len) {
		struct kev e;

		memcpy(&e, t->group.buf + off, sizeof(e));
		e.r = (const struct ktr_rec *)(t->group.buf + off + sizeof(e));
		emit(k, &e, keep);
		off += ev_size(&e);
	}
	sbuf_reset(&t->group);
	t->ngroup = 0;
}

static bool calls_selected(const struct kd_opts *o, enum sc_abi abi,
			   uint32_t nr)
{
	if (!o->calls[abi])
		return true;
	return nr < o->ncalls[abi] && o->calls[abi][nr];
}

/* The call in progress ends without a RET (another CALL came, the thread
 * exited, the trace ended): it is "unfinished". */
static void call_unfinished(struct kdump *k, struct kd_thread *t)
{
	if (t->ngroup)
		group_end(k, t, k->o->status & KD_ST_UNFINISHED);
	t->call = 0;
}

/* Losses per process, for the summary at the end. */
static void loss(struct kdump *k, uint32_t pid, uint64_t n)
{
	size_t i;

	for (i = 0; i < k->nlosses; i++)
		if (k->losses[i].pid == pid)
			break;
	if (i == k->nlosses) {
		sd_grow(&k->losses, &k->cap_losses, i + 1, sizeof(*k->losses));
		k->losses[i].pid = pid;
		k->losses[i].n = 0;
		k->nlosses++;
	}
	k->losses[i].n += n;
}

/* ---- DROP records ----
 * A DROP says records were lost before the record that follows it (its
 * process's next one, which has the DROP flag). The recorder times it when
 * it writes it, which can be after the time of that next record (a CALL
 * kept on its CPU until its return): kdump holds it until that record and
 * places it just before, at that record's time. */

static void drop_hold(struct kdump *k, const struct kev *e)
{
	struct kev copy = *e;

	sbuf_put(&k->drops, (const char *)&copy, sizeof(copy));
	sbuf_put(&k->drops, (const char *)e->r, e->r->len);
	while (k->drops.len % 8)
		sbuf_putc(&k->drops, '\0');
	k->ndrops++;
}

/* Push the DROPs held for pid (all of them when pid is 0), timed no later
 * than ts. */
static void drop_release(struct kdump *k, uint32_t pid, uint64_t ts)
{
	size_t off = 0, keep = 0;
	uint32_t left = 0;

	while (off < k->drops.len) {
		struct kev e;
		size_t n;

		memcpy(&e, k->drops.buf + off, sizeof(e));
		e.r = (const struct ktr_rec *)(k->drops.buf + off + sizeof(e));
		n = ev_size(&e);
		if (!pid || e.r->pid == pid) {
			if (e.ts > ts)
				e.ts = ts;
			emit(k, &e, true);
		} else {
			memmove(k->drops.buf + keep, k->drops.buf + off, n);
			keep += n;
			left++;
		}
		off += n;
	}
	k->drops.len = keep;
	k->ndrops = left;
}

/* ---- one event ---- */

/* Records written inside a call, for it. */
static bool in_call(uint16_t type)
{
	return type == KTR_NAMI || type == KTR_GIO || type == KTR_STRU;
}

static void event(struct kdump *k, struct kev *e)
{
	const struct ktr_rec *r = e->r;
	struct kd_opts *o = k->o;
	struct kd_thread *t = thread_get(k, r->tid, r->pid);
	bool show = true, status = o->status != KD_ST_ALL;
	int64_t ret = 0;

	e->seq = k->seq++;
	if (k->ndrops)
		drop_release(k, r->pid, r->ts);
	e->dur = -1;
	e->rel = t->last_ts ? (int64_t)(r->ts - t->last_ts) : -1;
	e->call = 0;
	e->chunk = NULL;
	e->ts = r->ts;
	t->last_ts = r->ts;
	t->pid = r->pid;
	if (r->ts > k->last_ts)
		k->last_ts = r->ts;
	switch (r->type) {
	case KTR_CALL: {
		const struct ktr_call *c = (const void *)r;

		if (t->call)
			call_unfinished(k, t);
		t->call = ++k->ncalls;
		t->call_ts = r->ts;
		t->call_nr = c->nr;
		memcpy(t->call_args, c->args, sizeof(t->call_args));
		t->selected = calls_selected(o, kd_abi(k, r), c->nr);
		e->call = t->call;
		show = t->selected;
		break;
	}
	case KTR_RET: {
		const struct ktr_ret *c = (const void *)r;

		ret = c->ret;
		if (t->call && t->call_nr == c->nr) {
			e->call = t->call;
			e->dur = (int64_t)(r->ts - t->call_ts);
			memcpy(e->cargs, t->call_args, sizeof(e->cargs));
			show = t->selected;
		} else {
			if (t->call)
				call_unfinished(k, t);
			e->call = ++k->ncalls;
			show = calls_selected(o, kd_abi(k, r), c->nr);
		}
		t->call = 0;
		break;
	}
	case KTR_EXEC: {
		const struct ktr_exec *x = (const void *)r;
		struct kd_thread *old;

		/* A thread other than the leader called exec and now has
		 * the leader's id: its call goes on under that id. */
		if (x->old_tid && x->old_tid != r->tid &&
		    (old = thread_find(k, x->old_tid)) && old->call) {
			if (t->call)
				call_unfinished(k, t);
			sbuf_free(&t->group);
			t->call = old->call;
			t->call_ts = old->call_ts;
			t->call_nr = old->call_nr;
			memcpy(t->call_args, old->call_args, sizeof(t->call_args));
			t->selected = old->selected;
			t->group = old->group;
			t->ngroup = old->ngroup;
			sbuf_init(&old->group);
			thread_del(k, old);
			t = thread_find(k, r->tid);
		}
		e->call = t->call;
		break;
	}
	case KTR_DROP: {
		const struct ktr_drop *d = (const void *)r;

		k->lost += d->count;
		loss(k, r->pid, d->count);
		if (!(o->pid > 0 && r->pid != o->pid && r->tid != o->pid)) {
			drop_hold(k, e);
			return;
		}
		break;
	}
	default:
		if (in_call(r->type) && t->call) {
			e->call = t->call;
			memcpy(e->cargs, t->call_args, sizeof(e->cargs));
			show = t->selected;
		} else if (r->type == KTR_GIO) {
			const struct ktr_gio *g = (const void *)r;

			show = calls_selected(o, kd_abi(k, r), g->nr);
		}
	}
	if (o->pid > 0 && r->pid != o->pid && r->tid != o->pid)
		show = false;
	if (!(type_point(r->type) & o->points))
		show = false;
	/* What -- COMMAND inherited (written before its exec): only for
	 * -y's names; the command's first record is its execve. */
	if (r->type == KTR_FD && (r->flags & KTR_F_START))
		show = false;
	if (status && e->call) {
		/* Held until the RET; the RET decides for all of them. */
		if (r->type != KTR_RET) {
			if (show && t->group.len < GROUP_MAX)
				group_add(t, e);
			else
				emit(k, e, show);
			return;
		}
		{
			uint32_t st = ret < 0 && ret >= -4095 ? KD_ST_FAILED
							      : KD_ST_SUCCESS;
			bool keep = o->status & st;

			group_end(k, t, keep);
			emit(k, e, show && keep);
		}
		return;
	}
	emit(k, e, show);
	if (r->type == KTR_EXIT) {
		if (t->call)
			call_unfinished(k, t);
		thread_del(k, t);
	}
}

/* ---- merged records ---- */

static void init_head(struct ktr_rec *h, const struct ktr_rec *from,
		      uint16_t type, uint32_t len)
{
	*h = *from;
	h->type = type;
	h->len = len;
}

/* RETGIO: the GIO, then the RET. */
static void expand_retgio(struct kdump *k, const struct ktr_rec *r,
			  uint64_t off)
{
	const struct ktr_retgio *m = (const void *)r;
	struct ktr_gio *g = (void *)k->scratch;
	struct ktr_ret ret;
	struct kev e = { .offset = off };

	memset(g, 0, sizeof(*g));
	init_head(&g->h, r, KTR_GIO, sizeof(*g) + m->data_len);
	g->fd = m->fd;
	g->nr = m->nr;
	g->dir = m->dir;
	g->data_len = m->data_len;
	g->total = m->ret;
	memcpy(g->data, m->data, m->data_len);
	memset(&ret, 0, sizeof(ret));
	init_head(&ret.h, r, KTR_RET, sizeof(ret));
	ret.h.flags &= ~KTR_F_DROP;	/* the first of the two carries it */
	ret.nr = m->nr;
	ret.ret = m->ret;
	e.r = &g->h;
	event(k, &e);
	e.r = &ret.h;
	event(k, &e);
}

/* CALLRET: the CALL (with the entry's time and CPU), maybe a GIO, the
 * RET. */
static void expand_callret(struct kdump *k, const struct ktr_rec *r,
			   uint64_t off)
{
	const struct ktr_callret *m = (const void *)r;
	struct ktr_call call;
	struct ktr_ret ret;
	struct kev e = { .offset = off };

	memset(&call, 0, sizeof(call));
	init_head(&call.h, r, KTR_CALL, sizeof(call));
	call.h.ts = m->call_ts;
	call.h.cpu = m->call_cpu;
	call.nr = m->nr;
	memcpy(call.args, m->args, sizeof(call.args));
	memset(&ret, 0, sizeof(ret));
	init_head(&ret.h, r, KTR_RET, sizeof(ret));
	ret.h.flags &= ~KTR_F_DROP;	/* the CALL carries it */
	ret.nr = m->nr;
	ret.ret = m->ret;
	e.r = &call.h;
	event(k, &e);
	if (m->gio) {
		struct ktr_gio *g = (void *)k->scratch;

		memset(g, 0, sizeof(*g));
		init_head(&g->h, &ret.h, KTR_GIO, sizeof(*g) + m->data_len);
		g->fd = m->fd;
		g->nr = m->nr;
		g->dir = m->dir;
		g->data_len = m->data_len;
		g->total = m->ret;
		memcpy(g->data, m->data, m->data_len);
		e.r = &g->h;
		event(k, &e);
	}
	e.r = &ret.h;
	event(k, &e);
}

/* -c (k->count_only): a CALLRET is a call that returned, counted at
 * once, with what event() would have done for its CALL and RET that -c
 * depends on (no events made, none held, nothing printed). False when
 * DROP records wait to be placed: the general way then. */
static bool count_callret(struct kdump *k, const struct ktr_rec *r)
{
	const struct ktr_callret *m = (const void *)r;
	const struct kd_opts *o = k->o;
	struct kd_thread *t;
	enum sc_abi abi;

	if (k->ndrops)
		return false;
	t = thread_get(k, r->tid, r->pid);
	if (t->call)
		call_unfinished(k, t);
	k->seq += m->gio ? 3 : 2;
	k->ncalls++;
	t->last_ts = r->ts;
	t->pid = r->pid;
	if (r->ts > k->last_ts)
		k->last_ts = r->ts;
	abi = kd_abi(k, r);
	if ((o->points & KTR_PT_SYSCALL) && calls_selected(o, abi, m->nr) &&
	    !(o->pid > 0 && r->pid != o->pid && r->tid != o->pid))
		kd_stat_call(k, abi, m->nr, m->ret,
			     (int64_t)(r->ts - m->call_ts));
	return true;
}

void kd_in_init(struct kdump *k)
{
	k->scratch_len = KTR_REC_MAX + 256;
	k->scratch = sd_malloc(k->scratch_len);
	sbuf_init(&k->drops);
}

void kd_in_record(struct kdump *k, const struct ktr_rec *r, uint64_t off)
{
	struct kev e = { .offset = off, .r = r };

	k->records++;
	k->ended = r->type == KTR_END;
	if (k->ended) {
		memset(&k->end, 0, sizeof(k->end));
		memcpy(&k->end, r, r->len < sizeof(k->end) ? r->len :
							      sizeof(k->end));
	}
	if (r->type == KTR_RETGIO) {
		expand_retgio(k, r, off);
	} else if (r->type == KTR_CALLRET) {
		if (!k->count_only || !count_callret(k, r))
			expand_callret(k, r, off);
	} else {
		event(k, &e);
	}
}

/* The trace ended: calls still in progress are unfinished. */
void kd_in_end(struct kdump *k)
{
	if (k->ndrops)
		drop_release(k, 0, UINT64_MAX);
	for (size_t i = 0; i < k->cap_threads; i++)
		if (k->threads[i].tid && k->threads[i].call)
			call_unfinished(k, &k->threads[i]);
}

void kd_in_free(struct kdump *k)
{
	for (size_t i = 0; i < k->cap_threads; i++)
		sbuf_free(&k->threads[i].group);
	free(k->threads);
	k->threads = NULL;
	k->cap_threads = k->nthreads = 0;
	free(k->scratch);
	k->scratch = NULL;
	sbuf_free(&k->drops);
	free(k->losses);
	k->losses = NULL;
}
