// SPDX-License-Identifier: GPL-2.0-only
/* stacks — stack() and ustack() keys as text: the frames the kernel kept
 * in the stack-trace map, named by lib/symbolizer (kernel frames through
 * /proc/kallsyms, loaded when a stack is first printed; user frames
 * through the process's mappings, read while it lives, or for the -c/-p
 * target followed from its start so that they outlive it) and printed as
 * DTrace prints
 * them (module`function+0xoffset, one per line, indented). C++ and Rust
 * functions are shown demangled (lib/demangle); the aggregation merge key
 * asks for the symbols as they are (readable false), so two symbols that
 * read alike stay two keys. */
#include "dtrace.h"
#include "layout.h"
#include "fmt.h"
#include "../lib/demangle.h"
#include "../lib/procmaps.h"
#include "../lib/symbolizer.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define STACKINDENT 14

struct stacks {
	struct symbolizer *z;
};

static struct stacks *get(struct dt_session *s)
{
	if (!s->stacks) {
		struct stacks *st = sd_calloc(1, sizeof(*st));

		st->z = symbolizer_new(0);
		s->stacks = st;
	}
	return s->stacks;
}

/* The kernel image is "vmlinux" in DTrace's frames. */
static const char *kmod(const struct sym_info *r)
{
	return r->module == KSYM_KERNEL ? "vmlinux" : r->module;
}

static bool tracing_frame(struct stacks *st, uint64_t pc)
{
	static const char *const prefixes[] = {
		"bpf_trace_run", "__bpf_trace_", "trace_call_bpf",
		"__bpf_get_stack", "bpf_get_stack",
		"bpf_prog_", "__traceiter_", "perf_trace_run_bpf",
		"kprobe_perf_func", "uprobe_perf_func",
	};
	struct sym_info k;

	if (!symbolizer_kernel(st->z, pc, &k))
		return false;
	if (k.module == KSYM_BPF)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(k.function, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static void kframe(struct stacks *st, struct sbuf *sb, uint64_t pc,
		   unsigned demangle)
{
	struct sym_info k;

	/* as dtrace(1): no offset at the symbol's first byte */
	if (symbolizer_kernel(st->z, pc, &k))
		dt_fmt_symbol(sb, kmod(&k), k.function, k.offset, demangle);
	else
		sbuf_printf(sb, "0x%" PRIx64, pc);
}

/* -x noresolve: a user address as dtrace-utils' dtrace_uaddr2str shows
 * it unresolved, module:0xoffset from the start of its mapping, or the
 * address alone outside any file. */
static void unresolved(struct stacks *st, struct sbuf *sb, uint32_t pid,
		       uint64_t pc)
{
	struct procmaps *pm = symbolizer_maps(st->z);
	struct procmaps_map m;

	if (procmaps_lookup(pm, (pid_t)pid, pc, SYM_LATEST, &m) &&
	    m.file != PROCMAPS_ANON) {
		const char *path = procmaps_file(pm, m.file);
		const char *b = strrchr(path, '/');

		sbuf_printf(sb, "%s:0x%" PRIx64, b ? b + 1 : path,
			    pc - m.start);
	} else {
		sbuf_printf(sb, "0x%" PRIx64, pc);
	}
}

/* A user frame: module`function+0xoff; module`0xaddress in a file
 * without a symbol there; the address alone outside any file. */
static void uframe(struct stacks *st, struct sbuf *sb, uint32_t pid,
		   uint64_t pc, unsigned demangle, bool noresolve)
{
	struct sym_info u;

	if (noresolve)
		unresolved(st, sb, pid, pc);
	else if (symbolizer_user(st->z, (pid_t)pid, pc, SYM_LATEST, &u))
		dt_fmt_symbol(sb, u.module, u.function, u.offset, demangle);
	else if (u.path)
		sbuf_printf(sb, "%s`0x%" PRIx64, u.module, pc);
	else
		sbuf_printf(sb, "0x%" PRIx64, pc);
}

char *dt_stack_text(struct dt_session *s, uint64_t key, bool user,
		    int nframes, bool readable)
{
	struct stacks *st = get(s);
	uint64_t pcs[DT_STACK_FRAMES] = { 0 };
	uint32_t id = (uint32_t)key;
	uint32_t pid = (uint32_t)(key >> DT_STACKKEY_PID_SHIFT);
	unsigned demangle = readable ? DEMANGLE_ALL : 0;
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
			uframe(st, &sb, pid, pcs[i], demangle,
			       s->prog.opt.noresolve);
		else
			kframe(st, &sb, pcs[i], demangle);
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
	unsigned demangle = readable ? DEMANGLE_ALL : 0;
	struct sbuf sb;
	struct sym_info r;

	sbuf_init(&sb);
	if (!DT_SYM_USER(which)) {
		if (!symbolizer_kernel(st->z, addr, &r))
			sbuf_printf(&sb, "0x%" PRIx64, addr);
		else if (which == DT_SYM_MOD)
			sbuf_puts(&sb, kmod(&r));
		else
			dt_fmt_symbol(&sb, kmod(&r), r.function,
				      which == DT_SYM_SYM ? 0 : r.offset,
				      demangle);
		return sbuf_steal(&sb);
	}
	if (s->prog.opt.noresolve && which != DT_SYM_UMOD) {
		/* usym(): its function's first byte, as dtrace-utils */
		if (which == DT_SYM_USYM &&
		    symbolizer_user(st->z, (pid_t)pid, addr, SYM_LATEST, &r))
			addr -= r.offset;
		unresolved(st, &sb, pid, addr);
	} else if (!symbolizer_user(st->z, (pid_t)pid, addr, SYM_LATEST, &r) &&
		 !r.path)
		sbuf_printf(&sb, "0x%" PRIx64, addr);
	else if (which == DT_SYM_UMOD)
		sbuf_puts(&sb, r.module);
	else if (!r.function)
		sbuf_printf(&sb, "%s`0x%" PRIx64, r.module, addr);
	else
		dt_fmt_symbol(&sb, r.module, r.function,
			      which == DT_SYM_USYM ? 0 : r.offset, demangle);
	return sbuf_steal(&sb);
}

void dt_stacks_follow(struct dt_session *s, pid_t pid)
{
	/* Without the right to (no CAP_PERFMON) loading the programs fails
	 * too, and says why: its frames are then named while it lives. */
	symbolizer_follow(get(s)->z, pid);
}

void dt_stacks_poll(struct dt_session *s)
{
	if (s->stacks)
		symbolizer_poll(((struct stacks *)s->stacks)->z);
}

void dt_stacks_free(struct dt_session *s)
{
	struct stacks *st = s->stacks;

	if (!st)
		return;
	symbolizer_free(st->z);
	free(st);
	s->stacks = NULL;
}
