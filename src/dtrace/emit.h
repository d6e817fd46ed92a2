// SPDX-License-Identifier: GPL-2.0-only
/* emit — the D compiler's BPF emitter: instructions appended to a list
 * with labels resolved at the end (every instruction remembers the D
 * source it came from), helper calls, the register allocator (spilling to
 * the stack when registers run out and around helper calls), scratch
 * temporaries, the counters and the fault path. It knows instructions,
 * registers and memory, not D: the expression generator (cg.c), the
 * string and aggregation code (cg_str.c, cg_agg.c), the translators and
 * the providers build on it.
 *
 * Registers: r9 holds the per-CPU scratch area for the whole program, r10
 * is the frame, the others are allocated. The context pointer is kept at
 * DT_FP_CTX. */
#ifndef SONDE_DTRACE_EMIT_H
#define SONDE_DTRACE_EMIT_H

#include "ast.h"
#include "layout.h"

#include <linux/bpf.h>

/* Stack slots: the frame of every program. */
enum {
	DT_FP_CTX = -8,		/* the program's context */
	DT_FP_STASH1 = -16,	/* the provider's */
	DT_FP_STASH2 = -24,
	DT_FP_KEY = -32,	/* small map keys */
	DT_FP_TID = -40,	/* the thread id, key of self-> variables */
	DT_FP_PROBE = -48,	/* the id of the probe that fired */
	DT_FP_TS = -56,		/* timestamp, once read in the firing (0: not
				 * yet) */
	DT_FP_SPILL = -64,	/* spill slots grow down from here */
};

#define DT_SCRATCH_REG BPF_REG_9

/* Instruction constructors. */
#define I_ALU64_IMM(op, d, i) ((struct bpf_insn){ .code = BPF_ALU64 | BPF_K \
	| (op), .dst_reg = (d), .imm = (i) })
#define I_ALU64_REG(op, d, s) ((struct bpf_insn){ .code = BPF_ALU64 | BPF_X \
	| (op), .dst_reg = (d), .src_reg = (s) })
#define I_ALU32_IMM(op, d, i) ((struct bpf_insn){ .code = BPF_ALU | BPF_K \
	| (op), .dst_reg = (d), .imm = (i) })
#define I_MOV_IMM(d, i) I_ALU64_IMM(BPF_MOV, d, i)
#define I_MOV(d, s) I_ALU64_REG(BPF_MOV, d, s)
#define I_MOV32(d, s) ((struct bpf_insn){ .code = BPF_ALU | BPF_X | BPF_MOV, \
	.dst_reg = (d), .src_reg = (s) })
#define I_LDX(sz, d, s, o) ((struct bpf_insn){ .code = BPF_LDX | BPF_MEM | \
	(sz), .dst_reg = (d), .src_reg = (s), .off = (int16_t)(o) })
#define I_STX(sz, d, s, o) ((struct bpf_insn){ .code = BPF_STX | BPF_MEM | \
	(sz), .dst_reg = (d), .src_reg = (s), .off = (int16_t)(o) })
#define I_ST(sz, d, o, i) ((struct bpf_insn){ .code = BPF_ST | BPF_MEM | \
	(sz), .dst_reg = (d), .off = (int16_t)(o), .imm = (i) })
#define I_EXIT() ((struct bpf_insn){ .code = BPF_JMP | BPF_EXIT })

/* BPF_B, BPF_H, BPF_W or BPF_DW for a load or store of size bytes. */
static inline int dt_bpf_size(int size)
{
	return size == 1 ? BPF_B : size == 2 ? BPF_H : size == 4 ? BPF_W :
	       BPF_DW;
}

/* The allocator's state: who holds each register, where the values it
 * displaced wait, and which stack slots are taken. */
struct dt_regs {
	uint16_t busy;
	uint8_t depth[11];	/* how many owners a register has spilled */
	int16_t slot[11][8];	/* their spill slots */
	uint16_t saved;		/* registers set aside across a call */
	int16_t saved_slot[11];
	uint64_t slots_used[2];	/* stack slots below DT_FP_SPILL */
	int seq_of[11], seq;	/* allocation order, for spilling */
};

struct dt_unit;
struct dt_provider;
struct dt_provs;

/* The state of one compilation's code generation: the emitter's part
 * (instructions, labels, registers, temporaries) and the expression
 * generator's (the program, unit, clause and statement being generated). */
struct dt_cg {
	struct dt_cc *cc;
	struct dt_prog *p;
	struct dt_unit *u;
	struct dt_provs *provs;	/* the providers' state */
	struct dt_clause *cl;	/* the clause being generated */
	struct dt_node *stmt;	/* the statement being generated */
	/* emitted */
	struct bpf_insn *insns;
	struct dt_loc *locs;
	int n, cap;
	struct dt_loc loc;	/* attached to the next instructions */
	int *labels;		/* label -> instruction, -1 until placed */
	int nlabels, labels_cap;
	struct { int insn, label; } *fix;
	int nfix, fix_cap;
	struct dt_regs regs;
	int sp_min;		/* lowest spill slot used */
	/* the scratch area: counters, this-> variables, the record, then
	 * temporaries for the statement */
	int rec_base, temp_base, temp_top, temp_max;
	int temp_floor;		/* statements' temps start here: copyin()'s
				 * buffers below it last for the clause */
	int skip;		/* the current clause's end label */
	int chill_cb;		/* chill()'s bpf_loop callback label + 1 */
	int index_cb;		/* index()'s (cg_str.c) */
	/* filled before generation */
	int64_t wall_offset;	/* realtime - monotonic, ns */
	int off_real_parent, off_tgid, off_sum_exec;	/* task_struct */
	/* what the programs asked for */
	const struct dt_provider *names_prov;	/* its names map is used */
	bool need_stacks;
};

