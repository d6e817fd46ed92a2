// SPDX-License-Identifier: GPL-2.0-only
/* cg_agg — BPF code that updates an aggregation's per-CPU value: count(),
 * sum(), avg(), min(), max(), stddev() (count, sum and a 128-bit sum of
 * squares) and the histograms quantize(), lquantize() and llquantize(),
 * which find the bucket of a value (the rules of agg.c, unrolled with the
 * parameters as constants) and add the increment to it. dt_cg_agg (cg.c)
 * looks the value up or inserts it and hands over the pointer. */
#include "agg.h"
#include "cg_agg.h"
#include "emit.h"

#define SD(m) ((int)offsetof(struct dt_aggval_stddev, m))
#define MM(m) ((int)offsetof(struct dt_aggval_minmax, m))

/* The word at p + off += imm or += register v (t: a scratch register). */
static void add_imm(struct dt_cg *g, int p, int off, int imm, int t)
{
	dt_emit(g, I_LDX(BPF_DW, t, p, off));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, t, imm));
	dt_emit(g, I_STX(BPF_DW, p, t, off));
}

static void add_reg(struct dt_cg *g, int p, int off, int v, int t)
{
	dt_emit(g, I_LDX(BPF_DW, t, p, off));
	dt_emit(g, I_ALU64_REG(BPF_ADD, t, v));
	dt_emit(g, I_STX(BPF_DW, p, t, off));
}

/* r = floor(log2(x)) for x != 0; x is destroyed. */
static void cg_log2(struct dt_cg *g, int r, int x)
{
	int t = dt_reg(g);

	dt_emit(g, I_MOV_IMM(r, 0));
	for (int s = 32; s; s >>= 1) {
		int skip = dt_label(g);

		dt_emit(g, I_MOV(t, x));
		dt_emit(g, I_ALU64_IMM(BPF_RSH, t, s));
		dt_jmp_imm(g, BPF_JEQ, t, 0, skip);
		dt_emit(g, I_MOV(x, t));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, r, s));
		dt_place(g, skip);
	}
	dt_reg_free(g, t);
}

static void cg_quantize_bucket(struct dt_cg *g, int b, int val)
{
	int x = dt_reg(g), neg = dt_reg(g), l = dt_reg(g);
	int pos = dt_label(g), isneg = dt_label(g), done = dt_label(g);

	dt_emit(g, I_MOV(x, val));
	dt_emit(g, I_MOV_IMM(neg, 0));
	dt_jmp_imm(g, BPF_JSGE, x, 0, pos);
	dt_emit(g, I_ALU64_IMM(BPF_NEG, x, 0));
	dt_emit(g, I_MOV_IMM(neg, 1));
	dt_place(g, pos);
	dt_emit(g, I_MOV_IMM(b, DT_QUANTIZE_ZERO));
	dt_jmp_imm(g, BPF_JEQ, x, 0, done);
	cg_log2(g, l, x);
	dt_jmp_imm(g, BPF_JNE, neg, 0, isneg);
	dt_emit(g, I_MOV_IMM(b, DT_QUANTIZE_ZERO + 1));
	dt_emit(g, I_ALU64_REG(BPF_ADD, b, l));
	dt_jmp(g, done);
	dt_place(g, isneg);
	dt_emit(g, I_MOV_IMM(b, DT_QUANTIZE_ZERO - 1));
	dt_emit(g, I_ALU64_REG(BPF_SUB, b, l));
	dt_jmp_imm(g, BPF_JSGE, b, 0, done);
	dt_emit(g, I_MOV_IMM(b, 0));	/* INT64_MIN */
	dt_place(g, done);
	dt_reg_free(g, l);
	dt_reg_free(g, neg);
	dt_reg_free(g, x);
}

static void cg_lquantize_bucket(struct dt_cg *g, const struct dt_var *v,
				int b, int val)
{
	int64_t lo = v->qarg[0], step = v->qarg[2], levels = v->qarg[3];
	int t = dt_reg(g), done = dt_label(g);

	dt_ld_imm64(g, t, (uint64_t)lo);
	dt_emit(g, I_MOV_IMM(b, 0));
	dt_jmp_reg(g, BPF_JSLT, val, t, done);
	dt_ld_imm64(g, t, (uint64_t)(lo + levels * step));
	dt_emit(g, I_MOV_IMM(b, (int32_t)levels + 1));
	dt_jmp_reg(g, BPF_JSGE, val, t, done);
	dt_emit(g, I_MOV(b, val));
	dt_ld_imm64(g, t, (uint64_t)lo);
	dt_emit(g, I_ALU64_REG(BPF_SUB, b, t));
	if (step > INT32_MAX) {
		dt_ld_imm64(g, t, (uint64_t)step);
		dt_emit(g, I_ALU64_REG(BPF_DIV, b, t));
	} else if (step > 1) {
		dt_emit(g, I_ALU64_IMM(BPF_DIV, b, (int32_t)step));
	}
	dt_emit(g, I_ALU64_IMM(BPF_ADD, b, 1));
	dt_place(g, done);
	dt_reg_free(g, t);
}

