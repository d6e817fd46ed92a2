// SPDX-License-Identifier: GPL-2.0-only
/* linux — finds the crash reports in a Linux kernel log (dmesg, serial
 * console, journal export, pstore) and parses each into a kp_report: its
 * kind from the headline (linux_kind.c), the release and KASLR offset it
 * states, the lock lockdep names, and its frames (linux_frame.c) with
 * `?`, <IRQ>/<NMI>/<TASK> sections and the stack each belongs to.
 * Lines are read one at a time, with the [ts], [T123]/[C1], <N>,
 * journal and syslog prefixes removed, and offered to a table of
 * recognisers in order until one takes the line.
 *
 * Reports printed at the same time by several tasks or CPUs are told
 * apart by their [T123]/[C1] context when the log has one: each context
 * has its own open report. Reports are grouped into crash events (see
 * kp_event): a report joins the event before it while that event is
 * still being printed (another context's report of it printed within the
 * last lines), when the event panicked (until the next boot), or when it
 * follows the event closely — within END_GAP seconds after a report that
 * ended with "---[ end trace" and the kernel went on, within OPEN_GAP
 * seconds otherwise (lines when the log has no times). A panic, "Kernel
 * Offset" or reboot after a report belongs to it. */
#include "report.h"
#include "linux_frame.h"
#include "linux_kind.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Crash events: how close a report must follow the event before it to
 * be part of it, in seconds of printk time, or in lines in a log without
 * times; after a report that ended (the kernel went on) and otherwise. */
#define END_GAP_S 2.0
#define END_GAP_LINES 30
#define OPEN_GAP_S 60.0
#define OPEN_GAP_LINES 300
/* Another context's report printed within this many lines is still being
 * printed: a report starting now interleaves with it. */
#define INTERLEAVE_LINES 10
/* A panic this close after a report is how that report ended. */
#define PANIC_LINES 64
#define PANIC_S 10.0
/* A report with no frames cut short by the next one this close (lines)
 * is named by that one's frames. */
#define BORROW_LINES 10
/* Contexts with an open report at once (the least recent one is closed
 * to make room). */
#define MAX_OPEN 16

/* A report being read: where it is and how far its reading has come. */
struct open {
	size_t idx;			/* in out->v */
	int ctx;			/* its [T..]/[C..] context, or 0 */
	int active;			/* last line it took */
	enum kp_section section;
	char *pending_label;		/* stack header waiting for a frame */
	bool lock_trigger;		/* lockdep named the lock in question */
	bool lock_at_next;		/* ... and its "at:" is the next line */
	bool safe_order;		/* a "-safe -> -unsafe lock order" report */
	enum lx_lock_mode lock_mode;
	int lock_ats;			/* "at:" lines seen since the trigger */
	bool became_next;		/* its first "which became" chain follows */
	bool became_done;
};

struct kp_linux {
	struct kp_reports *out;
	struct open open[MAX_OPEN];	/* open reports, oldest first */
	size_t nopen;
	struct open *cur;		/* the one this line belongs to, or NULL */
	int lineno;
	int ctx;			/* context of the current line */
	double ts;			/* its printk time, or -1 */
	int boot_line;			/* last "Linux version" banner */
	char *prelude;			/* kind from a line before the headline */
	int prelude_line;
	int prelude_window;		/* lines it may come before it */
	int rust_msg_line;		/* a Rust panic's message is due (its
					 * "panicked at" line), or 0 */
	int rust_ctx;			/* ... from this task or CPU */
	int cut_here;			/* line of the last "cut here" */
	int split_task;			/* an "INFO: task" line that did not
					 * say what the task did, or 0 */
	int split_ctx;			/* ... its context */
	const char *release;		/* last release seen anywhere */
	char *release_buf;
	char *line;			/* the line being assembled */
	size_t linelen;
	bool long_line;			/* ... was cut */
};

/* The report of the current line, or NULL. */
static struct kp_report *report(struct kp_linux *ps)
{
	return ps->cur ? &ps->out->v[ps->cur->idx] : NULL;
}

