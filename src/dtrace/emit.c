// SPDX-License-Identifier: GPL-2.0-only
/* emit — the BPF emitter (see emit.h): the instruction list with its
 * source positions, labels and their fix-ups, helper calls, the register
 * allocator, scratch temporaries, counters and faults. */
#include "emit.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

/* ---- emission ---- */

void dt_emit(struct dt_cg *g, struct bpf_insn insn)
{
	if (g->n + 2 > g->cap) {
		size_t cap = (size_t)g->cap, lcap = (size_t)g->cap;

		sd_grow(&g->insns, &cap, g->n + 2, sizeof(*g->insns));
		sd_grow(&g->locs, &lcap, g->n + 2, sizeof(*g->locs));
		g->cap = (int)(cap < lcap ? cap : lcap);
	}
	g->locs[g->n] = g->loc;
	g->insns[g->n++] = insn;
	if (g->n > 1000000)
		dt_error(g->cc, &g->loc, "program too large for BPF (over one "
			 "million instructions)");
}

int dt_label(struct dt_cg *g)
{
	size_t cap = (size_t)g->labels_cap;

	sd_grow(&g->labels, &cap, g->nlabels + 1, sizeof(*g->labels));
	g->labels_cap = (int)cap;
	g->labels[g->nlabels] = -1;
	return g->nlabels++;
}

void dt_place(struct dt_cg *g, int label)
{
	g->labels[label] = g->n;
}

static void fixup(struct dt_cg *g, int label)
{
	size_t cap = (size_t)g->fix_cap;

	sd_grow(&g->fix, &cap, g->nfix + 1, sizeof(*g->fix));
	g->fix_cap = (int)cap;
	g->fix[g->nfix].insn = g->n;
	g->fix[g->nfix].label = label;
	g->nfix++;
}

bool dt_label_used(const struct dt_cg *g, int label)
{
	for (int i = 0; i < g->nfix; i++)
		if (g->fix[i].label == label)
			return true;
	return false;
}

void dt_jmp_imm(struct dt_cg *g, int op, int reg, int32_t imm, int label)
{
	fixup(g, label);
	dt_emit(g, (struct bpf_insn){ .code = BPF_JMP | BPF_K | op,
				      .dst_reg = reg, .imm = imm });
}

void dt_jmp_reg(struct dt_cg *g, int op, int dst, int src, int label)
{
	fixup(g, label);
	dt_emit(g, (struct bpf_insn){ .code = BPF_JMP | BPF_X | op,
				      .dst_reg = dst, .src_reg = src });
}

void dt_jmp(struct dt_cg *g, int label)
{
	fixup(g, label);
	dt_emit(g, (struct bpf_insn){ .code = BPF_JMP | BPF_JA });
}

void dt_ld_func(struct dt_cg *g, int dst, int label)
{
	/* a negative label: the fix-up goes to imm (dt_emit_finish) */
	fixup(g, -label - 1);
	dt_emit(g, (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM,
				      .dst_reg = dst,
				      .src_reg = BPF_PSEUDO_FUNC });
	dt_emit(g, (struct bpf_insn){ 0 });
}

