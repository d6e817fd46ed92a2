// SPDX-License-Identifier: GPL-2.0-only
/* linux — finds the crash reports in a Linux kernel log (dmesg, serial
 * console, journal export, pstore) and parses each into a kp_report: its
 * kind from the headline (linux_kind.c), the release and KASLR offset it
 * states, the lock lockdep names, and its frames (linux_frame.c) with
 * `?`, <IRQ>/<NMI>/<TASK> sections and the stack each belongs to.
 * Lines are read one at a time, with the [ts], [T123]/[C1], <N>,
 * journal and syslog prefixes removed, and offered to a table of
 * recognisers in order until one takes the line; lines of other tasks
 * interleaved with a report are told apart by their [T123]/[C1] context
 * when the log has one. */
#include "report.h"
#include "linux_frame.h"
#include "linux_kind.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	struct kp_reports *out;
	struct kp_report *cur;		/* open report, or NULL */
	int lineno;
	int ctx;			/* context of the current line */
	enum kp_section section;
	char *pending_label;		/* stack header waiting for a frame */
	char *prelude;			/* kind from a line before the headline */
	int prelude_line;
	int prelude_window;		/* lines it may come before it */
	int rust_msg_line;		/* a Rust panic's message is due (its
					 * "panicked at" line), or 0 */
	int rust_ctx;			/* ... from this task or CPU */
	int cut_here;			/* line of the last "cut here" */
	const char *release;		/* last release seen anywhere */
	bool lock_trigger;		/* lockdep named the lock in question */
	bool lock_at_next;		/* ... and its "at:" is the next line */
	bool safe_order;		/* a "-safe -> -unsafe lock order" report */
	enum lx_lock_mode lock_mode;
	int lock_ats;			/* "at:" lines seen since the trigger */
	bool became_next;		/* its first "which became" chain follows */
	bool became_done;
	char *release_buf;
};

/* One line as the recognisers see it. */
struct line {
	const char *s;			/* without its prefixes; a recogniser
					 * may advance it past a marker */
	const char *b;			/* ... and without leading blanks */
	int ctx;			/* its [T..]/[C..] context, or 0 */
};

static void store_frame(struct parser *ps, const struct lx_frame *pf, bool pc)
{
	struct kp_report *r = ps->cur;
	struct kp_frame *f;

	if (ps->pending_label) {
		/* A "Call Trace:" after a lone RIP/pc keeps the pc's stack. */
		bool only_pc = r->nstacks > 0 && r->nframes > 0 &&
			       r->frames[r->nframes - 1].pc &&
			       r->frames[r->nframes - 1].stack ==
				       (int)r->nstacks - 1;

		if (!(only_pc && !pc))
			kp_stack_add(r, ps->pending_label);
		free(ps->pending_label);
		ps->pending_label = NULL;
	} else if (!r->nstacks) {
		kp_stack_add(r, pc ? "Call Trace" : "Call Trace");
	}
	f = kp_frame_add(r);
	f->addr = pf->addr;
	f->has_addr = pf->has_addr;
	if (pf->sym)
		f->sym = sd_strndup(pf->sym, pf->symlen);
	f->off = pf->off;
	f->size = pf->size;
	f->has_off = pf->has_off;
	f->has_size = pf->has_size;
	if (pf->mod)
		f->module = sd_strndup(pf->mod, pf->modlen);
	if (pf->bid)
		f->buildid = sd_strndup(pf->bid, pf->bidlen);
	f->reliable = pf->reliable;
	f->pc = pc;
	f->section = ps->section;
	f->line = ps->lineno;
	r->last_line = ps->lineno;
}

