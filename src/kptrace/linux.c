// SPDX-License-Identifier: GPL-2.0-only
/* linux — finds the crash reports in a Linux kernel log (dmesg, serial
 * console, journal export, pstore) and parses each into a kp_report: its
 * kind from the headline (Oops, BUG, WARNING, KASAN, lockdep, hung task,
 * stalls, lockups, panics, ...), the release and KASLR offset it states,
 * and its frames — RIP/pc lines, `func+0x1/0x2 [mod buildid]`, the old
 * `[<addr>] func+off/size`, arm's `(func) from`, ppc's `[sp] [pc] func`,
 * with `?`, <IRQ>/<NMI>/<TASK> sections and the stack each belongs to.
 * Lines are read one at a time, with the [ts], [T123]/[C1], <N>,
 * journal and syslog prefixes removed; lines of other tasks interleaved
 * with a report are told apart by their [T123]/[C1] context when the log
 * has one. */
#include "report.h"
#include "../lib/demangle.h"
#include "../lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <stdarg.h>
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
	enum {
		LOCK_FIRST,		/* the first "at:" that is no plumbing */
		LOCK_DIRECT,		/* the first "at:", as it is */
		LOCK_CIRCULAR,		/* of the next two "at:", the first
					 * that is no plumbing (else the
					 * dependency chain names it) */
		LOCK_STACK,		/* none: the call trace names it */
	} lock_mode;
	int lock_ats;			/* "at:" lines seen since the trigger */
	bool became_next;		/* its first "which became" chain follows */
	bool became_done;
	char *release_buf;
};

/* ---- small string helpers ---- */

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool ends_with(const char *s, const char *e)
{
	size_t n = strlen(s), m = strlen(e);

	return n >= m && !strcmp(s + n - m, e);
}

static bool is_symch(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '$';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Hex number with optional 0x; returns the end, or NULL. */
static const char *parse_hex(const char *s, uint64_t *v)
{
	const char *p = s;
	uint64_t x = 0;
	int d, n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hexval(p[2]) >= 0)
		p += 2;
	while ((d = hexval(*p)) >= 0) {
		if (n < 16)
			x = x << 4 | (uint64_t)d;
		else
			x = x << 4 | (uint64_t)d;	/* wraps; flagged */
		n++;
		p++;
	}
	if (!n || n > 16)
		return NULL;
	*v = x;
	return p;
}

/* A symbol name at s: C identifiers with compiler suffixes, Rust paths
 * `<a::B as c::D>::f` (which hold spaces inside the angle brackets).
 * Returns its length, 0 when there is none. */
static size_t sym_len(const char *s)
{
	size_t n = 0;
	int angle = 0;

	for (;;) {
		char c = s[n];

		if (c == '<') {
			angle++;
		} else if (c == '>' && angle) {
			angle--;
		} else if (angle && c && c != '\n' && c != '+') {
			/* anything inside <...> */
		} else if (c == ':' && s[n + 1] == ':') {
			n++;
		} else if (!is_symch(c)) {
			break;
		}
		n++;
		if (n > 512)
			return 0;
	}
	return angle ? 0 : n;
}

const char *kp_func_base(const char *name, char *buf, size_t len)
{
	size_t n = 0;

	if (!name)
		return NULL;
	if (name[0] == '.' && name[1])	/* ppc64 ELFv1 dot symbols */
		name++;
	if (name[0] == '_' && name[1] == 'Z' && isdigit((unsigned char)name[2])) {
		/* a C++ function at namespace level: _Z8fakeNameiii */
		char *e;
		unsigned long l = strtoul(name + 2, &e, 10);

		if (l && l < len && strlen(e) >= l) {
			memcpy(buf, e, l);
			buf[l] = '\0';
			return buf;
		}
	}
	if ((n = demangle_rust_len(name))) {
		/* a Rust symbol: legacy ones hold ".." in their escapes */
		n = n < len ? n : len - 1;
	} else {
		while (name[n] && name[n] != '.' && n + 1 < len)
			n++;
	}
	memcpy(buf, name, n);
	buf[n] = '\0';
	return buf;
}

const char *kp_display_name(const char *name, char *buf, size_t len)
{
	return demangle_display(name, buf, len);
}

/* ---- reports and frames ---- */

struct kp_frame *kp_frame_add(struct kp_report *r)
{
	struct kp_frame *f;

	sd_grow(&r->frames, &r->capframes, r->nframes + 1, sizeof(*f));
	f = &r->frames[r->nframes++];
	memset(f, 0, sizeof(*f));
	f->reliable = true;
	f->stack = r->nstacks ? (int)r->nstacks - 1 : 0;
	return f;
}

static void add_stack(struct kp_report *r, const char *label)
{
	size_t cap = r->nstacks;

	sd_grow(&r->stacks, &cap, r->nstacks + 1, sizeof(char *));
	r->stacks[r->nstacks++] = sd_strdup(label);
}

static void add_module(struct kp_report *r, const char *s, size_t n)
{
	size_t cap = r->nmodules;

	sd_grow(&r->modules, &cap, r->nmodules + 1, sizeof(char *));
	r->modules[r->nmodules++] = sd_strndup(s, n);
}

static void frame_free(struct kp_frame *f)
{
	free(f->sym);
	free(f->module);
	free(f->buildid);
	free(f->function);
	free(f->file);
	free(f->object);
	for (int i = 0; i < f->ninlines; i++) {
		free(f->inlines[i].function);
		free(f->inlines[i].file);
	}
	free(f->inlines);
}

void kp_report_free(struct kp_report *r)
{
	for (size_t i = 0; i < r->nframes; i++)
		frame_free(&r->frames[i]);
	free(r->frames);
	for (size_t i = 0; i < r->nmodules; i++)
		free(r->modules[i]);
	free(r->modules);
	for (size_t i = 0; i < r->nstacks; i++)
		free(r->stacks[i]);
	free(r->stacks);
	for (size_t i = 0; i < r->nkexts; i++) {
		free(r->kexts[i].bundle);
		free(r->kexts[i].version);
		free(r->kexts[i].uuid);
	}
	free(r->kexts);
	free(r->kind);
	free(r->culprit);
	free(r->title);
	free(r->release);
	free(r->arch);
	free(r->panic);
	free(r->headline_func);
	free(r->lock_func);
	free(r->os_build);
	free(r->symfile);
	free(r->fallback);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
}

