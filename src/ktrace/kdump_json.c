// SPDX-License-Identifier: GPL-2.0-only
/* kdump_json — `kdump --format json`: one JSON object per line, first the
 * file's header with the schema version, then one per record, or with
 * --merge one per call. The schema is stable (sonde-kdump(1), "JSON
 * output"): fields may be added, none is renamed, retyped or removed
 * without a new schema_version. 64-bit times are strings (a double holds
 * 53 bits: 1.8e18 ns would lose its last digits), and so are registers and
 * addresses above 2^53 (schema 3); bytes that are not UTF-8 are kept
 * exactly in a *_hex field beside the string. */
#include "kdump.h"
#include "kdump_call.h"
#include "../lib/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KD_JSON_SCHEMA 3

struct jview {
	struct kd_calls *calls;
	struct sbuf hex;
};

static void put_u64_str(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64_str(j, v);
}

static void put_i64_str(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_i64_str(j, v);
}

static void put_hex(struct kdump *k, struct json *j, const char *key,
		    const void *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	struct jview *v = k->view;
	const unsigned char *b = p;

	sbuf_reset(&v->hex);
	for (size_t i = 0; i < n;) {
		char t[256];
		size_t m = 0;

		for (; i < n && m < sizeof(t); i++) {
			t[m++] = hx[b[i] >> 4];
			t[m++] = hx[b[i] & 15];
		}
		sbuf_put(&v->hex, t, m);
	}
	if (key)
		json_key(j, key);
	json_strn(j, v->hex.buf ? v->hex.buf : "", v->hex.len);
}

/* A string of bytes: "key" as text, and "key_hex" with the exact bytes
 * when they are not UTF-8 (the text then has U+FFFD in their place). */
static void put_bytes(struct kdump *k, struct json *j, const char *key,
		      const char *p, size_t n)
{
	char hk[32];

	json_key(j, key);
	json_strn(j, p, n);
	if (json_utf8_valid(p, n))
		return;
	snprintf(hk, sizeof(hk), "%s_hex", key);
	put_hex(k, j, hk, p, n);
}

static void head_fields(struct kdump *k, struct json *j, const struct kev *e,
			const char *type)
{
	const struct ktr_rec *r = e->r;

	json_key(j, "offset");
	json_u64(j, e->offset);
	json_key(j, "type");
	if (type)
		json_str(j, type);
	else
		json_u64(j, r->type);
	json_key(j, "pid");
	json_u64(j, r->pid);
	json_key(j, "tid");
	json_u64(j, r->tid);
	put_bytes(k, j, "comm", r->comm, strnlen(r->comm, KTR_COMM_LEN));
	json_key(j, "cpu");
	json_u64(j, r->cpu);
	put_u64_str(j, "ts", e->ts);
	put_i64_str(j, "time_ns", kd_wall_ns(k, e->ts));
	json_key(j, "dropped_before");
	json_bool(j, r->flags & KTR_F_DROP);
	if (kd_abi(k, r) != k->hdr->abi) {
		json_key(j, "abi");
		json_str(j, sc_abi_name(kd_abi(k, r)));
	}
	if (e->call) {
		json_key(j, "call");
		json_u64(j, e->call);
	}
}

/* A register or an address: a number up to 2^53, which a double holds
 * exactly; above, its decimal digits as a string (AT_FDCWD's
 * 18446744073709551516, a kernel address). */
static void json_word(struct json *j, uint64_t v)
{
	if (v <= 1ull << 53)
		json_u64(j, v);
	else
		json_u64_str(j, v);
}

static void call_fields(struct kdump *k, struct json *j,
			const struct ktr_call *c)
{
	char nb[32];

	json_key(j, "syscall");
	json_str(j, xlat_sysname(kd_abi(k, &c->h), c->nr, nb, sizeof(nb)));
	json_key(j, "nr");
	json_u64(j, c->nr);
	json_key(j, "args");
	json_arr_begin(j);
	for (int i = 0; i < KTR_MAX_ARGS; i++)
		json_word(j, c->args[i]);
	json_arr_end(j);
	sbuf_reset(&k->line);
	xlat_call(&k->line, kd_abi(k, &c->h), c->nr, c->args, &k->o->x);
	json_key(j, "text");
	json_strn(j, k->line.buf, k->line.len);
	sbuf_reset(&k->line);
}