/* ---- emission ---- */
void dt_emit(struct dt_cg *g, struct bpf_insn insn);
int dt_label(struct dt_cg *g);
void dt_place(struct dt_cg *g, int label);
/* Conditional jumps to a label: op is BPF_JEQ ...; against an immediate
 * or a register. */
void dt_jmp_imm(struct dt_cg *g, int op, int reg, int32_t imm, int label);
void dt_jmp_reg(struct dt_cg *g, int op, int dst, int src, int label);
void dt_jmp(struct dt_cg *g, int label);
/* Whether some jump emitted so far goes to label. */
bool dt_label_used(const struct dt_cg *g, int label);
/* dst = the subprogram at label (BPF_PSEUDO_FUNC, for bpf_loop). */
void dt_ld_func(struct dt_cg *g, int dst, int label);
/* dst = 64-bit constant. */
void dt_ld_imm64(struct dt_cg *g, int dst, uint64_t v);
/* dst = fd of map (relocated) or the address of off in its value. */
void dt_ld_map(struct dt_cg *g, int dst, int map);
void dt_ld_map_value(struct dt_cg *g, int dst, int map, int off);
/* Call a helper: args already in r1..r5 (allocated with dt_reg_x). */
void dt_call(struct dt_cg *g, int helper);
/* Between dt_call_begin and dt_call: copy the value of register reg
 * (which the call may have set aside) to argument register i. */
void dt_call_arg(struct dt_cg *g, int i, int reg);
/* A new program: no instructions, labels or registers. */
void dt_emit_begin(struct dt_cg *g);
/* Resolve the jumps to their labels; the program is g->insns[0..n). */
void dt_emit_finish(struct dt_cg *g);
void dt_cg_free(struct dt_cg *g);

/* ---- registers ---- */
int dt_reg(struct dt_cg *g);		/* any free register */
void dt_reg_x(struct dt_cg *g, int r);	/* exactly r (spilling its owner) */
void dt_reg_free(struct dt_cg *g, int r);
/* Around a helper call: set aside every busy caller-saved register, and
 * bring them back after, keeping the result (r0) in a fresh register. */
void dt_call_begin(struct dt_cg *g);
int dt_call_end(struct dt_cg *g);	/* returns the result register */
void dt_call_end_void(struct dt_cg *g);
/* bpf_loop(nr, the subprogram at label - 1 (a callback label as
 * g->index_cb keeps it), the stack address fp + slot, 0); its result
 * unused. */
void dt_call_loop(struct dt_cg *g, int32_t nr, int cb_label, int slot);
void dt_regs_reset(struct dt_cg *g);
int dt_stack_slot(struct dt_cg *g);	/* an 8-byte stack slot (fp offset) */
void dt_stack_release(struct dt_cg *g, int slot);

/* ---- memory ---- */
/* A scratch temporary of size bytes (8-aligned) for the statement; its
 * offset in the scratch area. */
int dt_cg_temp(struct dt_cg *g, int size);
/* r = pointer to scratch + off. */
void dt_cg_scratch_ptr(struct dt_cg *g, int r, int off);
/* Zero size bytes (a multiple of 8) at the register pointer. */
void dt_cg_zero(struct dt_cg *g, int ptr, int size);
/* The context pointer, in a new register. */
int dt_cg_ctx(struct dt_cg *g);
/* A new register holding the constant v. */
int dt_cg_const(struct dt_cg *g, int64_t v);
/* A new register with size bytes (1, 2, 4, 8) read with helper
 * (BPF_FUNC_probe_read_kernel, _user) from the address in register ptr
 * plus off (0 when the read fails); ptr is freed. */
int dt_cg_read(struct dt_cg *g, int ptr, int off, int size, int helper);
/* Make the value in r a proper t (truncate and extend). */
void dt_cg_normalize(struct dt_cg *g, int r, const struct dt_type *t);
/* Add one to the per-CPU counter at off (DT_SCR(counters.drops) ...). */
void dt_cg_count(struct dt_cg *g, int off);

/* ---- faults ---- */
/* Write an error record (addr: a register holding the address, or -1)
 * and end the clause. */
void dt_cg_fault(struct dt_cg *g, int fault, int addr);
/* Fault and end the clause when reg == 0. */
void dt_cg_fault_if_zero(struct dt_cg *g, int reg, int fault);
/* Fault with DTRACEFLT_BADADDR at the address in addr when reg (a
 * helper's result) is negative. */
void dt_cg_fault_if_neg(struct dt_cg *g, int reg, int addr);
/* helper(scratch + off, size, addr) — bpf_probe_read_kernel, _user or
 * their _str forms: size bytes at the address in register addr into the
 * scratch area at off, a DTRACEFLT_BADADDR fault at addr when the helper
 * fails. addr stays the caller's. */
void dt_cg_read_scratch(struct dt_cg *g, int helper, int addr, int off,
			int size);

#endif
