// SPDX-License-Identifier: GPL-2.0-only
/* linux_frame — line prefixes, symbol names and the frame grammar of
 * Linux kernel logs; see linux_frame.h. */
#include "linux_frame.h"
#include "../lib/util.h"

#include <stdlib.h>

/* Hex number with optional 0x; returns the end, or NULL. */
const char *lx_parse_hex(const char *s, uint64_t *v)
{
	const char *p = s;
	uint64_t x = 0;
	int d, n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && lx_hexval(p[2]) >= 0)
		p += 2;
	while ((d = lx_hexval(*p)) >= 0) {
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
size_t lx_sym_len(const char *s)
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
		} else if (!lx_is_symch(c)) {
			break;
		}
		n++;
		if (n > 512)
			return 0;
	}
	return angle ? 0 : n;
}

/* ---- line prefixes ---- */

/* Remove `<6>`, journal/syslog "Mon DD HH:MM:SS host kernel: ",
 * "MESSAGE=", "[  12.345678]", "[T123]", "[C1]", dmesg -T's
 * "[Mon Nov 23 18:00:00 2026]". Sets *ctx from [T..]/[C..] (0 if none)
 * and *ts from [  12.345678] (-1 if none). */
const char *lx_strip_prefix(const char *s, int *ctx, double *ts)
{
	const char *p;

	*ctx = 0;
	*ts = -1;
	if (lx_starts(s, "MESSAGE="))
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
		q = lx_skip_ws(q);
		if ((*q == 'T' || *q == 'C') && isdigit((unsigned char)q[1])) {
			int v = atoi(q + 1);

			*ctx = *q == 'T' ? v + 1 : -(v + 1);
		} else if (isdigit((unsigned char)*q)) {
			const char *d = q;

			while (isdigit((unsigned char)*d) || *d == '.')
				d++;
			if (d != close)
				break;
			*ts = strtod(q, NULL);
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


/* `+0xOFF/0xSIZE` (size optional); returns the end or NULL. */
static const char *parse_offsize(const char *p, struct lx_frame *f)
{
	const char *e;

	if (*p != '+')
		return NULL;
	e = lx_parse_hex(p + 1, &f->off);
	if (!e)
		return NULL;
	f->has_off = true;
	if (*e == '/') {
		const char *e2 = lx_parse_hex(e + 1, &f->size);

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
bool lx_parse_frame(const char *s, bool in_stack, struct lx_frame *f)
{
	const char *p = s, *e;
	bool paren = false, ws = *s == ' ' || *s == '\t';

	memset(f, 0, sizeof(*f));
	f->reliable = true;
	p = lx_skip_ws(p);
	if (*p == '(' && p[1] == '[') {	/* s390's first frame */
		paren = true;
		p++;
	}
	for (int i = 0; i < 3; i++) {
		if (p[0] == '?' && p[1] == ' ') {
			f->reliable = false;
			p = lx_skip_ws(p + 2);
		}
		if (p[0] == '[') {
			const char *q = p + 1;
			uint64_t v;

			if (*q == '<')
				q++;
			e = lx_parse_hex(q, &v);
			if (!e)
				return false;
			if (*e == '>')
				e++;
			if (*e != ']')
				return false;
			f->addr = v;
			f->has_addr = true;
			p = lx_skip_ws(e + 1);
			continue;
		}
		break;
	}
	if (p[0] == '?' && p[1] == ' ') {
		f->reliable = false;
		p = lx_skip_ws(p + 2);
	}
	if (*p == '(' && f->has_addr) {	/* arm: [<c0>] (func+0x/0x) from */
		p++;
		f->symlen = lx_sym_len(p);
		if (!f->symlen)
			return false;
		f->sym = p;
		p += f->symlen;
		if (*p == '+' && !(p = parse_offsize(p, f)))
			return false;
		if (*p != ')')
			return false;
		p = lx_skip_ws(p + 1);
		if (lx_starts(p, "from "))
			return true;
		return *p == '\0';
	}
	if (*p == '0' && p[1] == 'x' && !f->has_addr && (ws || in_stack)) {
		/* a bare address, as %pB prints without kallsyms */
		e = lx_parse_hex(p, &f->addr);
		if (!e || *lx_skip_ws(e) || e - p < 10)
			return false;
		f->has_addr = true;
		return true;
	}
	if (*p == '0' && p[1] == 'x' && f->has_addr) {	/* no symbol */
		uint64_t v;

		e = lx_parse_hex(p, &v);
		if (e && (*e == '\0' || *e == ' '))
			return *lx_skip_ws(e) == '\0' ||
			       *lx_skip_ws(e) == '[';
		return false;
	}
	if (*p == '.' && lx_is_symch(p[1]) && f->has_addr)
		p++;		/* ppc64 .func */
	f->symlen = lx_sym_len(p);
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
	p = lx_skip_ws(p);
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
				p = lx_skip_ws(c);
				if (!f->has_off && !f->has_addr)
					f->inlined = true;
				if (lx_starts(p, "[inline]"))
					p = lx_skip_ws(p + 8);
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
		while (lx_is_symch(*me) || *me == '-')
			me++;
		if (me == m)
			return false;
		f->mod = m;
		f->modlen = (size_t)(me - m);
		if (*me == ' ') {
			const char *b = me + 1, *be = b;

			while (lx_hexval(*be) >= 0)
				be++;
			if (be == b || *be != ']')
				return false;
			f->bid = b;
			f->bidlen = (size_t)(be - b);
			me = be;
		}
		if (*me != ']')
			return false;
		p = lx_skip_ws(me + 1);
	}
	if (lx_starts(p, "(unreliable)")) {
		f->reliable = false;
		p = lx_skip_ws(p + 12);
	}
	if (paren && *p == ')')
		p = lx_skip_ws(p + 1);
	if (lx_starts(p, "from "))		/* arm / old "from" continuation */
		return true;
	return *p == '\0';
}

/* Function name in "... func+0x1/0x2 ..." or "... func" at p. */
char *lx_func_at(const char *p)
{
	size_t n;

	p = lx_skip_ws(p);
	if (*p == '.' && lx_is_symch(p[1]))
		p++;
	n = lx_sym_len(p);
	return n ? sd_strndup(p, n) : NULL;
}


/* Register lines carrying the pc: x86 RIP/EIP, arm64 pc, arm PC is at,
 * ppc NIP, riscv epc, s390 Krnl PSW. Returns the text after the marker
 * where a frame (or [<addr>] frame) follows, NULL otherwise. */
const char *lx_pc_line(const char *s, bool *user)
{
	const char *p;

	*user = false;
	s = lx_skip_ws(s);
	if (lx_starts(s, "RIP: ") || lx_starts(s, "EIP: ")) {
		p = s + 5;
		/* "0010:" segment; 0033/0023/002b/0073: user space */
		if (isxdigit((unsigned char)p[0]) && p[4] == ':') {
			*user = !strncmp(p, "0033", 4) || !strncmp(p, "002b", 4)
				|| !strncmp(p, "0073", 4) ||
				!strncmp(p, "0023", 4);
			p += 5;
		}
		return p;
	}
	if (lx_starts(s, "IP: "))	/* x86 before 4.16 */
		return s + 4;
	if (lx_starts(s, "pc : "))
		return s + 5;
	if (lx_starts(s, "PC is at "))
		return s + 9;
	if (lx_starts(s, "NIP [") || lx_starts(s, "NIP:"))
		return s + 4;
	if (lx_starts(s, "epc : ") && !isxdigit((unsigned char)s[6]))
		return s + 6;
	if (lx_starts(s, "Krnl PSW : ")) {
		p = strchr(s, '(');
		return p ? p + 1 : NULL;
	}
	return NULL;
}

/* Stack headers: a new stack starts with the next frame. */
char *lx_stack_header(const char *s)
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

	s = lx_skip_ws(s);
	/* lockdep: "{HARDIRQ-ON-W} state was registered at:" */
	if (s[0] == '{' && lx_ends_with(s, "} state was registered at:"))
		return sd_strndup(s, strlen(s) - 1);
	for (int i = 0; hdr[i]; i++)
		if (lx_starts(s, hdr[i])) {
			size_t n = strlen(s);

			while (n && (s[n - 1] == ':' || s[n - 1] == ' '))
				n--;
			return sd_strndup(s, n < 120 ? n : 120);
		}
	return NULL;
}
