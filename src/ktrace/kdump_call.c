// SPDX-License-Identifier: GPL-2.0-only
/* kdump_call — gathers each thread's call (its CALL, then the NAMI, GIO
 * and other records written inside it, until its RET) for the views that
 * print one item per call: --strace, --format json --merge and the
 * Chrome timeline. Events arrive in time order (kdump_order.c); a
 * thread's call is handed back whole when its RET comes, or unfinished
 * when the thread starts another call, exits, or the trace ends. */
#include "kdump_call.h"

#include <stdlib.h>
#include <string.h>

struct slot {
	uint32_t tid;		/* 0: free */
	uint32_t n;		/* events held */
	struct sbuf buf;	/* struct kev, then the record, 8-aligned */
};

struct kd_calls {
	struct slot *t;
	size_t cap, used;
	const struct kev **parts;
	size_t parts_cap;
};

struct kd_calls *kd_calls_new(void)
{
	return sd_calloc(1, sizeof(struct kd_calls));
}

static size_t hash(uint32_t tid, size_t cap)
{
	return (tid * 0x9e3779b1u) & (cap - 1);
}

static struct slot *find(struct kd_calls *cs, uint32_t tid, bool add)
{
	size_t i;

	if (add && (cs->used + 1) * 2 > cs->cap) {
		struct slot *old = cs->t;
		size_t oldcap = cs->cap;

		cs->cap = oldcap ? oldcap * 2 : 64;
		cs->t = sd_calloc(cs->cap, sizeof(*cs->t));
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].tid)
				continue;
			for (i = hash(old[j].tid, cs->cap); cs->t[i].tid;
			     i = (i + 1) & (cs->cap - 1))
				;
			cs->t[i] = old[j];
		}
		free(old);
	}
	if (!cs->cap)
		return NULL;
	for (i = hash(tid, cs->cap);; i = (i + 1) & (cs->cap - 1)) {
		if (cs->t[i].tid == tid)
			return &cs->t[i];
		if (!cs->t[i].tid)
			break;
	}
	if (!add)
		return NULL;
	cs->t[i].tid = tid;
	cs->t[i].n = 0;
	sbuf_init(&cs->t[i].buf);
	cs->used++;
	return &cs->t[i];
}

static void hold(struct slot *s, const struct kev *e)
{
	struct kev copy = *e;

	copy.chunk = NULL;
	sbuf_put(&s->buf, (const char *)&copy, sizeof(copy));
	sbuf_put(&s->buf, (const char *)e->r, e->r->len);
	while (s->buf.len % 8)
		sbuf_putc(&s->buf, '\0');
	s->n++;
}

/* Hand the held call (and ret, when it ended) to cb, then forget it. */
static void deliver(struct kd_calls *cs, struct slot *s, const struct kev *ret,
		    kd_call_fn cb, void *ctx)
{
	struct kd_call c = { 0 };
	size_t off = 0, i = 0;

	if (!s->n && !ret)
		return;
	sd_grow(&cs->parts, &cs->parts_cap, s->n + 1, sizeof(*cs->parts));
	while (off < s->buf.len) {
		struct kev *e = (struct kev *)(s->buf.buf + off);

		e->r = (const struct ktr_rec *)(e + 1);
		if (e->r->type == KTR_CALL && !c.call)
			c.call = e;
		else
			cs->parts[i++] = e;
		off += sizeof(*e) + ((e->r->len + 7) & ~7u);
	}
	c.parts = cs->parts;
	c.nparts = i;
	c.ret = ret;
	cb(ctx, &c);
	sbuf_reset(&s->buf);
	s->n = 0;
}

bool kd_calls_add(struct kd_calls *cs, const struct kev *e, kd_call_fn cb,
		  void *ctx)
{
	const struct ktr_rec *r = e->r;
	struct slot *s;

	switch (r->type) {
	case KTR_CALL:
		s = find(cs, r->tid, true);
		if (s->n)
			deliver(cs, s, NULL, cb, ctx);
		hold(s, e);
		return true;
	case KTR_RET:
		s = find(cs, r->tid, true);
		/* A RET of another call than the one held: both print. */
		if (s->n && e->call && ((const struct kev *)
					(s->buf.buf))->call != e->call)
			deliver(cs, s, NULL, cb, ctx);
		deliver(cs, s, e, cb, ctx);
		return true;
	case KTR_NAMI:
	case KTR_GIO:
	case KTR_STRU:
	case KTR_EXEC:
		s = find(cs, r->tid, false);
		if (!s || !s->n || !e->call ||
		    ((const struct kev *)s->buf.buf)->call != e->call)
			return false;
		hold(s, e);
		return true;
	default:
		return false;
	}
}

/* Backward-shift deletion keeps every probe chain whole. */
static void del(struct kd_calls *cs, struct slot *s)
{
	size_t mask = cs->cap - 1, i = s - cs->t, j = i;

	sbuf_free(&s->buf);
	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!cs->t[j].tid)
			break;
		h = hash(cs->t[j].tid, cs->cap);
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			cs->t[i] = cs->t[j];
			i = j;
		}
	}
	memset(&cs->t[i], 0, sizeof(cs->t[i]));
	cs->used--;
}

void kd_calls_end_thread(struct kd_calls *cs, uint32_t tid, kd_call_fn cb,
			 void *ctx)
{
	struct slot *s = find(cs, tid, false);

	if (!s)
		return;
	if (s->n)
		deliver(cs, s, NULL, cb, ctx);
	del(cs, s);
}

void kd_calls_end(struct kd_calls *cs, kd_call_fn cb, void *ctx)
{
	for (size_t i = 0; i < cs->cap; i++)
		if (cs->t[i].tid && cs->t[i].n)
			deliver(cs, &cs->t[i], NULL, cb, ctx);
}

void kd_calls_free(struct kd_calls *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->cap; i++)
		sbuf_free(&cs->t[i].buf);
	free(cs->t);
	free(cs->parts);
	free(cs);
}
