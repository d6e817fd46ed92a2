// SPDX-License-Identifier: GPL-2.0-only
// A C++ kext for sonde kptrace's macOS fixtures: methods that call into
// the kernel (undefined here, bound at load time) with an inlined helper.
extern "C" void panic(const char *fmt, ...) __attribute__((noreturn));
extern "C" int IOLog(const char *fmt, ...);

namespace example {
class Driver {
public:
	bool start(int provider);
	void stop();
	int state;
};

static inline __attribute__((always_inline)) int scaled(int v)
{
	return IOLog("scaled %d", v) + v * 3;
}

bool Driver::start(int provider)
{
	state = scaled(provider);
	if (state > 4096)
		panic("example: bad provider %d", provider);
	return IOLog("started %d", state) > 0;
}

void Driver::stop()
{
	if (!state)
		panic("example: stop before start");
	state = IOLog("stopping");
}
}
