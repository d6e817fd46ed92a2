// SPDX-License-Identifier: GPL-2.0-only
/* cg_str — D's string functions as BPF loops: strlen, strjoin, substr,
 * strchr, strrchr, toupper, tolower, lltostr, basename, dirname, strtok.
 * Strings are zero-padded buffers of a known size (types.c), so every loop
 * is bounded by that size and every indexed access is preceded by a
 * compare the verifier can use; results go to a zeroed scratch temporary
 * of strsize bytes. The semantics follow illumos' dtrace_dif_subr. */
#include "cg_str.h"
#include "emit.h"

/* Go on when reg op imm holds, else leave for label: the way out is the
 * branch the verifier follows first, the next iteration the one it keeps
 * for later, so a loop leaves one pending state instead of one per
 * iteration and exit (the verifier's limit is 8192 of them). */
static void stay_if(struct dt_cg *g, int op, int reg, int32_t imm, int label)
{
	int on = dt_label(g);

	dt_jmp_imm(g, op, reg, imm, on);
	dt_jmp(g, label);
	dt_place(g, on);
}

/* The same for reg op src. */
static void stay_if_reg(struct dt_cg *g, int op, int reg, int src, int label)
{
	int on = dt_label(g);

	dt_jmp_reg(g, op, reg, src, on);
	dt_jmp(g, label);
	dt_place(g, on);
}

/* The inverse of each conditional jump: stay_if(inv(op)) leaves when op
 * holds. */
static int inv(int op)
{
	switch (op) {
	case BPF_JEQ: return BPF_JNE;
	case BPF_JNE: return BPF_JEQ;
	case BPF_JGE: return BPF_JLT;
	case BPF_JLT: return BPF_JGE;
	case BPF_JGT: return BPF_JLE;
	case BPF_JLE: return BPF_JGT;
	case BPF_JSGE: return BPF_JSLT;
	case BPF_JSLT: return BPF_JSGE;
	case BPF_JSGT: return BPF_JSLE;
	default: return BPF_JSGT;	/* BPF_JSLE */
	}
}

/* Leave a loop for label when reg op imm (src) holds: the continuation is
 * the pushed state (see stay_if). */
static void leave_if(struct dt_cg *g, int op, int reg, int32_t imm, int label)
{
	stay_if(g, inv(op), reg, imm, label);
}

static void leave_if_reg(struct dt_cg *g, int op, int reg, int src, int label)
{
	stay_if_reg(g, inv(op), reg, src, label);
}

void dt_cg_strcpy(struct dt_cg *g, int dst, int dst_size, int src,
		  int src_size)
{
	int dn = (dst_size + 7) & ~7, sn = (src_size + 7) & ~7;
	int n = dn < sn ? dn : sn, t = dt_reg(g);

	for (int i = 0; i < n; i += 8) {
		dt_emit(g, I_LDX(BPF_DW, t, src, i));
		dt_emit(g, I_STX(BPF_DW, dst, t, i));
	}
	dt_reg_free(g, t);
	for (int i = n; i < dn; i += 8)
		dt_emit(g, I_ST(BPF_DW, dst, i, 0));
	/* cut to dst_size - 1 characters: the bytes from there to the end
	 * of the last word are zeros */
	for (int i = dst_size - 1; src_size > dst_size && i < n; i++)
		dt_emit(g, I_ST(BPF_B, dst, i, 0));
}

void dt_cg_str_if_null(struct dt_cg *g, int s, bool is_null, int label)
{
	int t = dt_reg(g);

	dt_emit(g, I_LDX(BPF_H, t, s, 0));
	dt_jmp_imm(g, is_null ? BPF_JEQ : BPF_JNE, t, DT_NULL_STRING, label);
	dt_reg_free(g, t);
}

void dt_cg_str_fault_null(struct dt_cg *g, int s)
{
	int ok = dt_label(g);

	dt_cg_str_if_null(g, s, false, ok);
	dt_cg_fault(g, DTRACEFLT_BADADDR, -1);
	dt_place(g, ok);
}

void dt_cg_str_set_null(struct dt_cg *g, int d)
{
	dt_emit(g, I_ST(BPF_H, d, 0, DT_NULL_STRING));
}

/* The first difference of two strings (a[i] - b[i]), 0 when equal. Both
 * are canonical (zero-padded to a multiple of 8 bytes), so the loop steps
 * a word at a time: equal words with a NUL in them end it; a word that
 * differs is searched byte by byte. Few iterations keep the verifier's
 * work small even for long strsize. */
