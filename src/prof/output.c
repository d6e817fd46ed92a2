// SPDX-License-Identifier: GPL-2.0-only
/* output — sonde prof's profiles in and out: a profile read back (a pprof
 * file, a raw dump, a directory of them, bounded in size) and rendered as
 * pprof, folded stacks, a table or a flame graph through lib/outfile
 * (every path checked before the work, devices written through, a failure
 * at the end saying where the profile stays). Used by prof.c (-i) and
 * launch.c (what a run wrote). */
#include "prof.h"
#include "dump.h"
#include "../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- outputs ---- */

int prof_open_output(const char *path, struct sd_outfile *of)
{
	/* non-blocking: a FIFO or socket is waited for a bounded time */
	int err = sd_outfile_open(of, path, 0644, SD_OUT_NONBLOCK);

	if (err)
		sd_err("cannot write %s: %s", path, strerror(-err));
	return err;
}

static unsigned kinds(const struct prof_opts *o)
{
	return o->no_demangle ? 0 : DEMANGLE_ALL;
}

/* How long a reader of a FIFO or socket may keep sonde prof waiting
 * before the profile is left in the private directory instead. */
#define THROUGH_WAIT_MS 1000

/* Write all of buf; to a FIFO or socket (opened non-blocking) waiting at
 * most THROUGH_WAIT_MS for its reader in all. 0 or -errno. */
static int write_bounded(struct sd_outfile *of, const char *buf, size_t len)
{
	uint64_t end = sd_now_ns() + THROUGH_WAIT_MS * 1000000ull;

	if (!of->through)
		return sd_outfile_write(of, buf, len);
	while (len) {
		ssize_t n = write(of->fd, buf, len);
		struct pollfd pfd = { .fd = of->fd, .events = POLLOUT };
		uint64_t now;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN)
			return of->err = n < 0 ? -errno : -EIO;
		now = sd_now_ns();
		if (now >= end || poll(&pfd, 1, (int)((end - now) / 1000000) +
				       1) == 0)
			return of->err = -ETIMEDOUT;
	}
	return 0;
}

/* Close an output whose bytes are in of; on failure say so once, naming
 * where the profile stays. */
static int finish(struct sd_outfile *of, int err, const char *kept_hint)
{
	if (!err)
		err = sd_outfile_close(of);
	else
		sd_outfile_discard(of);
	if (err) {
		if (sd_outfile_kept(of))
			unlink(sd_outfile_kept(of));
		sd_err("cannot write %s: %s%s%s", of->path, strerror(-err),
		       kept_hint ? "; the profile is in " : "",
		       kept_hint ? kept_hint : "");
	}
	return err;
}

int prof_render(const struct prof_opts *o, struct pprof *p,
		struct prof_outputs *outs, const void *pprof_bytes,
		size_t pprof_len, const char *kept_hint)
{
	int ret = 0;

	if (o->format == FMT_PPROF && outs->has_main) {
		uint8_t *enc = NULL;
		size_t len = pprof_len;
		const void *bytes = pprof_bytes;
		int err;

		if (!bytes)
			bytes = enc = pprof_encode_gzip(p, &len);
		err = finish(&outs->main,
			     write_bounded(&outs->main, bytes, len),
			     kept_hint);
		if (!err && !o->quiet && (o->verbose || isatty(2)))
			prof_say_wrote(outs->main.path, p, len);
		ret |= err;
		free(enc);
	} else if (o->format != FMT_PPROF) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (o->format == FMT_FOLDED)
			prof_write_folded(p, m, kinds(o));
		else
			prof_write_table(p, m, o->top, kinds(o));
		fclose(m);
		if (outs->has_main) {
			ret |= finish(&outs->main,
				      write_bounded(&outs->main, buf, len),
				      kept_hint);
		} else {
			fwrite(buf, 1, len, stdout);
			if (fflush(stdout))
				ret = -EIO;
		}
		free(buf);
	}
	if (outs->has_svg) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		int err;

		prof_write_svg(p, m, kinds(o), "sonde prof");
		fclose(m);
		err = finish(&outs->svg, write_bounded(&outs->svg, buf, len),
			     kept_hint);
		if (!err && !o->quiet && (o->verbose || isatty(2)))
			sd_err("wrote %s", outs->svg.path);
		ret |= err;
		free(buf);
	}
	if (outs->has_main)
		sd_outfile_free(&outs->main);
	if (outs->has_svg)
		sd_outfile_free(&outs->svg);
	outs->has_main = outs->has_svg = false;
	return ret ? -EIO : 0;
}

void prof_say_wrote(const char *path, struct pprof *p, uint64_t bytes)
{
	int64_t tid_key = pprof_str(p, "tid");
	uint64_t samples = 0, *tids = NULL;
	size_t ntids = 0, cap = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pprof_sample *s = &p->samples[i];

		if (p->ntypes)
			samples += (uint64_t)s->values[0];
		for (size_t l = 0; l < s->nlabels; l++) {
			size_t k;

			if (s->labels[l].key != tid_key)
				continue;
			for (k = 0; k < ntids && tids[k] != (uint64_t)s->labels[l].num; k++)
				;
			if (k == ntids) {
				sd_grow(&tids, &cap, ntids + 1, sizeof(*tids));
				tids[ntids++] = (uint64_t)s->labels[l].num;
			}
		}
	}
	sd_err("wrote %s (%llu sample%s, %zu thread%s, %llu KB)", path,
	       (unsigned long long)samples, samples == 1 ? "" : "s", ntids,
	       ntids == 1 ? "" : "s",
	       (unsigned long long)((bytes + 1023) / 1024));
	free(tids);
}

/* ---- inputs ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A raw dump (left by a program killed by a signal) read as a profile:
 * symbolized into a temporary file first. */
static int read_raw(const struct prof_opts *o, struct pprof *p,
		    const char *path)
{
	const char *dir = getenv("TMPDIR");
	char tmp[4096], why[256];
	int fd, sig, err;

	snprintf(tmp, sizeof(tmp), "%s/sonde-prof-raw.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	close(fd);
	err = sprof_convert_raw(path, tmp, &sig, why, sizeof(why));
	if (err)
		sd_warn("cannot symbolize %s: %s", path, why);
	else
		err = pprof_read_max(p, tmp, o->input_max);
	unlink(tmp);
	return err;
}

static int read_one(const struct prof_opts *o, struct pprof *p,
		    const char *path)
{
	return ends_with(path, ".raw") ? read_raw(o, p, path) :
	       pprof_read_max(p, path, o->input_max);
}

int prof_read_profiles(const struct prof_opts *o, struct pprof *p,
		       const char *path, int *nread)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int err;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		err = read_one(o, p, path);
		*nread += !err;
		return err;
	}
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *f;

		if (!ends_with(de->d_name, ".pb.gz") &&
		    !ends_with(de->d_name, ".raw"))
			continue;
		f = sd_malloc(strlen(path) + n + 2);
		sprintf(f, "%s/%s", path, de->d_name);
		err = read_one(o, p, f);
		if (err)
			sd_warn("cannot read %s: %s", f, strerror(-err));
		else
			(*nread)++;
		free(f);
	}
	closedir(d);
	return 0;
}