/* dtrace-utils' llquantize bucket (agg.c's dt_llquantize_bucket, which
 * this mirrors): the absolute value's magnitude, one comparison per
 * magnitude (at most 64: factor^(high+1) fits in 64 bits), its step in
 * the magnitude, mirrored below the middle bucket for negative values. */
static void cg_llquantize_bucket(struct dt_cg *g, const struct dt_var *v,
				 int b, int val)
{
	int64_t factor = v->qarg[0], low = v->qarg[1], high = v->qarg[2];
	int64_t steps = v->qarg[3], sf = steps / factor;
	int zero = dt_llquantize_zero(factor, low, high, steps);
	int t = dt_reg(g), m = dt_reg(g), done = dt_label(g),
	    sign = dt_label(g), pos = dt_label(g);
	uint64_t max = 1;

	for (int64_t i = 0; i < low; i++)
		max *= (uint64_t)factor;
	dt_emit(g, I_MOV(t, val));
	dt_jmp_imm(g, BPF_JSGE, val, 0, pos);
	dt_emit(g, I_ALU64_IMM(BPF_MUL, t, -1));
	dt_place(g, pos);
	dt_emit(g, I_MOV_IMM(b, zero));
	dt_ld_imm64(g, m, max);
	dt_jmp_reg(g, BPF_JLT, t, m, done);
	for (int64_t mag = low; mag <= high; mag++) {
		int next = dt_label(g);

		max *= (uint64_t)factor;
		dt_ld_imm64(g, m, max);
		dt_jmp_reg(g, BPF_JGE, t, m, next);
		dt_emit(g, I_MOV(b, t));
		if (mag) {
			uint64_t q = max / (uint64_t)steps;

			if (q) {
				dt_ld_imm64(g, m, q);
				dt_emit(g, I_ALU64_REG(BPF_DIV, b, m));
			} else {
				dt_emit(g, I_MOV_IMM(b, 0));
			}
		} else {
			dt_emit(g, I_ALU64_IMM(BPF_MUL, b, (int32_t)steps));
			dt_emit(g, I_ALU64_REG(BPF_DIV, b, m));
		}
		dt_emit(g, I_ALU64_IMM(BPF_ADD, b, (int32_t)((mag - low) *
				       (steps - sf) + 1 - sf)));
		dt_jmp(g, sign);
		dt_place(g, next);
	}
	dt_emit(g, I_MOV_IMM(b, (int32_t)((high + 1 - low) * (steps - sf) +
					   1)));
	dt_place(g, sign);
	pos = dt_label(g);
	dt_jmp_imm(g, BPF_JSGE, val, 0, pos);
	dt_emit(g, I_ALU64_IMM(BPF_MUL, b, -1));
	dt_place(g, pos);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, b, zero));
	dt_place(g, done);
	dt_reg_free(g, m);
	dt_reg_free(g, t);
}

static void cg_agg_hist(struct dt_cg *g, const struct dt_var *v, int p, int val,
		    int incr)
{
	int nb = dt_agg_words(v), b = dt_reg(g), t, ok = dt_label(g);

	switch (v->fn) {
	case AGG_QUANTIZE:
		cg_quantize_bucket(g, b, val);
		break;
	case AGG_LQUANTIZE:
		cg_lquantize_bucket(g, v, b, val);
		break;
	default:
		cg_llquantize_bucket(g, v, b, val);
		break;
	}
	/* The verifier wants the index bounded where it is used. */
	dt_jmp_imm(g, BPF_JLE, b, nb - 1, ok);
	dt_emit(g, I_MOV_IMM(b, nb - 1));
	dt_place(g, ok);
	dt_emit(g, I_ALU64_IMM(BPF_LSH, b, 3));
	dt_emit(g, I_ALU64_REG(BPF_ADD, b, p));
	t = dt_reg(g);
	dt_emit(g, I_LDX(BPF_DW, t, b, 0));
	if (incr >= 0)
		dt_emit(g, I_ALU64_REG(BPF_ADD, t, incr));
	else
		dt_emit(g, I_ALU64_IMM(BPF_ADD, t, 1));
	dt_emit(g, I_STX(BPF_DW, b, t, 0));
	dt_reg_free(g, t);
	dt_reg_free(g, b);
}