int dt_cg_strcmp(struct dt_cg *g, int a, int asz, int b, int bsz)
{
	int an = (asz + 7) & ~7, bn = (bsz + 7) & ~7, n = an < bn ? an : bn;
	int i = dt_reg(g), wa = dt_reg(g), wb = dt_reg(g), t = dt_reg(g);
	int loop = dt_label(g), diff = dt_label(g), eq = dt_label(g),
	    done = dt_label(g);

	dt_emit(g, I_MOV_IMM(i, 0));
	dt_place(g, loop);
	dt_jmp_imm(g, BPF_JGE, i, n, eq);
	dt_emit(g, I_MOV(wa, a));
	dt_emit(g, I_ALU64_REG(BPF_ADD, wa, i));
	dt_emit(g, I_LDX(BPF_DW, wa, wa, 0));
	dt_emit(g, I_MOV(wb, b));
	dt_emit(g, I_ALU64_REG(BPF_ADD, wb, i));
	dt_emit(g, I_LDX(BPF_DW, wb, wb, 0));
	dt_jmp_reg(g, BPF_JNE, wa, wb, diff);
	/* (w - 0x01..01) & ~w & 0x80..80: nonzero when a byte is zero */
	dt_emit(g, I_MOV(t, wa));
	dt_emit(g, I_ALU64_IMM(BPF_XOR, t, -1));
	dt_ld_imm64(g, wb, 0x0101010101010101ull);
	dt_emit(g, I_ALU64_REG(BPF_SUB, wa, wb));
	dt_emit(g, I_ALU64_REG(BPF_AND, wa, t));
	dt_ld_imm64(g, wb, 0x8080808080808080ull);
	dt_emit(g, I_ALU64_REG(BPF_AND, wa, wb));
	dt_jmp_imm(g, BPF_JNE, wa, 0, eq);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, i, 8));
	dt_jmp(g, loop);
	/* The words differ: the first differing byte, or a NUL first. */
	dt_place(g, diff);
	for (int k = 0; k < 8; k++) {
		dt_emit(g, I_MOV(i, wa));
		dt_emit(g, I_ALU64_IMM(BPF_AND, i, 0xff));
		dt_emit(g, I_MOV(t, wb));
		dt_emit(g, I_ALU64_IMM(BPF_AND, t, 0xff));
		dt_emit(g, I_ALU64_REG(BPF_SUB, i, t));
		dt_jmp_imm(g, BPF_JNE, i, 0, done);
		dt_jmp_imm(g, BPF_JEQ, t, 0, done);	/* both NUL: i == 0 */
		dt_emit(g, I_ALU64_IMM(BPF_RSH, wa, 8));
		dt_emit(g, I_ALU64_IMM(BPF_RSH, wb, 8));
	}
	dt_place(g, eq);
	dt_emit(g, I_MOV_IMM(i, 0));
	dt_place(g, done);
	dt_reg_free(g, t);
	dt_reg_free(g, wb);
	dt_reg_free(g, wa);
	/* the result is in i, allocated first: keep it */
	return i;
}

/* Make the verifier forget what it knows of r (a load from the scratch
 * map is an unknown value): the states a loop leaves with, one per
 * iteration, then look alike and are pruned instead of each running the
 * rest of the program. Every later use of r is bounded again. */
static void launder(struct dt_cg *g, int r)
{
	int off = dt_cg_temp(g, 8);

	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, r, off));
	dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, off));
}

/* dst = base[idx] (a byte); idx must be bounded already. */
static void ld_byte(struct dt_cg *g, int dst, int base, int idx)
{
	dt_emit(g, I_MOV(dst, base));
	dt_emit(g, I_ALU64_REG(BPF_ADD, dst, idx));
	dt_emit(g, I_LDX(BPF_B, dst, dst, 0));
}

static void st_byte(struct dt_cg *g, int base, int idx, int val)
{
	int t = dt_reg(g);

	dt_emit(g, I_MOV(t, base));
	dt_emit(g, I_ALU64_REG(BPF_ADD, t, idx));
	dt_emit(g, I_STX(BPF_B, t, val, 0));
	dt_reg_free(g, t);
}

/* A zeroed result buffer of size bytes; its pointer (the builders free
 * it last and return the buffer's scratch offset). */
static int result(struct dt_cg *g, int size, int *off)
{
	int r = dt_reg(g);

	*off = dt_cg_temp(g, size);
	dt_cg_scratch_ptr(g, r, *off);
	dt_cg_zero(g, r, (size + 7) & ~7);
	return r;
}

