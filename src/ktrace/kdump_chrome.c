// SPDX-License-Identifier: GPL-2.0-only
/* kdump_chrome — `kdump --format chrome`: the trace as a timeline in the
 * Trace Event Format (the JSON chrome://tracing, Perfetto and speedscope
 * open): one track per thread, named from the trace (process_name and
 * thread_name metadata, again after an exec), a complete event ("X") per
 * call from its entry to its return, named by the call; off-CPU time as "X" events of category sched when
 * context switches were recorded (ktrace -t w), nested in the call that
 * slept; instant events ("i") for signals, forks, execs, exits and lost
 * records. Times are microseconds from the trace's first record (a double
 * keeps them exact to the nanosecond for 104 days); the wall-clock time
 * of the first record is in otherData. */
#include "kdump.h"
#include "kdump_call.h"
#include "../lib/json.h"

#include <stdlib.h>
#include <string.h>

/* What is known of a thread: its process, its name, where it went off
 * CPU. A small open-addressing map keyed by tid. */
struct cthread {
	uint32_t tid, pid;
	char comm[KTR_COMM_LEN];
	uint64_t off_ts;	/* 0: on CPU */
	bool voluntary;
	uint64_t last_ts;
};

struct cview {
	struct kd_calls *calls;
	struct kdump *k;
	struct cthread *t;
	size_t cap, used;
	uint64_t base;		/* the first record's ts */
	bool have_base;
	unsigned long nevents;
};

static struct cthread *thread(struct cview *v, uint32_t tid)
{
	size_t i;

	if ((v->used + 1) * 2 > v->cap) {
		struct cthread *old = v->t;
		size_t oldcap = v->cap;

		v->cap = oldcap ? oldcap * 2 : 64;
		v->t = sd_calloc(v->cap, sizeof(*v->t));
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].tid)
				continue;
			for (i = (old[j].tid * 0x9e3779b1u) & (v->cap - 1);
			     v->t[i].tid; i = (i + 1) & (v->cap - 1))
				;
			v->t[i] = old[j];
		}
		free(old);
	}
	for (i = (tid * 0x9e3779b1u) & (v->cap - 1); v->t[i].tid;
	     i = (i + 1) & (v->cap - 1))
		if (v->t[i].tid == tid)
			return &v->t[i];
	v->t[i].tid = tid;
	v->used++;
	return &v->t[i];
}

static void begin_event(struct cview *v, struct json *j)
{
	fputs(v->nevents++ ? ",\n" : "\n", v->k->out);
	json_init(j, v->k->out, false);
	json_obj_begin(j);
}

/* Microseconds since the first record, to the nanosecond. */
static void put_us(struct cview *v, struct json *j, const char *key,
		   uint64_t ts)
{
	uint64_t d = ts >= v->base ? ts - v->base : 0;

	json_key(j, key);
	json_double(j, d / 1000.0, 3);
}

static void meta(struct cview *v, const char *what, uint32_t pid,
		 uint32_t tid, const char *comm)
{
	struct json j;

	begin_event(v, &j);
	json_key(&j, "name");
	json_str(&j, what);
	json_key(&j, "ph");
	json_str(&j, "M");
	json_key(&j, "pid");
	json_u64(&j, pid);
	json_key(&j, "tid");
	json_u64(&j, tid);
	json_key(&j, "args");
	json_obj_begin(&j);
	json_key(&j, "name");
	json_strn(&j, comm, strnlen(comm, KTR_COMM_LEN));
	json_obj_end(&j);
	json_obj_end(&j);
}

/* A thread seen for the first time, or renamed: its track's names. */
static struct cthread *seen(struct cview *v, const struct ktr_rec *r)
{
	struct cthread *t = thread(v, r->tid);

	if (t->pid != r->pid || memcmp(t->comm, r->comm, KTR_COMM_LEN)) {
		if (r->tid == r->pid || t->pid != r->pid)
			meta(v, "process_name", r->pid, r->pid, r->comm);
		meta(v, "thread_name", r->pid, r->tid, r->comm);
		t->pid = r->pid;
		memcpy(t->comm, r->comm, KTR_COMM_LEN);
	}
	if (r->ts > t->last_ts)
		t->last_ts = r->ts;
	return t;
}

static void slice(struct cview *v, const char *name, const char *cat,
		  const struct ktr_rec *r, uint64_t start, uint64_t end,
		  struct json *j)
{
	begin_event(v, j);
	json_key(j, "name");
	json_str(j, name);
	json_key(j, "cat");
	json_str(j, cat);
	json_key(j, "ph");
	json_str(j, "X");
	put_us(v, j, "ts", start);
	json_key(j, "dur");
	json_double(j, (end > start ? end - start : 0) / 1000.0, 3);
	json_key(j, "pid");
	json_u64(j, r->pid);
	json_key(j, "tid");
	json_u64(j, r->tid);
}

static void instant(struct cview *v, const char *name, const char *cat,
		    const struct ktr_rec *r, struct json *j)
{
	begin_event(v, j);
	json_key(j, "name");
	json_str(j, name);
	json_key(j, "cat");
	json_str(j, cat);
	json_key(j, "ph");
	json_str(j, "i");
	json_key(j, "s");
	json_str(j, "t");
	put_us(v, j, "ts", r->ts);
	json_key(j, "pid");
	json_u64(j, r->pid);
	json_key(j, "tid");
	json_u64(j, r->tid);
}

