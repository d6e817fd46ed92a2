// SPDX-License-Identifier: GPL-2.0-only
/* linux_frame — the pieces of a Linux kernel log line below the level of
 * a report: the prefixes a line carries ([ts], [T123]/[C1], <N>, journal
 * and syslog), symbol names, hex numbers, and the frame grammar (RIP/pc
 * lines, `func+0x1/0x2 [mod buildid]`, the old `[<addr>] func+off/size`,
 * arm's `(func) from`, ppc's `[sp] [pc] func`, stack headers). Used by
 * the report parser (linux.c) and the headline recognisers
 * (linux_kind.c). */
#ifndef SONDE_KPTRACE_LINUX_FRAME_H
#define SONDE_KPTRACE_LINUX_FRAME_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool lx_starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static inline const char *lx_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static inline bool lx_ends_with(const char *s, const char *e)
{
	size_t n = strlen(s), m = strlen(e);

	return n >= m && !strcmp(s + n - m, e);
}

static inline bool lx_is_symch(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '$';
}

static inline int lx_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Hex number with optional 0x (at most 16 digits); returns the end, or
 * NULL. */
const char *lx_parse_hex(const char *s, uint64_t *v);
/* A symbol name at s: C identifiers with compiler suffixes, Rust paths
 * `<a::B as c::D>::f` (which hold spaces inside the angle brackets).
 * Returns its length, 0 when there is none. */
size_t lx_sym_len(const char *s);
/* The function name in "... func+0x1/0x2 ..." or "... func" at p,
 * malloc'd, or NULL. */
char *lx_func_at(const char *p);

/* Remove `<6>`, journal/syslog "Mon DD HH:MM:SS host kernel: ",
 * "MESSAGE=", "[  12.345678]", "[T123]", "[C1]", dmesg -T's
 * "[Mon Nov 23 18:00:00 2026]". Sets *ctx from [T..]/[C..] (T: id + 1,
 * C: -(id + 1), 0 if none) and *ts from "[  12.345678]" (seconds since
 * boot, -1 if none). */
const char *lx_strip_prefix(const char *s, int *ctx, double *ts);

/* One frame as a line printed it; the strings point into the line. */
struct lx_frame {
	uint64_t addr;
	bool has_addr, has_off, has_size, reliable, inlined;
	const char *sym;
	size_t symlen;
	uint64_t off, size;
	const char *mod, *bid;
	size_t modlen, bidlen;
};

/* Parse one frame line (its prefix removed); in_stack: a stack header or
 * frame came before, so a line without an address may be a frame. */
bool lx_parse_frame(const char *s, bool in_stack, struct lx_frame *f);
/* Register lines carrying the pc: x86 RIP/EIP, arm64 pc, arm PC is at,
 * ppc NIP, riscv epc, s390 Krnl PSW. Returns the text after the marker
 * where a frame (or [<addr>] frame) follows, NULL otherwise; *user when
 * the segment says user space. */
const char *lx_pc_line(const char *s, bool *user);
/* A stack header ("Call Trace:", "Freed by task 1:", "-> #0 (...)", ...):
 * its label, malloc'd, or NULL. */
char *lx_stack_header(const char *s);

#endif
