// SPDX-License-Identifier: GPL-2.0-only
/* record_load — the recorder's BPF programs verified in threads of their
 * own (record_load.h).
 *
 * libbpf (1.1) loads an object's programs one after the other, and each
 * load is the kernel's verifier walking the program on one CPU. Everything
 * else (CO-RE relocation, map file descriptors in the code) is done per
 * object, before the loads. So: a section handler of our own for each
 * program, whose prepare-load callback — called with the program's final
 * instructions and load attributes, just before libbpf's own load —
 * copies both, starts a thread loading that copy, and leaves libbpf a
 * two-instruction stub to load in its place. The thread's program is the
 * one attached (ktr_par_attach); the stub is never attached and goes with
 * the object.
 *
 * The handlers say BPF_PROG_TYPE_RAW_TRACEPOINT: libbpf then needs no
 * attach target for them, and with the small BTF of record_btf.c to
 * relocate against, it never reads the kernel's; the threads load the
 * programs as the BTF tracepoint programs they are (BPF_PROG_TYPE_TRACING,
 * BPF_TRACE_RAW_TP, the tracepoint's BTF id from the same scan). */
#include "record_load.h"
#include "record_btf.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAR_MAX 16
#define PAR_LOG_SIZE (1 << 20)
#define TP_PREFIX "tp_btf/"

struct par_prog {
	const char *sec;		/* the ELF section, tp_btf/NAME */
	int handler;			/* libbpf's handler id, or <= 0 */
	struct bpf_program *prog;
	uint32_t btf_id;		/* the tracepoint's (btf_trace_NAME) */
	/* The load, copied from libbpf's. */
	enum bpf_prog_type type;
	const char *name;
	struct bpf_insn *insns;
	size_t cnt;
	struct bpf_prog_load_opts opts;
	void *func_info, *line_info;
	pthread_t th;
	bool started, joined;
	int fd, err, link;
	char *log;			/* the verifier's words when it failed */
};

struct ktr_par {
	size_t n;
	struct par_prog e[PAR_MAX];
	/* The kernel's BTF, scanned in a thread (record_btf.c) while the
	 * object is opened: the tracepoints' ids and a small BTF for CO-RE
	 * in btf_fd, which libbpf reads as btf_path. */
	const struct ktr_btf_field *fields;
	size_t nfields;
	int btf_fd, scan_err;
	char btf_path[32];
	pthread_t scan_th;
	bool scanning;
};

static void *par_main(void *arg)
{
	struct par_prog *e = arg;

	e->fd = bpf_prog_load(e->type, e->name, "GPL", e->insns, e->cnt,
			      &e->opts);
	e->err = e->fd < 0 ? -errno : 0;
	return NULL;
}

static void *dup_or_null(const void *p, size_t n)
{
	return p && n ? memcpy(sd_malloc(n), p, n) : NULL;
}

/* libbpf's prepare-load callback for our sections: the load moves to a
 * thread, as the BTF tracepoint program it is; libbpf loads a stub
 * (r0 = 0; exit) without BTF line and function information (which would
 * describe the real code). */