int dt_cg_strlen(struct dt_cg *g, int s, int size)
{
	int i = dt_reg(g), c = dt_reg(g), loop = dt_label(g),
	    done = dt_label(g);

	dt_emit(g, I_MOV_IMM(i, 0));
	dt_place(g, loop);
	leave_if(g, BPF_JGE, i, size, done);
	ld_byte(g, c, s, i);
	leave_if(g, BPF_JEQ, c, 0, done);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, i, 1));
	dt_jmp(g, loop);
	dt_place(g, done);
	dt_reg_free(g, c);
	launder(g, i);
	return i;
}

/* Copy s[from .. from + n) (stopping at a NUL) to d[at ..]; d has dsize
 * bytes, s ssize; from, n, at are registers (consumed). */
static void copy_range(struct dt_cg *g, int d, int dsize, int at, int s,
		       int ssize, int from, int n)
{
	int c = dt_reg(g), loop = dt_label(g), done = dt_label(g);

	dt_place(g, loop);
	leave_if(g, BPF_JSLE, n, 0, done);
	leave_if(g, BPF_JGE, at, dsize - 1, done);
	leave_if(g, BPF_JGE, from, ssize, done);
	ld_byte(g, c, s, from);
	leave_if(g, BPF_JEQ, c, 0, done);
	st_byte(g, d, at, c);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, at, 1));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, from, 1));
	dt_emit(g, I_ALU64_IMM(BPF_SUB, n, 1));
	dt_jmp(g, loop);
	dt_place(g, done);
	dt_reg_free(g, c);
	launder(g, at);
	launder(g, from);
	launder(g, n);
}

int dt_cg_strjoin(struct dt_cg *g, int a, int asize, int b, int bsize,
		  int size)
{
	int off, d = result(g, size, &off), at = dt_reg(g), from = dt_reg(g),
	    n = dt_reg(g);

	dt_emit(g, I_MOV_IMM(at, 0));
	dt_emit(g, I_MOV_IMM(from, 0));
	dt_emit(g, I_MOV_IMM(n, size));
	copy_range(g, d, size, at, a, asize, from, n);
	dt_emit(g, I_MOV_IMM(from, 0));
	dt_emit(g, I_MOV_IMM(n, size));
	copy_range(g, d, size, at, b, bsize, from, n);
	dt_reg_free(g, n);
	dt_reg_free(g, from);
	dt_reg_free(g, at);
	dt_reg_free(g, d);
	return off;
}

int dt_cg_substr(struct dt_cg *g, int s, int ssize, int index, int rem,
		 int size)
{
	int off, d = result(g, size, &off), len = dt_cg_strlen(g, s, ssize);
	int at = dt_reg(g), l1 = dt_label(g), l2 = dt_label(g),
	    empty = dt_label(g), l3 = dt_label(g), go = dt_label(g),
	    t = dt_reg(g);

	/* illumos: a negative index counts from the end */
	dt_jmp_imm(g, BPF_JSGE, index, 0, l1);
	dt_emit(g, I_ALU64_REG(BPF_ADD, index, len));
	dt_jmp_imm(g, BPF_JSGE, index, 0, l1);
	dt_emit(g, I_MOV(t, index));
	dt_emit(g, I_ALU64_REG(BPF_ADD, t, rem));
	dt_jmp_imm(g, BPF_JSLE, t, 0, l1);
	dt_emit(g, I_ALU64_REG(BPF_ADD, rem, index));
	dt_emit(g, I_MOV_IMM(index, 0));
	dt_place(g, l1);
	dt_jmp_reg(g, BPF_JSGE, index, len, empty);
	dt_jmp_imm(g, BPF_JSLT, index, 0, empty);
	dt_jmp_imm(g, BPF_JSGE, rem, 0, l2);
	dt_emit(g, I_ALU64_REG(BPF_ADD, rem, len));
	dt_emit(g, I_ALU64_REG(BPF_SUB, rem, index));
	dt_place(g, l2);
	dt_jmp(g, go);
	dt_place(g, empty);
	dt_emit(g, I_MOV_IMM(rem, 0));
	dt_place(g, go);
	dt_emit(g, I_MOV_IMM(at, 0));
	copy_range(g, d, size, at, s, ssize, index, rem);
	dt_place(g, l3);
	dt_reg_free(g, t);
	dt_reg_free(g, at);
	dt_reg_free(g, len);
	dt_reg_free(g, d);
	return off;
}

