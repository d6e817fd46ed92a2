// SPDX-License-Identifier: GPL-2.0-only
/* prof — `sonde prof`: the command line, and the outputs: a profile read
 * back (-i, or what a run wrote) rendered as pprof, folded stacks, a table
 * or a flame graph through lib/outfile (every path checked before the
 * work, devices written through, a failure at the end saying where the
 * profile stays). Running a command is launch.c's. */
#include "prof.h"
#include "dump.h"
#include "../commands.h"
#include "../lib/cli.h"
#include "../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
"usage: sonde prof [-F HZ] [-o FILE] [--format pprof|folded|table] [--kernel]\n"
"                  [--svg FILE] [-n TOP] [--no-demangle] [-q | -v]\n"
"                  -- COMMAND [ARGS...]\n"
"       sonde prof -i PROFILE [--format table|folded|pprof] [--svg FILE]\n"
"                  [-n TOP] [--no-demangle] [--input-max SIZE] [-o FILE]\n"
"\n"
"Profile the CPU time of COMMAND, every thread on its own CPU clock.\n"
"\n"
"  -F, --frequency HZ   samples per second of CPU time, per thread\n"
"                       (default 100, at most 10000)\n"
"  -o, --output FILE    where to write (default sonde-prof.PID.pb.gz for\n"
"                       pprof, stdout for folded and table)\n"
"      --format FORMAT  pprof (default, gzipped profile.proto), folded or\n"
"                       table\n"
"      --svg FILE       also draw a flame graph into FILE\n"
"      --kernel         sample with perf events and include kernel frames\n"
"                       (needs root or CAP_PERFMON)\n"
"  -i, --input FILE     show a profile written before (pprof, a raw dump,\n"
"                       or a directory of them, merged)\n"
"      --input-max SIZE read at most SIZE decompressed bytes of a profile\n"
"                       (default 1G)\n"
"  -n, --top N          rows in the table (default 25; 0 for all)\n"
"      --no-demangle    C++ and Rust symbols as they are in the table and\n"
"                       folded stacks (pprof keeps both)\n"
"  -q, --quiet          say nothing of what was written\n"
"  -v, --verbose        say what was written even when stderr is no\n"
"                       terminal, each forked process's file too\n"
"  -h, --help           this help\n"
"\n"
"Processes the command forks write PROFILE with their pid inserted\n"
"(sonde-prof.PID.CHILD.pb.gz); programs it execs are profiled too.\n"
"Without the launcher: LD_PRELOAD=libsonde-prof.so SONDE_PROF=FILE cmd.\n";

enum { OPT_FORMAT = 0x100, OPT_KERNEL, OPT_NO_DEMANGLE, OPT_SVG, OPT_INPUT_MAX };

static const struct option long_opts[] = {
	{ "frequency", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "input", required_argument, NULL, 'i' },
	{ "input-max", required_argument, NULL, OPT_INPUT_MAX },
	{ "top", required_argument, NULL, 'n' },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct prof_opts *o)
{
	int c;

	optind = 1;
	opterr = 0;
	/* '+': options end at the command. */
	while ((c = getopt_long(argc, argv, "+:F:o:i:n:qvh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'F':
			if (sd_parse_u64(optarg, 1, 10000, &o->hz))
				return sd_usage_error("bad frequency '%s' (1 to "
						   "10000 Hz)", optarg);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'i':
			o->input = optarg;
			break;
		case 'n':
			if (sd_parse_u64(optarg, 0, UINT64_MAX, &o->top))
				return sd_usage_error("bad row count '%s'", optarg);
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "pprof"))
				o->format = FMT_PPROF;
			else if (!strcmp(optarg, "folded"))
				o->format = FMT_FOLDED;
			else if (!strcmp(optarg, "table"))
				o->format = FMT_TABLE;
			else
				return sd_usage_error("unknown format '%s' (pprof, "
						   "folded or table)", optarg);
			o->format_set = true;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_INPUT_MAX:
			if (sd_parse_size(optarg, &o->input_max) ||
			    !o->input_max)
				return sd_usage_error("bad size '%s' (e.g. 4G)",
						      optarg);
			break;
		case OPT_KERNEL:
			o->kernel = true;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return sd_getopt_error(c, argv, long_opts);
		}
	}
	if (o->quiet && o->verbose)
		return sd_usage_error("-q and -v exclude each other");
	if (o->input) {
		if (optind < argc)
			return sd_usage_error("-i takes no command ('%s')",
					   argv[optind]);
		if (!o->format_set)
			o->format = o->svg ? FMT_PPROF : FMT_TABLE;
		if (o->format == FMT_PPROF && !o->out && !o->svg)
			return sd_usage_error("-i with --format pprof writes to a "
					      "file: give -o");
		return -1;
	}
	if (optind >= argc)
		return sd_usage_error("no command to profile");
	o->cmd = argv + optind;
	return -1;
}

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

static int show_input(const struct prof_opts *o)
{
	struct prof_outputs outs = { 0 };
	struct pprof p;
	int n = 0, err, ret;

	if (o->out && strcmp(o->out, "-")) {
		if (prof_open_output(o->out, &outs.main))
			return SD_EXIT_FAIL;
		outs.has_main = true;
	}
	if (o->svg) {
		if (prof_open_output(o->svg, &outs.svg)) {
			if (outs.has_main)
				sd_outfile_discard(&outs.main);
			return SD_EXIT_FAIL;
		}
		outs.has_svg = true;
	}
	pprof_init(&p);
	err = prof_read_profiles(o, &p, o->input, &n);
	if (err) {
		char lim[32];

		snprintf(lim, sizeof(lim), "%llu", (unsigned long long)o->input_max);
		if (err == -EFBIG)
			sd_err("cannot read %s: it decompresses to more than %s "
			       "bytes (a gzip bomb? --input-max raises the "
			       "limit)", o->input, lim);
		else
			sd_err("cannot read %s: %s", o->input,
			       err == -EPROTO || err == -EINVAL ?
			       "not a pprof profile" : strerror(-err));
		if (outs.has_main)
			sd_outfile_discard(&outs.main);
		if (outs.has_svg)
			sd_outfile_discard(&outs.svg);
		pprof_free(&p);
		return SD_EXIT_FAIL;
	}
	ret = prof_render(o, &p, &outs, NULL, 0, NULL) ? SD_EXIT_FAIL : 0;
	pprof_free(&p);
	return ret;
}

int cmd_prof(int argc, char **argv)
{
	struct prof_opts o = { .hz = 100, .top = 25, .input_max = 1ull << 30 };
	int ret;

	sd_set_prog("sonde prof");
	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.input)
		return show_input(&o);
	return prof_run(&o);
}
