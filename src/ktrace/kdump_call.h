// SPDX-License-Identifier: GPL-2.0-only
/* kdump_call — each thread's call gathered whole (its CALL, the records
 * written inside it, its RET) for the views that print one item per call
 * (kdump_call.c). Prefix kd_calls_. */
#ifndef SONDE_KTRACE_KDUMP_CALL_H
#define SONDE_KTRACE_KDUMP_CALL_H

#include "kdump.h"

struct kd_call {
	const struct kev *call;		/* NULL: the RET's CALL is not in the
					 * trace (attached during the call) */
	const struct kev *ret;		/* NULL: unfinished */
	const struct kev *const *parts;	/* NAMI, GIO, STRU, EXEC in order */
	size_t nparts;
};

/* Receives a call; everything it points to is valid during the call. */
typedef void (*kd_call_fn)(void *ctx, const struct kd_call *c);

struct kd_calls;
struct kd_calls *kd_calls_new(void);
/* Take e: true when it is part of a call (held, or handed to cb with the
 * rest of its call — a RET, or a CALL that leaves the thread's previous
 * call unfinished), false when it is not (the caller prints it). */
bool kd_calls_add(struct kd_calls *cs, const struct kev *e, kd_call_fn cb,
		  void *ctx);
/* The thread ended (EXIT) or the trace did: calls held are unfinished. */
void kd_calls_end_thread(struct kd_calls *cs, uint32_t tid, kd_call_fn cb,
			 void *ctx);
void kd_calls_end(struct kd_calls *cs, kd_call_fn cb, void *ctx);
void kd_calls_free(struct kd_calls *cs);

#endif