int dt_cg_strchr(struct dt_cg *g, int s, int ssize, int ch, bool last,
		 int size)
{
	int off, d = result(g, size, &off), i = dt_reg(g), pos = dt_reg(g),
	    c = dt_reg(g), at = dt_reg(g);
	int loop = dt_label(g), next = dt_label(g), done = dt_label(g),
	    none = dt_label(g), found = dt_label(g);

	dt_emit(g, I_ALU64_IMM(BPF_AND, ch, 0xff));
	dt_emit(g, I_MOV_IMM(c, 0));
	dt_emit(g, I_MOV_IMM(i, 0));
	dt_emit(g, I_MOV_IMM(pos, -1));
	dt_place(g, loop);
	dt_jmp_imm(g, BPF_JGE, i, ssize, done);
	ld_byte(g, c, s, i);
	dt_jmp_reg(g, BPF_JNE, c, ch, next);
	dt_emit(g, I_MOV(pos, i));
	if (!last)
		dt_jmp(g, done);
	dt_place(g, next);
	dt_jmp_imm(g, BPF_JEQ, c, 0, done);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, i, 1));
	dt_jmp(g, loop);
	dt_place(g, done);
	launder(g, pos);
	launder(g, i);
	launder(g, c);
	/* not found: NULL, as DTrace's */
	dt_jmp_imm(g, BPF_JSLT, pos, 0, none);
	dt_emit(g, I_MOV_IMM(at, 0));
	dt_emit(g, I_MOV_IMM(i, size));
	copy_range(g, d, size, at, s, ssize, pos, i);
	dt_jmp(g, found);
	dt_place(g, none);
	dt_cg_str_set_null(g, d);
	dt_place(g, found);
	dt_reg_free(g, at);
	dt_reg_free(g, c);
	dt_reg_free(g, pos);
	dt_reg_free(g, i);
	dt_reg_free(g, d);
	return off;
}

int dt_cg_strcase(struct dt_cg *g, int s, int ssize, bool upper, int size)
{
	int off, d = result(g, size, &off), i = dt_reg(g), c = dt_reg(g);
	int loop = dt_label(g), put = dt_label(g), done = dt_label(g);
	int lo = upper ? 'a' : 'A', hi = upper ? 'z' : 'Z';

	dt_emit(g, I_MOV_IMM(i, 0));
	dt_place(g, loop);
	dt_jmp_imm(g, BPF_JGE, i, size - 1, done);
	dt_jmp_imm(g, BPF_JGE, i, ssize, done);
	ld_byte(g, c, s, i);
	dt_jmp_imm(g, BPF_JEQ, c, 0, done);
	dt_jmp_imm(g, BPF_JLT, c, lo, put);
	dt_jmp_imm(g, BPF_JGT, c, hi, put);
	dt_emit(g, I_ALU64_IMM(upper ? BPF_SUB : BPF_ADD, c, 32));
	dt_place(g, put);
	st_byte(g, d, i, c);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, i, 1));
	dt_jmp(g, loop);
	dt_place(g, done);
	dt_reg_free(g, c);
	dt_reg_free(g, i);
	dt_reg_free(g, d);
	return off;
}

int dt_cg_lltostr(struct dt_cg *g, int v, int base, int size)
{
	int boff = dt_cg_temp(g, 72), off, d = result(g, size, &off);
	int b = dt_reg(g), pos = dt_reg(g), neg = dt_reg(g), c = dt_reg(g);
	int l1 = dt_label(g), loop = dt_label(g), l2 = dt_label(g),
	    ok = dt_label(g);

	dt_cg_scratch_ptr(g, b, boff);
	dt_cg_zero(g, b, 72);
	dt_emit(g, I_MOV_IMM(neg, 0));
	if (base == 10) {
		dt_jmp_imm(g, BPF_JSGE, v, 0, l1);
		dt_emit(g, I_ALU64_IMM(BPF_NEG, v, 0));
		dt_emit(g, I_MOV_IMM(neg, 1));
	}
	dt_place(g, l1);
	dt_emit(g, I_MOV_IMM(pos, 70));
	dt_place(g, loop);
	dt_emit(g, I_MOV(c, v));
	dt_emit(g, I_ALU64_IMM(BPF_MOD, c, base));
	dt_jmp_imm(g, BPF_JLT, c, 10, ok);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, c, 'a' - '0' - 10));
	dt_place(g, ok);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, c, '0'));
	st_byte(g, b, pos, c);
	dt_emit(g, I_ALU64_IMM(BPF_DIV, v, base));
	dt_jmp_imm(g, BPF_JEQ, v, 0, l2);
	dt_jmp_imm(g, BPF_JEQ, pos, 1, l2);	/* 64 bits fit before */
	dt_emit(g, I_ALU64_IMM(BPF_SUB, pos, 1));
	dt_jmp(g, loop);
	dt_place(g, l2);
	launder(g, pos);
	launder(g, v);
	launder(g, c);
	{
		int skip = dt_label(g);

		dt_jmp_imm(g, BPF_JEQ, neg, 0, skip);
		dt_emit(g, I_ALU64_IMM(BPF_SUB, pos, 1));
		dt_jmp_imm(g, BPF_JGE, pos, 72, skip);
		dt_emit(g, I_MOV_IMM(c, '-'));
		st_byte(g, b, pos, c);
		dt_place(g, skip);
	}
	dt_emit(g, I_MOV_IMM(c, 0));
	dt_emit(g, I_MOV_IMM(neg, 72));
	copy_range(g, d, size, c, b, 72, pos, neg);
	dt_reg_free(g, c);
	dt_reg_free(g, neg);
	dt_reg_free(g, pos);
	dt_reg_free(g, b);
	dt_reg_free(g, d);
	return off;
}