void kp_note(struct kp_report *r, const char *fmt, ...)
{
	struct sbuf sb;
	va_list ap;
	size_t cap = r->nnotes;

	sbuf_init(&sb);
	va_start(ap, fmt);
	sbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	sd_grow(&r->notes, &cap, r->nnotes + 1, sizeof(char *));
	r->notes[r->nnotes++] = sbuf_steal(&sb);
}

void kp_reports_free(struct kp_reports *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		kp_report_free(&rs->v[i]);
	free(rs->v);
	for (size_t i = 0; i < rs->nmodbases; i++)
		free(rs->modbases[i].name);
	free(rs->modbases);
	for (size_t i = 0; i < rs->nmodsecs; i++) {
		free(rs->modsecs[i].module);
		free(rs->modsecs[i].section);
	}
	free(rs->modsecs);
	memset(rs, 0, sizeof(*rs));
}

/* ---- line prefixes ---- */

/* Remove `<6>`, journal/syslog "Mon DD HH:MM:SS host kernel: ",
 * "MESSAGE=", "[  12.345678]", "[T123]", "[C1]", dmesg -T's
 * "[Mon Nov 23 18:00:00 2026]". Sets *ctx from [T..]/[C..] (0 if none). */
static const char *strip_prefix(const char *s, int *ctx)
{
	const char *p;

	*ctx = 0;
	if (starts(s, "MESSAGE="))
		s += 8;
	if (s[0] == '<' && isdigit((unsigned char)s[1])) {
		p = s + 1;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '>')
			s = p + 1;
	}
	/* syslog / journalctl short and short-iso: up to "kernel: " */
	if ((isupper((unsigned char)s[0]) && islower((unsigned char)s[1]) &&
	     islower((unsigned char)s[2]) && s[3] == ' ' &&
	     isdigit((unsigned char)s[0 + 5])) ||
	    (isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[3]) &&
	     s[4] == '-')) {
		const char *k = strstr(s, " kernel: ");

		if (k && k - s < 96)
			s = k + 9;
	}
	if (s[0] != '[' && (p = strstr(s, " login: [")) && p - s < 64)
		s = p + 8;	/* "syzkaller login: [  12.3]" */
	for (int i = 0; i < 3 && s[0] == '['; i++) {
		const char *q = s + 1, *close = strchr(s, ']');

		if (!close || close - s > 40)
			break;
		q = skip_ws(q);
		if ((*q == 'T' || *q == 'C') && isdigit((unsigned char)q[1])) {
			int v = atoi(q + 1);

			*ctx = *q == 'T' ? v + 1 : -(v + 1);
		} else if (isdigit((unsigned char)*q)) {
			const char *d = q;

			while (isdigit((unsigned char)*d) || *d == '.')
				d++;
			if (d != close)
				break;
		} else if (!(isupper((unsigned char)q[0]) &&
			     islower((unsigned char)q[1]) && q[3] == ' ' &&
			     close - s > 20)) {	/* dmesg -T date */
			break;
		}
		s = close + 1;
		if (*s == ' ' && s[1] != '[')
			s++;
		else if (*s == ' ' && s[1] == '[')
			s++;
	}
	return s;
}

/* ---- frames ---- */

struct pframe {
	uint64_t addr;
	bool has_addr, has_off, has_size, reliable, inlined;
	const char *sym;
	size_t symlen;
	uint64_t off, size;
	const char *mod, *bid;
	size_t modlen, bidlen;
};

/* `+0xOFF/0xSIZE` (size optional); returns the end or NULL. */
static const char *parse_offsize(const char *p, struct pframe *f)
{
	const char *e;

	if (*p != '+')
		return NULL;
	e = parse_hex(p + 1, &f->off);
	if (!e)
		return NULL;
	f->has_off = true;
	if (*e == '/') {
		const char *e2 = parse_hex(e + 1, &f->size);

		if (!e2)
			return NULL;
		f->has_size = true;
		e = e2;
	}
	return e;
}

/* Parse one frame line; s has its prefix removed. Grammar:
 *   [(] [?] [[<addr>] | [addr]]... [?] (sym | (sym+off/size) | .sym)
 *       [+0xOFF/0xSIZE] [file:line] [[inline]] [[mod[ buildid]]]
 *       [(unreliable)] [from [<addr>] (sym+off/size)] [)]
 * A frame needs an address, an offset, or a file:line. */
