// SPDX-License-Identifier: GPL-2.0-only
/* outfile — output files that are checked before the work, written to a
 * temporary sibling and renamed (regular files), or written through in
 * place (everything else). See outfile.h. */
#include "outfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's umask, read without changing it (threads may run). */
static mode_t current_umask(void)
{
	char *s = sd_read_file("/proc/self/status", NULL), *p;
	mode_t m = 022;

	if (s && (p = strstr(s, "\nUmask:")))
		m = (mode_t)strtoul(p + 7, NULL, 8) & 0777;
	free(s);
	return m;
}

/* A temporary file beside final: ".NAME.sonde-XXXXXX" in its directory. */
static int make_tmp(struct sd_outfile *o)
{
	char *dup1 = sd_strdup(o->final), *dup2 = sd_strdup(o->final);
	const char *dir = dirname(dup1), *base = basename(dup2);
	int fd;

	o->tmp = sd_malloc(strlen(dir) + strlen(base) + 16);
	sprintf(o->tmp, "%s/.%s.sonde-XXXXXX", dir, base);
	fd = mkostemp(o->tmp, O_CLOEXEC);
	free(dup1);
	free(dup2);
	if (fd < 0) {
		int err = -errno;

		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	return fd;
}

static int open_through(struct sd_outfile *o, unsigned flags)
{
	int fd = open(o->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC |
			       (flags & SD_OUT_APPEND ? O_APPEND : 0));

	/* O_NONBLOCK: a FIFO nobody reads fails with ENXIO instead of
	 * hanging the command before it has done anything. */
	if (fd < 0)
		return -errno;
	if (!(flags & SD_OUT_NONBLOCK)) {
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	o->through = true;
	return fd;
}

int sd_outfile_open(struct sd_outfile *o, const char *path, mode_t mode,
		    unsigned flags)
{
	struct stat st, lst;
	int fd;

	*o = (struct sd_outfile){ .fd = -1 };
	if (!path || !*path)
		return -ENOENT;
	o->path = sd_strdup(path);
	if (!strcmp(path, "-")) {
		fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			goto fail_errno;
		o->through = true;
		o->fd = fd;
		return 0;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			goto fail_errno;
		}
		if (!S_ISREG(st.st_mode)) {
			fd = open_through(o, flags);
			if (fd < 0)
				goto fail;
			o->fd = fd;
			return 0;
		}
		if (access(path, W_OK))
			goto fail_errno;
		if (flags & SD_OUT_APPEND) {
			fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
			if (fd < 0)
				goto fail_errno;
			o->fd = fd;
			return 0;
		}
		/* Replace the file a link points to, not the link. */
		o->final = realpath(path, NULL);
		if (!o->final)
			goto fail_errno;
		fd = make_tmp(o);
		if (fd < 0)
			goto fail;
		/* The replacement keeps the mode and owner of what it
		 * replaces. */
		if (fchmod(fd, st.st_mode & 07777) ||
		    (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid))) {
			/* Not fatal: the content matters more. */
		}
		o->fd = fd;
		return 0;
	}
	if (errno != ENOENT)
		goto fail_errno;
	/* A dangling link: write through it, creating its target. */
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC |
				(flags & SD_OUT_APPEND ? O_APPEND : 0), mode);
		if (fd < 0)
			goto fail_errno;
		o->through = true;
		o->fd = fd;
		return 0;
	}
	if (flags & SD_OUT_APPEND) {
		/* Nothing there to keep: create it in place. */
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
				O_CLOEXEC, mode);
		if (fd < 0)
			goto fail_errno;
		o->fd = fd;
		return 0;
	}
	o->final = sd_strdup(path);
	fd = make_tmp(o);
	if (fd < 0)
		goto fail;
	if (fchmod(fd, mode & ~current_umask() & 07777)) {
		/* mkostemp's 0600 stays: safe, only less open. */
	}
	o->fd = fd;
	return 0;

fail_errno:
	fd = -errno;
fail:
	free(o->path);
	free(o->final);
	*o = (struct sd_outfile){ .fd = -1 };
	return fd;
}

FILE *sd_outfile_stream(struct sd_outfile *o)
{
	if (!o->f && o->fd >= 0) {
		o->f = fdopen(o->fd, "w");
		if (!o->f && !o->err)
			o->err = -errno;
	}
	return o->f;
}

int sd_outfile_write(struct sd_outfile *o, const void *buf, size_t len)
{
	const char *p = buf;

	if (o->err)
		return o->err;
	if (o->f && fflush(o->f)) {
		o->err = -errno;
		return o->err;
	}
	while (len) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->err = n < 0 ? -errno : -EIO;
			return o->err;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sd_outfile_publish(struct sd_outfile *o)
{
	if (!o->tmp || o->published)
		return 0;
	if (rename(o->tmp, o->final)) {
		int err = -errno;

		if (!o->err)
			o->err = err;
		return err;
	}
	o->published = true;
	return 0;
}

int sd_outfile_close(struct sd_outfile *o)
{
	if (o->fd < 0)
		return o->err;
	if (o->f) {
		if ((fflush(o->f) || ferror(o->f)) && !o->err)
			o->err = errno ? -errno : -EIO;
	}
	/* Data on disk before the name points at it: a crash leaves the old
	 * file or the whole new one, never an empty one. */
	if (o->tmp && !o->published && !o->err && fsync(o->fd))
		o->err = -errno;
	if (o->f) {
		if (fclose(o->f) && !o->err)
			o->err = -errno;
		o->f = NULL;
	} else if (close(o->fd) && !o->err && errno != EINTR) {
		o->err = -errno;
	}
	o->fd = -1;
	if (!o->err)
		sd_outfile_publish(o);
	return o->err;
}

void sd_outfile_discard(struct sd_outfile *o)
{
	if (o->f)
		fclose(o->f);
	else if (o->fd >= 0)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	if (o->tmp && !o->published)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

const char *sd_outfile_kept(const struct sd_outfile *o)
{
	return o->err && o->tmp && !o->published ? o->tmp : NULL;
}

void sd_outfile_free(struct sd_outfile *o)
{
	free(o->path);
	free(o->final);
	free(o->tmp);
	*o = (struct sd_outfile){ .fd = -1 };
}
