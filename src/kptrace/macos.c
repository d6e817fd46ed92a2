/* macos — parses macOS panic reports. (Being written.) */
#include "report.h"

#include <errno.h>

bool kp_macos_detect(const char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return false;
}

int kp_macos_parse(const char *buf, size_t len, struct kp_reports *out)
{
	(void)buf;
	(void)len;
	(void)out;
	return -ENOENT;
}
