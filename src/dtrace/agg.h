// SPDX-License-Identifier: GPL-2.0-only
/* agg — what an aggregating function's value is, shared by the code
 * generator and the consumer: its per-CPU layout in words, the bucket a
 * value falls in for quantize(), lquantize() and llquantize() (the rules
 * the BPF code applies, kept here for the consumer and the tests), how two
 * CPUs' values merge, the value printa() prints and sorts on, and
 * DTrace's histogram layout (value / Distribution / count, '@' bars 40
 * wide, the zero rows around the data, "< lo" and ">= hi" rows). */
#ifndef SONDE_DTRACE_AGG_H
#define SONDE_DTRACE_AGG_H

#include "ast.h"

#include <stdio.h>

/* quantize(): 127 power-of-two buckets, bucket 63 holds 0. */
enum { DT_QUANTIZE_NBUCKETS = 127, DT_QUANTIZE_ZERO = 63 };

/* 8-byte words in a per-CPU value of v. */
int dt_agg_words(const struct dt_var *v);
bool dt_agg_is_hist(const struct dt_var *v);

int dt_quantize_bucket(int64_t val);
int64_t dt_quantize_bucketval(int bucket);
/* lquantize: 0 is "< lo", levels + 1 is ">= hi". */
int dt_lquantize_bucket(int64_t lo, int64_t step, int64_t levels,
			int64_t val);
/* llquantize, laid out as dtrace-utils does: 0 is "<= -factor^(high+1)",
 * then the negative buckets, the middle one "abs() < factor^low", the
 * positive buckets, and the last ">= factor^(high+1)"; each magnitude
 * has nsteps - nsteps/factor buckets (a few never used when low is 0 and
 * nsteps > factor). */
int dt_llquantize_bucket(int64_t factor, int64_t low, int64_t high,
			 int64_t nsteps, int64_t val);
int dt_llquantize_nbuckets(int64_t factor, int64_t low, int64_t high,
			   int64_t nsteps);
/* The middle bucket (values whose absolute value is below factor^low). */
int dt_llquantize_zero(int64_t factor, int64_t low, int64_t high,
		       int64_t nsteps);
/* The check llquantize's parameters must pass; NULL or the problem. */
const char *dt_llquantize_check(int64_t factor, int64_t low, int64_t high,
				int64_t nsteps);

/* dst += src (one CPU's value, or another probe's under the same key). */
void dt_agg_merge(const struct dt_var *v, int64_t *dst, const int64_t *src);
/* count, sum, avg, min, max, stddev: the value printed, divided by
 * normal (normalize()). */
int64_t dt_agg_scalar(const struct dt_var *v, const int64_t *val,
		      uint64_t normal);
/* Order of two values as DTrace sorts them (histograms by their weighted
 * sum, then by the count at zero). */
int dt_agg_valcmp(const struct dt_var *v, const int64_t *a, const int64_t *b);
/* Print a histogram value, starting with its newline and heading. */
void dt_agg_print_hist(FILE *f, const struct dt_var *v, const int64_t *val,
		       uint64_t normal);

#endif