static void cg_agg_stddev(struct dt_cg *g, int p, int val)
{
	int x = dt_reg(g), a = dt_reg(g), lo = dt_reg(g), ab = dt_reg(g),
	    t = dt_reg(g);
	int l1 = dt_label(g), l2 = dt_label(g), l3 = dt_label(g);

	add_imm(g, p, SD(count), 1, t);
	add_reg(g, p, SD(sum), val, t);
	/* |val|^2 as 128 bits: with val = a * 2^32 + b,
	 * a^2 * 2^64 + a*b * 2^33 + b^2 */
	dt_emit(g, I_MOV(x, val));
	dt_jmp_imm(g, BPF_JSGE, x, 0, l1);
	dt_emit(g, I_ALU64_IMM(BPF_NEG, x, 0));
	dt_place(g, l1);
	dt_emit(g, I_MOV(a, x));
	dt_emit(g, I_ALU64_IMM(BPF_RSH, a, 32));
	dt_emit(g, I_MOV32(x, x));
	dt_emit(g, I_MOV(lo, x));
	dt_emit(g, I_ALU64_REG(BPF_MUL, lo, x));
	dt_emit(g, I_MOV(ab, a));
	dt_emit(g, I_ALU64_REG(BPF_MUL, ab, x));
	dt_emit(g, I_ALU64_REG(BPF_MUL, a, a));	/* a is now the high word */
	dt_emit(g, I_MOV(t, ab));
	dt_emit(g, I_ALU64_IMM(BPF_LSH, t, 33));
	dt_emit(g, I_ALU64_REG(BPF_ADD, lo, t));
	dt_jmp_reg(g, BPF_JGE, lo, t, l2);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, a, 1));
	dt_place(g, l2);
	dt_emit(g, I_ALU64_IMM(BPF_RSH, ab, 31));
	dt_emit(g, I_ALU64_REG(BPF_ADD, a, ab));
	/* add to the sum of squares, low word first */
	add_reg(g, p, SD(sumsq_lo), lo, t);
	dt_jmp_reg(g, BPF_JGE, t, lo, l3);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, a, 1));
	dt_place(g, l3);
	add_reg(g, p, SD(sumsq_hi), a, t);
	dt_reg_free(g, t);
	dt_reg_free(g, ab);
	dt_reg_free(g, lo);
	dt_reg_free(g, a);
	dt_reg_free(g, x);
}

void dt_cg_agg_update(struct dt_cg *g, const struct dt_var *v, int p,
		      int val, int incr)
{
	int t = dt_reg(g);

	switch (v->fn) {
	case AGG_COUNT:
		add_imm(g, p, offsetof(struct dt_aggval_count, count), 1, t);
		break;
	case AGG_SUM:
		add_reg(g, p, offsetof(struct dt_aggval_sum, sum), val, t);
		break;
	case AGG_AVG:
		add_imm(g, p, offsetof(struct dt_aggval_avg, count), 1, t);
		add_reg(g, p, offsetof(struct dt_aggval_avg, sum), val, t);
		break;
	case AGG_MIN:
	case AGG_MAX: {
		int set = dt_label(g), keep = dt_label(g);

		dt_emit(g, I_LDX(BPF_DW, t, p, MM(set)));
		dt_jmp_imm(g, BPF_JEQ, t, 0, set);
		dt_emit(g, I_LDX(BPF_DW, t, p, MM(val)));
		dt_jmp_reg(g, v->fn == AGG_MIN ? BPF_JSLE : BPF_JSGE, t, val,
			   keep);
		dt_place(g, set);
		dt_emit(g, I_STX(BPF_DW, p, val, MM(val)));
		dt_emit(g, I_ST(BPF_DW, p, MM(set), 1));
		dt_place(g, keep);
		break;
	}
	case AGG_STDDEV:
		cg_agg_stddev(g, p, val);
		break;
	case AGG_QUANTIZE:
	case AGG_LQUANTIZE:
	case AGG_LLQUANTIZE:
		cg_agg_hist(g, v, p, val, incr);
		break;
	default:
		break;
	}
	dt_reg_free(g, t);
}
