// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: any bytes as a trace file through sonde kdump — the
 * header and record checks of the reader and every printer (text and JSON,
 * symbolic and raw, with and without data), as `sonde kdump -f` runs them.
 * The first byte picks the options; the rest is the file. Built when the
 * compiler is clang:
 *   CC=clang meson setup build-fuzz -Db_sanitize=address,undefined \
 *       -Db_lundef=false && ninja -C build-fuzz tests/unit/fuzz_kdump
 *   build-fuzz/tests/unit/fuzz_kdump -close_fd_mask=3 -max_total_time=60 DIR
 * (seeds: a byte of options, then a file `sonde ktrace -- ls` wrote; the
 * decoded text and kdump's messages go to /dev/null with -close_fd_mask=3,
 * libFuzzer's and the sanitizers' reports still reach stderr). */
#define _GNU_SOURCE
#include "commands.h"

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int file_fd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	char *argv[12];
	int argc = 0;
	uint8_t pick;

	if (file_fd < 0)
		file_fd = memfd_create("fuzz-ktrace", MFD_CLOEXEC);
	if (file_fd < 0 || size < 1)
		return 0;
	pick = data[0];
	if (ftruncate(file_fd, 0) || pwrite(file_fd, data + 1, size - 1, 0) !=
	    (ssize_t)(size - 1))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", file_fd);
	argv[argc++] = "kdump";
	argv[argc++] = "-f";
	argv[argc++] = path;
	if (pick & 1)
		argv[argc++] = "--format=json";
	if (pick & 2)
		argv[argc++] = "-n";
	if (pick & 4)
		argv[argc++] = "-d";
	if (pick & 8)
		argv[argc++] = "-H";
	if (pick & 16)
		argv[argc++] = (pick & 32) ? "-R" : "-E";
	else if (pick & 32)
		argv[argc++] = "-T";
	if (pick & 64)
		argv[argc++] = "-m3";
	if (pick & 128)
		argv[argc++] = "-s";
	argv[argc] = NULL;
	optind = 0;	/* glibc: start getopt afresh on every input */
	cmd_kdump(argc, argv);
	fflush(stdout);
	return 0;
}