static void close_report(struct parser *ps)
{
	struct kp_report *r = ps->cur;

	if (!r)
		return;
	free(ps->pending_label);
	ps->pending_label = NULL;
	/* arm64 and others print the pc, then a call trace starting with
	 * the same function: keep one frame, the pc. */
	for (size_t i = 0; i + 1 < r->nframes; i++) {
		struct kp_frame *a = &r->frames[i], *b = &r->frames[i + 1];

		if (a->pc && !b->pc && a->sym && b->sym &&
		    !strcmp(a->sym, b->sym) && a->off == b->off) {
			a->stack = b->stack;
			a->section = b->section;
			kp_frame_free(b);
			memmove(b, b + 1, (r->nframes - i - 2) * sizeof(*b));
			r->nframes--;
		}
	}
	if (!r->release && ps->release)
		r->release = sd_strdup(ps->release);
	if (!r->arch) {
		for (size_t i = 0; i < r->nframes; i++) {
			uint64_t a = r->frames[i].addr;

			if (!r->frames[i].has_addr)
				continue;
			if (a >> 48 == 0xffff && (a >> 40 & 0xff) >= 0x80 &&
			    (a >> 40 & 0xff) < 0xf0) {
				/* ffff80..: arm64 kernel image / modules */
				break;
			}
			if (a >> 32 == 0xffffffff) {
				r->arch = sd_strdup("x86_64");
				break;
			}
		}
	}
	r->culprit = NULL;
	{
		const char *c = kp_culprit(r);
		char buf[KP_MAX_LINE], shown[KP_MAX_LINE];

		/* a Rust culprit by its demangled name, as syzkaller titles
		 * it: "<rust_binder::process::Process>::update_ref" */
		if (c)
			r->culprit = sd_strdup(kp_display_name(
				kp_func_base(c, buf, sizeof(buf)), shown,
				sizeof(shown)));
		if (c && strchr(c, '/') && strstr(r->kind, "KCSAN"))
			r->culprit = (free(r->culprit), sd_strdup(c));
	}
	if (r->culprit) {
		size_t n = strlen(r->kind) + strlen(r->culprit) + 5;

		r->title = sd_malloc(n);
		snprintf(r->title, n, "%s in %s", r->kind, r->culprit);
	} else {
		r->title = sd_strdup(r->kind);
	}
	ps->cur = NULL;
}

static void open_report(struct parser *ps, char *kind, char *func)
{
	struct kp_report *r;

	close_report(ps);
	sd_grow(&ps->out->v, &ps->out->cap, ps->out->n + 1, sizeof(*r));
	r = &ps->out->v[ps->out->n++];
	memset(r, 0, sizeof(*r));
	if (ps->prelude &&
	    ps->lineno - ps->prelude_line <= ps->prelude_window) {
		free(kind);
		kind = ps->prelude;
		ps->prelude = NULL;
	}
	r->kind = kind;
	r->headline_func = func;
	r->first_line = r->last_line = ps->lineno;
	r->ctx = ps->ctx;
	ps->cur = r;
	ps->section = KP_SEC_TASK;
	ps->lock_trigger = ps->lock_at_next = false;
	ps->safe_order = ps->became_next = ps->became_done = false;
	ps->lock_mode = LOCK_FIRST;
	ps->lock_ats = 0;
}

/* A module section's address: "/sys/module/M/sections/.S:0xADDR" (grep
 * output) or "<label> M .S 0xADDR". */
static bool module_section_line(struct parser *ps, const char *s)
{
	char mod[64], sec[128];
	unsigned long long addr;
	int n = 0;
	struct kp_reports *rs = ps->out;
	const char *p = strstr(s, "/sys/module/");

	if (p) {
		if (sscanf(p, "/sys/module/%63[^/]/sections/%127[^:]:0x%llx%n",
			   mod, sec, &addr, &n) != 3 || !n)
			return false;
	} else if (sscanf(s, "%*s %63s %127s 0x%llx%n", mod, sec, &addr,
			  &n) != 3 || !n || sec[0] != '.' || s[n]) {
		return false;
	}
	sd_grow(&rs->modsecs, &rs->capmodsecs, rs->nmodsecs + 1,
		sizeof(*rs->modsecs));
	rs->modsecs[rs->nmodsecs].module = sd_strdup(mod);
	rs->modsecs[rs->nmodsecs].section = sd_strdup(sec);
	rs->modsecs[rs->nmodsecs].addr = addr;
	rs->nmodsecs++;
	return true;
}

