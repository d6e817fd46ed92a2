// SPDX-License-Identifier: GPL-2.0-only
/* cg_net — D's network address functions as BPF: inet_ntoa6() and
 * link_ntop(). The text is written without loops and, but
 * for the IPv4-in-IPv6 test, without branches: every character is stored
 * at the output position and the position moves on by a 0 or 1 computed
 * from the data, so the verifier follows one path whatever the address
 * (dtrace-utils' bpf/inet_ntoa6.S works the same way). */
#include "cg_net.h"
#include "emit.h"

/* The block in the scratch area: the address as read, the words in host
 * order, the run of zero words found, then the text. */
enum {
	N6_RAW = 0,		/* 16 bytes, network order */
	N6_WORD = 16,		/* 8 words, host order */
	N6_START = 32,		/* the longest run of zero words: its start */
	N6_LEN = 40,		/* and length (0: none of 2 or more) */
	N6_PREV = 48,		/* word k - 1 was in the run */
	N6_OUT = 56,		/* the text: at most 49 bytes with its NUL */
	N6_SIZE = N6_OUT + 64,
};

/* x = 1 when x > 0 (x a small non-negative value), else 0 */
static void positive(struct dt_cg *g, int x)
{
	dt_emit(g, I_ALU64_IMM(BPF_NEG, x, 0));
	dt_emit(g, I_ALU64_IMM(BPF_RSH, x, 63));
}

/* Store character c (an immediate) at p and move p on by the 0 or 1 in
 * register by. */
static void put_imm(struct dt_cg *g, int p, int c, int by)
{
	dt_emit(g, I_ST(BPF_B, p, 0, c));
	if (by >= 0)
		dt_emit(g, I_ALU64_REG(BPF_ADD, p, by));
	else
		dt_emit(g, I_ALU64_IMM(BPF_ADD, p, 1));
}

/* Byte b (a register, consumed) in decimal at p, without leading
 * zeros. */
static void put_dec(struct dt_cg *g, int p, int b, int t, int u)
{
	/* hundreds */
	dt_emit(g, I_MOV(t, b));
	dt_emit(g, I_ALU64_IMM(BPF_DIV, t, 100));
	dt_emit(g, I_MOV(u, t));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, u, '0'));
	dt_emit(g, I_STX(BPF_B, p, u, 0));
	positive(g, t);
	dt_emit(g, I_ALU64_REG(BPF_ADD, p, t));
	/* tens: written when the number is 10 or more */
	dt_emit(g, I_MOV(t, b));
	dt_emit(g, I_ALU64_IMM(BPF_DIV, t, 10));
	dt_emit(g, I_MOV(u, t));
	dt_emit(g, I_ALU64_IMM(BPF_MOD, u, 10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, u, '0'));
	dt_emit(g, I_STX(BPF_B, p, u, 0));
	positive(g, t);
	dt_emit(g, I_ALU64_REG(BPF_ADD, p, t));
	/* ones */
	dt_emit(g, I_ALU64_IMM(BPF_MOD, b, 10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, b, '0'));
	dt_emit(g, I_STX(BPF_B, p, b, 0));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, p, 1));
}

/* The last 4 bytes of the address as a dotted quad at p. */
static void put_v4(struct dt_cg *g, int base, int p, int b, int t, int u)
{
	for (int i = 0; i < 4; i++) {
		dt_emit(g, I_LDX(BPF_B, b, base, N6_RAW + 12 + i));
		put_dec(g, p, b, t, u);
		if (i < 3)
			put_imm(g, p, '.', -1);
	}
}

/* Word w (a register, consumed) in hex without leading zeros at p, when
 * register emit is 1; when it is 0 the characters are stored but p does
 * not move. */
