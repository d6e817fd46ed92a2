// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: any bytes as a kernel log through the Linux report
 * parser and its culprit rules (whole, and fed in pieces), as a macOS panic through its parser, and
 * as a Rust symbol through lib/demangle (into a roomy and a tiny buffer).
 * Built when the compiler is clang:
 *   CC=clang meson setup build-fuzz -Db_sanitize=address,undefined \
 *       -Db_lundef=false && ninja -C build-fuzz tests/unit/fuzz_kptrace
 *   build-fuzz/tests/unit/fuzz_kptrace -max_total_time=60 \
 *       ../shared/corpus/linux-reports/syzkaller
 */
#include "kptrace/report.h"
#include "lib/demangle.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_reports rs = { 0 };
	static char sym[8192];
	char out[4096], tiny[8];
	size_t n = size < sizeof(sym) - 1 ? size : sizeof(sym) - 1;

	memcpy(sym, data, n);
	sym[n] = '\0';
	demangle_rust(sym, out, sizeof(out));
	demangle_rust(sym, tiny, sizeof(tiny));
	demangle_rust_len(sym);

	kp_linux_parse((const char *)data, size, &rs);
	kp_reports_free(&rs);
	/* the same fed in three pieces, cut where the first byte says */
	if (size > 2) {
		struct kp_linux *p = kp_linux_begin(&rs);
		size_t cut = data[0] % size, cut2 = cut + (size - cut) / 2;

		kp_linux_feed(p, (const char *)data, cut);
		kp_linux_feed(p, (const char *)data + cut, cut2 - cut);
		kp_linux_done_events(p);
		kp_linux_feed(p, (const char *)data + cut2, size - cut2);
		kp_linux_end(p);
		kp_reports_free(&rs);
	}
	if (kp_macos_detect((const char *)data, size)) {
		kp_macos_parse((const char *)data, size, &rs);
		kp_reports_free(&rs);
	}
	return 0;
}
