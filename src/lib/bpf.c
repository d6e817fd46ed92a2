// SPDX-License-Identifier: GPL-2.0-only
/* bpf — libbpf glue: message routing, error text, feature probes. */
#include "bpf.h"
#include "tracefs.h"
#include "util.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LOG_MAX (64 * 1024)
#ifndef ENOTSUPP
#define ENOTSUPP 524	/* the kernel's internal "not supported" */
#endif

static bool verbose;
static char log_buf[LOG_MAX];
static size_t log_len;

static int print_fn(enum libbpf_print_level level, const char *fmt,
		    va_list ap)
{
	char line[4096];
	int n;

	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (log_len + n >= LOG_MAX) {
		/* Keep the newest part: drop the older half. */
		size_t keep = LOG_MAX / 2;

		if (log_len > keep) {
			memmove(log_buf, log_buf + log_len - keep, keep);
			log_len = keep;
		}
	}
	if (log_len + n < LOG_MAX) {
		memcpy(log_buf + log_len, line, n);
		log_len += n;
		log_buf[log_len] = '\0';
	}
	if (verbose && level != LIBBPF_DEBUG)
		fprintf(stderr, "%s: libbpf: %s", sd_prog(), line);
	return n;
}

void sbpf_init(bool v)
{
	verbose = v;
	libbpf_set_print(print_fn);
}

const char *sbpf_log(void)
{
	return log_buf;
}

void sbpf_log_clear(void)
{
	log_len = 0;
	log_buf[0] = '\0';
}

const char *sbpf_strerror(int err, char *buf, size_t len)
{
	char base[128];

	err = err < 0 ? -err : err;
	if (libbpf_strerror(err, base, sizeof(base)))
		snprintf(base, sizeof(base), "%s", strerror(err));
	switch (err) {
	case EPERM:
	case EACCES:
		snprintf(buf, len, "%s (need root, or CAP_BPF and CAP_PERFMON)",
			 base);
		break;
	case ENOENT:
		snprintf(buf, len, "%s (the kernel lacks the event or "
			 "function to attach to)", base);
		break;
	case E2BIG:
	case ENOSPC:
		snprintf(buf, len, "%s (the program or map is too large for "
			 "this kernel)", base);
		break;
	case ENOTSUPP:
	case EOPNOTSUPP:
		snprintf(buf, len, "%s (this kernel does not support it)",
			 base);
		break;
	default:
		snprintf(buf, len, "%s", base);
	}
	return buf;
}

static const struct {
	const char *name, *missing;
} features[SBPF_NFEATURES] = {
	[SBPF_BTF] = { "BTF", "the kernel has no BTF "
		       "(/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)" },
	[SBPF_TRACEPOINTS] = { "BPF on tracepoints", "the kernel cannot run "
			       "BPF programs on tracepoints (CONFIG_BPF_EVENTS)" },
	[SBPF_PERF_EVENT] = { "BPF on perf events", "the kernel cannot run BPF "
			      "programs on perf events (CONFIG_BPF_EVENTS)" },
	[SBPF_RINGBUF] = { "BPF ring buffers", "the kernel has no BPF ring "
			   "buffer (Linux 5.8 or later)" },
	[SBPF_KPROBES] = { "kprobes", "this kernel is built without "
			   "CONFIG_KPROBES: no kprobes, no fbt provider" },
	[SBPF_UPROBES] = { "uprobes", "this kernel is built without "
			   "CONFIG_UPROBE_EVENTS" },
	[SBPF_FENTRY] = { "fentry/fexit", "this kernel has no BPF trampolines "
			  "(needs dynamic ftrace: "
			  "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)" },
};

/* Load and attach a do-nothing fentry program on bpf_fentry_test1 (the
 * kernel's own test target): the files in tracefs can exist while the
 * attach still fails. */
static bool probe_fentry(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *btf = btf__load_vmlinux_btf();
	int id, fd, link;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bpf_fentry_test1", BTF_KIND_FUNC);
	btf__free(btf);
	if (id < 0)
		return false;
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = (__u32)id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "sonde_fentry", "GPL",
			   insns, 2, &o);
	if (fd < 0)
		return false;
	link = bpf_raw_tracepoint_open(NULL, fd);
	close(fd);
	if (link < 0)
		return false;
	close(link);
	return true;
}

static bool probe(enum sbpf_feature f)
{
	switch (f) {
	case SBPF_BTF:
		return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	case SBPF_TRACEPOINTS:
		return libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT,
						  NULL) == 1;
	case SBPF_PERF_EVENT:
		return libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT,
						  NULL) == 1;
	case SBPF_RINGBUF:
		return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF,
						 NULL) == 1;
	case SBPF_KPROBES:
		return access("/sys/bus/event_source/devices/kprobe", F_OK) == 0 ||
		       tracefs_has("kprobe_events");
	case SBPF_UPROBES:
		return access("/sys/bus/event_source/devices/uprobe", F_OK) == 0 ||
		       tracefs_has("uprobe_events");
	case SBPF_FENTRY:
		/* Trampolines attach through ftrace's direct calls: try
		 * one. */
		return access("/sys/kernel/btf/vmlinux", R_OK) == 0 &&
		       probe_fentry();
	default:
		return false;
	}
}

bool sbpf_has(enum sbpf_feature f)
{
	static signed char cache[SBPF_NFEATURES];

	if (f < 0 || f >= SBPF_NFEATURES)
		return false;
	if (!cache[f])
		cache[f] = probe(f) ? 1 : -1;
	return cache[f] > 0;
}

const char *sbpf_feature_name(enum sbpf_feature f)
{
	return f < SBPF_NFEATURES ? features[f].name : "?";
}

const char *sbpf_feature_missing(enum sbpf_feature f)
{
	return f < SBPF_NFEATURES ? features[f].missing : "?";
}