/* A /proc/modules line: "name size refs deps state 0xaddr [(taints)]". */
static bool proc_modules_line(struct parser *ps, const char *s)
{
	char name[64], deps[1024], state[16];
	unsigned long long size, base;
	int refs, n = 0;
	struct kp_reports *rs = ps->out;

	if (!strstr(s, " Live 0x") && !strstr(s, " Loading 0x") &&
	    !strstr(s, " Unloading 0x"))
		return false;
	if (sscanf(s, "%63s %llu %d %1023s %15s 0x%llx%n", name, &size, &refs,
		   deps, state, &base, &n) != 6 || !n) {
		/* with a label in front ("module kptest 16384 ...") */
		n = 0;
		if (sscanf(s, "%*s %63s %llu %d %1023s %15s 0x%llx%n", name,
			   &size, &refs, deps, state, &base, &n) != 6 || !n)
			return false;
	}
	for (size_t i = 0; i < rs->nmodbases; i++)
		if (!strcmp(rs->modbases[i].name, name)) {
			rs->modbases[i].base = base;
			rs->modbases[i].size = size;
			return true;
		}
	sd_grow(&rs->modbases, &rs->capmodbases, rs->nmodbases + 1,
		sizeof(*rs->modbases));
	rs->modbases[rs->nmodbases].name = sd_strdup(name);
	rs->modbases[rs->nmodbases].base = base;
	rs->modbases[rs->nmodbases].size = size;
	rs->nmodbases++;
	return true;
}

/* A Rust panic: the kernel crate's handler prints "rust_kernel: panicked
 * at FILE:LINE:COL:" and the message on the next line of the same task
 * ("panicked at 'MESSAGE', FILE:LINE:COL" before Rust 1.73), then calls
 * BUG(). The message names the report that BUG() opens, as syzkaller
 * titles it ("attempt to subtract with overflow in ..."); the culprit
 * rules skip the panic machinery (core::panicking::*, rust_begin_unwind,
 * rust_helper_BUG). Consumes the line when it is part of a panic. */
static bool rust_panic_line(struct parser *ps, const char *b, int ctx)
{
	static const char at[] = "rust_kernel: panicked at ";
	const char *m = NULL;
	size_t n = 0;

	if (ps->rust_msg_line && ps->lineno - ps->rust_msg_line > 8)
		ps->rust_msg_line = 0;		/* the message never came */
	if (ps->rust_msg_line && (!ctx || !ps->rust_ctx || ctx == ps->rust_ctx)) {
		ps->rust_msg_line = 0;
		m = b;
		n = strlen(b);
	} else if (lx_starts(b, at)) {
		const char *q = b + sizeof(at) - 1, *e;

		if (*q == '\'' && (e = strstr(q + 1, "', "))) {
			m = q + 1;
			n = (size_t)(e - m);
		} else {
			ps->rust_msg_line = ps->lineno;
			ps->rust_ctx = ctx;
			return true;
		}
	} else {
		return false;
	}
	while (n && (m[n - 1] == ' ' || m[n - 1] == '\r'))
		n--;
	if (!n)
		return true;
	free(ps->prelude);
	ps->prelude = sd_strndup(m, n < 200 ? n : 200);
	ps->prelude_line = ps->lineno;
	/* "cut here", the BUG line and other tasks' lines come between */
	ps->prelude_window = 16;
	return true;
}

/* ---- the recognisers, in the order they are offered a line; each
 * returns true when it took the line ---- */

static bool rec_blank(struct parser *ps, struct line *l)
{
	(void)ps;
	return !*l->b;
}

/* /proc/modules and /sys/module/M/sections lines: where modules are. */
static bool rec_module_layout(struct parser *ps, struct line *l)
{
	return proc_modules_line(ps, l->b) || module_section_line(ps, l->b);
}

/* The release, from any line: "Linux version", CPU/PID lines. */
static bool rec_release(struct parser *ps, struct line *l)
{
	const char *b = l->b;
	char *rel;

	if (!strstr(b, "ainted ") && !strstr(b, "Tainted: ") &&
	    !strstr(b, "Linux version "))
		return false;
	rel = lx_release_of(b);
	if (rel) {
		free(ps->release_buf);
		ps->release_buf = rel;
		ps->release = rel;
		if (ps->cur && !ps->cur->release)
			ps->cur->release = sd_strdup(rel);
	}
	return false;
}

/* Another task's line in the middle of a report: not ours, unless it
 * starts a report of its own. */
static bool rec_other_task(struct parser *ps, struct line *l)
{
	struct kp_report *r = ps->cur;
	char *kind, *func = NULL;

	if (!r || !r->ctx || !l->ctx || l->ctx == r->ctx)
		return false;
	kind = lx_headline(l->b, &func);
	if (!kind)
		return true;
	free(kind);
	free(func);
	return false;
}

static bool rec_cut_here(struct parser *ps, struct line *l)
{
	if (!lx_starts(l->b, "------------[ cut here ]------------"))
		return false;
	ps->cut_here = ps->lineno;
	return true;
}

