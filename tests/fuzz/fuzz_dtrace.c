// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: any bytes as D source through the whole compiler
 * (parse, check, probe matching, code generation, nothing loaded). Built
 * when the compiler is clang:
 *   CC=clang meson setup build-fuzz -Db_sanitize=address,undefined \
 *       -Db_lundef=false && ninja -C build-fuzz tests/unit/fuzz_dtrace
 *   build-fuzz/tests/unit/fuzz_dtrace -max_total_time=60 tests/dtrace
 */
#include "dtrace/dtrace.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dt_session s;
	char *argv[] = { "fuzz.d", "1", "word", NULL };

	dt_session_init(&s);
	s.macros.argv = argv;
	s.macros.argc = 3;
	s.macros.target = 1;
	dt_session_add(&s, "fuzz.d", (const char *)data, size, 's');
	dt_compile(&s);
	dt_session_free(&s);
	return 0;
}
