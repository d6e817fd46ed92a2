// SPDX-License-Identifier: GPL-2.0-only
/* discover — where `sonde kptrace` looks for a report when given none, in
 * the order kptrace looks for the newest .panic: the pstore filesystem
 * (/sys/fs/pstore: what the last crash left in firmware or RAM), the
 * copies systemd-pstore archives (/var/lib/systemd/pstore), kdump-tools'
 * /var/crash, then the live kernel log. The newest file of the first
 * place that has one with a report wins. */
#include "kptrace.h"
#include "../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>

struct cand {
	char *path;
	time_t mtime;
};

/* Files whose name starts with "dmesg" under dir, depth at most 2. */
static void collect(const char *dir, int depth, struct cand **v, size_t *n,
		    size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth > 0)
				collect(path, depth - 1, v, n, cap);
			continue;
		}
		if (!S_ISREG(st.st_mode) || strncmp(e->d_name, "dmesg", 5))
			continue;
		sd_grow(v, cap, *n + 1, sizeof(**v));
		(*v)[*n].path = sd_strdup(path);
		(*v)[*n].mtime = st.st_mtime;
		(*n)++;
	}
	closedir(d);
}

static int newest_first(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return (x->mtime < y->mtime) - (x->mtime > y->mtime);
}

static bool has_report(const char *buf, size_t len)
{
	struct kp_reports rs = { 0 };
	bool yes;

	kp_linux_parse(buf, len, &rs);
	yes = rs.n > 0;
	kp_reports_free(&rs);
	return yes;
}

static char *from_dir(const char *dir, int depth, size_t *len, char **what)
{
	struct cand *v = NULL;
	size_t n = 0, cap = 0;
	char *found = NULL;

	collect(dir, depth, &v, &n, &cap);
	if (n)
		qsort(v, n, sizeof(*v), newest_first);
	for (size_t i = 0; i < n && !found; i++) {
		char *buf = sd_read_file(v[i].path, len);

		if (buf && has_report(buf, *len)) {
			found = buf;
			*what = sd_strdup(v[i].path);
		} else {
			free(buf);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	return found;
}

static char *from_klog(size_t *len, char **what)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;
	int n;

	if (size < 0 && errno == EPERM)
		return NULL;	/* refused: errno says so */
	if (size <= 0)
		size = 1 << 20;
	buf = sd_malloc((size_t)size + 1);
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n <= 0) {
		int e = n < 0 ? errno : ENOENT;

		free(buf);
		errno = e;
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	if (!has_report(buf, *len)) {
		free(buf);
		errno = ENOENT;
		return NULL;
	}
	*what = sd_strdup("the kernel log");
	return buf;
}

char *kp_discover(size_t *len, char **what)
{
	const char *root = getenv("SONDE_KPTRACE_ROOT");
	static const struct {
		const char *dir;
		int depth;
	} places[] = {
		{ "/sys/fs/pstore", 0 },
		{ "/var/lib/systemd/pstore", 1 },
		{ "/var/crash", 1 },
	};
	char *buf;

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		char dir[4096];

		snprintf(dir, sizeof(dir), "%s%s", root ? root : "",
			 places[i].dir);
		if ((buf = from_dir(dir, places[i].depth, len, what)))
			return buf;
	}
	if (root) {	/* tests: no live log */
		errno = ENOENT;
		return NULL;
	}
	return from_klog(len, what);
}