static int par_prepare(struct bpf_program *prog,
		       struct bpf_prog_load_opts *opts, long cookie)
{
	static const struct bpf_insn stub[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct par_prog *e = (struct par_prog *)cookie;

	if (!e->btf_id)
		return -ESRCH;	/* (ktr_par_resolve said so already) */
	e->prog = prog;
	e->type = BPF_PROG_TYPE_TRACING;
	e->name = bpf_program__name(prog);
	e->cnt = bpf_program__insn_cnt(prog);
	e->insns = dup_or_null(bpf_program__insns(prog),
			       e->cnt * sizeof(*e->insns));
	e->opts = *opts;
	e->func_info = dup_or_null(opts->func_info, (size_t)opts->func_info_cnt *
				   opts->func_info_rec_size);
	e->line_info = dup_or_null(opts->line_info, (size_t)opts->line_info_cnt *
				   opts->line_info_rec_size);
	e->opts.func_info = e->func_info;
	e->opts.line_info = e->line_info;
	e->opts.expected_attach_type = BPF_TRACE_RAW_TP;
	e->opts.attach_btf_id = e->btf_id;
	e->opts.attach_btf_obj_fd = 0;
	e->opts.attach_prog_fd = 0;
	e->opts.log_level = 0;
	e->opts.log_buf = NULL;
	e->opts.log_size = 0;
	if (pthread_create(&e->th, NULL, par_main, e)) {
		/* Loaded here then, before the stub. */
		par_main(e);
		e->joined = true;
	}
	e->started = true;
	opts->func_info = NULL;
	opts->func_info_cnt = 0;
	opts->line_info = NULL;
	opts->line_info_cnt = 0;
	return bpf_program__set_insns(prog, (struct bpf_insn *)stub, 2);
}

static void *scan_main(void *arg)
{
	struct ktr_par *p = arg;
	const char *tps[PAR_MAX];
	uint32_t ids[PAR_MAX];

	for (size_t i = 0; i < p->n; i++)
		tps[i] = p->e[i].sec + strlen(TP_PREFIX);
	p->scan_err = ktr_btf_scan(tps, p->n, ids, p->fields, p->nfields,
				   p->btf_fd, KTR_BTF_KEEP_DIR);
	for (size_t i = 0; !p->scan_err && i < p->n; i++)
		p->e[i].btf_id = ids[i];
	return NULL;
}

struct ktr_par *ktr_par_new(const char *const *secs, size_t n,
			    const struct ktr_btf_field *fields, size_t nfields)
{
	struct ktr_par *p = sd_calloc(1, sizeof(*p));

	p->btf_fd = -1;
	for (size_t i = 0; i < n && i < PAR_MAX; i++) {
		struct par_prog *e = &p->e[p->n++];
		LIBBPF_OPTS(libbpf_prog_handler_opts, ho,
			    .cookie = (long)e,
			    .prog_prepare_load_fn = par_prepare);

		e->sec = secs[i];
		e->fd = e->link = -1;
		/* (The section's whole name: it matches that one only.) */
		e->handler = libbpf_register_prog_handler(secs[i],
							  BPF_PROG_TYPE_RAW_TRACEPOINT,
							  0, &ho);
		if (e->handler < 0 || strncmp(secs[i], TP_PREFIX,
					      strlen(TP_PREFIX))) {
			ktr_par_free(p);
			return NULL;
		}
	}
	p->fields = fields;
	p->nfields = nfields;
	p->btf_fd = memfd_create("sonde-ktrace-btf", MFD_CLOEXEC);
	if (p->btf_fd < 0) {
		ktr_par_free(p);
		return NULL;
	}
	snprintf(p->btf_path, sizeof(p->btf_path), "/proc/self/fd/%d",
		 p->btf_fd);
	p->scanning = !pthread_create(&p->scan_th, NULL, scan_main, p);
	if (!p->scanning)
		scan_main(p);
	return p;
}

const char *ktr_par_btf_path(const struct ktr_par *p)
{
	return p ? p->btf_path : NULL;
}

/* When the scan failed: what libbpf would have done, the kernel's whole
 * BTF parsed (its ids looked up by name, itself what CO-RE relocates
 * against). */
static int resolve_slow(struct ktr_par *p)
{
	struct btf *vb = btf__load_vmlinux_btf();
	const void *raw;
	uint32_t size;
	char name[128];
	int err = 0;

	if (!vb)
		return -errno;
	for (size_t i = 0; i < p->n; i++) {
		int id;

		snprintf(name, sizeof(name), "btf_trace_%s",
			 p->e[i].sec + strlen(TP_PREFIX));
		id = btf__find_by_name_kind(vb, name, BTF_KIND_TYPEDEF);
		p->e[i].btf_id = id > 0 ? id : 0;
	}
	raw = btf__raw_data(vb, &size);
	if (!raw || ftruncate(p->btf_fd, 0) ||
	    pwrite(p->btf_fd, raw, size, 0) != (ssize_t)size)
		err = -EIO;
	btf__free(vb);
	return err;
}

int ktr_par_resolve(struct ktr_par *p, struct bpf_object *obj,
		    const char **missing)
{
	struct bpf_program *prog;
	int err;

	if (!p)
		return 0;
	if (p->scanning) {
		pthread_join(p->scan_th, NULL);
		p->scanning = false;
	}
	if (p->scan_err && (err = resolve_slow(p)))
		return err;
	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog);

		for (size_t i = 0; i < p->n; i++) {
			struct par_prog *e = &p->e[i];

			if (strcmp(sec, e->sec))
				continue;
			e->prog = prog;
			/* Never the skeleton's to attach (ours have no
			 * attach callback anyway). */
			bpf_program__set_autoattach(prog, false);
			if (bpf_program__autoload(prog) && !e->btf_id) {
				*missing = e->sec + strlen(TP_PREFIX);
				return -ESRCH;
			}
		}
	}
	return 0;
}

int ktr_par_wait(struct ktr_par *p, const char **prog, const char **log)
{
	int first = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < p->n; i++) {
		struct par_prog *e = &p->e[i];

		if (!e->started)
			continue;
		if (!e->joined)
			pthread_join(e->th, NULL);
		e->joined = true;
		if (!e->err || first || e->log)
			continue;
		first = e->err;
		*prog = e->name;
		/* Again, for the verifier's words. */
		e->log = sd_calloc(1, PAR_LOG_SIZE);
		e->opts.log_level = 1;
		e->opts.log_buf = e->log;
		e->opts.log_size = PAR_LOG_SIZE;
		int fd = bpf_prog_load(e->type, e->name, "GPL", e->insns,
				       e->cnt, &e->opts);
		if (fd >= 0)
			close(fd);
		*log = e->log;
	}
	return first;
}

int ktr_par_attach(struct ktr_par *p)
{
	if (!p)
		return 0;
	for (size_t i = 0; i < p->n; i++) {
		struct par_prog *e = &p->e[i];
		if (!e->prog || !bpf_program__autoload(e->prog) ||
		    e->link >= 0)
			continue;
		if (!e->started || e->fd < 0)
			return -EINVAL;
		e->link = bpf_raw_tracepoint_open(NULL, e->fd);
		if (e->link < 0)
			return -errno;
	}
	return 0;
}

void ktr_par_detach(struct ktr_par *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		if (p->e[i].link >= 0)
			close(p->e[i].link);
		p->e[i].link = -1;
	}
}

void ktr_par_free(struct ktr_par *p)
{
	if (!p)
		return;
	ktr_par_detach(p);
	if (p->scanning)
		pthread_join(p->scan_th, NULL);
	if (p->btf_fd >= 0)
		close(p->btf_fd);
	for (size_t i = 0; i < p->n; i++) {
		struct par_prog *e = &p->e[i];

		if (e->started && !e->joined)
			pthread_join(e->th, NULL);
		if (e->fd >= 0)
			close(e->fd);
		if (e->handler > 0)
			libbpf_unregister_prog_handler(e->handler);
		free(e->insns);
		free(e->func_info);
		free(e->line_info);
		free(e->log);
	}
	free(p);
}
