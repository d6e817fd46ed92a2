// SPDX-License-Identifier: GPL-2.0-only
/* record_load — the recorder's largest BPF programs verified in threads of
 * their own (record_load.h).
 *
 * libbpf (1.1) loads an object's programs one after the other, and each
 * load is the kernel's verifier walking the program on one CPU. Everything
 * else (CO-RE relocation, map file descriptors in the code, the attach
 * target) is done per object, before the loads. So: a section handler of
 * our own for each program to parallelise, whose prepare-load callback —
 * called with the program's final instructions and load attributes, just
 * before libbpf's own load — copies both, starts a thread loading that
 * copy, and leaves libbpf a two-instruction stub to load in its place.
 * The thread's program is the one attached (ktr_par_attach); the stub is
 * never attached and goes with the object.
 *
 * Before the loads, libbpf reads the kernel's BTF; ktr_par_resolve makes
 * that read cheaper (prefault_btf) while the caller's maps are made in
 * another thread. */
#include "record_load.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define PAR_MAX 8
#define PAR_LOG_SIZE (1 << 20)

struct par_prog {
	const char *sec;		/* the ELF section */
	int handler;			/* libbpf's handler id, or <= 0 */
	struct bpf_program *prog;
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
 * thread, libbpf loads a stub (r0 = 0; exit) without BTF line and function
 * information (which would describe the real code). */
static int par_prepare(struct bpf_program *prog,
		       struct bpf_prog_load_opts *opts, long cookie)
{
	static const struct bpf_insn stub[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct par_prog *e = (struct par_prog *)cookie;

	e->prog = prog;
	e->type = bpf_program__type(prog);
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
	e->opts.log_level = 0;
	e->opts.log_buf = NULL;
	e->opts.log_size = 0;
	if (pthread_create(&e->th, NULL, par_main, e)) {
		/* libbpf loads it, as any other. */
		free(e->insns);
		free(e->func_info);
		free(e->line_info);
		e->insns = e->func_info = e->line_info = NULL;
		return 0;
	}
	e->started = true;
	opts->func_info = NULL;
	opts->func_info_cnt = 0;
	opts->line_info = NULL;
	opts->line_info_cnt = 0;
	return bpf_program__set_insns(prog, (struct bpf_insn *)stub, 2);
}

struct ktr_par *ktr_par_new(const char *const *secs, size_t n)
{
	struct ktr_par *p = sd_calloc(1, sizeof(*p));

	for (size_t i = 0; i < n && i < PAR_MAX; i++) {
		struct par_prog *e = &p->e[p->n++];
		LIBBPF_OPTS(libbpf_prog_handler_opts, ho,
			    .cookie = (long)e,
			    .prog_prepare_load_fn = par_prepare);

		e->sec = secs[i];
		e->fd = e->link = -1;
		/* (The section's whole name: it matches that one only.) */
		e->handler = libbpf_register_prog_handler(secs[i],
							  BPF_PROG_TYPE_TRACING,
							  BPF_TRACE_RAW_TP, &ho);
		if (e->handler < 0) {
			ktr_par_free(p);
			return NULL;
		}
	}
	return p;
}

static int resolve(struct ktr_par *p, struct bpf_object *obj)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog);

		for (size_t i = 0; i < p->n; i++) {
			struct par_prog *e = &p->e[i];
			int err;

			if (strcmp(sec, e->sec))
				continue;
			e->prog = prog;
			if (!bpf_program__autoload(prog))
				continue;
			/* The handler is ours, so the target is too (libbpf
			 * finds it for its own tp_btf/ handler). The first
			 * look-up reads the kernel's BTF. */
			err = bpf_program__set_attach_target(prog, 0,
							     strchr(sec, '/') + 1);
			if (err)
				return err;
		}
	}
	return 0;
}

static bool prefaulted;

/* libbpf reads the kernel's BTF (5.5 MB here) into a buffer it then copies
 * into another: some 2,800 page faults, half of the read's 9 ms. Made
 * present beforehand in one call (MADV_POPULATE_WRITE, Linux 5.14) in
 * the main malloc heap, which libbpf's two allocations then come
 * from (mallopt: sizes below 32 MiB are not mmap'ed, freed memory stays
 * in the heap), the read takes 8.6 ms instead of 11.2 (medians of 9,
 * SCHED_FIFO). Nothing changes where it fails. ktr_par_trim gives the
 * memory back (malloc_trim returns the main heap's, which is why the
 * look-up runs in the caller's thread, not a thread of its own). */
static void prefault_btf(void)
{
	struct stat st;
	size_t size, page = 4096;
	char *m;

	if (stat("/sys/kernel/btf/vmlinux", &st) || st.st_size <= 0 ||
	    st.st_size > (8 << 20))
		return;
	size = 2 * (size_t)st.st_size + (1 << 20);
	if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) ||
	    !mallopt(M_TRIM_THRESHOLD, 64 << 20))
		return;
	m = malloc(size);
	if (!m)
		return;
	uintptr_t a = ((uintptr_t)m + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)m + size) & ~(page - 1);

	madvise((void *)a, b - a, MADV_POPULATE_WRITE);
	free(m);
	prefaulted = true;
}

void ktr_par_trim(void)
{
	if (!prefaulted)
		return;
	prefaulted = false;
	/* glibc's defaults again, and what the BTF held back to the
	 * system. */
	mallopt(M_TRIM_THRESHOLD, 128 << 10);
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	malloc_trim(0);
}

int ktr_par_resolve(struct ktr_par *p, struct bpf_object *obj)
{
	struct bpf_program *prog;

	if (!p)
		return 0;
	/* Never the skeleton's to attach (ours have no attach callback
	 * anyway). */
	bpf_object__for_each_program(prog, obj)
		for (size_t i = 0; i < p->n; i++)
			if (!strcmp(bpf_program__section_name(prog), p->e[i].sec))
				bpf_program__set_autoattach(prog, false);
	prefault_btf();
	return resolve(p, obj);
}

int ktr_par_wait(struct ktr_par *p, const char **prog, const char **log)
{
	int first = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < p->n; i++) {
		struct par_prog *e = &p->e[i];

		if (!e->started || e->joined)
			continue;
		pthread_join(e->th, NULL);
		e->joined = true;
		if (!e->err || first)
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
		int fd = e->started ? e->fd
				    : e->prog ? bpf_program__fd(e->prog) : -1;

		if (!e->prog || !bpf_program__autoload(e->prog) ||
		    e->link >= 0)
			continue;
		if (fd < 0)
			return -EINVAL;
		e->link = bpf_raw_tracepoint_open(NULL, fd);
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