static void put_hex(struct dt_cg *g, int p, int w, int emit, int s, int c,
		    int t)
{
	dt_emit(g, I_MOV_IMM(s, 0));
	for (int i = 3; i >= 0; i--) {
		dt_emit(g, I_MOV(c, w));
		if (i)
			dt_emit(g, I_ALU64_IMM(BPF_RSH, c, 4 * i));
		dt_emit(g, I_ALU64_IMM(BPF_AND, c, 0xf));
		/* c + '0', plus 'a' - '0' - 10 when c > 9 */
		dt_emit(g, I_MOV(t, c));
		dt_emit(g, I_ALU64_IMM(BPF_SUB, t, 9));
		positive(g, t);
		dt_emit(g, I_ALU64_IMM(BPF_MUL, t, 'a' - '0' - 10));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, t, '0'));
		dt_emit(g, I_ALU64_REG(BPF_ADD, t, c));
		dt_emit(g, I_STX(BPF_B, p, t, 0));
		/* a digit counts once one was not zero; the last always */
		if (i) {
			dt_emit(g, I_ALU64_REG(BPF_ADD, s, c));
			dt_emit(g, I_MOV(t, s));
			positive(g, t);
		} else {
			dt_emit(g, I_MOV_IMM(t, 1));
		}
		dt_emit(g, I_ALU64_REG(BPF_MUL, t, emit));
		dt_emit(g, I_ALU64_REG(BPF_ADD, p, t));
	}
}

