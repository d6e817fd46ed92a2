// SPDX-License-Identifier: GPL-2.0-only
// A kext of the fixture KDK's own (System/Library/Extensions), found by
// its bundle id when a report names it.
extern "C" int IOLog(const char *fmt, ...);

class AppleWidget {
public:
	int probe(int unit);
};

int AppleWidget::probe(int unit)
{
	return IOLog("probe %d", unit) + IOLog("done");
}
