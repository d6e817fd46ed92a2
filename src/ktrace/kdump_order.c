// SPDX-License-Identifier: GPL-2.0-only
/* kdump_order — puts the events of all threads in time order within a
 * bounded window (kdump.h). The file holds each CPU's records in time
 * order, but a CPU's batch of CALLRET records can reach the file after
 * records other CPUs wrote later (docs/trace-format.md): kdump keeps the
 * newest events, up to the window's bytes (kdump -w, 16 MiB by default),
 * sorted by (timestamp, file order), and outputs the oldest whenever the
 * window is full. An event that arrives older than one already output
 * was held back by the recorder for longer than the window covers: it is
 * output at once and counted (kdump says how many at the end).
 *
 * Events are copied into chunks of 1 MiB; a chunk is freed when its last
 * event has been output. The sorted queue is an array: an event newer
 * than the newest held (the usual case) is appended in O(1), an older one
 * is inserted after a binary search. */
#include "kdump.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (1u << 20)

struct chunk {
	size_t used, cap;
	uint64_t live;		/* events in it not yet output */
	char data[];
};

struct order {
	struct kev **q;
	size_t head, tail, cap;	/* held events: q[head..tail) */
	struct chunk *cur, *spare;
	size_t held;		/* bytes of chunks alive */
};

void kd_order_init(struct kdump *k)
{
	k->order = sd_calloc(1, sizeof(struct order));
}

static void chunk_release(struct order *o, struct chunk *c)
{
	if (--c->live || c == o->cur)
		return;
	o->held -= c->cap;
	if (!o->spare && c->cap == CHUNK_SIZE) {
		o->spare = c;
		return;
	}
	free(c);
}

static struct chunk *chunk_for(struct order *o, size_t size)
{
	struct chunk *c = o->cur;

	if (c && c->used + size <= c->cap)
		return c;
	if (c && !c->live) {
		if (size <= c->cap) {
			c->used = 0;
			return c;
		}
		o->held -= c->cap;
		free(c);
	}
	if (size <= CHUNK_SIZE && o->spare) {
		c = o->spare;
		o->spare = NULL;
	} else {
		size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;

		c = sd_malloc(sizeof(*c) + cap);
		c->cap = cap;
	}
	c->used = 0;
	c->live = 0;
	o->held += c->cap;
	o->cur = c;
	return c;
}

static bool before(const struct kev *a, const struct kev *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void out_one(struct kdump *k, struct kev *e)
{
	if (e->ts < k->last_out_ts)
		k->late++;
	else
		k->last_out_ts = e->ts;
	kd_output(k, e);
	if (e->chunk)
		chunk_release(k->order, e->chunk);
}

static void pop(struct kdump *k)
{
	struct order *o = k->order;

	out_one(k, o->q[o->head++]);
	if (o->head == o->tail)
		o->head = o->tail = 0;
}

void kd_order_push(struct kdump *k, const struct kev *e)
{
	struct order *o = k->order;
	size_t rlen = (e->r->len + 7) & ~(size_t)7;
	size_t size = sizeof(struct kev) + rlen;
	struct chunk *c;
	struct kev *copy;

	if (k->o->file_order) {
		kd_output(k, (struct kev *)e);
		return;
	}
	c = chunk_for(o, size);
	copy = (struct kev *)(c->data + c->used);
	c->used += size;
	c->live++;
	*copy = *e;
	memcpy(copy + 1, e->r, e->r->len);
	copy->r = (const struct ktr_rec *)(copy + 1);
	copy->chunk = c;
	if (o->tail == o->cap) {
		if (o->head > o->cap / 2) {
			memmove(o->q, o->q + o->head,
				(o->tail - o->head) * sizeof(*o->q));
			o->tail -= o->head;
			o->head = 0;
		} else {
			sd_grow(&o->q, &o->cap, o->cap + 1, sizeof(*o->q));
		}
	}
	if (o->head == o->tail || !before(copy, o->q[o->tail - 1])) {
		o->q[o->tail++] = copy;
	} else {
		size_t lo = o->head, hi = o->tail - 1;

		/* The first held event that comes after copy. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (before(copy, o->q[mid]))
				hi = mid;
			else
				lo = mid + 1;
		}
		memmove(o->q + lo + 1, o->q + lo,
			(o->tail - lo) * sizeof(*o->q));
		o->q[lo] = copy;
		o->tail++;
	}
	while (o->held > k->o->window && o->head < o->tail)
		pop(k);
}

void kd_order_drain(struct kdump *k, uint64_t ts)
{
	struct order *o = k->order;

	while (o->head < o->tail && o->q[o->head]->ts <= ts)
		pop(k);
}

uint64_t kd_order_newest(struct kdump *k)
{
	struct order *o = k->order;

	return o->head < o->tail ? o->q[o->tail - 1]->ts : 0;
}

void kd_order_free(struct kdump *k)
{
	struct order *o = k->order;

	if (!o)
		return;
	/* Normally drained; after an error, let go of what is held. */
	for (size_t i = o->head; i < o->tail; i++)
		chunk_release(o, o->q[i]->chunk);
	if (o->cur)
		free(o->cur);
	free(o->spare);
	free(o->q);
	free(o);
	k->order = NULL;
}
