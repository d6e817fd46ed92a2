// SPDX-License-Identifier: GPL-2.0-only
/* fmt — DTrace's printf() and printa() format strings: parsed once at
 * compile time (to check each conversion against its argument's type) and
 * applied by the consumer to the values in a record. Conversions: d i u o
 * x X c s p Y (walltimestamp as a date), k (a stack), e E f g G (a float
 * or double: its bits, by its size) and %%, with the flags - + space #
 * 0, widths and precisions (also '*'), C's length modifiers (accepted and
 * ignored: D knows each argument's size), and %@ for printa's value. */
#ifndef SONDE_DTRACE_FMT_H
#define SONDE_DTRACE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dt_conv {
	const char *text;	/* literal text before the conversion */
	size_t text_len;
	char flags[8];
	int width, prec;	/* -1: none; -2: from an argument ('*') */
	char conv;		/* 0: trailing text only */
	char name[6];		/* the length modifiers and conv ("lld") */
	int num;		/* its number in the format, as DTrace counts
				 * ("%%" included), from 1 */
	bool agg;		/* %@: printa's aggregation value */
};

struct dt_fmt {
	struct dt_conv *convs;
	int n;
	int nargs;		/* arguments consumed, '*' ones included */
};

/* Parse fmt; 0, or -1 with a message in err (DTrace's words: "format
 * conversion #1 is undefined: %z"). The struct points into fmt,
 * which must outlive it. */
int dt_fmt_parse(const char *fmt, struct dt_fmt *out, char *err, size_t len);
void dt_fmt_free(struct dt_fmt *f);

/* What a conversion accepts. */
enum dt_fmt_arg { FMT_INT, FMT_STR, FMT_STACK, FMT_FLOAT, FMT_NONE };
enum dt_fmt_arg dt_fmt_wants(char conv);

/* One argument of a formatted record. */
struct dt_fmt_val {
	bool is_str;
	const char *s;		/* %k: the frames, one a line, indented */
	uint64_t v;
	uint8_t size;		/* 1, 2, 4, 8 */
	bool sign;
	/* printa's value when it is a histogram: printed by this */
	void (*print)(FILE *f, const void *ctx);
	const void *ctx;
};

struct sbuf;

/* A symbol as DTrace prints it, into sb: module`function, +0xoff when off
 * is not 0, no module when mod is NULL. An ELF version ("@GLIBC_2.2.5") is
 * cut off; demangle names the symbols shown readable (lib/demangle's
 * DEMANGLE_RUST, DEMANGLE_CXX, DEMANGLE_ALL; 0: every name as it is). */
void dt_fmt_symbol(struct sbuf *sb, const char *mod, const char *fn,
		   uint64_t off, unsigned demangle);

/* Print with vals (nvals of them, '*' ones included); the values of %@
 * come from aggvals (naggs of them, NULL outside printa): the nth %@ takes
 * the nth, the ones past the last the last (as dtrace-utils). */
void dt_fmt_print(FILE *f, const struct dt_fmt *fmt, const struct dt_fmt_val
		  *vals, int nvals, const struct dt_fmt_val *aggvals,
		  int naggs);

#endif