int dt_cg_pathpart(struct dt_cg *g, int s, int ssize, bool dir, int size)
{
	int off, d = result(g, size, &off), end = dt_cg_strlen(g, s, ssize);
	int c = dt_reg(g), p = dt_reg(g), i = dt_reg(g), n = dt_reg(g);
	int l1 = dt_label(g), l2 = dt_label(g), l3 = dt_label(g),
	    l4 = dt_label(g), dot = dt_label(g), slash = dt_label(g),
	    out = dt_label(g), copy = dt_label(g);

	dt_emit(g, I_MOV_IMM(c, 0));
	dt_emit(g, I_MOV_IMM(p, 0));
	dt_emit(g, I_MOV_IMM(i, 0));
	dt_emit(g, I_MOV_IMM(n, 0));
	/* "" is "." */
	dt_jmp_imm(g, BPF_JEQ, end, 0, dot);
	/* strip trailing slashes, keeping one character */
	dt_place(g, l1);
	leave_if(g, BPF_JLE, end, 1, l2);
	leave_if(g, BPF_JGT, end, ssize, l2);
	dt_emit(g, I_MOV(i, end));
	dt_emit(g, I_ALU64_IMM(BPF_SUB, i, 1));
	ld_byte(g, c, s, i);
	leave_if(g, BPF_JNE, c, '/', l2);
	dt_emit(g, I_MOV(end, i));
	dt_jmp(g, l1);
	dt_place(g, l2);
	launder(g, end);
	launder(g, c);
	launder(g, i);
	/* the last slash before end */
	dt_emit(g, I_MOV_IMM(p, -1));
	dt_emit(g, I_MOV_IMM(i, 0));
	dt_place(g, l3);
	leave_if_reg(g, BPF_JGE, i, end, l4);
	leave_if(g, BPF_JGE, i, ssize, l4);
	ld_byte(g, c, s, i);
	/* p = c == '/' ? i : p, without a branch (one would leave a state
	 * per iteration): (c ^ '/') - 1 >> 63 is 1 for a slash, so
	 * c = 0 for a slash, 1 else, and p = i + c * (p - i) */
	dt_emit(g, I_ALU64_IMM(BPF_XOR, c, '/'));
	dt_emit(g, I_ALU64_IMM(BPF_SUB, c, 1));
	dt_emit(g, I_ALU64_IMM(BPF_RSH, c, 63));
	dt_emit(g, I_ALU64_IMM(BPF_XOR, c, 1));
	dt_emit(g, I_ALU64_REG(BPF_SUB, p, i));
	dt_emit(g, I_ALU64_REG(BPF_MUL, p, c));
	dt_emit(g, I_ALU64_REG(BPF_ADD, p, i));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, i, 1));
	dt_jmp(g, l3);
	dt_place(g, l4);
	launder(g, p);
	launder(g, i);
	launder(g, c);
	if (!dir) {
		/* basename: after the last slash ("/" alone stays "/") */
		int some = dt_label(g);

		dt_jmp_imm(g, BPF_JNE, end, 1, some);
		dt_jmp_imm(g, BPF_JEQ, p, 0, slash);
		dt_place(g, some);
		dt_emit(g, I_MOV(i, p));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, i, 1));
		dt_emit(g, I_MOV(n, end));
		dt_emit(g, I_ALU64_REG(BPF_SUB, n, i));
		dt_jmp(g, copy);
	} else {
		/* dirname: before the last slash, its own trailing slashes
		 * stripped; "." without one, "/" when it is the first */
		int l5 = dt_label(g), l6 = dt_label(g);

		dt_jmp_imm(g, BPF_JSLT, p, 0, dot);
		dt_place(g, l5);
		leave_if(g, BPF_JSLE, p, 0, l6);
		leave_if(g, BPF_JGT, p, ssize, l6);
		dt_emit(g, I_MOV(i, p));
		dt_emit(g, I_ALU64_IMM(BPF_SUB, i, 1));
		ld_byte(g, c, s, i);
		leave_if(g, BPF_JNE, c, '/', l6);
		dt_emit(g, I_MOV(p, i));
		dt_jmp(g, l5);
		dt_place(g, l6);
		launder(g, p);
		launder(g, i);
		launder(g, c);
		dt_jmp_imm(g, BPF_JEQ, p, 0, slash);
		dt_emit(g, I_MOV_IMM(i, 0));
		dt_emit(g, I_MOV(n, p));
		dt_jmp(g, copy);
	}
	dt_place(g, dot);
	dt_emit(g, I_ST(BPF_B, d, 0, '.'));
	dt_jmp(g, out);
	dt_place(g, slash);
	dt_emit(g, I_ST(BPF_B, d, 0, '/'));
	dt_jmp(g, out);
	dt_place(g, copy);
	dt_emit(g, I_MOV_IMM(c, 0));
	copy_range(g, d, size, c, s, ssize, i, n);
	dt_place(g, out);
	dt_reg_free(g, n);
	dt_reg_free(g, i);
	dt_reg_free(g, p);
	dt_reg_free(g, c);
	dt_reg_free(g, end);
	dt_reg_free(g, d);
	return off;
}