int dt_cg_inet_ntoa6(struct dt_cg *g, int a, bool strict)
{
	int blk = dt_cg_temp(g, N6_SIZE), base, p, w, c, t, u, v;
	int v6 = dt_label(g), mapped = dt_label(g), compat = dt_label(g),
	    done = dt_label(g);

	dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel, a, blk + N6_RAW, 16);
	base = dt_reg(g);
	p = dt_reg(g);
	w = dt_reg(g);
	c = dt_reg(g);
	t = dt_reg(g);
	u = dt_reg(g);
	v = dt_reg(g);
	dt_cg_scratch_ptr(g, base, blk);
	dt_cg_scratch_ptr(g, p, blk + N6_OUT);
	dt_cg_zero(g, p, 64);
	/* the words in host order */
	for (int k = 0; k < 8; k++) {
		dt_emit(g, I_LDX(BPF_B, w, base, N6_RAW + 2 * k));
		dt_emit(g, I_ALU64_IMM(BPF_LSH, w, 8));
		dt_emit(g, I_LDX(BPF_B, t, base, N6_RAW + 2 * k + 1));
		dt_emit(g, I_ALU64_REG(BPF_OR, w, t));
		dt_emit(g, I_STX(BPF_H, base, w, N6_WORD + 2 * k));
	}
	/* IPv4 in IPv6, as DTrace decides it: five zero words, then ffff
	 * (mapped), or six zero words then a non-zero one, or seven and a
	 * last word other than 0 and 1 (compatible) */
	dt_emit(g, I_LDX(BPF_DW, w, base, N6_RAW));
	dt_jmp_imm(g, BPF_JNE, w, 0, v6);
	dt_emit(g, I_LDX(BPF_H, w, base, N6_WORD + 8));
	dt_jmp_imm(g, BPF_JNE, w, 0, v6);
	dt_emit(g, I_LDX(BPF_H, w, base, N6_WORD + 10));
	dt_jmp_imm(g, BPF_JEQ, w, 0xffff, mapped);
	dt_jmp_imm(g, BPF_JNE, w, 0, v6);
	dt_emit(g, I_LDX(BPF_H, w, base, N6_WORD + 12));
	dt_jmp_imm(g, BPF_JNE, w, 0, compat);
	dt_emit(g, I_LDX(BPF_H, w, base, N6_WORD + 14));
	dt_jmp_imm(g, BPF_JGT, w, 1, compat);
	dt_jmp(g, v6);
	dt_place(g, mapped);
	if (strict) {
		static const char pre[] = "::ffff:";

		for (const char *s = pre; *s; s++)
			put_imm(g, p, *s, -1);
	}
	put_v4(g, base, p, w, t, u);
	dt_jmp(g, done);
	dt_place(g, compat);
	if (strict) {
		put_imm(g, p, ':', -1);
		put_imm(g, p, ':', -1);
	}
	put_v4(g, base, p, w, t, u);
	dt_jmp(g, done);

	/* the longest run of zero words (the first of equal ones): c is
	 * the run ending at word k, its length */
	dt_place(g, v6);
	dt_emit(g, I_MOV_IMM(c, 0));
	dt_emit(g, I_ST(BPF_DW, base, N6_START, 0));
	dt_emit(g, I_ST(BPF_DW, base, N6_LEN, 0));
	for (int k = 0; k < 8; k++) {
		/* t = word k is zero; c = (c + 1) * t */
		dt_emit(g, I_LDX(BPF_H, t, base, N6_WORD + 2 * k));
		positive(g, t);
		dt_emit(g, I_ALU64_IMM(BPF_XOR, t, 1));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, c, 1));
		dt_emit(g, I_ALU64_REG(BPF_MUL, c, t));
		/* t = c > len; len += t * (c - len) */
		dt_emit(g, I_LDX(BPF_DW, w, base, N6_LEN));
		dt_emit(g, I_MOV(t, w));
		dt_emit(g, I_ALU64_REG(BPF_SUB, t, c));
		dt_emit(g, I_ALU64_IMM(BPF_RSH, t, 63));
		dt_emit(g, I_MOV(u, c));
		dt_emit(g, I_ALU64_REG(BPF_SUB, u, w));
		dt_emit(g, I_ALU64_REG(BPF_MUL, u, t));
		dt_emit(g, I_ALU64_REG(BPF_ADD, w, u));
		dt_emit(g, I_STX(BPF_DW, base, w, N6_LEN));
		/* start += t * (k + 1 - c - start) */
		dt_emit(g, I_LDX(BPF_DW, w, base, N6_START));
		dt_emit(g, I_MOV_IMM(u, k + 1));
		dt_emit(g, I_ALU64_REG(BPF_SUB, u, c));
		dt_emit(g, I_ALU64_REG(BPF_SUB, u, w));
		dt_emit(g, I_ALU64_REG(BPF_MUL, u, t));
		dt_emit(g, I_ALU64_REG(BPF_ADD, w, u));
		dt_emit(g, I_STX(BPF_DW, base, w, N6_START));
	}
	/* a single zero word is not a run: len = 0 unless it is 2 or more */
	dt_emit(g, I_LDX(BPF_DW, w, base, N6_LEN));
	dt_emit(g, I_MOV(t, w));
	dt_emit(g, I_ALU64_IMM(BPF_SUB, t, 1));
	positive(g, t);
	dt_emit(g, I_ALU64_REG(BPF_MUL, w, t));
	dt_emit(g, I_STX(BPF_DW, base, w, N6_LEN));
	dt_emit(g, I_ST(BPF_DW, base, N6_PREV, 0));
	for (int k = 0; k < 8; k++) {
		/* c = word k is in the run: start <= k < start + len */
		dt_emit(g, I_LDX(BPF_DW, w, base, N6_START));
		dt_emit(g, I_MOV_IMM(c, k));
		dt_emit(g, I_ALU64_REG(BPF_SUB, c, w));
		dt_emit(g, I_ALU64_IMM(BPF_RSH, c, 63));
		dt_emit(g, I_ALU64_IMM(BPF_XOR, c, 1));
		dt_emit(g, I_LDX(BPF_DW, t, base, N6_LEN));
		dt_emit(g, I_ALU64_REG(BPF_ADD, w, t));
		dt_emit(g, I_MOV_IMM(t, k));
		dt_emit(g, I_ALU64_REG(BPF_SUB, t, w));
		dt_emit(g, I_ALU64_IMM(BPF_RSH, t, 63));
		dt_emit(g, I_ALU64_REG(BPF_AND, c, t));
		/* the run's first word: one ':' (the next word adds its
		 * own, or the end one) */
		dt_emit(g, I_LDX(BPF_DW, t, base, N6_PREV));
		dt_emit(g, I_ALU64_IMM(BPF_XOR, t, 1));
		dt_emit(g, I_ALU64_REG(BPF_AND, t, c));
		put_imm(g, p, ':', t);
		dt_emit(g, I_STX(BPF_DW, base, c, N6_PREV));
		/* a word written: ':' before it but the first, then it */
		dt_emit(g, I_ALU64_IMM(BPF_XOR, c, 1));
		if (k)
			put_imm(g, p, ':', c);
		dt_emit(g, I_LDX(BPF_H, w, base, N6_WORD + 2 * k));
		put_hex(g, p, w, c, t, u, v);
	}
	/* a run to the end: its second ':' */
	dt_emit(g, I_LDX(BPF_DW, t, base, N6_PREV));
	dt_emit(g, I_ALU64_IMM(BPF_AND, t, 1));	/* bounded for the verifier */
	put_imm(g, p, ':', t);
	dt_place(g, done);
	dt_emit(g, I_ST(BPF_B, p, 0, 0));
	dt_reg_free(g, v);
	dt_reg_free(g, u);
	dt_reg_free(g, t);
	dt_reg_free(g, c);
	dt_reg_free(g, w);
	dt_reg_free(g, p);
	dt_reg_free(g, base);
	return blk + N6_OUT;
}

