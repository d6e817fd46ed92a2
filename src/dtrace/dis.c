// SPDX-License-Identifier: GPL-2.0-only
/* dis — the generated BPF as text (-S), in the kernel verifier's notation,
 * with the D source line each run of instructions came from. */
#include "dtrace.h"
#include "layout.h"

#include <string.h>

static const char *helper_name(int id)
{
	switch (id) {
	case BPF_FUNC_map_lookup_elem: return "map_lookup_elem";
	case BPF_FUNC_map_update_elem: return "map_update_elem";
	case BPF_FUNC_map_delete_elem: return "map_delete_elem";
	case BPF_FUNC_ktime_get_ns: return "ktime_get_ns";
	case BPF_FUNC_get_smp_processor_id: return "get_smp_processor_id";
	case BPF_FUNC_get_current_pid_tgid: return "get_current_pid_tgid";
	case BPF_FUNC_get_current_uid_gid: return "get_current_uid_gid";
	case BPF_FUNC_get_current_comm: return "get_current_comm";
	case BPF_FUNC_get_current_task: return "get_current_task";
	case BPF_FUNC_probe_read_kernel: return "probe_read_kernel";
	case BPF_FUNC_probe_read_user_str: return "probe_read_user_str";
	case BPF_FUNC_ringbuf_output: return "ringbuf_output";
	default: return "helper";
	}
}

static const char *alu_op(int op)
{
	switch (op) {
	case BPF_ADD: return "+=";
	case BPF_SUB: return "-=";
	case BPF_MUL: return "*=";
	case BPF_DIV: return "/=";
	case BPF_OR: return "|=";
	case BPF_AND: return "&=";
	case BPF_LSH: return "<<=";
	case BPF_RSH: return ">>=";
	case BPF_MOD: return "%=";
	case BPF_XOR: return "^=";
	case BPF_MOV: return "=";
	case BPF_ARSH: return "s>>=";
	default: return "?=";
	}
}

static const char *jmp_op(int op)
{
	switch (op) {
	case BPF_JEQ: return "==";
	case BPF_JGT: return ">";
	case BPF_JGE: return ">=";
	case BPF_JSET: return "&";
	case BPF_JNE: return "!=";
	case BPF_JSGT: return "s>";
	case BPF_JSGE: return "s>=";
	case BPF_JLT: return "<";
	case BPF_JLE: return "<=";
	case BPF_JSLT: return "s<";
	case BPF_JSLE: return "s<=";
	default: return "?";
	}
}

static const char *size_name(int sz)
{
	switch (sz) {
	case BPF_B: return "u8";
	case BPF_H: return "u16";
	case BPF_W: return "u32";
	default: return "u64";
	}
}

static const char *map_name(int m)
{
	static char buf[32];

	switch (m) {
	case DT_MAP_OUT: return "out";
	case DT_MAP_SCRATCH: return "scratch";
	case DT_MAP_GLOBALS: return "globals";
	case DT_MAP_RODATA: return "rodata";
	case DT_MAP_SYSNAMES: return "sysnames";
	case DT_MAP_STACKS: return "stacks";
	default:
		snprintf(buf, sizeof(buf), "var%d", m - DT_MAP_FIRST_VAR);
		return buf;
	}
}

void dt_disasm(const struct bpf_insn *insns, int n, const struct dt_loc *locs,
	       FILE *f)
{
	int line = -1;

	for (int i = 0; i < n; i++) {
		const struct bpf_insn *in = &insns[i];
		int cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

		if (locs && locs[i].line && locs[i].line != line) {
			line = locs[i].line;
			fprintf(f, "; %s:%d\n", locs[i].src->name, line);
		}
		fprintf(f, "%4d: ", i);
		switch (cls) {
		case BPF_ALU64:
		case BPF_ALU: {
			char p = cls == BPF_ALU64 ? 'r' : 'w';

			if (op == BPF_NEG)
				fprintf(f, "%c%d = -%c%d\n", p, in->dst_reg, p,
					in->dst_reg);
			else if (BPF_SRC(in->code) == BPF_X)
				fprintf(f, "%c%d %s %c%d\n", p, in->dst_reg,
					alu_op(op), p, in->src_reg);
			else
				fprintf(f, "%c%d %s %d\n", p, in->dst_reg,
					alu_op(op), in->imm);
			break;
		}
		case BPF_LDX:
			fprintf(f, "r%d = *(%s *)(r%d %+d)\n", in->dst_reg,
				size_name(BPF_SIZE(in->code)), in->src_reg,
				in->off);
			break;
		case BPF_STX:
			fprintf(f, "*(%s *)(r%d %+d) = r%d\n",
				size_name(BPF_SIZE(in->code)), in->dst_reg,
				in->off, in->src_reg);
			break;
		case BPF_ST:
			fprintf(f, "*(%s *)(r%d %+d) = %d\n",
				size_name(BPF_SIZE(in->code)), in->dst_reg,
				in->off, in->imm);
			break;
		case BPF_LD:
			if (i + 1 >= n) {
				fprintf(f, "(truncated ld_imm64)\n");
				break;
			}
			if (in->src_reg == BPF_PSEUDO_MAP_FD)
				fprintf(f, "r%d = map[%s]\n", in->dst_reg,
					map_name(in->imm));
			else if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
				fprintf(f, "r%d = &%s[0] + %d\n", in->dst_reg,
					map_name(in->imm), in[1].imm);
			else
				fprintf(f, "r%d = 0x%llx ll\n", in->dst_reg,
					(unsigned long long)(uint32_t)in->imm |
					((unsigned long long)(uint32_t)
					 in[1].imm << 32));
			i++;
			break;
		case BPF_JMP:
			if (op == BPF_EXIT)
				fprintf(f, "exit\n");
			else if (op == BPF_CALL)
				fprintf(f, "call %s#%d\n", helper_name(in->imm),
					in->imm);
			else if (op == BPF_JA)
				fprintf(f, "goto %+d <%d>\n", in->off,
					i + 1 + in->off);
			else if (BPF_SRC(in->code) == BPF_X)
				fprintf(f, "if r%d %s r%d goto %+d <%d>\n",
					in->dst_reg, jmp_op(op), in->src_reg,
					in->off, i + 1 + in->off);
			else
				fprintf(f, "if r%d %s %d goto %+d <%d>\n",
					in->dst_reg, jmp_op(op), in->imm,
					in->off, i + 1 + in->off);
			break;
		default:
			fprintf(f, "(code 0x%02x)\n", in->code);
		}
	}
}

void dt_dump(struct dt_session *s, FILE *f)
{
	for (int i = 0; i < s->nunits; i++) {
		struct dt_unit *u = s->units[i];

		fprintf(f, "%s:::%s: %d instructions, %d probe%s, %d "
			"clause%s\n", u->prov->name, u->key, u->ninsns,
			u->nprobes, u->nprobes == 1 ? "" : "s", u->nclauses,
			u->nclauses == 1 ? "" : "s");
		dt_disasm(u->insns, u->ninsns, u->locs, f);
		fputc('\n', f);
	}
}
