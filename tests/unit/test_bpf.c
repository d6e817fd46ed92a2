// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/tracefs and lib/bpf: tracepoint ids and kernel
 * feature probes, checked against what the filesystem says directly.
 * Skipped without root (tracefs and bpf() need it). */
#include "test.h"
#include "lib/bpf.h"
#include "lib/tracefs.h"
#include "lib/util.h"

#include <errno.h>
#include <unistd.h>

static void tracepoint_ids(void **state)
{
	char *s;
	int id;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(tracefs_root());
	id = tracefs_event_id("raw_syscalls", "sys_enter");
	assert_true(id > 0);
	s = sd_read_file("/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
			 NULL);
	if (s) {
		assert_int_equal(id, atoi(s));
		free(s);
	}
	assert_true(tracefs_event_exists("sched", "sched_switch"));
	assert_int_equal(tracefs_event_id("sched", "no_such_event"), -ENOENT);
	assert_int_equal(tracefs_event_id("..", "sys_enter"), -EINVAL);
	assert_int_equal(tracefs_event_id("raw_syscalls", "../x"), -EINVAL);
	assert_true(tracefs_has("events"));
	assert_false(tracefs_has("no_such_file"));
}

static void features_match_the_system(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	sbpf_init(false);
	assert_int_equal(sbpf_has(SBPF_BTF),
			 access("/sys/kernel/btf/vmlinux", R_OK) == 0);
	assert_int_equal(sbpf_has(SBPF_KPROBES),
			 access("/sys/bus/event_source/devices/kprobe", F_OK) == 0);
	assert_int_equal(sbpf_has(SBPF_UPROBES),
			 access("/sys/bus/event_source/devices/uprobe", F_OK) == 0);
	/* Every kernel sonde runs on has these. */
	assert_true(sbpf_has(SBPF_TRACEPOINTS));
	assert_true(sbpf_has(SBPF_RINGBUF));
	for (int f = 0; f < SBPF_NFEATURES; f++) {
		assert_true(strlen(sbpf_feature_name(f)) > 2);
		assert_true(strlen(sbpf_feature_missing(f)) > 10);
	}
}

static void error_text(void **state)
{
	char buf[256];

	(void)state;
	assert_non_null(strstr(sbpf_strerror(-EPERM, buf, sizeof(buf)),
			       "CAP_BPF"));
	assert_non_null(strstr(sbpf_strerror(E2BIG, buf, sizeof(buf)),
			       "too large"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tracepoint_ids),
		cmocka_unit_test(features_match_the_system),
		cmocka_unit_test(error_text),
	};
	return RUN(tests);
}
