// SPDX-License-Identifier: GPL-2.0-only
/* stacks — stack() and ustack() keys as text: the frames the kernel kept
 * in the stack-trace map, named as DTrace prints them (module`function+
 * 0xoffset, one per line, indented), kernel frames through lib/ksym
 * (/proc/kallsyms, loaded when a stack is first printed) and user frames
 * through lib/procmaps and lib/elfsym (the process's mappings, read while
 * it lives; the frames of a process that has exited stay addresses).
 * Rust functions are shown demangled (lib/demangle); the
 * aggregation merge key asks for the symbols as they are (readable false),
 * so two symbols that read alike stay two keys. */
#include "dtrace.h"
#include "cg.h"
#include "fmt.h"
#include "../lib/elfsym.h"
#include "../lib/ksym.h"
#include "../lib/procmaps.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define STACKINDENT 14

struct stacks {
	struct ksym_table *ksyms;
	bool ksyms_tried;
	struct procmaps pm;
	struct { char *path; struct elfsym *e; } *files;
	size_t nfiles, capfiles;
};

static struct stacks *get(struct dt_session *s)
{
	if (!s->stacks) {
		struct stacks *st = sd_calloc(1, sizeof(*st));

		procmaps_init(&st->pm);
		s->stacks = st;
	}
	return s->stacks;
}

static struct elfsym *file_syms(struct stacks *st, const char *path)
{
	for (size_t i = 0; i < st->nfiles; i++)
		if (!strcmp(st->files[i].path, path))
			return st->files[i].e;
	sd_grow(&st->files, &st->capfiles, st->nfiles + 1,
		sizeof(*st->files));
	st->files[st->nfiles].path = sd_strdup(path);
	st->files[st->nfiles].e = elfsym_open(path);
	return st->files[st->nfiles++].e;
}