/* link_ntop(type, a): the hardware address at a as hex bytes joined by
 * ':' — 6 bytes for ARPHRD_ETHER (1), 20 for ARPHRD_INFINIBAND (32);
 * another type is an illegal operation, as in DTrace. */
enum { LINK_ETHER = 1, LINK_INFINIBAND = 32, LINK_MAX = 20 };

static void put_bytes(struct dt_cg *g, int base, int n, int c, int t)
{
	for (int i = 0; i < n; i++) {
		for (int h = 0; h < 2; h++) {
			dt_emit(g, I_LDX(BPF_B, c, base, i));
			if (!h)
				dt_emit(g, I_ALU64_IMM(BPF_RSH, c, 4));
			dt_emit(g, I_ALU64_IMM(BPF_AND, c, 0xf));
			dt_emit(g, I_MOV(t, c));
			dt_emit(g, I_ALU64_IMM(BPF_SUB, t, 9));
			positive(g, t);
			dt_emit(g, I_ALU64_IMM(BPF_MUL, t, 'a' - '0' - 10));
			dt_emit(g, I_ALU64_REG(BPF_ADD, c, t));
			dt_emit(g, I_ALU64_IMM(BPF_ADD, c, '0'));
			dt_emit(g, I_STX(BPF_B, base, c, LINK_MAX + 3 * i + h));
		}
		dt_emit(g, I_ST(BPF_B, base, LINK_MAX + 3 * i + 2,
				i + 1 < n ? ':' : 0));
	}
}

int dt_cg_link_ntop(struct dt_cg *g, int type, int a)
{
	int blk = dt_cg_temp(g, LINK_MAX + DT_LINK_NTOP_SIZE), base, c, t;
	int ib = dt_label(g), bad = dt_label(g), done = dt_label(g);
	int sizes[2] = { 6, LINK_MAX };

	dt_jmp_imm(g, BPF_JEQ, type, LINK_INFINIBAND, ib);
	dt_jmp_imm(g, BPF_JNE, type, LINK_ETHER, bad);
	for (int k = 0; k < 2; k++) {
		if (k) {
			dt_place(g, ib);
		}
		dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel, a, blk,
				   sizes[k]);
		base = dt_reg(g);
		c = dt_reg(g);
		t = dt_reg(g);
		dt_cg_scratch_ptr(g, base, blk);
		put_bytes(g, base, sizes[k], c, t);
		dt_reg_free(g, t);
		dt_reg_free(g, c);
		dt_reg_free(g, base);
		dt_jmp(g, done);
	}
	dt_place(g, bad);
	dt_cg_fault(g, DTRACEFLT_ILLOP, -1);
	dt_place(g, done);
	return blk + LINK_MAX;
}