/* index(s, sub[, start]) (or rindex, searching backwards): the first
 * (last) position of sub in s, -1 when absent, left in an 8-byte scratch
 * temporary whose offset is returned. The search is a bpf_loop whose
 * callback (dt_cg_str_callbacks) takes one step a call: s and sub are
 * copied to a block of the scratch area with the search's state, so the
 * verifier checks the step once instead of every position of every
 * string (a search of a 184-byte string for a 64-byte one was more than
 * its 8192 pending states). */
enum {
	IX_I = 0,		/* the position tried */
	IX_J = 8,		/* the bytes of sub matched there */
	IX_LEN = 16,		/* strlen(s) */
	IX_DIR = 24,		/* 1, or -1 for rindex */
	IX_RES = 32,		/* the result */
	IX_S = 40,		/* s, then sub: ix_size() bytes each */
};

static int ix_size(struct dt_cg *g)
{
	return (dt_str_bytes(g->p) + 7) & ~7;
}

int dt_cg_index(struct dt_cg *g, int s, int ssize, int sub, int subsize,
		int start, bool rev)
{
	int S = ix_size(g), blk = dt_cg_temp(g, IX_S + 2 * S);
	int len = dt_cg_strlen(g, s, ssize), i = dt_reg(g), t = dt_reg(g);
	int go = dt_label(g), slot;
	uint64_t steps = (uint64_t)(S + 2) * (uint64_t)(S + 2);

	if (!g->index_cb)
		g->index_cb = dt_label(g) + 1;
	dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, blk + IX_RES, -1));
	dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, blk + IX_J, 0));
	dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, blk + IX_DIR, rev ? -1 : 1));
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, len, blk + IX_LEN));
	if (start >= 0) {
		dt_emit(g, I_MOV(i, start));
	} else if (rev) {
		dt_emit(g, I_MOV(i, len));
	} else {
		dt_emit(g, I_MOV_IMM(i, 0));
	}
	if (rev) {
		/* a negative start finds nothing; past the end is the end */
		dt_jmp_reg(g, BPF_JSLE, i, len, go);
		dt_emit(g, I_MOV(i, len));
	} else {
		dt_jmp_imm(g, BPF_JSGE, i, 0, go);
		dt_emit(g, I_MOV_IMM(i, 0));
	}
	dt_place(g, go);
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, i, blk + IX_I));
	dt_cg_scratch_ptr(g, t, blk + IX_S);
	dt_cg_strcpy(g, t, S, s, ssize);
	dt_cg_scratch_ptr(g, t, blk + IX_S + S);
	dt_cg_strcpy(g, t, S, sub, subsize);
	/* the callback's context: the block's address, on the stack */
	slot = dt_stack_slot(g);
	dt_cg_scratch_ptr(g, t, blk);
	dt_emit(g, I_STX(BPF_DW, BPF_REG_10, t, slot));
	dt_reg_free(g, t);
	dt_reg_free(g, i);
	dt_reg_free(g, len);
	dt_call_loop(g, steps > (1u << 23) ? 1 << 23 : (int32_t)steps,
		     g->index_cb, slot);
	dt_stack_release(g, slot);
	return blk + IX_RES;
}

/* index()'s step (index, ctx = &block): compare s[i + j] with sub[j];
 * all of sub matched is found, a difference moves i on; 1 ends the
 * loop. */
