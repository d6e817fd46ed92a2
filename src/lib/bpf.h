// SPDX-License-Identifier: GPL-2.0-only
/* bpf — the libbpf glue the eBPF tools share: libbpf's own messages routed
 * through sonde's diagnostics (and kept, so a verifier log can be shown),
 * error text that says what to do, and probes for the kernel features a
 * tool needs, each named in one sentence when missing. Prefix sbpf_ (bpf_
 * belongs to libbpf). */
#ifndef SONDE_BPF_H
#define SONDE_BPF_H

#include <stdbool.h>
#include <stddef.h>

/* Route libbpf's messages: warnings to stderr when verbose, always kept in
 * a buffer (the last 64 KiB) that sbpf_log() returns. */
void sbpf_init(bool verbose);
const char *sbpf_log(void);
void sbpf_log_clear(void);

/* A sentence for a failed bpf() or libbpf call: strerror plus the remedy
 * (EPERM: root or CAP_BPF and CAP_PERFMON, ...). err may be negative. */
const char *sbpf_strerror(int err, char *buf, size_t len);

enum sbpf_feature {
	SBPF_BTF,		/* /sys/kernel/btf/vmlinux */
	SBPF_TRACEPOINTS,	/* BPF programs on tracepoints */
	SBPF_PERF_EVENT,	/* BPF programs on perf events */
	SBPF_RINGBUF,		/* BPF_MAP_TYPE_RINGBUF */
	SBPF_KPROBES,		/* CONFIG_KPROBES */
	SBPF_UPROBES,		/* CONFIG_UPROBE_EVENTS */
	SBPF_FENTRY,		/* BPF trampolines: fentry/fexit */
	SBPF_NFEATURES,
};

/* Whether the running kernel has the feature (probed once, cached). */
bool sbpf_has(enum sbpf_feature f);
/* The feature's name and what its absence means, for messages:
 * "kprobes (this kernel is built without CONFIG_KPROBES)". */
const char *sbpf_feature_name(enum sbpf_feature f);
const char *sbpf_feature_missing(enum sbpf_feature f);

#endif