static bool rec_end_trace(struct parser *ps, struct line *l)
{
	struct kp_report *r = ps->cur;
	const char *b = l->b;

	if (!lx_starts(b, "---[ end "))
		return false;
	if (r && lx_starts(b, "---[ end Kernel panic - not syncing: ") &&
	    !r->panic)
		r->panic = sd_strndup(b + 37, strcspn(b + 37, "]") ?
				      strcspn(b + 37, "]") - 1 : 0);
	close_report(ps);
	return true;
}

static bool rec_rust_panic(struct parser *ps, struct line *l)
{
	return rust_panic_line(ps, l->b, l->ctx);
}

/* A line before a headline that names the report better. */
static bool rec_prelude(struct parser *ps, struct line *l)
{
	struct kp_report *r = ps->cur;
	const char *kind = lx_prelude_kind(l->b);

	if (!kind)
		return false;
	free(ps->prelude);
	ps->prelude = sd_strdup(kind);
	ps->prelude_line = ps->lineno;
	ps->prelude_window = 4;
	if (r && r->nframes == 0 && ps->lineno - r->first_line <= 3) {
		free(r->kind);
		r->kind = ps->prelude;
		ps->prelude = NULL;
	}
	return true;
}

/* Lines near a headline that refine the open report's kind; KASAN's
 * access line (Read or Write); a leaked lock's work item (the function
 * that ran last). */
static bool rec_refine(struct parser *ps, struct line *l)
{
	struct kp_report *r = ps->cur;
	const char *b = l->b, *kind;
	size_t n;

	if (!r)
		return false;
	if ((kind = lx_refine_kind(b, &n)) && ps->lineno - r->first_line <= 8) {
		free(r->kind);
		r->kind = sd_strdup(kind);
		if (!strcmp(kind, "kernel panic: stack is corrupted")) {
			free(r->headline_func);
			r->headline_func = lx_func_at(b + n);
		}
	}
	if (lx_starts(r->kind, "KASAN: ") && !strchr(r->kind + 7, ' ') &&
	    (lx_starts(b, "Read of size") || lx_starts(b, "Write of size") ||
	     lx_starts(b, "Read at addr") || lx_starts(b, "Write at addr"))) {
		n = strlen(r->kind);
		r->kind = sd_realloc(r->kind, n + 7);
		strcpy(r->kind + n, b[0] == 'R' ? " Read" : " Write");
	}
	if (!r->headline_func &&
	    !strcmp(r->kind, "BUG: workqueue leaked lock or atomic") &&
	    lx_starts(b, "last function: "))
		r->headline_func = lx_func_at(b + 15);
	return false;
}

/* A headline: a new report, or one that continues or ends the open one
 * (a panic right after a report is how that report ended; one long
 * after it is a crash of its own). */
static bool rec_headline(struct parser *ps, struct line *l)
{
	struct kp_report *r = ps->cur;
	const char *b = l->b;
	char *kind, *func = NULL;
	bool near, nested;

	if (!(kind = lx_headline(b, &func)) &&
	    (r || !(kind = lx_headline_inside(b, &func))))
		return false;
	near = r && ps->lineno - r->last_line <= 64;
	nested = r && (!strcmp(kind, "NMI backtrace") ||
		       lx_starts(kind, "unregister_netdevice: ") ||
		       (lx_starts(kind, "kernel panic: ") && near) ||
		       (!strcmp(kind, "Oops") && r->nframes == 0));
	if (r && lx_starts(kind, "kernel panic: ") && near) {
		if (!r->panic)
			r->panic = sd_strdup(b + (lx_starts(b, "Kernel panic - not syncing: ") ? 28 : 0));
		free(kind);
		free(func);
		return true;
	}
	if (nested || lx_continues(r, kind, ps->lineno)) {
		if (!strcmp(kind, "NMI backtrace")) {
			free(ps->pending_label);
			ps->pending_label = sd_strdup(b);
			ps->section = KP_SEC_TASK;
		}
		if (func && r && !r->headline_func)
			r->headline_func = func;
		else
			free(func);
		free(kind);
		return true;
	}
	open_report(ps, kind, func);	/* kind may be replaced */
	r = ps->cur;
	/* "WARNING: task/1 still has locks held!": the held lock's "at:"
	 * names it */
	if (strstr(b, "still has locks held") || strstr(b, "held lock freed"))
		ps->lock_trigger = true;
	ps->lock_mode = lx_lock_mode_of(lx_strip_subsys(b));
	ps->safe_order = strstr(b, "WARNING: ") && strstr(b, "-safe -> ") &&
			 strstr(b, "-unsafe lock order");
	if (!strcmp(r->kind, "NMI backtrace")) {
		free(ps->pending_label);
		ps->pending_label = sd_strdup(b);
	}
	/* a headline naming a function (WARNING at ..., KASAN in ...) gives
	 * the culprit, not a frame */
	return true;
}