void dt_ld_imm64(struct dt_cg *g, int dst, uint64_t v)
{
	if ((int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX) {
		dt_emit(g, I_MOV_IMM(dst, (int32_t)v));
		return;
	}
	dt_emit(g, (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM,
				      .dst_reg = dst, .imm = (int32_t)v });
	dt_emit(g, (struct bpf_insn){ .imm = (int32_t)(v >> 32) });
}

void dt_ld_map(struct dt_cg *g, int dst, int map)
{
	dt_emit(g, (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM,
				      .dst_reg = dst,
				      .src_reg = BPF_PSEUDO_MAP_FD,
				      .imm = map });
	dt_emit(g, (struct bpf_insn){ 0 });
}

void dt_ld_map_value(struct dt_cg *g, int dst, int map, int off)
{
	dt_emit(g, (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM,
				      .dst_reg = dst,
				      .src_reg = BPF_PSEUDO_MAP_VALUE,
				      .imm = map });
	dt_emit(g, (struct bpf_insn){ .imm = off });
}

void dt_call(struct dt_cg *g, int helper)
{
	dt_emit(g, (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
				      .imm = helper });
}

void dt_call_arg(struct dt_cg *g, int i, int reg)
{
	if (g->regs.saved & (1u << reg))
		dt_emit(g, I_LDX(BPF_DW, i, BPF_REG_10,
				 g->regs.saved_slot[reg]));
	else if (reg != i)
		dt_emit(g, I_MOV(i, reg));
}

void dt_emit_begin(struct dt_cg *g)
{
	g->n = 0;
	g->nfix = 0;
	g->nlabels = 0;
	g->sp_min = 0;
	dt_regs_reset(g);
}

void dt_emit_finish(struct dt_cg *g)
{
	for (int i = 0; i < g->nfix; i++) {
		int label = g->fix[i].label, at = g->fix[i].insn, to;

		if (label < 0) {
			/* BPF_PSEUDO_FUNC: imm is the distance to the
			 * subprogram */
			g->insns[at].imm = g->labels[-label - 1] - at - 1;
			continue;
		}
		to = g->labels[label];
		if (to < 0)
			dt_error(g->cc, NULL, "internal error: unplaced label");
		if (to - at - 1 > INT16_MAX)
			dt_error(g->cc, &g->locs[at], "program too large: a "
				 "jump spans more than 32767 instructions");
		g->insns[at].off = (int16_t)(to - at - 1);
	}
}

void dt_cg_free(struct dt_cg *g)
{
	free(g->insns);
	free(g->locs);
	free(g->labels);
	free(g->fix);
	memset(g, 0, sizeof(*g));
}

/* ---- registers ----
 * r0-r8 hold values (r9 is the scratch area, r10 the frame). When all are
 * busy, the one allocated longest ago is spilled to a stack slot and
 * handed out; freeing it fills the old value back (values are freed in
 * the reverse order of their allocation, as tree evaluation does). Around
 * a helper call the busy caller-saved registers (r0-r5) are set aside on
 * the stack and filled back after, with the call's result moved to a free
 * register first. */

/* Callee-saved first: their values survive calls without spilling. */
static const int alloc_order[] = { 6, 7, 8, 0, 1, 2, 3, 4, 5 };

/* Stack slots: a bitmap over the frame below DT_FP_SPILL. */
#define NSLOTS ((512 + DT_FP_SPILL) / 8 + 1)

int dt_stack_slot(struct dt_cg *g)
{
	uint64_t *used = g->regs.slots_used;

	for (int i = 0; i < NSLOTS; i++) {
		if (used[i / 64] & (1ull << (i % 64)))
			continue;
		used[i / 64] |= 1ull << (i % 64);
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

	g->regs.slots_used[i / 64] &= ~(1ull << (i % 64));
}

void dt_regs_reset(struct dt_cg *g)
{
	memset(&g->regs, 0, sizeof(g->regs));
}

static int pick_free(struct dt_cg *g, uint16_t exclude)
{
	for (size_t i = 0; i < ARRAY_SIZE(alloc_order); i++) {
		int r = alloc_order[i];

		if (!(g->regs.busy & (1u << r)) && !(exclude & (1u << r)))
			return r;
	}
	return -1;
}

static void spill(struct dt_cg *g, int r)
{
	int slot = dt_stack_slot(g);

	dt_emit(g, I_STX(BPF_DW, BPF_REG_10, r, slot));
	g->regs.slot[r][g->regs.depth[r]++] = (int16_t)slot;
}

/* Spill the busy register allocated longest ago (not one set aside). */
static int spill_oldest(struct dt_cg *g)
{
	int victim = -1;

	for (int r = 0; r <= 8; r++) {
		if (!(g->regs.busy & (1u << r)) || (g->regs.saved & (1u << r)))
			continue;
		if (victim < 0 || g->regs.seq_of[r] < g->regs.seq_of[victim])
			victim = r;
	}
	if (victim < 0 || g->regs.depth[victim] >= 8)
		dt_error(g->cc, &g->loc, "expression too complex: out of "
			 "registers");
	spill(g, victim);
	return victim;
}

static void take(struct dt_cg *g, int r)
{
	g->regs.busy |= 1u << r;
	g->regs.seq_of[r] = ++g->regs.seq;
}

int dt_reg(struct dt_cg *g)
{
	int r = pick_free(g, g->regs.saved);

	if (r < 0)
		r = spill_oldest(g);
	take(g, r);
	return r;
}

void dt_reg_x(struct dt_cg *g, int r)
{
	if (g->regs.busy & (1u << r)) {
		if (g->regs.depth[r] >= 8)
			dt_error(g->cc, &g->loc, "expression too complex");
		spill(g, r);
	}
	take(g, r);
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

		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, slot));
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

		dt_emit(g, I_STX(BPF_DW, BPF_REG_10, r, slot));
		g->regs.saved |= 1u << r;
		g->regs.saved_slot[r] = (int16_t)slot;
	}
}

