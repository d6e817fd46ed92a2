// SPDX-License-Identifier: GPL-2.0-only
/* ktrace-floor — the floor under any syscall tracer built on tracepoints:
 * an empty BPF program (r0 = 0; exit) on the raw_syscalls sys_enter and
 * sys_exit raw tracepoints, the same ones sonde ktrace uses. Enabling them
 * puts every process on the kernel's syscall slow path; bench/ktrace.sh
 * times a workload while this is attached.
 *
 *   ktrace-floor    attaches, prints "ready", waits for SIGTERM/SIGINT */
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int load_empty(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "floor", "GPL",
			     insns, 2, NULL);
}

int main(void)
{
	const char *tps[] = { "sys_enter", "sys_exit" };
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < 2; i++) {
		int prog = load_empty();

		if (prog < 0 || bpf_raw_tracepoint_open(tps[i], prog) < 0) {
			perror("ktrace-floor: attaching an empty program");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	sigwait(&set, &sig);
	return 0;
}
