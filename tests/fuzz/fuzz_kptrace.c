/* libFuzzer target: any bytes as a kernel log through the Linux report
 * parser and its culprit rules, and as a macOS panic through its parser.
 * Built when the compiler is clang:
 *   CC=clang meson setup build-fuzz -Db_sanitize=address,undefined \
 *       -Db_lundef=false && ninja -C build-fuzz tests/unit/fuzz_kptrace
 *   build-fuzz/tests/unit/fuzz_kptrace -max_total_time=60 \
 *       ../shared/corpus/linux-reports/syzkaller
 */
#include "kptrace/report.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_reports rs = { 0 };

	kp_linux_parse((const char *)data, size, &rs);
	kp_reports_free(&rs);
	if (kp_macos_detect((const char *)data, size)) {
		kp_macos_parse((const char *)data, size, &rs);
		kp_reports_free(&rs);
	}
	return 0;
}