static void restore_saved(struct dt_cg *g)
{
	for (int r = 0; r <= 5; r++) {
		if (!(g->regs.saved & (1u << r)))
			continue;
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, g->regs.saved_slot[r]));
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
	take(g, r);
	if (r != BPF_REG_0)
		dt_emit(g, I_MOV(r, BPF_REG_0));
	restore_saved(g);
	return r;
}

void dt_call_end_void(struct dt_cg *g)
{
	restore_saved(g);
}

void dt_call_loop(struct dt_cg *g, int32_t nr, int cb_label, int slot)
{
	dt_call_begin(g);
	dt_emit(g, I_MOV_IMM(BPF_REG_1, nr));
	dt_ld_func(g, BPF_REG_2, cb_label - 1);
	dt_emit(g, I_MOV(BPF_REG_3, BPF_REG_10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3, slot));
	dt_emit(g, I_MOV_IMM(BPF_REG_4, 0));
	dt_call(g, BPF_FUNC_loop);
	dt_call_end_void(g);
}

/* ---- memory ---- */

int dt_cg_temp(struct dt_cg *g, int size)
{
	int off = g->temp_top;

	g->temp_top += (size + 7) & ~7;
	if (g->temp_top > g->temp_max)
		g->temp_max = g->temp_top;
	if (g->temp_top > 30000)
		dt_error(g->cc, &g->loc, "statement needs too much scratch "
			 "space (strsize too large?)");
	return off;
}

void dt_cg_scratch_ptr(struct dt_cg *g, int r, int off)
{
	dt_emit(g, I_MOV(r, DT_SCRATCH_REG));
	if (off)
		dt_emit(g, I_ALU64_IMM(BPF_ADD, r, off));
}

void dt_cg_zero(struct dt_cg *g, int ptr, int size)
{
	for (int i = 0; i + 8 <= size; i += 8)
		dt_emit(g, I_ST(BPF_DW, ptr, i, 0));
}

int dt_cg_ctx(struct dt_cg *g)
{
	int r = dt_reg(g);

	dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_CTX));
	return r;
}

int dt_cg_const(struct dt_cg *g, int64_t v)
{
	int r = dt_reg(g);

	dt_ld_imm64(g, r, (uint64_t)v);
	return r;
}

int dt_cg_read(struct dt_cg *g, int ptr, int off, int size, int helper)
{
	int tmp = dt_cg_temp(g, 8), r;

	dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, tmp, 0));
	dt_call_begin(g);
	dt_call_arg(g, BPF_REG_3, ptr);
	if (off)
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3, off));
	dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, tmp));
	dt_emit(g, I_MOV_IMM(BPF_REG_2, size));
	dt_call(g, helper);
	dt_call_end_void(g);
	dt_reg_free(g, ptr);
	r = dt_reg(g);
	dt_emit(g, I_LDX(dt_bpf_size(size), r, DT_SCRATCH_REG, tmp));
	return r;
}

