// SPDX-License-Identifier: GPL-2.0-only
// Declarations shared by sonde kptrace's macOS fixture kernel sources.
struct IORegistryPlane {
	int depth;
};

class IORegistryEntry {
public:
	bool attachToChild(IORegistryEntry *child, const IORegistryPlane *plane);
	bool detachFromParent(const IORegistryPlane *plane);
#ifdef BUILD_B
	int buildBPadding(int v);
#endif
	int registryDepth;
	IORegistryEntry *parent;
};

namespace IOKit {
class Service {
public:
	int start(IORegistryEntry *provider, const IORegistryPlane *plane);
};
}

extern int kernel_debug_flags;
int registry_note(int v);
extern "C" void panic(const char *fmt, ...) __attribute__((noreturn));
extern "C" void handle_debugger_trap(int code);