static void call_slice(void *ctx, const struct kd_call *c)
{
	struct cview *v = ctx;
	struct kdump *k = v->k;
	const struct kev *first = c->call ? c->call : c->ret;
	const struct ktr_rec *r;
	uint64_t start, end;
	uint32_t nr;
	char nb[32];
	struct json j;

	if (!first)
		return;
	r = first->r;
	nr = c->call ? ((const struct ktr_call *)r)->nr :
		       ((const struct ktr_ret *)r)->nr;
	start = first->ts;
	end = c->ret ? c->ret->ts : thread(v, r->tid)->last_ts;
	/* A slice is named by its call alone, with no args: viewers that
	 * merge slices by name and args (speedscope) then sum every read
	 * of a thread into one row; kdump --format json has the details. */
	slice(v, xlat_sysname(kd_abi(k, r), nr, nb, sizeof(nb)), "syscall",
	      r, start, end, &j);
	json_obj_end(&j);
}

static void chrome_init(struct kdump *k)
{
	struct cview *v = sd_calloc(1, sizeof(*v));

	v->calls = kd_calls_new();
	v->k = k;
	k->view = v;
	fputs("{\"traceEvents\":[", k->out);
}

static void chrome_event(struct kdump *k, const struct kev *e)
{
	struct cview *v = k->view;
	const struct ktr_rec *r = e->r;
	struct cthread *t;
	struct json j;
	char b[32];

	if (!v->have_base) {
		v->base = e->ts;
		v->have_base = true;
	}
	t = seen(v, r);
	switch (r->type) {
	case KTR_CSW: {
		const struct ktr_csw *c = (const void *)r;

		if (c->dir == KTR_CSW_OUT) {
			t->off_ts = r->ts;
			t->voluntary = c->voluntary;
		} else if (t->off_ts) {
			slice(v, t->voluntary ? "off CPU (sleeping)" :
				  "off CPU (preempted)", "sched", r, t->off_ts,
			      r->ts, &j);
			json_obj_end(&j);
			t->off_ts = 0;
		}
		return;
	}
	case KTR_PSIG: {
		const struct ktr_psig *p = (const void *)r;

		instant(v, kd_sig_name(k, p->sig, b, sizeof(b)), "signal", r, &j);
		json_key(&j, "args");
		json_obj_begin(&j);
		json_key(&j, "event");
		json_str(&j, p->kind == KTR_SIG_GENERATED ? "generated" :
							    "delivered");
		json_key(&j, "sender");
		json_u64(&j, p->sender_pid);
		json_obj_end(&j);
		json_obj_end(&j);
		return;
	}
	case KTR_FORK: {
		const struct ktr_fork *f = (const void *)r;

		instant(v, f->flags & KTR_FORK_THREAD ? "thread" : "fork",
			"process", r, &j);
		json_key(&j, "args");
		json_obj_begin(&j);
		json_key(&j, "child");
		json_u64(&j, f->flags & KTR_FORK_THREAD ? f->child_tid :
							  f->child_pid);
		json_obj_end(&j);
		json_obj_end(&j);
		return;
	}
	case KTR_EXIT:
		kd_calls_end_thread(v->calls, r->tid, call_slice, v);
		instant(v, "exit", "process", r, &j);
		json_key(&j, "args");
		json_obj_begin(&j);
		json_key(&j, "wait_status");
		json_i64(&j, ((const struct ktr_exit *)r)->code);
		json_obj_end(&j);
		json_obj_end(&j);
		return;
	case KTR_DROP:
		instant(v, "records lost", "trace", r, &j);
		json_key(&j, "args");
		json_obj_begin(&j);
		json_key(&j, "lost");
		json_u64(&j, ((const struct ktr_drop *)r)->count);
		json_obj_end(&j);
		json_obj_end(&j);
		return;
	case KTR_EXEC: {
		const struct ktr_exec *x = (const void *)r;

		instant(v, "exec", "process", r, &j);
		json_key(&j, "args");
		json_obj_begin(&j);
		json_key(&j, "path");
		json_strn(&j, x->data, strnlen(x->data, x->path_len));
		json_obj_end(&j);
		json_obj_end(&j);
		kd_calls_add(v->calls, e, call_slice, v);
		return;
	}
	default:
		kd_calls_add(v->calls, e, call_slice, v);
	}
}

static void chrome_end(struct kdump *k)
{
	struct cview *v = k->view;

	kd_calls_end(v->calls, call_slice, v);
	fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{", k->out);
	fprintf(k->out, "\"tool\":\"sonde kdump\",\"first_time_ns\":\"%lld\","
		"\"hostname\":", (long long)kd_wall_ns(k, v->base));
	json_write_string(k->out, k->hdr->hostname,
			  strnlen(k->hdr->hostname, sizeof(k->hdr->hostname)));
	fputs("}}\n", k->out);
	kd_calls_free(v->calls);
	free(v->t);
	free(v);
	k->view = NULL;
}

const struct kd_view kd_chrome_view = {
	.init = chrome_init,
	.event = chrome_event,
	.end = chrome_end,
};