void dt_cg_normalize(struct dt_cg *g, int r, const struct dt_type *t)
{
	int bits;

	if (t->kind == DT_TINT && t->bits && t->bits < 64) {
		/* a bit-field: its width, sign-extended or not */
		bits = 64 - t->bits;
		dt_emit(g, I_ALU64_IMM(BPF_LSH, r, bits));
		dt_emit(g, I_ALU64_IMM(t->sign ? BPF_ARSH : BPF_RSH, r, bits));
		return;
	}
	if (t->kind != DT_TINT || t->size >= 8)
		return;
	if (t->size == 4 && !t->sign) {
		dt_emit(g, I_MOV32(r, r));
		return;
	}
	bits = 64 - 8 * t->size;
	dt_emit(g, I_ALU64_IMM(BPF_LSH, r, bits));
	dt_emit(g, I_ALU64_IMM(t->sign ? BPF_ARSH : BPF_RSH, r, bits));
}

void dt_cg_count(struct dt_cg *g, int off)
{
	int t = dt_reg(g);

	dt_emit(g, I_LDX(BPF_DW, t, DT_SCRATCH_REG, off));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, t, 1));
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, t, off));
	dt_reg_free(g, t);
}

/* ---- faults ---- */

void dt_cg_fault(struct dt_cg *g, int fault, int addr)
{
	int action = g->stmt ? g->stmt->action : 0;

	/* Registers are not needed past here: the clause ends. */
	if (addr >= 0)
		dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, addr,
				 DT_SCR(err.err.addr)));
	else
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, DT_SCR(err.err.addr),
				0));
	dt_emit(g, I_ST(BPF_W, DT_SCRATCH_REG, DT_SCR(err.hdr.kind),
			DT_REC_ERROR));
	dt_emit(g, I_ST(BPF_W, DT_SCRATCH_REG, DT_SCR(err.hdr.clause),
			g->cl->index));
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, DT_FP_PROBE));
	dt_emit(g, I_STX(BPF_W, DT_SCRATCH_REG, BPF_REG_1,
			 DT_SCR(err.hdr.probe)));
	dt_call(g, BPF_FUNC_get_smp_processor_id);
	dt_emit(g, I_STX(BPF_W, DT_SCRATCH_REG, BPF_REG_0,
			 DT_SCR(err.hdr.cpu)));
	dt_emit(g, I_ST(BPF_W, DT_SCRATCH_REG, DT_SCR(err.err.fault), fault));
	dt_emit(g, I_ST(BPF_W, DT_SCRATCH_REG, DT_SCR(err.err.action),
			action));
	dt_emit(g, I_ST(BPF_W, DT_SCRATCH_REG, DT_SCR(err.err.insn), g->n));
	dt_ld_map(g, BPF_REG_1, DT_MAP_OUT);
	dt_emit(g, I_MOV(BPF_REG_2, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, DT_SCR(err)));
	dt_emit(g, I_MOV_IMM(BPF_REG_3, sizeof(struct dt_errmsg)));
	dt_emit(g, I_MOV_IMM(BPF_REG_4, 0));
	dt_call(g, BPF_FUNC_ringbuf_output);
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, DT_SCRATCH_REG,
			 DT_SCR(counters.errors)));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, BPF_REG_1,
			 DT_SCR(counters.errors)));
	dt_jmp(g, g->skip);
}

void dt_cg_fault_if_zero(struct dt_cg *g, int reg, int fault)
{
	int ok = dt_label(g);

	dt_jmp_imm(g, BPF_JNE, reg, 0, ok);
	dt_cg_fault(g, fault, -1);
	dt_place(g, ok);
}

void dt_cg_fault_if_neg(struct dt_cg *g, int reg, int addr)
{
	int ok = dt_label(g);

	dt_jmp_imm(g, BPF_JSGE, reg, 0, ok);
	dt_cg_fault(g, DTRACEFLT_BADADDR, addr);
	dt_place(g, ok);
}

void dt_cg_read_scratch(struct dt_cg *g, int helper, int addr, int off,
			int size)
{
	int rc;

	dt_call_begin(g);
	dt_call_arg(g, BPF_REG_3, addr);
	dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, off));
	dt_emit(g, I_MOV_IMM(BPF_REG_2, size));
	dt_call(g, helper);
	rc = dt_call_end(g);
	dt_cg_fault_if_neg(g, rc, addr);
	dt_reg_free(g, rc);
}