static void index_callback(struct dt_cg *g, int label)
{
	int S = ix_size(g), b = BPF_REG_6, i = BPF_REG_1, j = BPF_REG_2,
	    c = BPF_REG_3, t = BPF_REG_4, u = BPF_REG_5;
	int stop = dt_label(g), found = dt_label(g), miss = dt_label(g);

	dt_place(g, label);
	dt_emit(g, I_LDX(BPF_DW, b, BPF_REG_2, 0));
	dt_emit(g, I_LDX(BPF_DW, i, b, IX_I));
	dt_emit(g, I_LDX(BPF_DW, t, b, IX_LEN));
	dt_jmp_reg(g, BPF_JSGT, i, t, stop);
	dt_jmp_imm(g, BPF_JSLT, i, 0, stop);
	dt_emit(g, I_LDX(BPF_DW, j, b, IX_J));
	dt_jmp_imm(g, BPF_JGE, j, S, found);
	dt_emit(g, I_MOV(c, b));
	dt_emit(g, I_ALU64_REG(BPF_ADD, c, j));
	dt_emit(g, I_LDX(BPF_B, c, c, IX_S + S));
	dt_jmp_imm(g, BPF_JEQ, c, 0, found);
	dt_emit(g, I_MOV(t, i));
	dt_emit(g, I_ALU64_REG(BPF_ADD, t, j));
	dt_jmp_imm(g, BPF_JGE, t, S, miss);
	dt_emit(g, I_ALU64_REG(BPF_ADD, t, b));
	dt_emit(g, I_LDX(BPF_B, t, t, IX_S));
	dt_jmp_reg(g, BPF_JNE, t, c, miss);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, j, 1));
	dt_emit(g, I_STX(BPF_DW, b, j, IX_J));
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
	dt_emit(g, I_EXIT());
	dt_place(g, miss);
	dt_emit(g, I_ST(BPF_DW, b, IX_J, 0));
	dt_emit(g, I_LDX(BPF_DW, u, b, IX_DIR));
	dt_emit(g, I_ALU64_REG(BPF_ADD, i, u));
	dt_emit(g, I_STX(BPF_DW, b, i, IX_I));
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
	dt_emit(g, I_EXIT());
	dt_place(g, found);
	dt_emit(g, I_STX(BPF_DW, b, i, IX_RES));
	dt_place(g, stop);
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 1));
	dt_emit(g, I_EXIT());
}

void dt_cg_str_callbacks(struct dt_cg *g)
{
	if (g->index_cb)
		index_callback(g, g->index_cb - 1);
	g->index_cb = 0;
}

/* strtok(s, delims), strtok(NULL, delims) (s < 0): as illumos, the next
 * token of the string, skipping delimiters first, or NULL (DTrace's)
 * when only delimiters remain. The string is copied to the
 * scratch area's strtok state (strtok_off: the position, -1 before any
 * string in the firing, -2 once one is used up;
 * then strsize bytes), which lasts for the probe firing, as DTrace's
 * does. The delimiters become a 256-bit map in a temporary. */

