// SPDX-License-Identifier: GPL-2.0-only
// A stand-in for XNU's IOKit registry in sonde kptrace's macOS fixtures:
// C++ methods, an inlined chain, a call to a noreturn function at the end
// of a function. -DBUILD_B makes the kernel of another build.
#include "kern.h"

#ifdef BUILD_B
__attribute__((noinline)) int IORegistryEntry::buildBPadding(int v)
{
	return v * 7 + registryDepth;
}
#endif

static inline __attribute__((always_inline)) int planeIndex(const IORegistryPlane *p)
{
	return p->depth * 4 + kernel_debug_flags;
}

static inline __attribute__((always_inline)) bool checkDepth(IORegistryEntry *e,
							     const IORegistryPlane *p)
{
	if (e->registryDepth > planeIndex(p))
		return true;
	return registry_note(e->registryDepth) == 7;
}

bool IORegistryEntry::attachToChild(IORegistryEntry *child,
				    const IORegistryPlane *plane)
{
	if (!checkDepth(child, plane))
		panic("attachToChild: depth %d", child->registryDepth);
	child->parent = this;
	return registry_note(child->registryDepth + 1) > 0;
}

bool IORegistryEntry::detachFromParent(const IORegistryPlane *plane)
{
	IORegistryEntry *p = parent;

	if (!p)
		panic("detachFromParent: no parent");
	parent = nullptr;
	return p->attachToChild(this, plane) && registry_note(3);
}

__attribute__((noinline)) int registry_note(int v)
{
	kernel_debug_flags += v;
	return kernel_debug_flags & 15;
}

namespace IOKit {
int Service::start(IORegistryEntry *provider, const IORegistryPlane *plane)
{
	int r = provider->detachFromParent(plane) ? 1 : 0;

	return r + registry_note(r);
}
}
