// SPDX-License-Identifier: GPL-2.0-only
/* dlib — the D library's constants: the generated Linux ones (dlib.h) and
 * those DTrace defines itself: fault codes (DTRACEFLT_*), the register
 * indices of uregs[] (regs.d: R_*, in struct pt_regs order), process
 * states and models (procfs.d). */
#include "dlib.h"
#include "../lib/util.h"

#include <stddef.h>
#include <string.h>
#if defined(__x86_64__)
#include <asm/ptrace.h>
#endif

#define REG(f) ((long long)(offsetof(struct pt_regs, f) / 8))

static const struct {
	const char *name;
	long long value;
	int size;
} own[] = {
	/* DTrace's fault codes (dtrace/faults_defines.h) */
	{ "DTRACEFLT_UNKNOWN", 0, 4 }, { "DTRACEFLT_BADADDR", 1, 4 },
	{ "DTRACEFLT_BADALIGN", 2, 4 }, { "DTRACEFLT_ILLOP", 3, 4 },
	{ "DTRACEFLT_DIVZERO", 4, 4 }, { "DTRACEFLT_NOSCRATCH", 5, 4 },
	{ "DTRACEFLT_KPRIV", 6, 4 }, { "DTRACEFLT_UPRIV", 7, 4 },
	{ "DTRACEFLT_TUPOFLOW", 8, 4 }, { "DTRACEFLT_BADSTACK", 9, 4 },
	{ "DTRACEFLT_BADSIZE", 10, 4 }, { "DTRACEFLT_BADINDEX", 11, 4 },
	{ "DTRACEFLT_LIBRARY", 1000, 4 },
	/* procfs.d */
	{ "PR_MODEL_ILP32", 1, 1 }, { "PR_MODEL_LP64", 2, 1 },
	{ "PIDTYPE_PID", 0, 4 }, { "PIDTYPE_TGID", 1, 4 },
	{ "PIDTYPE_PGID", 2, 4 }, { "PIDTYPE_SID", 3, 4 },
	{ "PR_STOPPED", 0x1, 4 }, { "PR_ISTOP", 0x2, 4 },
	{ "PR_DSTOP", 0x4, 4 }, { "PR_IDLE", 0x10000000, 4 },
	{ "SSLEEP", 1, 1 }, { "SRUN", 2, 1 }, { "SZOMB", 3, 1 },
	{ "SSTOP", 4, 1 }, { "SIDL", 5, 1 }, { "SONPROC", 6, 1 },
	{ "SWAIT", 7, 1 },
#if defined(__x86_64__)
	/* regs.d: uregs[] indices, struct pt_regs' order, then the segment
	 * registers and the trap number DTrace adds */
	{ "R_R15", REG(r15), 4 }, { "R_R14", REG(r14), 4 },
	{ "R_R13", REG(r13), 4 }, { "R_R12", REG(r12), 4 },
	{ "R_RBP", REG(rbp), 4 }, { "R_RBX", REG(rbx), 4 },
	{ "R_R11", REG(r11), 4 }, { "R_R10", REG(r10), 4 },
	{ "R_R9", REG(r9), 4 }, { "R_R8", REG(r8), 4 },
	{ "R_RAX", REG(rax), 4 }, { "R_RCX", REG(rcx), 4 },
	{ "R_RDX", REG(rdx), 4 }, { "R_RSI", REG(rsi), 4 },
	{ "R_RDI", REG(rdi), 4 }, { "R_ERR", REG(orig_rax), 4 },
	{ "R_RIP", REG(rip), 4 }, { "R_CS", REG(cs), 4 },
	{ "R_RFL", REG(eflags), 4 }, { "R_RSP", REG(rsp), 4 },
	{ "R_SS", REG(ss), 4 },
	{ "R_DS", REG(ss) + 1, 4 }, { "R_ES", REG(ss) + 2, 4 },
	{ "R_FS", REG(ss) + 3, 4 }, { "R_GS", REG(ss) + 4, 4 },
	{ "R_TRAPNO", REG(ss) + 5, 4 },
	{ "R_EBX", REG(rbx), 4 }, { "R_ECX", REG(rcx), 4 },
	{ "R_EDX", REG(rdx), 4 }, { "R_ESI", REG(rsi), 4 },
	{ "R_EDI", REG(rdi), 4 }, { "R_EBP", REG(rbp), 4 },
	{ "R_EAX", REG(rax), 4 }, { "R_EIP", REG(rip), 4 },
	{ "R_EFL", REG(eflags), 4 }, { "R_ESP", REG(rsp), 4 },
	{ "R_PC", REG(rip), 4 }, { "R_FP", REG(rbp), 4 },
	{ "R_SP", REG(rsp), 4 }, { "R_PS", REG(eflags), 4 },
	{ "R_R0", REG(rax), 4 }, { "R_R1", REG(rbx), 4 },
#endif
};

bool dt_dlib_const(const char *name, int64_t *value, int *size)
{
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		if (!strcmp(own[i].name, name)) {
			*value = own[i].value;
			*size = own[i].size;
			return true;
		}
	for (unsigned i = 0; i < dt_dlib_nconsts; i++)
		if (!strcmp(dt_dlib_consts[i].name, name)) {
			*value = dt_dlib_consts[i].value;
			*size = 4;
			return true;
		}
	return false;
}