static void ret_fields(struct json *j, int64_t ret, int64_t dur)
{
	json_key(j, "ret");
	json_i64(j, ret);
	if (ret < 0 && ret >= -4095) {
		const char *e = xlat_errno_name(-ret);

		json_key(j, "errno");
		json_i64(j, -ret);
		if (e) {
			json_key(j, "error");
			json_str(j, e);
		}
	}
	if (dur >= 0) {
		json_key(j, "dur_ns");
		json_i64(j, dur);
	}
}

static void gio_fields(struct kdump *k, struct json *j,
		       const struct ktr_gio *g)
{
	size_t n = g->data_len;

	json_key(j, "fd");
	json_i64(j, g->fd);
	json_key(j, "dir");
	json_str(j, g->dir == KTR_GIO_WRITE ? "write" : "read");
	json_key(j, "bytes");
	json_u64(j, g->total);
	json_key(j, "recorded");
	json_u64(j, g->data_len);
	if (k->o->nodata)
		return;
	if (k->o->maxdata >= 0 && n > (size_t)k->o->maxdata)
		n = k->o->maxdata;
	put_hex(k, j, "data_hex", g->data, n);
}

static void exec_fields(struct kdump *k, struct json *j,
			const struct ktr_exec *x)
{
	const char *p = x->data;
	size_t i = 0;
	uint32_t shown = 0;
	bool exact = true;

	put_bytes(k, j, "path", p, strnlen(p, x->path_len));
	json_key(j, "old_tid");
	json_u64(j, x->old_tid);
	json_key(j, "argc");
	json_u64(j, x->argc);
	if (x->argv_total) {
		json_key(j, "argv_bytes");
		json_u64(j, x->argv_total);
	}
	json_key(j, "argv");
	json_arr_begin(j);
	p += x->path_len;
	while (i < x->argv_len) {
		size_t l = strnlen(p + i, x->argv_len - i);

		json_strn(j, p + i, l);
		exact = exact && json_utf8_valid(p + i, l);
		i += l + 1;
		shown++;
	}
	json_arr_end(j);
	if (!exact) {
		json_key(j, "argv_hex");
		json_arr_begin(j);
		for (i = 0; i < x->argv_len;) {
			size_t l = strnlen(p + i, x->argv_len - i);

			put_hex(k, j, NULL, p + i, l);
			i += l + 1;
		}
		json_arr_end(j);
	}
	json_key(j, "argv_cut");
	json_bool(j, x->argv_total > x->argv_len || x->argc > shown);
}

static void stru_fields(struct kdump *k, struct json *j,
			const struct ktr_stru *st)
{
	json_key(j, "struct");
	json_str(j, kd_stru_name(st->kind));
	json_key(j, "nr");
	json_u64(j, st->nr);
	json_key(j, "dir");
	json_str(j, st->dir == KTR_STRU_IN ? "in" : "out");
	if (st->arg != KTR_STRU_NOARG) {
		json_key(j, "arg");
		json_u64(j, st->arg);
	}
	json_key(j, "bytes");
	json_u64(j, st->total);
	json_key(j, "recorded");
	json_u64(j, st->data_len);
	put_hex(k, j, "data_hex", st->data, st->data_len);
}

