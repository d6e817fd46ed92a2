// SPDX-License-Identifier: GPL-2.0-only
/* regs — the register allocator of the code generator. Registers r0-r8
 * hold values (r9 is the scratch area, r10 the frame). When all are busy,
 * the one allocated longest ago is spilled to a stack slot and handed
 * out; freeing it fills the old value back (values are freed in the
 * reverse order of their allocation, as tree evaluation does). Around a
 * helper call the busy caller-saved registers (r0-r5) are set aside on the
 * stack and filled back after, with the call's result moved to a free
 * register first. */
#include "cg.h"

#include <string.h>

#define CALLER_SAVED 0x3f	/* r0-r5 */
/* Callee-saved first: their values survive calls without spilling. */
static const int order[] = { 6, 7, 8, 0, 1, 2, 3, 4, 5 };

static struct bpf_insn stx(int src, int off)
{
	return (struct bpf_insn){ .code = BPF_STX | BPF_MEM | BPF_DW,
				  .dst_reg = BPF_REG_10, .src_reg = src,
				  .off = (int16_t)off };
}

static struct bpf_insn ldx(int dst, int off)
{
	return (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
				  .dst_reg = dst, .src_reg = BPF_REG_10,
				  .off = (int16_t)off };
}

/* Stack slots: a bitmap over the frame below DT_FP_SPILL. */
#define NSLOTS ((512 + DT_FP_SPILL) / 8 + 1)

static uint64_t slots_used[2];
static int seq_of[11], seq;

int dt_stack_slot(struct dt_cg *g)
{
	for (int i = 0; i < NSLOTS; i++) {
		if (slots_used[i / 64] & (1ull << (i % 64)))
			continue;
		slots_used[i / 64] |= 1ull << (i % 64);
		int off = DT_FP_SPILL - 8 * i;

		if (off < g->sp_min)
			g->sp_min = off;
		return off;
	}
	dt_error(g->cc, &g->loc, "expression too complex: out of BPF stack "
		 "space");
}

void dt_stack_release(struct dt_cg *g, int off)
{
	int i = (DT_FP_SPILL - off) / 8;

	(void)g;
	slots_used[i / 64] &= ~(1ull << (i % 64));
}

void dt_regs_reset(struct dt_cg *g)
{
	memset(&g->regs, 0, sizeof(g->regs));
	memset(slots_used, 0, sizeof(slots_used));
	memset(seq_of, 0, sizeof(seq_of));
}

static int pick_free(struct dt_cg *g, uint16_t exclude)
{
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int r = order[i];

		if (!(g->regs.busy & (1u << r)) && !(exclude & (1u << r)))
			return r;
	}
	return -1;
}

/* Spill the busy register allocated longest ago (not one set aside). */
static int spill_oldest(struct dt_cg *g)
{
	int victim = -1;

	for (int r = 0; r <= 8; r++) {
		if (!(g->regs.busy & (1u << r)) || (g->regs.saved & (1u << r)))
			continue;
		if (victim < 0 || seq_of[r] < seq_of[victim])
			victim = r;
	}
	if (victim < 0 || g->regs.depth[victim] >= 8)
		dt_error(g->cc, &g->loc, "expression too complex: out of "
			 "registers");
	int slot = dt_stack_slot(g);

	dt_emit(g, stx(victim, slot));
	g->regs.slot[victim][g->regs.depth[victim]++] = (int16_t)slot;
	return victim;
}

int dt_reg(struct dt_cg *g)
{
	int r = pick_free(g, g->regs.saved);

	if (r < 0)
		r = spill_oldest(g);
	g->regs.busy |= 1u << r;
	seq_of[r] = ++seq;
	return r;
}

void dt_reg_x(struct dt_cg *g, int r)
{
	if (g->regs.busy & (1u << r)) {
		if (g->regs.depth[r] >= 8)
			dt_error(g->cc, &g->loc, "expression too complex");
		int slot = dt_stack_slot(g);

		dt_emit(g, stx(r, slot));
		g->regs.slot[r][g->regs.depth[r]++] = (int16_t)slot;
	}
	g->regs.busy |= 1u << r;
	seq_of[r] = ++seq;
}

void dt_reg_free(struct dt_cg *g, int r)
{
	if (r < 0)
		return;
	if (g->regs.saved & (1u << r)) {
		/* Set aside for a call and now dead: nothing to fill. */
		g->regs.saved &= ~(1u << r);
		dt_stack_release(g, g->regs.saved_slot[r]);
		if (!g->regs.depth[r]) {
			g->regs.busy &= ~(1u << r);
			return;
		}
	}
	if (g->regs.depth[r]) {
		int slot = g->regs.slot[r][--g->regs.depth[r]];

		dt_emit(g, ldx(r, slot));
		dt_stack_release(g, slot);
		return;
	}
	g->regs.busy &= ~(1u << r);
}

void dt_call_begin(struct dt_cg *g)
{
	for (int r = 0; r <= 5; r++) {
		if (!(g->regs.busy & (1u << r)))
			continue;
		int slot = dt_stack_slot(g);

		dt_emit(g, stx(r, slot));
		g->regs.saved |= 1u << r;
		g->regs.saved_slot[r] = (int16_t)slot;
	}
}

static void restore_saved(struct dt_cg *g)
{
	for (int r = 0; r <= 5; r++) {
		if (!(g->regs.saved & (1u << r)))
			continue;
		dt_emit(g, ldx(r, g->regs.saved_slot[r]));
		dt_stack_release(g, g->regs.saved_slot[r]);
		g->regs.saved &= ~(1u << r);
	}
}

int dt_call_end(struct dt_cg *g)
{
	/* A register that is neither busy nor about to be filled. */
	int r = pick_free(g, g->regs.saved);

	if (r < 0)
		r = spill_oldest(g);
	g->regs.busy |= 1u << r;
	seq_of[r] = ++seq;
	if (r != BPF_REG_0)
		dt_emit(g, (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV |
					      BPF_X, .dst_reg = r,
					      .src_reg = BPF_REG_0 });
	restore_saved(g);
	return r;
}

void dt_call_end_void(struct dt_cg *g)
{
	restore_saved(g);
}