/* p = c's bit in the map at moff (0 or 1); c stays. */
static void map_test(struct dt_cg *g, int moff, int c, int p, int t)
{
	dt_emit(g, I_MOV(t, c));
	dt_emit(g, I_ALU64_IMM(BPF_RSH, t, 3));
	dt_emit(g, I_MOV(p, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_REG(BPF_ADD, p, t));
	dt_emit(g, I_LDX(BPF_B, p, p, moff));
	dt_emit(g, I_MOV(t, c));
	dt_emit(g, I_ALU64_IMM(BPF_AND, t, 7));
	dt_emit(g, I_ALU64_REG(BPF_RSH, p, t));
	dt_emit(g, I_ALU64_IMM(BPF_AND, p, 1));
}

/* dst = the byte at scratch offset base + idx (idx bounded already). */
static void ld_scratch_byte(struct dt_cg *g, int dst, int base, int idx)
{
	dt_emit(g, I_MOV(dst, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_REG(BPF_ADD, dst, idx));
	dt_emit(g, I_LDX(BPF_B, dst, dst, base));
}

int dt_cg_strtok(struct dt_cg *g, int s, int ssize, int delim, int dsize,
		 int size)
{
	int st = g->p->strtok_off + (int)offsetof(struct dt_strtok, pos);
	int buf = g->p->strtok_off + (int)offsetof(struct dt_strtok, str);
	int bsize = (dt_str_bytes(g->p) + 7) & ~7;
	int moff = dt_cg_temp(g, 32), off, d = result(g, size, &off);
	int pos, i, c, p, t;
	int fill = dt_label(g), filled = dt_label(g), skip = dt_label(g),
	    end = dt_label(g), start = dt_label(g), copy = dt_label(g),
	    fin = dt_label(g), none = dt_label(g), out = dt_label(g);

	if (s >= 0) {
		dt_cg_scratch_ptr(g, d, buf);
		dt_cg_strcpy(g, d, bsize, s, ssize);
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, st, 0));
	}
	dt_reg_free(g, d);
	pos = dt_reg(g);
	i = dt_reg(g);
	c = dt_reg(g);
	p = dt_reg(g);
	t = dt_reg(g);
	for (int k = 0; k < 32; k += 8)
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, moff + k, 0));
	/* the delimiters' map */
	dt_emit(g, I_MOV_IMM(i, 0));
	dt_place(g, fill);
	stay_if(g, BPF_JLT, i, dsize, filled);
	ld_byte(g, c, delim, i);
	stay_if(g, BPF_JNE, c, 0, filled);
	dt_emit(g, I_MOV(t, c));
	dt_emit(g, I_ALU64_IMM(BPF_RSH, t, 3));
	dt_emit(g, I_MOV(p, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_REG(BPF_ADD, p, t));
	dt_emit(g, I_ALU64_IMM(BPF_AND, c, 7));
	dt_emit(g, I_MOV_IMM(t, 1));
	dt_emit(g, I_ALU64_REG(BPF_LSH, t, c));
	dt_emit(g, I_LDX(BPF_B, c, p, moff));
	dt_emit(g, I_ALU64_REG(BPF_OR, c, t));
	dt_emit(g, I_STX(BPF_B, p, c, moff));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, i, 1));
	dt_jmp(g, fill);
	dt_place(g, filled);
	/* the same state whichever iteration left */
	dt_emit(g, I_MOV_IMM(i, 0));
	dt_emit(g, I_MOV_IMM(c, 0));
	dt_emit(g, I_MOV_IMM(p, 0));
	dt_emit(g, I_MOV_IMM(t, 0));
	dt_emit(g, I_LDX(BPF_DW, pos, DT_SCRATCH_REG, st));
	/* strtok(NULL, ...) before any string in the firing (-1; -2 is a
	 * string used up) is an invalid address, as in dtrace-utils */
	if (s < 0) {
		dt_emit(g, I_ALU64_IMM(BPF_ADD, pos, 1));
		dt_cg_fault_if_zero(g, pos, DTRACEFLT_BADADDR);
		dt_emit(g, I_ALU64_IMM(BPF_SUB, pos, 1));
	}
	dt_jmp_imm(g, BPF_JSLT, pos, 0, none);
	/* skip delimiters */
	dt_place(g, skip);
	stay_if(g, BPF_JLT, pos, bsize, end);
	ld_scratch_byte(g, c, buf, pos);
	stay_if(g, BPF_JNE, c, 0, end);
	map_test(g, moff, c, p, t);
	stay_if(g, BPF_JNE, p, 0, start);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, pos, 1));
	dt_jmp(g, skip);
	dt_place(g, end);
	dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, st, -2));
	dt_jmp(g, none);
	/* the token, up to the next delimiter */
	dt_place(g, start);
	launder(g, pos);
	dt_emit(g, I_MOV_IMM(c, 0));
	dt_emit(g, I_MOV_IMM(p, 0));
	dt_emit(g, I_MOV_IMM(t, 0));
	dt_place(g, copy);
	stay_if(g, BPF_JLT, pos, bsize, fin);
	stay_if(g, BPF_JLT, i, size - 1, fin);
	ld_scratch_byte(g, c, buf, pos);
	stay_if(g, BPF_JNE, c, 0, fin);
	map_test(g, moff, c, p, t);
	stay_if(g, BPF_JEQ, p, 0, fin);
	dt_emit(g, I_MOV(p, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_REG(BPF_ADD, p, i));
	dt_emit(g, I_STX(BPF_B, p, c, off));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, i, 1));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, pos, 1));
	dt_jmp(g, copy);
	dt_place(g, fin);
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, pos, st));
	dt_jmp(g, out);
	dt_place(g, none);
	dt_emit(g, I_ST(BPF_H, DT_SCRATCH_REG, off, DT_NULL_STRING));
	dt_place(g, out);
	dt_emit(g, I_MOV_IMM(pos, 0));
	dt_emit(g, I_MOV_IMM(i, 0));
	dt_emit(g, I_MOV_IMM(c, 0));
	dt_emit(g, I_MOV_IMM(p, 0));
	dt_emit(g, I_MOV_IMM(t, 0));
	dt_reg_free(g, t);
	dt_reg_free(g, p);
	dt_reg_free(g, c);
	dt_reg_free(g, i);
	dt_reg_free(g, pos);
	return off;
}
