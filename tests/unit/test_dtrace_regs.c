// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the register allocator: which registers it hands out,
 * spilling the oldest value when all are busy and filling it back when
 * the newer one is freed, and setting caller-saved registers aside around
 * helper calls with the result moved to a free register. */
#include "test.h"
#include "dtrace/cg.h"
#include "lib/util.h"

struct rfix {
	struct dt_cc cc;
	struct dt_cg g;
};

static void rinit(struct rfix *f)
{
	memset(f, 0, sizeof(*f));
	f->g.cc = &f->cc;
	dt_regs_reset(&f->g);
}

static void rfree(struct rfix *f)
{
	dt_cg_free(&f->g);
	free(f->cc.msg);
}

static bool is_spill(const struct bpf_insn *in, int reg)
{
	return in->code == (BPF_STX | BPF_MEM | BPF_DW) &&
	       in->dst_reg == BPF_REG_10 && in->src_reg == reg &&
	       in->off <= DT_FP_SPILL;
}

static bool is_fill(const struct bpf_insn *in, int reg)
{
	return in->code == (BPF_LDX | BPF_MEM | BPF_DW) &&
	       in->src_reg == BPF_REG_10 && in->dst_reg == reg &&
	       in->off <= DT_FP_SPILL;
}

static void test_order_and_reuse(void **state)
{
	struct rfix f;
	int r[9];
	(void)state;

	rinit(&f);
	if (setjmp(f.cc.jmp))
		fail_msg("%s", f.cc.msg);
	/* callee-saved registers first: they survive calls for free */
	for (int i = 0; i < 9; i++)
		r[i] = dt_reg(&f.g);
	assert_int_equal(r[0], 6);
	assert_int_equal(r[1], 7);
	assert_int_equal(r[2], 8);
	assert_int_equal(r[3], 0);
	for (int i = 4; i < 9; i++)
		assert_int_equal(r[i], i - 3);
	assert_int_equal(f.g.n, 0);	/* nothing spilled */
	dt_reg_free(&f.g, r[1]);
	assert_int_equal(dt_reg(&f.g), 7);
	for (int i = 8; i >= 0; i--)
		dt_reg_free(&f.g, r[i]);
	assert_int_equal(f.g.regs.busy, 0);
	rfree(&f);
}

static void test_spill_and_fill(void **state)
{
	struct rfix f;
	int r[9], x, y;
	(void)state;

	rinit(&f);
	if (setjmp(f.cc.jmp))
		fail_msg("%s", f.cc.msg);
	for (int i = 0; i < 9; i++)
		r[i] = dt_reg(&f.g);
	/* all busy: the oldest (r6) is spilled and reused */
	x = dt_reg(&f.g);
	assert_int_equal(x, 6);
	assert_int_equal(f.g.n, 1);
	assert_true(is_spill(&f.g.insns[0], 6));
	/* the next oldest goes next, to another slot */
	y = dt_reg(&f.g);
	assert_int_equal(y, 7);
	assert_true(is_spill(&f.g.insns[1], 7));
	assert_int_not_equal(f.g.insns[0].off, f.g.insns[1].off);
	/* freeing fills the old values back, from their own slots */
	dt_reg_free(&f.g, y);
	assert_true(is_fill(&f.g.insns[2], 7));
	assert_int_equal(f.g.insns[2].off, f.g.insns[1].off);
	dt_reg_free(&f.g, x);
	assert_true(is_fill(&f.g.insns[3], 6));
	assert_int_equal(f.g.insns[3].off, f.g.insns[0].off);
	/* and the registers still belong to their first owners */
	assert_int_equal(f.g.regs.busy, 0x1ff);
	for (int i = 0; i < 9; i++)
		dt_reg_free(&f.g, r[i]);
	assert_int_equal(f.g.regs.busy, 0);
	rfree(&f);
}

static void test_call_window(void **state)
{
	struct rfix f;
	int a, b, c, d, res;
	(void)state;

	rinit(&f);
	if (setjmp(f.cc.jmp))
		fail_msg("%s", f.cc.msg);
	a = dt_reg(&f.g);	/* r6 */
	b = dt_reg(&f.g);	/* r7 */
	c = dt_reg(&f.g);	/* r8 */
	d = dt_reg(&f.g);	/* r0: caller-saved */
	assert_int_equal(d, 0);
	dt_call_begin(&f.g);
	assert_int_equal(f.g.n, 1);
	assert_true(f.g.insns[0].code == (BPF_STX | BPF_MEM | BPF_DW) &&
		    f.g.insns[0].src_reg == 0);
	dt_call(&f.g, BPF_FUNC_ktime_get_ns);
	res = dt_call_end(&f.g);
	/* the result may not land in r0 (set aside) nor r6-r8 (busy) */
	assert_int_equal(res, 1);
	/* mov r1, r0; then r0 filled back */
	assert_true(f.g.insns[2].code == (BPF_ALU64 | BPF_X | BPF_MOV) &&
		    f.g.insns[2].dst_reg == 1 && f.g.insns[2].src_reg == 0);
	assert_true(f.g.insns[3].code == (BPF_LDX | BPF_MEM | BPF_DW) &&
		    f.g.insns[3].dst_reg == 0 &&
		    f.g.insns[3].off == f.g.insns[0].off);
	assert_int_equal(f.g.regs.saved, 0);
	dt_reg_free(&f.g, res);
	dt_reg_free(&f.g, d);
	dt_reg_free(&f.g, c);
	dt_reg_free(&f.g, b);
	dt_reg_free(&f.g, a);
	assert_int_equal(f.g.regs.busy, 0);
	rfree(&f);
}

static void test_freed_during_call_is_not_filled(void **state)
{
	struct rfix f;
	int a, b, n;
	(void)state;

	rinit(&f);
	if (setjmp(f.cc.jmp))
		fail_msg("%s", f.cc.msg);
	for (int i = 0; i < 3; i++)
		dt_reg(&f.g);		/* r6-r8 */
	a = dt_reg(&f.g);		/* r0 */
	b = dt_reg(&f.g);		/* r1: an argument value */
	dt_call_begin(&f.g);
	n = f.g.n;
	dt_reg_free(&f.g, b);		/* consumed by the call */
	dt_call_end_void(&f.g);
	/* only r0 comes back */
	assert_int_equal(f.g.n, n + 1);
	assert_int_equal(f.g.insns[n].dst_reg, a);
	rfree(&f);
}

static void test_out_of_stack_is_an_error(void **state)
{
	struct rfix f;
	volatile int i;
	(void)state;

	rinit(&f);
	if (setjmp(f.cc.jmp)) {
		assert_non_null(strstr(f.cc.msg, "out of BPF stack space"));
		rfree(&f);
		return;
	}
	for (i = 0; i < 200; i++)
		dt_stack_slot(&f.g);
	fail_msg("the stack never ran out");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_reuse),
		cmocka_unit_test(test_spill_and_fill),
		cmocka_unit_test(test_call_window),
		cmocka_unit_test(test_freed_during_call_is_not_filled),
		cmocka_unit_test(test_out_of_stack_is_an_error),
	};
	return RUN(tests);
}