/* Lines outside reports (ftrace, "Linux version") go no further. */
static bool rec_outside(struct parser *ps, struct line *l)
{
	(void)l;
	return !ps->cur;
}

static bool rec_kernel_offset(struct parser *ps, struct line *l)
{
	uint64_t v;

	if (!lx_starts(l->b, "Kernel Offset: "))
		return false;
	if (lx_parse_hex(l->b + 15, &v)) {
		ps->cur->kaslr = v;
		ps->cur->has_kaslr = true;
	}
	return true;
}

static bool rec_modules_linked(struct parser *ps, struct line *l)
{
	const char *p = l->b + 18;

	if (!lx_starts(l->b, "Modules linked in:"))
		return false;
	for (;;) {
		size_t n;

		p = lx_skip_ws(p);
		if (!*p || *p == '[')
			break;
		n = strcspn(p, " (");
		if (!n)
			break;
		kp_module_add(ps->cur, p, n);
		p += n;
		if (*p == '(')
			p += strcspn(p, ")") + (p[strcspn(p, ")")] ? 1 : 0);
	}
	return true;
}

/* lockdep's "-safe -> -unsafe lock order": the lock is named where the
 * first lock became irq-safe, the first caller in that chain that is no
 * locking plumbing (as syzkaller names it). */
static bool rec_became(struct parser *ps, struct line *l)
{
	struct kp_report *r = ps->cur;
	const char *b = l->b;
	struct lx_frame lf;

	if (ps->safe_order && !ps->became_done &&
	    lx_starts(b, "... which became ") && lx_ends_with(b, " at:")) {
		ps->became_next = true;
		return true;
	}
	if (!ps->became_next || lx_starts(b, "..."))
		return false;
	if (lx_parse_frame(b, true, &lf) && lf.sym) {
		char *fn = sd_strndup(lf.sym, lf.symlen);

		if (kp_skip_func(fn)) {
			free(fn);
		} else {
			free(r->lock_func);
			r->lock_func = fn;
			ps->became_next = false;
			ps->became_done = true;
		}
	} else {
		ps->became_next = false;
	}
	return false;
}

/* lockdep: the lock the task is trying to take (or release, or whose
 * state changed): the first non-generic "at:" after it. */
static bool rec_lock_trigger(struct parser *ps, struct line *l)
{
	const char *b = l->b;

	if ((!strstr(b, "is trying to acquire") &&
	     !strstr(b, "is trying to release") &&
	     !strstr(b, "just changed the state of lock") &&
	     !lx_ends_with(b, "] takes:") &&
	     !strstr(b, "still has locks held") &&
	     !strstr(b, "leaving the kernel with locks still held")) ||
	    ps->lock_trigger)
		return false;
	ps->lock_trigger = ps->lock_mode != LOCK_STACK;
	ps->lock_at_next = lx_ends_with(b, " at:");
	return true;
}

static bool rec_lock_at(struct parser *ps, struct line *l)
{
	struct kp_report *r = ps->cur;
	const char *b = l->b, *p, *q;
	struct lx_frame lf;

	if (!(p = strstr(b, ", at: ")) && !(p = strstr(b, "}, at: ")) &&
	    !ps->lock_at_next)
		return false;
	q = ps->lock_at_next ? b : lx_skip_ws(p + 6);
	ps->lock_at_next = false;
	if (ps->lock_trigger && !r->lock_func &&
	    (ps->lock_mode != LOCK_CIRCULAR || ps->lock_ats < 2) &&
	    lx_parse_frame(q, true, &lf) && lf.sym) {
		char *fn = sd_strndup(lf.sym, lf.symlen);

		ps->lock_ats++;
		if (ps->lock_mode != LOCK_DIRECT &&
		    (kp_skip_func(fn) ||
		     (ps->lock_mode == LOCK_CIRCULAR && kp_deadlock_skip(fn))))
			free(fn);
		else
			r->lock_func = fn;
	}
	return p != NULL;
}