static struct kp_event *last_event(struct kp_linux *ps)
{
	return ps->out->nevents ? &ps->out->events[ps->out->nevents - 1] :
				  NULL;
}

/* The current line belongs to the event of report r. */
static void touch(struct kp_linux *ps, const struct kp_report *r)
{
	struct kp_event *e = &ps->out->events[r->event];

	if (ps->lineno > e->last_line)
		e->last_line = ps->lineno;
	if (ps->ts >= 0)
		e->last_ts = ps->ts;
	if (ps->cur && &ps->out->v[ps->cur->idx] == r)
		ps->cur->active = ps->lineno;
}

/* One line as the recognisers see it. */
struct line {
	const char *s;			/* without its prefixes; a recogniser
					 * may advance it past a marker */
	const char *b;			/* ... and without leading blanks */
	int ctx;			/* its [T..]/[C..] context, or 0 */
};

static void store_frame(struct kp_linux *ps, const struct lx_frame *pf, bool pc)
{
	struct kp_report *r = report(ps);
	struct open *o = ps->cur;
	struct kp_frame *f;

	if (o->pending_label) {
		/* A "Call Trace:" after a lone RIP/pc keeps the pc's stack. */
		bool only_pc = r->nstacks > 0 && r->nframes > 0 &&
			       r->frames[r->nframes - 1].pc &&
			       r->frames[r->nframes - 1].stack ==
				       (int)r->nstacks - 1;

		if (!(only_pc && !pc))
			kp_stack_add(r, o->pending_label);
		free(o->pending_label);
		o->pending_label = NULL;
	} else if (!r->nstacks) {
		kp_stack_add(r, "Call Trace");
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
	f->section = o->section;
	f->line = ps->lineno;
	r->last_line = ps->lineno;
	touch(ps, r);
}

/* Set r's culprit and title, the culprit found in the frames of f (r
 * itself, or the report that cut r short). */
static void name_report(struct kp_report *r, const struct kp_report *f)
{
	struct kp_report view = *r;
	const char *c;
	char buf[KP_MAX_LINE], shown[KP_MAX_LINE];

	view.frames = f->frames;
	view.nframes = f->nframes;
	view.stacks = f->stacks;
	view.nstacks = f->nstacks;
	c = kp_culprit(&view);
	free(r->culprit);
	free(r->title);
	r->culprit = NULL;
	/* a Rust culprit by its demangled name, as syzkaller titles it:
	 * "<rust_binder::process::Process>::update_ref" */
	if (c)
		r->culprit = sd_strdup(kp_display_name(
			kp_func_base(c, buf, sizeof(buf)), shown, sizeof(shown)));
	if (c && strchr(c, '/') && strstr(r->kind, "KCSAN"))
		r->culprit = (free(r->culprit), sd_strdup(c));
	if (r->culprit) {
		size_t n = strlen(r->kind) + strlen(r->culprit) + 5;

		r->title = sd_malloc(n);
		snprintf(r->title, n, "%s in %s", r->kind, r->culprit);
	} else {
		r->title = sd_strdup(r->kind);
	}
}

/* Finish report r: merge the pc with its repeat, arch, culprit, title. */
static void finish_report(struct kp_linux *ps, struct kp_report *r)
{
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
	name_report(r, r);
	/* a report that was cut short by another of its task at once (an
	 * RCU stall whose interrupt warned, a fault that oopsed) is about
	 * the code the other one's frames show */
	if (r > ps->out->v) {
		struct kp_report *p = r - 1;

		if (p->event == r->event && p->ctx == r->ctx && !p->nframes &&
		    !p->culprit && r->first_line - p->first_line <= BORROW_LINES)
			name_report(p, r);
	}
}
/* Close open report o (the current one, or another). */
static void close_open(struct kp_linux *ps, struct open *o)
{
	size_t i = (size_t)(o - ps->open);

	finish_report(ps, &ps->out->v[o->idx]);
	free(o->pending_label);
	if (ps->cur == o)
		ps->cur = NULL;
	else if (ps->cur > o)
		ps->cur--;
	memmove(o, o + 1, (ps->nopen - i - 1) * sizeof(*o));
	ps->nopen--;
}

/* Whether a report starting now belongs to the last event. */
static bool joins_event(struct kp_linux *ps)
{
	struct kp_event *e = last_event(ps);
	const struct kp_report *last;
	double gap;

	if (!e || ps->boot_line > e->last_line)
		return false;
	gap = ps->ts >= 0 && e->last_ts >= 0 ? ps->ts - e->last_ts : -1;
	/* what other CPUs print after a panic is part of it */
	if (e->panicked)
		return gap < 0 || gap <= OPEN_GAP_S;
	/* interleaved with a report of it that is still being printed */
	for (size_t i = 0; i < ps->nopen; i++)
		if (ps->open[i].idx >= e->first && ps->open[i].ctx &&
		    ps->open[i].ctx != ps->ctx &&
		    ps->lineno - ps->open[i].active <= INTERLEAVE_LINES)
			return true;
	last = &ps->out->v[e->first + e->n - 1];
	if (last->ended)
		return gap >= 0 ? gap <= END_GAP_S :
			ps->lineno - e->last_line <= END_GAP_LINES;
	return gap >= 0 ? gap <= OPEN_GAP_S :
		ps->lineno - e->last_line <= OPEN_GAP_LINES;
}

static void open_report(struct kp_linux *ps, char *kind, char *func)
{
	struct kp_reports *out = ps->out;
	struct kp_report *r;
	struct kp_event *e;
	struct open *o;

	/* a new headline of this context ends its open report */
	if (ps->cur && (ps->cur->ctx == ps->ctx || !ps->cur->ctx || !ps->ctx))
		close_open(ps, ps->cur);
	if (ps->nopen == MAX_OPEN)
		close_open(ps, &ps->open[0]);
	if (!joins_event(ps)) {
		sd_grow(&out->events, &out->capevents, out->nevents + 1,
			sizeof(*e));
		e = &out->events[out->nevents++];
		memset(e, 0, sizeof(*e));
		e->first = out->n;
		e->last_ts = -1;
	}
	e = last_event(ps);
	e->n++;
	sd_grow(&out->v, &out->cap, out->n + 1, sizeof(*r));
	r = &out->v[out->n++];
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
	r->event = (int)(out->nevents - 1);
	o = &ps->open[ps->nopen++];
	memset(o, 0, sizeof(*o));
	o->idx = out->n - 1;
	o->ctx = ps->ctx;
	o->section = KP_SEC_TASK;
	o->lock_mode = LOCK_FIRST;
	ps->cur = o;
	touch(ps, r);
}

/* The report a line after the fact (a panic, "Kernel Offset") belongs
 * to: the open one of its context, else the last report of the last
 * event when that event is recent; NULL when there is none. */
static struct kp_report *after_report(struct kp_linux *ps)
{
	struct kp_event *e = last_event(ps);
	double gap;

	if (ps->cur)
		return report(ps);
	if (!e || ps->boot_line > e->last_line)
		return NULL;
	gap = ps->ts >= 0 && e->last_ts >= 0 ? ps->ts - e->last_ts : -1;
	if (gap >= 0 ? gap > PANIC_S : ps->lineno - e->last_line > PANIC_LINES)
		return NULL;
	/* the report of the same context, else the last one */
	for (size_t i = e->first + e->n; i-- > e->first;)
		if (ps->out->v[i].ctx == ps->ctx)
			return &ps->out->v[i];
	return &ps->out->v[e->first + e->n - 1];
}

/* Pick the open report the current line belongs to: its context's, or
 * one opened by a line without context; a line without context goes to
 * the report that took a line last. */
static void select_open(struct kp_linux *ps)
{
	struct open *best = NULL;

	ps->cur = NULL;
	for (size_t i = 0; i < ps->nopen; i++) {
		struct open *o = &ps->open[i];

		if (ps->ctx && o->ctx == ps->ctx) {
			ps->cur = o;
			return;
		}
		if ((!ps->ctx || !o->ctx) && (!best || o->active >= best->active))
			best = o;
	}
	ps->cur = best;
}

/* A module section's address: "/sys/module/M/sections/.S:0xADDR" (grep
 * output) or "<label> M .S 0xADDR". */
static bool module_section_line(struct kp_linux *ps, const char *s)
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
static bool proc_modules_line(struct kp_linux *ps, const char *s)
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
static bool rust_panic_line(struct kp_linux *ps, const char *b, int ctx)
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

static bool rec_blank(struct kp_linux *ps, struct line *l)
{
	(void)ps;
	return !*l->b;
}

/* /proc/modules and /sys/module/M/sections lines: where modules are. */
static bool rec_module_layout(struct kp_linux *ps, struct line *l)
{
	return proc_modules_line(ps, l->b) || module_section_line(ps, l->b);
}

/* The release, from any line: "Linux version", CPU/PID lines. */
static bool rec_release(struct kp_linux *ps, struct line *l)
{
	struct kp_report *r = report(ps);
	const char *b = l->b;
	char *rel;

	if (!strstr(b, "ainted ") && !strstr(b, "Tainted: ") &&
	    !strstr(b, "Linux version "))
		return false;
	if (strstr(b, "Linux version "))
		ps->boot_line = ps->lineno;
	rel = lx_release_of(b);
	if (rel) {
		free(ps->release_buf);
		ps->release_buf = rel;
		ps->release = rel;
		if (r && !r->release)
			r->release = sd_strdup(rel);
	}
	return false;
}

static bool rec_cut_here(struct kp_linux *ps, struct line *l)
{
	if (!lx_starts(l->b, "------------[ cut here ]------------"))
		return false;
	ps->cut_here = ps->lineno;
	return true;
}

static bool rec_end_trace(struct kp_linux *ps, struct line *l)
{
	struct kp_report *r = report(ps);
	const char *b = l->b;
	static const char pm[] = "---[ end Kernel panic - not syncing: ";

	if (!lx_starts(b, "---[ end "))
		return false;
	if (lx_starts(b, pm)) {
		/* the end of a panic: the report it belongs to, open or not */
		if (!r && lx_panic_follows(b + sizeof(pm) - 1))
			r = after_report(ps);
		if (r && !r->panic) {
			size_t n = strcspn(b + sizeof(pm) - 1, "]");

			r->panic = sd_strndup(b + sizeof(pm) - 1, n ? n - 1 : 0);
		}
		if (r) {
			ps->out->events[r->event].panicked = true;
			touch(ps, r);
		}
	} else if (r) {
		r->ended = true;
		touch(ps, r);
	}
	if (ps->cur)
		close_open(ps, ps->cur);
	return true;
}

static bool rec_rust_panic(struct kp_linux *ps, struct line *l)
{
	return rust_panic_line(ps, l->b, l->ctx);
}

/* A line before a headline that names the report better. */
static bool rec_prelude(struct kp_linux *ps, struct line *l)
{
	struct kp_report *r = report(ps);
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
static bool rec_refine(struct kp_linux *ps, struct line *l)
{
	struct kp_report *r = report(ps);
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
static bool rec_headline(struct kp_linux *ps, struct line *l)
{
	struct kp_report *r = report(ps), *to;
	const char *b = l->b, *msg;
	char *kind, *func = NULL;
	bool nested;

	if (ps->split_task && ps->lineno - ps->split_task <= 2 &&
	    l->ctx == ps->split_ctx) {
		/* "INFO: task " and a task name with a newline in it: the
		 * rest of the headline is on the next line */
		char *whole = sd_malloc(strlen(b) + 12);

		sprintf(whole, "INFO: task %s", b);
		kind = lx_headline(whole, &func);
		free(whole);
		if (kind)
			ps->split_task = 0;
	} else {
		kind = lx_headline(b, &func);
	}
	if (!kind && lx_starts(b, "INFO: task ")) {
		ps->split_task = ps->lineno;
		ps->split_ctx = l->ctx;
	}
	if (!kind && (ps->nopen || !(kind = lx_headline_inside(b, &func))))
		return false;
	/* a panic right after a report is how that report ended; one the
	 * kernel prints because of a report belongs to it, even closed */
	msg = b + (lx_starts(b, "Kernel panic - not syncing: ") ? 28 : 0);
	if (lx_starts(kind, "kernel panic: ") &&
	    (to = r && ps->lineno - r->last_line <= PANIC_LINES ? r :
		  !r && lx_panic_follows(msg) ? after_report(ps) : NULL)) {
		if (!to->panic)
			to->panic = sd_strdup(msg);
		ps->out->events[to->event].panicked = true;
		touch(ps, to);
		free(kind);
		free(func);
		return true;
	}
	nested = r && (!strcmp(kind, "NMI backtrace") ||
		       lx_starts(kind, "unregister_netdevice: ") ||
		       (!strcmp(kind, "Oops") && r->nframes == 0));
	if (nested || lx_continues(r, kind, ps->lineno)) {
		if (!strcmp(kind, "NMI backtrace")) {
			free(ps->cur->pending_label);
			ps->cur->pending_label = sd_strdup(b);
			ps->cur->section = KP_SEC_TASK;
		}
		if (func && r && !r->headline_func)
			r->headline_func = func;
		else
			free(func);
		free(kind);
		touch(ps, r);
		return true;
	}
	open_report(ps, kind, func);	/* kind may be replaced */
	r = report(ps);
	/* "WARNING: task/1 still has locks held!": the held lock's "at:"
	 * names it */
	if (strstr(b, "still has locks held") || strstr(b, "held lock freed"))
		ps->cur->lock_trigger = true;
	ps->cur->lock_mode = lx_lock_mode_of(lx_strip_subsys(b));
	ps->cur->safe_order = strstr(b, "WARNING: ") && strstr(b, "-safe -> ") &&
			      strstr(b, "-unsafe lock order");
	if (!strcmp(r->kind, "NMI backtrace")) {
		free(ps->cur->pending_label);
		ps->cur->pending_label = sd_strdup(b);
	}
	/* a headline naming a function (WARNING at ..., KASAN in ...) gives
	 * the culprit, not a frame */
	return true;
}

/* Lines outside reports (ftrace, "Linux version") go no further. */
static bool rec_outside(struct kp_linux *ps, struct line *l)
{
	(void)l;
	return !ps->cur;
}

static bool rec_kernel_offset(struct kp_linux *ps, struct line *l)
{
	struct kp_report *r;
	uint64_t v;

	if (!lx_starts(l->b, "Kernel Offset: "))
		return false;
	if (!(r = after_report(ps)))
		return true;
	if (lx_parse_hex(l->b + 15, &v)) {
		/* one offset for the boot: every report of the event */
		struct kp_event *e = &ps->out->events[r->event];

		for (size_t i = e->first; i < e->first + e->n; i++)
			if (!ps->out->v[i].has_kaslr) {
				ps->out->v[i].kaslr = v;
				ps->out->v[i].has_kaslr = true;
			}
	}
	touch(ps, r);
	return true;
}

static bool rec_modules_linked(struct kp_linux *ps, struct line *l)
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
		kp_module_add(report(ps), p, n);
		p += n;
		if (*p == '(')
			p += strcspn(p, ")") + (p[strcspn(p, ")")] ? 1 : 0);
	}
	return true;
}

/* lockdep's "-safe -> -unsafe lock order": the lock is named where the
 * first lock became irq-safe, the first caller in that chain that is no
 * locking plumbing (as syzkaller names it). */
static bool rec_became(struct kp_linux *ps, struct line *l)
{
	struct kp_report *r = report(ps);
	const char *b = l->b;
	struct lx_frame lf;

	if (ps->cur->safe_order && !ps->cur->became_done &&
	    lx_starts(b, "... which became ") && lx_ends_with(b, " at:")) {
		ps->cur->became_next = true;
		return true;
	}
	if (!ps->cur->became_next || lx_starts(b, "..."))
		return false;
	if (lx_parse_frame(b, true, &lf) && lf.sym) {
		char *fn = sd_strndup(lf.sym, lf.symlen);

		if (kp_skip_func(fn)) {
			free(fn);
		} else {
			free(r->lock_func);
			r->lock_func = fn;
			ps->cur->became_next = false;
			ps->cur->became_done = true;
		}
	} else {
		ps->cur->became_next = false;
	}
	return false;
}

/* lockdep: the lock the task is trying to take (or release, or whose
 * state changed): the first non-generic "at:" after it. */
static bool rec_lock_trigger(struct kp_linux *ps, struct line *l)
{
	const char *b = l->b;

	if ((!strstr(b, "is trying to acquire") &&
	     !strstr(b, "is trying to release") &&
	     !strstr(b, "just changed the state of lock") &&
	     !lx_ends_with(b, "] takes:") &&
	     !strstr(b, "still has locks held") &&
	     !strstr(b, "leaving the kernel with locks still held")) ||
	    ps->cur->lock_trigger)
		return false;
	ps->cur->lock_trigger = ps->cur->lock_mode != LOCK_STACK;
	ps->cur->lock_at_next = lx_ends_with(b, " at:");
	return true;
}

static bool rec_lock_at(struct kp_linux *ps, struct line *l)
{
	struct kp_report *r = report(ps);
	const char *b = l->b, *p, *q;
	struct lx_frame lf;
	bool at_next;

	if (!(p = strstr(b, ", at: ")) && !(p = strstr(b, "}, at: ")) &&
	    !ps->cur->lock_at_next)
		return false;
	at_next = ps->cur->lock_at_next;
	q = at_next ? b : lx_skip_ws(p + 6);
	ps->cur->lock_at_next = false;
	if (ps->cur->lock_trigger && !r->lock_func &&
	    (ps->cur->lock_mode != LOCK_CIRCULAR || ps->cur->lock_ats < 2) &&
	    lx_parse_frame(q, true, &lf) && lf.sym) {
		char *fn = sd_strndup(lf.sym, lf.symlen);

		ps->cur->lock_ats++;
		if (ps->cur->lock_mode != LOCK_DIRECT &&
		    (kp_skip_func(fn) ||
		     (ps->cur->lock_mode == LOCK_CIRCULAR && kp_deadlock_skip(fn))))
			free(fn);
		else
			r->lock_func = fn;
	}
	/* the lock's place, not a frame of a stack */
	return p != NULL || at_next;
}

/* Sections; old kernels print "<IRQ>  [<addr>] func" on one line. */
static bool rec_section(struct kp_linux *ps, struct line *l)
{
	const char *b = l->b, *e;

	if (b[0] != '<' || !(lx_starts(b, "<IRQ>") || lx_starts(b, "<SOFTIRQ>") ||
			     lx_starts(b, "<NMI>") || lx_starts(b, "<TASK>") ||
			     lx_starts(b, "<EOI>") || b[1] == '#' || b[1] == '/'))
		return false;
	e = strchr(b, '>');
	ps->cur->section = b[1] == 'I' ? KP_SEC_IRQ :
		      b[1] == 'S' ? KP_SEC_SOFTIRQ :
		      b[1] == 'N' ? KP_SEC_NMI :
		      b[1] == '#' ? KP_SEC_EXC : KP_SEC_TASK;
	if (!e || !*lx_skip_ws(e + 1))
		return true;
	l->s = e + 1;
	return false;
}

/* The pc; a user-space one is labelled so (no frame of the kernel's). */
static bool rec_pc(struct kp_linux *ps, struct line *l)
{
	struct lx_frame pf;
	const char *p;
	bool user;

	if (!(p = lx_pc_line(l->b, &user)))
		return false;
	if (user) {
		/* where the task was in user space: no frame of the
		 * kernel's, kept with the report */
		struct kp_report *r = report(ps);

		if (!r->has_user_pc && lx_parse_hex(p, &r->user_pc))
			r->has_user_pc = true;
		return true;
	}
	if (lx_parse_frame(p, true, &pf) && (pf.sym || pf.has_addr))
		store_frame(ps, &pf, true);
	return true;
}

static bool rec_stack_header(struct kp_linux *ps, struct line *l)
{
	char *label = lx_stack_header(l->b);

	if (!label)
		return false;
	free(ps->cur->pending_label);
	ps->cur->pending_label = label;
	if (!strcmp(label, "Call Trace") || !strcmp(label, "Call trace"))
		ps->cur->section = KP_SEC_TASK;
	return true;
}

static bool rec_frame(struct kp_linux *ps, struct line *l)
{
	struct lx_frame pf;

	if (lx_parse_frame(l->s, ps->cur->pending_label != NULL ||
			   report(ps)->nframes > 0, &pf))
		store_frame(ps, &pf, false);
	return true;
}

static bool (*const recognisers[])(struct kp_linux *, struct line *) = {
	rec_blank, rec_module_layout, rec_release, rec_cut_here, rec_end_trace, rec_rust_panic, rec_prelude, rec_refine,
	rec_headline, rec_kernel_offset, rec_outside, rec_modules_linked,
	rec_became, rec_lock_trigger, rec_lock_at, rec_section, rec_pc,
	rec_stack_header, rec_frame,
};

static void parse_line(struct kp_linux *ps, const char *text)
{
	struct line l;

	l.s = lx_strip_prefix(text, &l.ctx, &ps->ts);
	l.b = lx_skip_ws(l.s);
	ps->ctx = l.ctx;
	select_open(ps);
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

struct kp_linux *kp_linux_begin(struct kp_reports *out)
{
	struct kp_linux *ps = sd_calloc(1, sizeof(*ps));

	ps->out = out;
	ps->ts = -1;
	ps->line = sd_malloc(KP_MAX_LINE + 1);
	return ps;
}

/* One whole line: n bytes at s (no newline), cut: it was longer. */
static void feed_line(struct kp_linux *ps, const char *s, size_t n, bool cut)
{
	char *line = ps->line;
	size_t keep = n;

	if (keep > KP_MAX_LINE) {
		keep = KP_MAX_LINE;
		cut = true;
	}
	if (cut)
		ps->out->long_lines++;
	/* NULs and other control bytes become spaces; a trailing \r
	 * (serial consoles) goes. s may be line itself. */
	for (size_t k = 0; k < keep; k++) {
		char c = s[k];

		line[k] = (c == '\0' || c == '\r' || c == '\t') ? ' ' : c;
	}
	while (keep && line[keep - 1] == ' ')
		keep--;
	line[keep] = '\0';
	ps->lineno++;
	ps->out->lines++;
	parse_line(ps, line);
}

void kp_linux_feed(struct kp_linux *ps, const char *buf, size_t len)
{
	const char *end = buf + len;

	if (!ps->out->lines && !ps->linelen && len)
		ps->out->binary = binary_input(buf, len);
	while (buf < end) {
		const char *nl = memchr(buf, '\n', (size_t)(end - buf));
		size_t n = nl ? (size_t)(nl - buf) : (size_t)(end - buf);

		if (!ps->linelen && !ps->long_line && nl) {
			feed_line(ps, buf, n, false);	/* whole in buf */
		} else {
			/* a line split between calls: kept up to the cut */
			size_t room = KP_MAX_LINE - ps->linelen;
			size_t k = n < room ? n : room;

			memcpy(ps->line + ps->linelen, buf, k);
			ps->linelen += k;
			ps->long_line |= n > k;
			if (nl) {
				feed_line(ps, ps->line, ps->linelen,
					  ps->long_line);
				ps->linelen = 0;
				ps->long_line = false;
			}
		}
		buf += n + (nl ? 1 : 0);
	}
}

size_t kp_linux_done_events(const struct kp_linux *ps)
{
	return ps->out->nevents ? ps->out->nevents - 1 : 0;
}

void kp_linux_end(struct kp_linux *ps)
{
	if (ps->linelen || ps->long_line)	/* no newline at the end */
		feed_line(ps, ps->line, ps->linelen, ps->long_line);
	while (ps->nopen)
		close_open(ps, &ps->open[0]);
	free(ps->prelude);
	free(ps->release_buf);
	free(ps->line);
	free(ps);
}

int kp_linux_parse(const char *buf, size_t len, struct kp_reports *out)
{
	struct kp_linux *ps = kp_linux_begin(out);

	kp_linux_feed(ps, buf, len);
	kp_linux_end(ps);
	return 0;
}