static bool parse_frame(const char *s, bool in_stack, struct pframe *f)
{
	const char *p = s, *e;
	bool paren = false, ws = *s == ' ' || *s == '\t';

	memset(f, 0, sizeof(*f));
	f->reliable = true;
	p = skip_ws(p);
	if (*p == '(' && p[1] == '[') {	/* s390's first frame */
		paren = true;
		p++;
	}
	for (int i = 0; i < 3; i++) {
		if (p[0] == '?' && p[1] == ' ') {
			f->reliable = false;
			p = skip_ws(p + 2);
		}
		if (p[0] == '[') {
			const char *q = p + 1;
			uint64_t v;

			if (*q == '<')
				q++;
			e = parse_hex(q, &v);
			if (!e)
				return false;
			if (*e == '>')
				e++;
			if (*e != ']')
				return false;
			f->addr = v;
			f->has_addr = true;
			p = skip_ws(e + 1);
			continue;
		}
		break;
	}
	if (p[0] == '?' && p[1] == ' ') {
		f->reliable = false;
		p = skip_ws(p + 2);
	}
	if (*p == '(' && f->has_addr) {	/* arm: [<c0>] (func+0x/0x) from */
		p++;
		f->symlen = sym_len(p);
		if (!f->symlen)
			return false;
		f->sym = p;
		p += f->symlen;
		if (*p == '+' && !(p = parse_offsize(p, f)))
			return false;
		if (*p != ')')
			return false;
		p = skip_ws(p + 1);
		if (starts(p, "from "))
			return true;
		return *p == '\0';
	}
	if (*p == '0' && p[1] == 'x' && !f->has_addr && (ws || in_stack)) {
		/* a bare address, as %pB prints without kallsyms */
		e = parse_hex(p, &f->addr);
		if (!e || *skip_ws(e) || e - p < 10)
			return false;
		f->has_addr = true;
		return true;
	}
	if (*p == '0' && p[1] == 'x' && f->has_addr) {	/* no symbol */
		uint64_t v;

		e = parse_hex(p, &v);
		if (e && (*e == '\0' || *e == ' '))
			return *skip_ws(e) == '\0' ||
			       *skip_ws(e) == '[';
		return false;
	}
	if (*p == '.' && is_symch(p[1]) && f->has_addr)
		p++;		/* ppc64 .func */
	f->symlen = sym_len(p);
	if (!f->symlen) {
		return false;
	}
	f->sym = p;
	p += f->symlen;
	if (*p == '+') {
		if (!(p = parse_offsize(p, f)))
			return false;
		if (p[0] == '(' && p[1] == ')')	/* old WARNING style */
			p += 2;
	}
	p = skip_ws(p);
	/* file:line from a symbolizer (syzkaller's logs) */
	if (*p && *p != '[' && *p != '(') {
		const char *c = p;

		while (*c && *c != ' ' && *c != ':')
			c++;
		/* a file name: not empty, with a '.' (arm's "r4:00000000"
		 * register dumps are no frames) */
		if (*c == ':' && isdigit((unsigned char)c[1]) && c > p &&
		    memchr(p, '.', (size_t)(c - p))) {
			c++;
			while (isdigit((unsigned char)*c) || *c == ':')
				c++;
			if (*c == ' ' || *c == '\0') {
				p = skip_ws(c);
				if (!f->has_off && !f->has_addr)
					f->inlined = true;
				if (starts(p, "[inline]"))
					p = skip_ws(p + 8);
			} else {
				return false;
			}
		} else {
			return false;
		}
	} else if (!f->has_off && !f->has_addr) {
		return false;
	}
	if (f->inlined && !ws && !in_stack)
		return false;
	if (!f->has_addr && !ws && !in_stack)
		return false;
	if (*p == '[') {		/* [module] or [module buildid] */
		const char *m = p + 1, *me;

		me = m;
		while (is_symch(*me) || *me == '-')
			me++;
		if (me == m)
			return false;
		f->mod = m;
		f->modlen = (size_t)(me - m);
		if (*me == ' ') {
			const char *b = me + 1, *be = b;

			while (hexval(*be) >= 0)
				be++;
			if (be == b || *be != ']')
				return false;
			f->bid = b;
			f->bidlen = (size_t)(be - b);
			me = be;
		}
		if (*me != ']')
			return false;
		p = skip_ws(me + 1);
	}
	if (starts(p, "(unreliable)")) {
		f->reliable = false;
		p = skip_ws(p + 12);
	}
	if (paren && *p == ')')
		p = skip_ws(p + 1);
	if (starts(p, "from "))		/* arm / old "from" continuation */
		return true;
	return *p == '\0';
}