static void record_fields(struct kdump *k, struct json *j, const struct kev *e)
{
	const struct ktr_rec *r = e->r;
	enum sc_abi abi = kd_abi(k, r);
	char b[32], nb[32];

	switch (r->type) {
	case KTR_CALL:
		call_fields(k, j, (const void *)r);
		break;
	case KTR_RET: {
		const struct ktr_ret *c = (const void *)r;

		json_key(j, "syscall");
		json_str(j, xlat_sysname(abi, c->nr, nb, sizeof(nb)));
		json_key(j, "nr");
		json_u64(j, c->nr);
		ret_fields(j, c->ret, e->dur);
		break;
	}
	case KTR_NAMI: {
		const struct ktr_nami *n = (const void *)r;

		put_bytes(k, j, "path", n->path,
			  strnlen(n->path, r->len - sizeof(*n)));
		break;
	}
	case KTR_FD: {
		const struct ktr_fd *d = (const void *)r;

		json_key(j, "fd");
		json_i64(j, d->fd);
		json_key(j, "flags");
		json_u64(j, d->flags);
		put_bytes(k, j, "path", d->path,
			  strnlen(d->path, r->len - sizeof(*d)));
		break;
	}
	case KTR_GIO:
		gio_fields(k, j, (const void *)r);
		break;
	case KTR_PSIG: {
		const struct ktr_psig *p = (const void *)r;
		const char *name = xlat_signal_name(abi, p->sig, b, sizeof(b));

		json_key(j, "signal");
		json_i64(j, p->sig);
		if (name) {
			json_key(j, "name");
			json_str(j, name);
		}
		json_key(j, "event");
		json_str(j, p->kind == KTR_SIG_GENERATED ? "generated"
							 : "delivered");
		json_key(j, "code");
		json_i64(j, p->code);
		if (p->kind == KTR_SIG_GENERATED) {
			json_key(j, "sender");
			json_u64(j, p->sender_pid);
			json_key(j, "result");
			json_i64(j, p->result);
		} else {
			json_key(j, "handler");
			json_word(j, p->handler);
			json_key(j, "sa_flags");
			json_u64(j, p->sa_flags);
			json_key(j, "fatal");
			json_bool(j, p->fatal);
		}
		if (r->len >= sizeof(*p)) {
			if (p->kind != KTR_SIG_GENERATED) {
				json_key(j, "sender");
				json_u64(j, p->sender_pid);
			}
			json_key(j, "addr");
			json_word(j, p->addr);
			json_key(j, "status");
			json_i64(j, p->status);
		}
		break;
	}
	case KTR_CSW: {
		const struct ktr_csw *c = (const void *)r;

		json_key(j, "on_cpu");
		json_bool(j, c->dir == KTR_CSW_IN);
		json_key(j, "voluntary");
		json_bool(j, c->voluntary);
		break;
	}
	case KTR_FORK: {
		const struct ktr_fork *f = (const void *)r;

		json_key(j, "child_pid");
		json_u64(j, f->child_pid);
		json_key(j, "child_tid");
		json_u64(j, f->child_tid);
		json_key(j, "thread");
		json_bool(j, f->flags & KTR_FORK_THREAD);
		break;
	}
	case KTR_EXEC:
		exec_fields(k, j, (const void *)r);
		break;
	case KTR_EXIT: {
		const struct ktr_exit *x = (const void *)r;

		json_key(j, "wait_status");
		json_i64(j, x->code);
		json_key(j, "process_ended");
		json_bool(j, x->group_dead);
		break;
	}
	case KTR_DROP: {
		const struct ktr_drop *d = (const void *)r;

		json_key(j, "lost");
		json_u64(j, d->count);
		break;
	}
	case KTR_STRU:
		stru_fields(k, j, (const void *)r);
		break;
	default:
		json_key(j, "len");
		json_u64(j, r->len);
	}
}

static void record(struct kdump *k, const struct kev *e)
{
	struct json j;

	json_init(&j, k->out, false);
	json_obj_begin(&j);
	head_fields(k, &j, e, kd_type_name(e->r->type));
	record_fields(k, &j, e);
	json_obj_end(&j);
	json_end(&j);
}

/* --merge: one SYSCALL object per call, at its return (or at the end of
 * its thread, unfinished); the CALL's header fields, the RET's time. */