/* Sections; old kernels print "<IRQ>  [<addr>] func" on one line. */
static bool rec_section(struct parser *ps, struct line *l)
{
	const char *b = l->b, *e;

	if (b[0] != '<' || !(lx_starts(b, "<IRQ>") || lx_starts(b, "<SOFTIRQ>") ||
			     lx_starts(b, "<NMI>") || lx_starts(b, "<TASK>") ||
			     lx_starts(b, "<EOI>") || b[1] == '#' || b[1] == '/'))
		return false;
	e = strchr(b, '>');
	ps->section = b[1] == 'I' ? KP_SEC_IRQ :
		      b[1] == 'S' ? KP_SEC_SOFTIRQ :
		      b[1] == 'N' ? KP_SEC_NMI :
		      b[1] == '#' ? KP_SEC_EXC : KP_SEC_TASK;
	if (!e || !*lx_skip_ws(e + 1))
		return true;
	l->s = e + 1;
	return false;
}

/* The pc (user-space pcs are no frames of the kernel's). */
static bool rec_pc(struct parser *ps, struct line *l)
{
	struct lx_frame pf;
	const char *p;
	bool user;

	if (!(p = lx_pc_line(l->b, &user)))
		return false;
	if (!user && lx_parse_frame(p, true, &pf) && (pf.sym || pf.has_addr))
		store_frame(ps, &pf, true);
	return true;
}

static bool rec_stack_header(struct parser *ps, struct line *l)
{
	char *label = lx_stack_header(l->b);

	if (!label)
		return false;
	free(ps->pending_label);
	ps->pending_label = label;
	if (!strcmp(label, "Call Trace") || !strcmp(label, "Call trace"))
		ps->section = KP_SEC_TASK;
	return true;
}

static bool rec_frame(struct parser *ps, struct line *l)
{
	struct lx_frame pf;

	if (lx_parse_frame(l->s, ps->pending_label != NULL ||
			   ps->cur->nframes > 0, &pf))
		store_frame(ps, &pf, false);
	return true;
}

static bool (*const recognisers[])(struct parser *, struct line *) = {
	rec_blank, rec_module_layout, rec_release, rec_other_task,
	rec_cut_here, rec_end_trace, rec_rust_panic, rec_prelude, rec_refine,
	rec_headline, rec_outside, rec_kernel_offset, rec_modules_linked,
	rec_became, rec_lock_trigger, rec_lock_at, rec_section, rec_pc,
	rec_stack_header, rec_frame,
};

static void parse_line(struct parser *ps, const char *text)
{
	struct line l;

	l.s = lx_strip_prefix(text, &l.ctx);
	l.b = lx_skip_ws(l.s);
	ps->ctx = l.ctx;
	for (size_t i = 0; i < ARRAY_SIZE(recognisers); i++)
		if (recognisers[i](ps, &l))
			return;
}

static bool binary_input(const char *buf, size_t len)
{
	size_t bad = 0, n = len < 65536 ? len : 65536;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == 0 || (c < 32 && c != '\n' && c != '\r' && c != '\t' &&
			       c != 27))
			bad++;
	}
	return n && bad * 20 > n;
}

int kp_linux_parse(const char *buf, size_t len, struct kp_reports *out)
{
	struct parser ps = { .out = out };
	char *line = sd_malloc(KP_MAX_LINE + 1);
	size_t i = 0;

	out->binary = binary_input(buf, len);
	while (i < len) {
		size_t start = i, n, keep;

		while (i < len && buf[i] != '\n')
			i++;
		n = i - start;
		i++;
		keep = n;
		if (keep > KP_MAX_LINE) {
			keep = KP_MAX_LINE;
			out->long_lines++;
		}
		/* NULs and other control bytes become spaces; a trailing
		 * \r (serial consoles) goes. */
		for (size_t k = 0; k < keep; k++) {
			char c = buf[start + k];

			line[k] = (c == '\0' || c == '\r' || c == '\t') ? ' ' : c;
		}
		while (keep && line[keep - 1] == ' ')
			keep--;
		line[keep] = '\0';
		ps.lineno++;
		parse_line(&ps, line);
	}
	close_report(&ps);
	out->lines += (size_t)ps.lineno;
	free(ps.pending_label);
	free(ps.prelude);
	free(ps.release_buf);
	free(line);
	return 0;
}