static void store_frame(struct parser *ps, const struct pframe *pf, bool pc)
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
			add_stack(r, ps->pending_label);
		free(ps->pending_label);
		ps->pending_label = NULL;
	} else if (!r->nstacks) {
		add_stack(r, pc ? "Call Trace" : "Call Trace");
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

/* ---- headlines ---- */

/* Copy s[0..n) into a new string with "[hex]" tokens and hex words
 * removed and spaces collapsed, trailing " .:!," trimmed. */
static char *clean_kind(const char *s, size_t n)
{
	struct sbuf sb;
	size_t i = 0;

	sbuf_init(&sb);
	while (i < n) {
		if (s[i] == '[') {
			size_t j = i + 1;

			while (j < n && s[j] != ']')
				j++;
			i = j < n ? j + 1 : n;
			continue;
		}
		if (s[i] == ' ' && sb.len && sb.buf[sb.len - 1] == ' ') {
			i++;
			continue;
		}
		sbuf_putc(&sb, s[i++]);
	}
	while (sb.len && strchr(" .:!,]", sb.buf[sb.len - 1]))
		sb.len--;
	sbuf_putc(&sb, '\0');
	return sbuf_steal(&sb);
}

/* Cut s at the first of the stop strings; the length kept. */
static size_t cut_at(const char *s, const char *const *stops)
{
	size_t n = strlen(s);

	for (int i = 0; stops[i]; i++) {
		const char *c = strstr(s, stops[i]);

		if (c && (size_t)(c - s) < n)
			n = (size_t)(c - s);
	}
	return n;
}

/* Function name in "... func+0x1/0x2 ..." or "... func" at p. */
static char *func_at(const char *p)
{
	size_t n;

	p = skip_ws(p);
	if (*p == '.' && is_symch(p[1]))
		p++;
	n = sym_len(p);
	return n ? sd_strndup(p, n) : NULL;
}

struct fixed {
	const char *prefix, *kind;
};

/* Headlines whose kind is fixed text (checked in order, prefix match). */
static const struct fixed fixed_kinds[] = {
	{ "BUG: kernel NULL pointer dereference", "BUG: kernel NULL pointer dereference" },
	{ "BUG: unable to handle kernel NULL pointer dereference", "BUG: kernel NULL pointer dereference" },
	{ "Unable to handle kernel NULL pointer dereference", "BUG: kernel NULL pointer dereference" },
	{ "BUG: unable to handle kernel paging request", "BUG: unable to handle page fault" },
	{ "BUG: unable to handle page fault", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel paging request", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel execute from non-executable memory", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel read from unreadable memory", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel write to read-only memory", "BUG: unable to handle page fault" },
	{ "BUG: unable to handle kernel", "BUG: unable to handle kernel" },
	{ "general protection fault", "general protection fault" },
	{ "kernel BUG at", "kernel BUG" },
	{ "Kernel BUG at", "kernel BUG" },
	{ "divide error:", "divide error" },
	{ "divide_error:", "divide error" },
	{ "stack segment:", "stack segment fault" },
	{ "int3:", "int3" },
	{ "invalid opcode:", "invalid opcode" },
	{ "PANIC: double fault", "PANIC: double fault" },
	{ "kernel stack overflow", "kernel stack overflow" },
	{ "BUG: TASK stack guard page was hit", "BUG: stack guard page was hit" },
	{ "BUG: IRQ stack guard page was hit", "BUG: stack guard page was hit" },
	{ "BUG: Unable to handle kernel data access", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel access to user memory", "BUG: unable to handle kernel access to user memory" },
	{ "WARNING: Nested lock was not taken", "WARNING: nested lock was not taken" },
	{ "BUG: Invalid wait context", "WARNING: locking bug" },
	{ "BUG: soft lockup", "BUG: soft lockup" },
	{ "BUG: spinlock lockup suspected", "BUG: spinlock lockup suspected" },
	{ "BUG: bad unlock balance detected", "BUG: bad unlock balance" },
	{ "BUG: Bad page state", "BUG: Bad page state" },
	{ "BUG: Bad page map", "BUG: Bad page map" },
	{ "BUG: Bad rss-counter state", "BUG: Bad rss-counter state" },
	{ "BUG: Dentry ", "BUG: Dentry still in use" },
	{ "BUG: workqueue lockup", "BUG: workqueue lockup" },
	{ "unregister_netdevice: waiting for ", "unregister_netdevice: waiting for DEV to become free" },
	{ "VFS: Busy inodes after unmount", "VFS: Busy inodes after unmount (use-after-free)" },
	{ "VFS: Close: file count is 0", "VFS: Close: file count is zero (use-after-free)" },
	{ "Watchdog detected hard LOCKUP", "BUG: hard lockup" },
	{ "WARNING: possible circular locking dependency detected", "possible deadlock" },
	{ "WARNING: possible recursive locking detected", "possible deadlock" },
	{ "INFO: possible circular locking dependency detected", "possible deadlock" },
	{ "INFO: possible recursive locking detected", "possible deadlock" },
	{ "WARNING: inconsistent lock state", "inconsistent lock state" },
	{ "INFO: inconsistent lock state", "inconsistent lock state" },
	{ "WARNING: bad unlock balance detected", "WARNING: bad unlock balance" },
	{ "WARNING: kernel stack regs", "WARNING: kernel stack regs has bad value" },
	{ "WARNING: kernel stack frame pointer", "WARNING: kernel stack regs has bad value" },
	{ "WARNING: still has locks held", "WARNING: still has locks held" },
	{ "WARNING: lock held when returning to user space", "WARNING: lock held when returning to user space" },
	{ "INFO: trying to register non-static key", "INFO: trying to register non-static key" },
	{ "INFO: suspicious RCU usage", "INFO: suspicious RCU usage" },
	{ "unreferenced object 0x", "memory leak" },
	{ "BUG: memory leak", "memory leak" },
	{ "WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order", "possible deadlock" },
	{ "WARNING: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order", "possible deadlock" },
	{ "WARNING: possible irq lock inversion dependency", "possible deadlock" },
	{ "INFO: HARDIRQ-safe -> HARDIRQ-unsafe lock order", "possible deadlock" },
	{ "INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order", "possible deadlock" },
	{ "INFO: possible irq lock inversion dependency", "possible deadlock" },
	{ "WARNING: held lock freed", "WARNING: held lock freed" },
	{ "BUG: held lock freed", "BUG: held lock freed" },
	{ "Unhandled fault:", "Unhandled fault" },
	{ "NMI backtrace for cpu", "NMI backtrace" },
	{ "Internal error:", "Internal error" },
	{ "Oops:", "Oops" },
	{ "Oops ", "Oops" },
	{ NULL, NULL },
};

/* Lines that come before a headline and name the report better. */
static const struct fixed prelude_kinds[] = {
	{ "Alignment trap:", "Alignment trap" },
	{ "list_add corruption", "BUG: corrupted list" },
	{ "list_del corruption", "BUG: corrupted list" },
	{ "list_add double add", "BUG: corrupted list" },
	{ "slab corruption", "BUG: corrupted list" },
	{ "ODEBUG:", "WARNING: ODEBUG bug" },
	{ "usercopy: Kernel memory", "BUG: bad usercopy" },
	{ "kobject:", "WARNING: kobject bug" },
	{ "proc_dir_entry", "WARNING: proc registration bug" },
	{ NULL, NULL },
};

/* Lines inside an open report that refine its kind. */
static const struct fixed refine_kinds[] = {
	{ "refcount_t:", "WARNING: refcount bug" },
	{ "Kernel stack is corrupted in:", "kernel panic: stack is corrupted" },
	{ NULL, NULL },
};

/* Remove a leading "rcu: ", "watchdog: ", "NMI watchdog: ", "Oops: "
 * (6.10+ prints "Oops: general protection fault, ..."). */
static const char *strip_subsys(const char *s)
{
	static const char *const pre[] = {
		"rcu: ", "watchdog: ", "NMI watchdog: ", "Oops: ", "[ ", NULL,
	};

	for (int i = 0; pre[i]; i++)
		if (starts(s, pre[i]) && (strcmp(pre[i], "Oops: ") ||
					  !isdigit((unsigned char)s[6])))
			return s + strlen(pre[i]);
	return s;
}

/* 6.15+ WARNING headline: the file:line comes first. */
static bool warning_new(const char *s)
{
	const char *p = s + 9, *sp, *colon;

	if (!starts(s, "WARNING: "))
		return false;
	if (*p == '[') {	/* "WARNING: [cond] file:line at func" */
		const char *e = strstr(p, "] ");

		if (!e)
			return false;
		p = e + 2;
	}
	sp = strchr(p, ' ');
	colon = strchr(p, ':');
	return sp && colon && colon < sp && isdigit((unsigned char)colon[1]) &&
	       starts(sp, " at ");
}

/* WARNINGs named by the file that warned. */
static const char *warning_kind(const char *file, size_t n, const char *func)
{
	static const char *const by_file[][2] = {
		{ "lib/debugobjects.c", "WARNING: ODEBUG bug" },
		{ "mm/usercopy.c", "WARNING: bad usercopy" },
		{ "lib/kobject.c", "WARNING: kobject bug" },
		{ "fs/proc/generic.c", "WARNING: proc registration bug" },
		{ "lib/refcount.c", "WARNING: refcount bug" },
		{ "kernel/locking/lockdep.c", "WARNING: locking bug" },
	};

	if (!file)
		return "WARNING";
	for (size_t i = 0; i < ARRAY_SIZE(by_file); i++)
		if (memmem(file, n, by_file[i][0], strlen(by_file[i][0])))
			return by_file[i][1];
	if (memmem(file, n, "mm/vmalloc.c", 12) && func &&
	    strstr(func, "vmalloc"))
		return "WARNING: zero-size vmalloc";
	/* an allocator warning: the function is kmalloc, kvmalloc, vmalloc
	 * ..., "malloc" at most two letters in (free_large_kmalloc is not) */
	if (memmem(file, n, "mm/", 3) && func &&
	    (!strncmp(func, "malloc", 6) ||
	     (func[0] && !strncmp(func + 1, "malloc", 6)) ||
	     (func[0] == 'k' && func[1] && !strncmp(func + 2, "malloc", 6))))
		return "WARNING: kmalloc bug";
	return "WARNING";
}

/* The kind of the report this line starts, or NULL. *func gets a
 * function the headline names (WARNING at ... func, KASAN in func). */
static char *headline(const char *body, char **func)
{
	const char *s = strip_subsys(body), *op;
	static const char *const bug_stops[] = {
		" at ", ":", "!", ",", " - ", " in process", " on CPU",
		" (", NULL,
	};
	size_t n;

	*func = NULL;
	if (starts(s, "BUG: KASAN: ") || starts(s, "KASAN: ") ||
	    starts(s, "BUG: KFENCE: ") || starts(s, "BUG: KMSAN: ") ||
	    starts(s, "KMSAN: ") || starts(s, "BUG: KCSAN: ") ||
	    starts(s, "UBSAN: ")) {
		const char *k = starts(s, "BUG: ") ? s + 5 : s;
		const char *in = strstr(k, " in ");

		if (starts(k, "KASAN: ") && strstr(k, " in range ["))
			return NULL;	/* part of a general protection fault */
		if (starts(k, "KASAN: double-free") && in) {
			*func = func_at(in + 4);
			return sd_strdup("KASAN: invalid-free");
		}
		{
			const char *on = strstr(k, " on address");

			if (on && (!in || on < in))
				return clean_kind(k, (size_t)(on - k));
		}
		if (!in)
			return clean_kind(k, strlen(k));
		if (starts(k, "UBSAN: ")) {
			char *kind = clean_kind(k, (size_t)(in - k));

			if (!strcmp(kind, "UBSAN: Undefined behaviour"))
				strcpy(kind + 7, "undefined-behaviour");
			return kind;
		}
		if (starts(k, "KCSAN: ")) {
			/* "f+0x1/0x2 / g+0x3/0x4" -> "f / g" */
			char *a = func_at(in + 4), *sl = strstr(in + 4, " / ");

			if (a && sl) {
				char *bb = func_at(sl + 3);

				if (bb) {
					size_t n2 = strlen(a) + strlen(bb) + 4;

					*func = sd_malloc(n2);
					snprintf(*func, n2, "%s / %s", a, bb);
					free(a);
					free(bb);
					a = NULL;
				}
			}
			if (a)
				*func = a;
		} else {
			*func = func_at(in + 4);
		}
		return clean_kind(k, (size_t)(in - k));
	}
	if (starts(s, "WARNING: CPU:") || starts(s, "WARNING: at ") ||
	    (starts(s, "WARNING: ") && strstr(s, " PID: ") &&
	     strstr(s, " at ")) || warning_new(s)) {
		const char *at = strstr(s, " at "), *file = NULL;
		size_t flen = 0;

		if (warning_new(s)) {
			/* 6.15+: "WARNING: fs/x.c:12 at func+0x1/0x2, CPU#0" */
			file = s + 9;
			if (*file == '[')
				file = strstr(file, "] ") + 2;
			at = strstr(file, " at ");
			flen = strcspn(file, " ");
			*func = func_at(at + 4);
		} else if (at) {
			const char *p = skip_ws(at + 4);

			file = p;
			while (*p && *p != ' ')	/* file:line */
				p++;
			flen = (size_t)(p - file);
			if (*p == ' ')
				*func = func_at(p);
		}
		return sd_strdup(warning_kind(file, flen, *func));
	}
	if (starts(s, "kernel BUG at mm/usercopy.c"))
		return sd_strdup("BUG: bad usercopy");
	if (starts(s, "kernel BUG at lib/list_debug.c"))
		return sd_strdup("BUG: corrupted list");
	/* a frame pointer printed as an address keeps its kind; "(ptrval)"
	 * is the regs kind, as syzkaller names it */
	if (starts(s, "WARNING: kernel stack frame pointer at ") &&
	    isxdigit((unsigned char)s[39]))
		return sd_strdup("WARNING: kernel stack frame pointer has bad value");
	/* "BUG: Dentry ... still in use (1) [unmount of fs dev]": named by
	 * the operation, as syzkaller names it */
	if (starts(s, "BUG: Dentry ") && (op = strstr(s, " still in use")) &&
	    (op = strchr(op, '[')) && strstr(op, " of ")) {
		*func = sd_strndup(op + 1, strcspn(op + 1, " ]"));
		return sd_strdup("BUG: Dentry still in use");
	}
	for (const struct fixed *f = fixed_kinds; f->prefix; f++)
		if (starts(s, f->prefix))
			return sd_strdup(f->kind);
	if (starts(s, "INFO: task ")) {
		if (strstr(s, " blocked for more than"))
			return sd_strdup("INFO: task hung");
		if (strstr(s, " can't die for more than"))
			return sd_strdup("INFO: task can't die");
		return NULL;
	}
	if (starts(s, "INFO: rcu") && strstr(s, "detected") &&
	    strstr(s, "stall"))
		return sd_strdup("INFO: rcu detected stall");
	if (starts(s, "Kernel panic - not syncing: ")) {
		const char *m = s + 28;
		static const char *const stops[] = { " ...", "!", "\n", NULL };

		if (starts(m, "stack-protector: Kernel stack is corrupted in: ")) {
			*func = func_at(m + 47);
			/* a bare address names no function: the stack will */
			if (*func && strspn(*func, "0123456789abcdef") ==
				     strlen(*func)) {
				free(*func);
				*func = NULL;
			}
			return sd_strdup("kernel panic: stack is corrupted");
		}
		if (starts(m, "corrupted stack end detected"))
			return sd_strdup("kernel panic: corrupted stack end");
		if (starts(m, "panic_on_warn set"))
			return sd_strdup("kernel panic: panic_on_warn set");
		if (starts(m, "kernel stack overflow"))
			return sd_strdup("kernel stack overflow");
		if (starts(m, "Fatal exception"))	/* "... in interrupt" */
			return sd_strdup("kernel panic: Fatal exception");
		n = cut_at(m, stops);
		char *k = sd_malloc(n + 15);

		memcpy(k, "kernel panic: ", 14);
		memcpy(k + 14, m, n);
		k[14 + n] = '\0';
		while (n && strchr(" .", k[13 + n]))
			k[13 + n--] = '\0';
		return k;
	}
	/* SLUB: "BUG kmalloc-1024 (Not tainted): Object already free" */
	if (starts(s, "BUG ") && strstr(s, "): ")) {
		const char *m = strstr(s, "): ") + 3;
		char *k;

		if (!*m)
			return NULL;
		k = sd_malloc(strlen(m) + 6);
		sprintf(k, "BUG: %s", m);
		return k;
	}
	if ((starts(s, "BUG: ") || starts(s, "WARNING: ")) &&
	    strstr(s, " still has locks held"))
		return sd_strdup(s[0] == 'B' ? "BUG: still has locks held" :
				 "WARNING: still has locks held");
	if (starts(s, "BUG: ") && strlen(s) > 6) {
		const char *k = s;

		if (starts(s, "BUG: using ") && strstr(s, " in preemptible")) {
			const char *e = strstr(s, " in preemptible");

			n = (size_t)(e - s);
			char *kind = sd_malloc(n + 30);

			memcpy(kind, s, n);
			strcpy(kind + n, " in preemptible code");
			return kind;
		}
		n = cut_at(k + 5, bug_stops) + 5;
		return clean_kind(k, n);
	}
	if (starts(s, "WARNING: ") && strlen(s) > 10) {
		static const char *const stops[] = { "!", " detected", NULL };

		n = cut_at(s, stops);
		return clean_kind(s, n);
	}
	return NULL;
}

/* A headline glued to or after other text on the line (two printks
 * interleaved, "syz-executor: ...BUG: unable to handle ..."). */
static char *headline_inside(const char *body, char **func)
{
	static const char *const marks[] = {
		"general protection fault", "BUG: ", "WARNING: CPU:",
		"Kernel panic - not syncing", "kernel BUG at ",
		"Unable to handle kernel ", "INFO: task ", "INFO: rcu_",
		NULL,
	};
	const char *best = NULL;

	for (int i = 0; marks[i]; i++) {
		const char *m = strstr(body + 1, marks[i]);

		if (m && (!best || m < best))
			best = m;
	}
	return best ? headline(best, func) : NULL;
}

/* Kinds that continue an open report when they come right after its
 * headline (the Oops line after "BUG: kernel NULL pointer dereference",
 * "Internal error: Oops" after arm64's "Unable to handle", the "kernel
 * BUG at" after "list_add corruption", ...). */
static bool continues(const struct kp_report *r, const char *kind,
		      int lineno)
{
	static const char *const cont[] = {
		"Oops", "Internal error", "invalid opcode",
		"kernel stack overflow", "PANIC: double fault", NULL,
	};

	if (r && !strcmp(kind, "memory leak") && !strcmp(r->kind, kind) &&
	    r->nframes == 0)
		return true;	/* "BUG: memory leak", "unreferenced object" */
	if (!r || lineno - r->first_line > 30)
		return false;
	for (size_t i = 0; i < r->nframes; i++)
		if (!r->frames[i].pc)
			return false;
	for (int i = 0; cont[i]; i++)
		if (!strcmp(kind, cont[i]))
			return true;
	/* "kernel BUG at" / "WARNING" after a list/usercopy line */
	return (!strcmp(kind, "kernel BUG") || !strcmp(kind, "WARNING")) &&
	       lineno - r->first_line <= 3 && strcmp(r->kind, kind) &&
	       strcmp(r->kind, "WARNING") && strcmp(r->kind, "kernel BUG");
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
			frame_free(b);
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

/* How a lockdep headline names its lock, as syzkaller reads each: the
 * old "[ INFO: ... ]" forms and the recursive, irq-inversion and held-lock
 * reports by the "at:" of the lock in question; a circular dependency by
 * that lock or the one held, unless both are plumbing or work-queue
 * machinery; an inconsistent lock state by its call trace. */
static int lock_mode_of(const char *s)
{
	if (starts(s, "WARNING: possible circular locking"))
		return LOCK_CIRCULAR;
	if (starts(s, "WARNING: inconsistent lock state"))
		return LOCK_STACK;
	if (starts(s, "INFO: ") || starts(s, "WARNING: possible recursive") ||
	    starts(s, "WARNING: possible irq lock inversion"))
		return LOCK_DIRECT;
	return LOCK_FIRST;
}

/* "CPU: 0 PID: 1 Comm: sh Tainted: G  O  6.1.0-18-cloud-amd64 #1" and
 * "Pid: 3, comm: x Not tainted 3.3.7 #1": the release. */
static char *release_of(const char *s)
{
	const char *p = strstr(s, "Not tainted ");
	size_t n;

	if (p) {
		p += 12;
	} else if ((p = strstr(s, "Tainted: "))) {
		p += 9;
		/* taint flags: words of capital letters */
		for (;;) {
			const char *w = skip_ws(p), *e = w;

			while (isupper((unsigned char)*e))
				e++;
			if (e == w || (*e && *e != ' '))
				break;
			p = e;
		}
	} else if ((p = strstr(s, "Linux version "))) {
		p += 14;
	} else {
		return NULL;
	}
	p = skip_ws(p);
	n = strcspn(p, " ");
	if (!n || !isdigit((unsigned char)*p) || n > 64)
		return NULL;
	return sd_strndup(p, n);
}

/* Register lines carrying the pc: x86 RIP/EIP, arm64 pc, arm PC is at,
 * ppc NIP, riscv epc, s390 Krnl PSW. Returns the text after the marker
 * where a frame (or [<addr>] frame) follows, NULL otherwise. */
static const char *pc_line(const char *s, bool *user)
{
	const char *p;

	*user = false;
	s = skip_ws(s);
	if (starts(s, "RIP: ") || starts(s, "EIP: ")) {
		p = s + 5;
		/* "0010:" segment; 0033/002b: user space */
		if (isxdigit((unsigned char)p[0]) && p[4] == ':') {
			*user = !strncmp(p, "0033", 4) || !strncmp(p, "002b", 4)
				|| !strncmp(p, "0073", 4);
			p += 5;
		}
		return p;
	}
	if (starts(s, "IP: "))	/* x86 before 4.16 */
		return s + 4;
	if (starts(s, "pc : "))
		return s + 5;
	if (starts(s, "PC is at "))
		return s + 9;
	if (starts(s, "NIP [") || starts(s, "NIP:"))
		return s + 4;
	if (starts(s, "epc : ") && !isxdigit((unsigned char)s[6]))
		return s + 6;
	if (starts(s, "Krnl PSW : ")) {
		p = strchr(s, '(');
		return p ? p + 1 : NULL;
	}
	return NULL;
}

/* Stack headers: a new stack starts with the next frame. */
static char *stack_header(const char *s)
{
	static const char *const hdr[] = {
		"Call Trace:", "Call trace:", "Backtrace:", "stack backtrace:",
		"Allocated by task ", "Freed by task ", "allocated by task ",
		"freed by task ", "Last potentially related work creation",
		"Second to last potentially related work creation",
		"Uninit was created at:", "Uninit was stored to memory at:",
		"Local variable ", "Memory state around", "backtrace",
		"read to ", "write to ", "read-write to ", "-> #",
		"Exception stack(", "Last Breaking-Event-Address",
		"Preemption disabled at", "page last allocated",
		"page last free", NULL,
	};

	s = skip_ws(s);
	/* lockdep: "{HARDIRQ-ON-W} state was registered at:" */
	if (s[0] == '{' && ends_with(s, "} state was registered at:"))
		return sd_strndup(s, strlen(s) - 1);
	for (int i = 0; hdr[i]; i++)
		if (starts(s, hdr[i])) {
			size_t n = strlen(s);

			while (n && (s[n - 1] == ':' || s[n - 1] == ' '))
				n--;
			return sd_strndup(s, n < 120 ? n : 120);
		}
	return NULL;
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
	} else if (starts(b, at)) {
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

static void parse_line(struct parser *ps, const char *line)
{
	int ctx;
	const char *s = strip_prefix(line, &ctx), *b = skip_ws(s), *p;
	struct kp_report *r;
	char *kind, *func = NULL;
	struct pframe pf;
	bool user;

	ps->ctx = ctx;
	if (!*b)
		return;
	if (proc_modules_line(ps, b) || module_section_line(ps, b))
		return;
	/* Release from any line: "Linux version", CPU/PID lines. */
	if (strstr(b, "ainted ") || strstr(b, "Tainted: ") ||
	    strstr(b, "Linux version ")) {
		char *rel = release_of(b);

		if (rel) {
			free(ps->release_buf);
			ps->release_buf = rel;
			ps->release = rel;
			if (ps->cur && !ps->cur->release)
				ps->cur->release = sd_strdup(rel);
		}
	}
	r = ps->cur;
	/* Another task's line in the middle of a report: not ours. */
	if (r && r->ctx && ctx && ctx != r->ctx) {
		kind = headline(b, &func);
		if (!kind)
			return;
		free(kind);
		free(func);
		func = NULL;
	}
	if (starts(b, "------------[ cut here ]------------")) {
		ps->cut_here = ps->lineno;
		return;
	}
	if (starts(b, "---[ end ")) {
		if (r && starts(b, "---[ end Kernel panic - not syncing: ") &&
		    !r->panic)
			r->panic = sd_strndup(b + 37, strcspn(b + 37, "]") ?
					      strcspn(b + 37, "]") - 1 : 0);
		close_report(ps);
		return;
	}
	if (rust_panic_line(ps, b, ctx))
		return;
	for (const struct fixed *f = prelude_kinds; f->prefix; f++)
		if (starts(b, f->prefix)) {
			free(ps->prelude);
			ps->prelude = sd_strdup(f->kind);
			ps->prelude_line = ps->lineno;
			ps->prelude_window = 4;
			if (r && r->nframes == 0 &&
			    ps->lineno - r->first_line <= 3) {
				free(r->kind);
				r->kind = ps->prelude;
				ps->prelude = NULL;
			}
			return;
		}
	if (r) {
		for (const struct fixed *f = refine_kinds; f->prefix; f++)
			if (starts(b, f->prefix) &&
			    ps->lineno - r->first_line <= 8) {
				free(r->kind);
				r->kind = sd_strdup(f->kind);
				if (!strcmp(f->prefix,
					    "Kernel stack is corrupted in:")) {
					free(r->headline_func);
					r->headline_func =
						func_at(b + strlen(f->prefix));
				}
			}
	}
	/* KASAN's access line names Read or Write. */
	if (r && starts(r->kind, "KASAN: ") && !strchr(r->kind + 7, ' ') &&
	    (starts(b, "Read of size") || starts(b, "Write of size") ||
	     starts(b, "Read at addr") || starts(b, "Write at addr"))) {
		size_t n = strlen(r->kind);

		r->kind = sd_realloc(r->kind, n + 7);
		strcpy(r->kind + n, b[0] == 'R' ? " Read" : " Write");
	}
	/* a leaked lock's work item: the function that ran last */
	if (r && !r->headline_func &&
	    !strcmp(r->kind, "BUG: workqueue leaked lock or atomic") &&
	    starts(skip_ws(b), "last function: "))
		r->headline_func = func_at(skip_ws(b) + 15);
	if ((kind = headline(b, &func)) ||
	    (!r && (kind = headline_inside(b, &func)))) {
		/* a panic right after a report is how that report ended;
		 * one long after it is a crash of its own */
		bool near = r && ps->lineno - r->last_line <= 64;
		bool nested = r && (!strcmp(kind, "NMI backtrace") ||
				    starts(kind, "unregister_netdevice: ") ||
				    (starts(kind, "kernel panic: ") && near) ||
				    (!strcmp(kind, "Oops") && r->nframes == 0));

		if (r && starts(kind, "kernel panic: ") && near) {
			if (!r->panic)
				r->panic = sd_strdup(b + (starts(b, "Kernel panic - not syncing: ") ? 28 : 0));
			free(kind);
			free(func);
			return;
		}
		if (nested || continues(r, kind, ps->lineno)) {
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
			return;
		}
		open_report(ps, kind, func);	/* kind may be replaced */
		r = ps->cur;
		/* "WARNING: task/1 still has locks held!": the held lock's
		 * "at:" names it */
		if (strstr(b, "still has locks held") ||
		    strstr(b, "held lock freed"))
			ps->lock_trigger = true;
		ps->lock_mode = lock_mode_of(strip_subsys(b));
		ps->safe_order = strstr(b, "WARNING: ") &&
				 strstr(b, "-safe -> ") &&
				 strstr(b, "-unsafe lock order");
		if (!strcmp(r->kind, "NMI backtrace")) {
			free(ps->pending_label);
			ps->pending_label = sd_strdup(b);
		}
		/* a headline naming a function (WARNING at ..., KASAN in ...)
		 * gives the culprit, not a frame */
		return;
	}
	if (!r) {
		/* ftrace / Linux version lines outside reports */
		return;
	}
	if (starts(b, "Kernel Offset: ")) {
		uint64_t v;

		if (parse_hex(b + 15, &v)) {
			r->kaslr = v;
			r->has_kaslr = true;
		}
		return;
	}
	if (starts(b, "Modules linked in:")) {
		p = b + 18;
		for (;;) {
			size_t n;

			p = skip_ws(p);
			if (!*p || *p == '[')
				break;
			n = strcspn(p, " (");
			if (!n)
				break;
			add_module(r, p, n);
			p += n;
			if (*p == '(')
				p += strcspn(p, ")") + (p[strcspn(p, ")")] ? 1 : 0);
		}
		return;
	}
	/* lockdep's "-safe -> -unsafe lock order": the lock is named where
	 * the first lock became irq-safe, the first caller in that chain
	 * that is no locking plumbing (as syzkaller names it) */
	if (r && ps->safe_order && !ps->became_done &&
	    starts(skip_ws(b), "... which became ") && ends_with(b, " at:")) {
		ps->became_next = true;
		return;
	}
	if (r && ps->became_next && !starts(skip_ws(b), "...")) {
		struct pframe lf;

		if (parse_frame(b, true, &lf) && lf.sym) {
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
	}
	/* lockdep: the lock the task is trying to take (or release, or
	 * whose state changed): the first non-generic "at:" after it */
	if ((strstr(b, "is trying to acquire") || strstr(b, "is trying to release") ||
	     strstr(b, "just changed the state of lock") || ends_with(b, "] takes:") ||
	     strstr(b, "still has locks held") ||
	     strstr(b, "leaving the kernel with locks still held")) &&
	    !ps->lock_trigger) {
		ps->lock_trigger = ps->lock_mode != LOCK_STACK;
		ps->lock_at_next = ends_with(b, " at:");
		return;
	}
	if ((p = strstr(b, ", at: ")) || (p = strstr(b, "}, at: ")) ||
	    ps->lock_at_next) {
		const char *q = ps->lock_at_next ? b : skip_ws(p + 6);
		struct pframe lf;

		ps->lock_at_next = false;
		if (ps->lock_trigger && !r->lock_func &&
		    (ps->lock_mode != LOCK_CIRCULAR || ps->lock_ats < 2) &&
		    parse_frame(q, true, &lf) && lf.sym) {
			char *fn = sd_strndup(lf.sym, lf.symlen);

			ps->lock_ats++;
			if (ps->lock_mode != LOCK_DIRECT &&
			    (kp_skip_func(fn) ||
			     (ps->lock_mode == LOCK_CIRCULAR &&
			      kp_deadlock_skip(fn))))
				free(fn);
			else
				r->lock_func = fn;
		}
		if (p)
			return;
	}
	/* Sections; old kernels print "<IRQ>  [<addr>] func" on one line. */
	if (b[0] == '<' && (starts(b, "<IRQ>") || starts(b, "<SOFTIRQ>") ||
			    starts(b, "<NMI>") || starts(b, "<TASK>") ||
			    starts(b, "<EOI>") || b[1] == '#' || b[1] == '/')) {
		const char *e = strchr(b, '>');

		ps->section = b[1] == 'I' ? KP_SEC_IRQ :
			      b[1] == 'S' ? KP_SEC_SOFTIRQ :
			      b[1] == 'N' ? KP_SEC_NMI :
			      b[1] == '#' ? KP_SEC_EXC : KP_SEC_TASK;
		if (!e || !*skip_ws(e + 1))
			return;
		s = e + 1;
	}
	if ((p = pc_line(b, &user))) {
		if (user)
			return;
		if (parse_frame(p, true, &pf) && (pf.sym || pf.has_addr))
			store_frame(ps, &pf, true);
		return;
	}
	{
		char *label = stack_header(b);

		if (label) {
			free(ps->pending_label);
			ps->pending_label = label;
			if (!strcmp(label, "Call Trace") ||
			    !strcmp(label, "Call trace"))
				ps->section = KP_SEC_TASK;
			return;
		}
	}
	if (parse_frame(s, ps->pending_label != NULL || r->nframes > 0, &pf))
		store_frame(ps, &pf, false);
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
