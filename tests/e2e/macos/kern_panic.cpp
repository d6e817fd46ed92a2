// SPDX-License-Identifier: GPL-2.0-only
// The panic path of sonde kptrace's macOS fixture kernel: panic() calls
// handle_debugger_trap(), which never returns; _start drives the rest.
#include "kern.h"

int kernel_debug_flags;

extern "C" __attribute__((noinline)) void handle_debugger_trap(int code)
{
	for (;;)
		kernel_debug_flags += code;
}

extern "C" __attribute__((noinline)) void panic(const char *fmt, ...)
{
	kernel_debug_flags = fmt[0];
	handle_debugger_trap(kernel_debug_flags);
	__builtin_unreachable();
}

extern "C" void _start(void)
{
	static IORegistryEntry a, b;
	static IORegistryPlane plane = { 1 };
	static IOKit::Service s;

	b.parent = &a;
	s.start(&b, &plane);
	panic("done");
}