static void merged(void *ctx, const struct kd_call *c)
{
	struct kdump *k = ctx;
	const struct kev *first = c->call ? c->call : c->ret;
	struct json j;
	bool paths = false, ios = false;

	if (!first)
		return;
	json_init(&j, k->out, false);
	json_obj_begin(&j);
	head_fields(k, &j, first, "SYSCALL");
	if (c->call) {
		call_fields(k, &j, (const void *)c->call->r);
	} else {
		const struct ktr_ret *r = (const void *)c->ret->r;
		char nb[32];

		json_key(&j, "syscall");
		json_str(&j, xlat_sysname(kd_abi(k, &r->h), r->nr, nb,
					  sizeof(nb)));
		json_key(&j, "nr");
		json_u64(&j, r->nr);
	}
	if (c->ret) {
		const struct ktr_ret *r = (const void *)c->ret->r;

		put_u64_str(&j, "ret_ts", c->ret->ts);
		ret_fields(&j, r->ret, c->ret->dur);
	} else {
		json_key(&j, "unfinished");
		json_bool(&j, true);
	}
	for (size_t i = 0; i < c->nparts; i++) {
		const struct ktr_rec *r = c->parts[i]->r;

		if (r->type != KTR_NAMI)
			continue;
		if (!paths) {
			json_key(&j, "paths");
			json_arr_begin(&j);
			paths = true;
		}
		json_obj_begin(&j);
		record_fields(k, &j, c->parts[i]);
		json_obj_end(&j);
	}
	if (paths)
		json_arr_end(&j);
	for (size_t i = 0; i < c->nparts; i++) {
		const struct ktr_rec *r = c->parts[i]->r;

		if (r->type != KTR_GIO)
			continue;
		if (!ios) {
			json_key(&j, "io");
			json_arr_begin(&j);
			ios = true;
		}
		json_obj_begin(&j);
		record_fields(k, &j, c->parts[i]);
		json_obj_end(&j);
	}
	if (ios)
		json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
	/* Other records written inside the call (EXEC) print after it. */
	for (size_t i = 0; i < c->nparts; i++)
		if (c->parts[i]->r->type != KTR_NAMI &&
		    c->parts[i]->r->type != KTR_GIO)
			record(k, c->parts[i]);
}

static void json_init_view(struct kdump *k)
{
	const struct ktr_file_header *h = k->hdr;
	struct jview *v = sd_calloc(1, sizeof(*v));
	struct json j;

	sbuf_init(&v->hex);
	if (k->o->merge)
		v->calls = kd_calls_new();
	k->view = v;
	json_init(&j, k->out, false);
	json_obj_begin(&j);
	json_key(&j, "schema_version");
	json_u64(&j, KD_JSON_SCHEMA);
	json_key(&j, "format_version");
	json_u64(&j, h->version);
	json_key(&j, "abi");
	json_str(&j, sc_abi_name(h->abi));
	json_key(&j, "release");
	json_str(&j, h->release);
	json_key(&j, "hostname");
	json_str(&j, h->hostname);
	put_i64_str(&j, "clock_base_ns", h->clock_base_ns);
	json_key(&j, "merged");
	json_bool(&j, k->o->merge);
	json_obj_end(&j);
	json_end(&j);
}

static void json_event(struct kdump *k, const struct kev *e)
{
	struct jview *v = k->view;

	if (v->calls) {
		if (e->r->type == KTR_EXIT)
			kd_calls_end_thread(v->calls, e->r->tid, merged, k);
		if (kd_calls_add(v->calls, e, merged, k))
			return;
	}
	record(k, e);
}

static void json_end_view(struct kdump *k)
{
	struct jview *v = k->view;

	if (v->calls)
		kd_calls_end(v->calls, merged, k);
	kd_calls_free(v->calls);
	sbuf_free(&v->hex);
	free(v);
	k->view = NULL;
}

const struct kd_view kd_json_view = {
	.init = json_init_view,
	.event = json_event,
	.end = json_end_view,
};