static bool tracing_frame(struct stacks *st, uint64_t pc)
{
	static const char *const prefixes[] = {
		"bpf_trace_run", "__bpf_trace_", "trace_call_bpf",
		"__bpf_get_stack", "bpf_get_stack",
		"bpf_prog_", "__traceiter_", "perf_trace_run_bpf",
		"kprobe_perf_func", "uprobe_perf_func",
	};
	struct ksym k;

	if (!st->ksyms_tried) {
		st->ksyms_tried = true;
		st->ksyms = ksym_load("/proc/kallsyms");
	}
	if (!st->ksyms || !ksym_lookup(st->ksyms, pc, &k))
		return false;
	if (k.module == KSYM_BPF)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(k.name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static void kframe(struct stacks *st, struct sbuf *sb, uint64_t pc,
		   bool readable)
{
	struct ksym k;

	if (!st->ksyms_tried) {
		st->ksyms_tried = true;
		st->ksyms = ksym_load("/proc/kallsyms");
	}
	if (st->ksyms && ksym_lookup(st->ksyms, pc, &k)) {
		/* as dtrace(1): no offset at the symbol's first byte */
		dt_fmt_symbol(sb, k.module == KSYM_KERNEL ? "vmlinux" :
			      k.module, k.name, pc - k.addr, readable);
		return;
	}
	sbuf_printf(sb, "0x%" PRIx64, pc);
}

static void uframe(struct stacks *st, struct sbuf *sb, uint32_t pid,
		   uint64_t pc, bool readable)
{
	uint32_t file;
	uint64_t off, addr, delta;
	const char *path, *base, *fn;
	struct elfsym *e;

	if (!procmaps_find(&st->pm, (pid_t)pid, pc, 0, &file, &off)) {
		sbuf_printf(sb, "0x%" PRIx64, pc);
		return;
	}
	path = procmaps_file(&st->pm, file);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	e = file_syms(st, path);
	if (e && elfsym_off_to_addr(e, off, &addr) &&
	    (fn = elfsym_lookup(e, addr, &delta))) {
		dt_fmt_symbol(sb, base, fn, delta, readable);
		return;
	}
	sbuf_printf(sb, "%s`0x%" PRIx64, base, pc);
}

char *dt_stack_text(struct dt_session *s, uint64_t key, bool user,
		    int nframes, bool readable)
{
	struct stacks *st = get(s);
	uint64_t pcs[DT_STACK_FRAMES] = { 0 };
	uint32_t id = (uint32_t)key, pid = (uint32_t)(key >> 32);
	struct sbuf sb;

	sbuf_init(&sb);
	if (id == UINT32_MAX)	/* none: a user context's kernel stack */
		return sd_strdup("");
	if (bpf_map_lookup_elem(s->map_fds[DT_MAP_STACKS], &id, pcs)) {
		sbuf_printf(&sb, "%*s<no stack: the kernel could not take "
			    "it, or its map was full>\n", STACKINDENT, "");
		return sbuf_steal(&sb);
	}
	int first = 0, shown = 0;

	/* Kernel stacks start in sonde's program and the tracing code that
	 * ran it: from the probe's point on, as DTrace shows them. */
	for (int i = 0; !user && i < DT_STACK_FRAMES && pcs[i] && i < 16; i++)
		if (tracing_frame(st, pcs[i]))
			first = i + 1;
	for (int i = first; i < DT_STACK_FRAMES && pcs[i]; i++) {
		if (nframes && shown++ >= nframes)
			break;
		sbuf_printf(&sb, "%*s", STACKINDENT, "");
		if (user)
			uframe(st, &sb, pid, pcs[i], readable);
		else
			kframe(st, &sb, pcs[i], readable);
		sbuf_putc(&sb, '\n');
	}
	if (!sb.len)
		return sd_strdup("");
	return sbuf_steal(&sb);
}

char *dt_sym_text(struct dt_session *s, uint64_t addr, uint32_t pid,
		  int which, bool readable)
{
	struct stacks *st = get(s);
	struct sbuf sb;
	struct ksym k;

	sbuf_init(&sb);
	if (!DT_SYM_USER(which)) {
		if (!st->ksyms_tried) {
			st->ksyms_tried = true;
			st->ksyms = ksym_load("/proc/kallsyms");
		}
		if (!st->ksyms || !ksym_lookup(st->ksyms, addr, &k)) {
			sbuf_printf(&sb, "0x%" PRIx64, addr);
			return sbuf_steal(&sb);
		}
		const char *m = k.module == KSYM_KERNEL ? "vmlinux" : k.module;

		if (which == DT_SYM_MOD)
			sbuf_puts(&sb, m);
		else
			dt_fmt_symbol(&sb, m, k.name, which == DT_SYM_SYM ? 0 :
				      addr - k.addr, readable);
		return sbuf_steal(&sb);
	}
	uint32_t file;
	uint64_t off, a, delta;
	const char *path, *base, *fn = NULL;
	struct elfsym *e;

	if (!procmaps_find(&st->pm, (pid_t)pid, addr, 0, &file, &off)) {
		sbuf_printf(&sb, "0x%" PRIx64, addr);
		return sbuf_steal(&sb);
	}
	path = procmaps_file(&st->pm, file);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	e = file_syms(st, path);
	if (e && elfsym_off_to_addr(e, off, &a))
		fn = elfsym_lookup(e, a, &delta);
	if (which == DT_SYM_UMOD)
		sbuf_puts(&sb, base);
	else if (!fn)
		sbuf_printf(&sb, "%s`0x%" PRIx64, base, addr);
	else
		dt_fmt_symbol(&sb, base, fn, which == DT_SYM_USYM ? 0 : delta,
			      readable);
	return sbuf_steal(&sb);
}

void dt_stacks_free(struct dt_session *s)
{
	struct stacks *st = s->stacks;

	if (!st)
		return;
	ksym_free(st->ksyms);
	procmaps_free(&st->pm);
	for (size_t i = 0; i < st->nfiles; i++) {
		free(st->files[i].path);
		elfsym_close(st->files[i].e);
	}
	free(st->files);
	free(st);
	s->stacks = NULL;
}
