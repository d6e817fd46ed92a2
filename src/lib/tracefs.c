// SPDX-License-Identifier: GPL-2.0-only
/* tracefs — locate or mount tracefs and read tracepoint ids. */
#include "tracefs.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif
#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC 0x64626720
#endif

static bool is_tracefs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (unsigned long)st.f_type == TRACEFS_MAGIC;
}

const char *tracefs_root(void)
{
	static const char *root;

	if (root)
		return root;
	if (is_tracefs("/sys/kernel/tracing"))
		return root = "/sys/kernel/tracing";
	if (is_tracefs("/sys/kernel/debug/tracing"))
		return root = "/sys/kernel/debug/tracing";
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		return root = "/sys/kernel/tracing";
	return NULL;
}

static int path_of(char *buf, size_t len, const char *fmt, const char *a,
		   const char *b)
{
	const char *root = tracefs_root();

	if (!root)
		return -errno;
	if (snprintf(buf, len, fmt, root, a, b) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int tracefs_event_id(const char *category, const char *name)
{
	char path[PATH_MAX], *s;
	int ret;

	if (strchr(category, '/') || strchr(name, '/') ||
	    !strcmp(category, "..") || !strcmp(name, ".."))
		return -EINVAL;
	ret = path_of(path, sizeof(path), "%s/events/%s/%s/id", category, name);
	if (ret)
		return ret;
	s = sd_read_file(path, NULL);
	if (!s)
		return -errno;
	ret = atoi(s);
	free(s);
	return ret > 0 ? ret : -EINVAL;
}

bool tracefs_event_exists(const char *category, const char *name)
{
	return tracefs_event_id(category, name) > 0;
}

bool tracefs_has(const char *file)
{
	char path[PATH_MAX];

	return path_of(path, sizeof(path), "%s/%s%s", file, "") == 0 &&
	       access(path, F_OK) == 0;
}
