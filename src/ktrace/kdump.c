// SPDX-License-Identifier: GPL-2.0-only
/* kdump — `sonde kdump`: prints a trace file recorded by sonde ktrace in
 * the style of BSD kdump(1), as JSON lines or as a strace -c summary. This file is the
 * command: options, the reading loop (a damaged stretch is skipped to
 * the next plausible record and reported), and the output step every
 * event goes through; kdump.h says how the other kdump_*.c files fit. */
#include "kdump.h"
#include "ktrace.h"
#include "reader.h"
#include "record.h"
#include "../commands.h"
#include "../lib/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
"usage: sonde kdump [-f FILE|-] [-d] [-n] [-E | -R | -T] [-D] [-H] [-l]\n"
"                   [-m MAXDATA] [-s] [-x | -X] [-y] [-p PID] [-t TRSTR]\n"
"                   [-e EXPR] [-z | -Z] [-c [-S SORTBY]] [--strace]\n"
"                   [--format text|strace|json|chrome] [--merge]\n"
"                   [--string-limit N]\n"
"                   [--file-order] [--window MIB]\n"
"\n"
"Print a trace file recorded by sonde ktrace.\n"
"\n"
"  -f, --file FILE        the trace file (default ktrace.out); - reads stdin\n"
"  -d, --decimal          numbers in decimal\n"
"  -n, --raw              no symbolic decoding (flags, AT_FDCWD, signals,\n"
"                         errno text)\n"
"  -E, --elapsed          elapsed time since the first record\n"
"  -R, --relative         time since the thread's previous record\n"
"  -T, --absolute         absolute time (seconds since the epoch)\n"
"  -D, --durations        each call's duration on its RET line (also with\n"
"                         -E, -R, -T)\n"
"  -H, --threads          print thread ids too\n"
"  -l, --follow           keep reading a file that is still being written\n"
"  -m, --max-data MAXDATA print at most MAXDATA bytes of each I/O\n"
"  -s, --no-data          do not print I/O data\n"
"  -x, --hex              I/O data that is not text as a hex dump\n"
"  -X, --hex-ascii        all I/O data as a hex dump, with the ASCII beside\n"
"  -y, --decode-fds       annotate fds with what they refer to\n"
"  -p, --pid PID          only records of this process or thread\n"
"  -t, --trace TRSTR      only these trace points (c n i s w p t, as ktrace\n"
"                         -t)\n"
"  -e, --expr EXPR        strace's trace=NAME,%CLASS,... and status=failed,...\n"
"  -z, --successful-only  only calls that succeeded\n"
"  -Z, --failed-only      only calls that failed\n"
"  -c, --summary-only     a table of calls, errors and times per syscall\n"
"  -S, --summary-sort-by SORTBY\n"
"                         sort -c's table by time, calls, name, errors,\n"
"                         avg-time, max-time or nothing\n"
"      --strace           one line per call, as strace prints it (with -D\n"
"                         for its -T, -y, -E/-R/-T for times)\n"
"      --string-limit N   --strace: at most N bytes of data (default 32)\n"
"      --format F         text (default), strace, json (one object per line)\n"
"                         or chrome (a timeline for Perfetto, speedscope)\n"
"      --merge            json: one object per call, not CALL, NAMI, GIO, RET\n"
"      --file-order       records in the file's order, not in time order\n"
"      --window MIB       the time-order window (default 16 MiB of records)\n"
"  -h, --help             this help\n";

enum { OPT_FORMAT = 0x100, OPT_MERGE, OPT_FILE_ORDER, OPT_WINDOW,
       OPT_STRACE, OPT_STRSIZE };

static const struct option long_opts[] = {
	{ "file", required_argument, NULL, 'f' },
	{ "decimal", no_argument, NULL, 'd' },
	{ "raw", no_argument, NULL, 'n' },
	{ "elapsed", no_argument, NULL, 'E' },
	{ "relative", no_argument, NULL, 'R' },
	{ "absolute", no_argument, NULL, 'T' },
	{ "durations", no_argument, NULL, 'D' },
	{ "threads", no_argument, NULL, 'H' },
	{ "follow", no_argument, NULL, 'l' },
	{ "max-data", required_argument, NULL, 'm' },
	{ "no-data", no_argument, NULL, 's' },
	{ "hex", no_argument, NULL, 'x' },
	{ "hex-ascii", no_argument, NULL, 'X' },
	{ "decode-fds", no_argument, NULL, 'y' },
	{ "pid", required_argument, NULL, 'p' },
	{ "trace", required_argument, NULL, 't' },
	{ "expr", required_argument, NULL, 'e' },
	{ "successful-only", no_argument, NULL, 'z' },
	{ "failed-only", no_argument, NULL, 'Z' },
	{ "summary-only", no_argument, NULL, 'c' },
	{ "summary-sort-by", required_argument, NULL, 'S' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "strace", no_argument, NULL, OPT_STRACE },
	{ "string-limit", required_argument, NULL, OPT_STRSIZE },
	{ "merge", no_argument, NULL, OPT_MERGE },
	{ "file-order", no_argument, NULL, OPT_FILE_ORDER },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define MAX_EXPRS 16

static const struct {
	const char *name;
	enum kd_sort sort;
} sorts[] = {
	{ "time", KD_SORT_TIME }, { "total-time", KD_SORT_TIME },
	{ "calls", KD_SORT_CALLS }, { "count", KD_SORT_CALLS },
	{ "name", KD_SORT_NAME }, { "syscall", KD_SORT_NAME },
	{ "errors", KD_SORT_ERRORS }, { "error", KD_SORT_ERRORS },
	{ "avg-time", KD_SORT_AVG }, { "time-avg", KD_SORT_AVG },
	{ "max-time", KD_SORT_MAX }, { "time-max", KD_SORT_MAX },
	{ "nothing", KD_SORT_NOTHING }, { "none", KD_SORT_NOTHING },
};

static int parse_args(int argc, char **argv, struct kd_opts *o,
		      const char **exprs, int *nexprs)
{
	int c;
	uint64_t v;
	bool format_set = false, summary = false;

	*o = (struct kd_opts){ .file = "ktrace.out", .maxdata = -1, .pid = -1,
			       .points = ~0u, .status = KD_ST_ALL,
			       .window = 16u << 20, .strsize = 32 };
	*nexprs = 0;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":f:dnERTDHlm:sxXyp:t:e:zZcS:h",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'f': o->file = optarg; break;
		case 'd': o->x.decimal = true; break;
		case 'n': o->x.raw = true; break;
		case 'E': case 'R': case 'T':
			if (o->timefmt && o->timefmt != c)
				return sd_usage_error("%s", "-E, -R and -T exclude "
						   "each other");
			o->timefmt = c;
			o->durations = true;
			break;
		case 'D': o->durations = true; break;
		case 'H': o->tids = true; break;
		case 'l': o->follow = true; break;
		case 's': o->nodata = true; break;
		case 'x': case 'X':
			if (o->hex && o->hex != c)
				return sd_usage_error("%s", "-x and -X exclude each "
						   "other");
			o->hex = c;
			break;
		case 'y': o->fds = true; break;
		case 'm':
			if (sd_parse_u64(optarg, 0, 1 << 30, &v))
				return sd_usage_error("bad data size '%s'", optarg);
			o->maxdata = v;
			break;
		case 'p':
			if (sd_parse_u64(optarg, 1, INT32_MAX, &v))
				return sd_usage_error("bad pid '%s'", optarg);
			o->pid = v;
			break;
		case 't':
			if (ktrace_parse_points(optarg, &o->points))
				return sd_usage_error("bad trace points '%s' (letters "
						   "c n i s w p t)", optarg);
			break;
		case 'e':
			if (*nexprs == MAX_EXPRS)
				return sd_usage_error("%s", "too many -e");
			exprs[(*nexprs)++] = optarg;
			break;
		case 'z': case 'Z':
			exprs[MAX_EXPRS + (c == 'Z')] = "";
			break;
		case 'c': summary = true; break;
		case 'S': {
			size_t i;

			for (i = 0; i < ARRAY_SIZE(sorts); i++)
				if (!strcmp(sorts[i].name, optarg))
					break;
			if (i == ARRAY_SIZE(sorts))
				return sd_usage_error("unknown sort '%s' (time, calls,"
						   " name, errors, avg-time, "
						   "max-time, nothing)", optarg);
			o->sort = sorts[i].sort;
			break;
		}
		case OPT_FORMAT: {
			enum kd_format f;

			if (!strcmp(optarg, "json"))
				f = KD_JSON;
			else if (!strcmp(optarg, "text"))
				f = KD_TEXT;
			else if (!strcmp(optarg, "strace"))
				f = KD_STRACE;
			else if (!strcmp(optarg, "chrome"))
				f = KD_CHROME;
			else
				return sd_usage_error("unknown format '%s' (text, "
						      "strace, json, chrome)", optarg);
			if (format_set && o->format != f)
				return sd_usage_error("%s", "--format given twice");
			o->format = f;
			format_set = true;
			break;
		}
		case OPT_STRACE:
			if (format_set && o->format != KD_STRACE)
				return sd_usage_error("%s", "--strace and --format "
						      "exclude each other");
			o->format = KD_STRACE;
			format_set = true;
			break;
		case OPT_STRSIZE:
			if (sd_parse_u64(optarg, 0, 1 << 30, &v))
				return sd_usage_error("bad string limit '%s'",
						      optarg);
			o->strsize = v;
			break;
		case OPT_MERGE: o->merge = true; break;
		case OPT_FILE_ORDER: o->file_order = true; break;
		case OPT_WINDOW:
			if (sd_parse_u64(optarg, 1, 4096, &v))
				return sd_usage_error("bad window '%s' (MiB, 1 to "
						   "4096)", optarg);
			o->window = v << 20;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			return sd_getopt_error(c, argv, long_opts);
		}
	}
	if (optind < argc)
		return sd_usage_error("unexpected argument '%s'", argv[optind]);
	if (summary) {
		if (format_set)
			return sd_usage_error("%s", "-c prints its own table: no "
					   "--format or --strace with it");
		o->format = KD_SUMMARY;
		/* The counts need no order across threads. */
		o->file_order = true;
	}
	if (o->merge && o->format != KD_JSON)
		return sd_usage_error("%s", "--merge is for --format json");
	return 0;
}

/* ---- output ---- */

static const struct kd_view *view_of(enum kd_format f)
{
	switch (f) {
	case KD_JSON: return &kd_json_view;
	case KD_STRACE: return &kd_strace_view;
	case KD_CHROME: return &kd_chrome_view;
	case KD_SUMMARY: return &kd_summary_view;
	default: return &kd_text_view;
	}
}

static const struct kd_view *the_view;

enum sc_abi kd_abi(const struct kdump *k, const struct ktr_rec *r)
{
	int abi = ktr_rec_abi(k->hdr, r);

	return abi >= 0 && abi < SC_NABIS ? (enum sc_abi)abi : k->hdr->abi;
}

void kd_output(struct kdump *k, const struct kev *e)
{
	/* A return that makes no fd (close, connect) changes the fd table
	 * after its call is printed: --strace prints the call at its
	 * return, with the names its arguments had (close(4</tmp/x>)). One
	 * that makes one is named by it ("= 3</tmp/x>"). */
	bool after = k->o->fds && e->r->type == KTR_RET &&
		     !kd_fd_returns(k, kd_abi(k, e->r),
				    ((const struct ktr_ret *)e->r)->nr) &&
		     !kd_fd_makes_pair(k, kd_abi(k, e->r),
				       ((const struct ktr_ret *)e->r)->nr);

	if (k->o->fds && !after)
		kd_fd_event(k, e);
	if (!e->hidden)
		the_view->event(k, e);
	if (after)
		kd_fd_event(k, e);
}

/* ---- the reading loop ---- */

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* What went wrong with the file, said once at the end, in one line. */
struct damage {
	struct sbuf ranges;
	unsigned nranges;
	uint64_t skipped;
	struct sbuf trunc;
	struct sbuf sums;	/* stretches whose checksum did not match */
	uint64_t nsums;
	uint64_t unknown;	/* SUM records of an algorithm not known */
	unsigned algo;		/* (the header's) */
};

/* A SUM record the reader just checked did not match: the bytes it
 * covers hold damage somewhere (a record there may print wrong). */
static void sum_damage(struct damage *d, const struct ktr_reader *r)
{
	d->unknown = r->sum_unknown;
	d->algo = r->hdr.sum_algo;
	if (r->sum_bad == d->nsums)
		return;
	d->nsums = r->sum_bad;
	if (d->nsums <= 8)
		sbuf_printf(&d->sums, "%s%llu-%llu", d->nsums > 1 ? ", " : "",
			    (unsigned long long)r->sum_bad_from,
			    (unsigned long long)r->sum_bad_to - 1);
	else if (d->nsums == 9)
		sbuf_puts(&d->sums, ", ...");
}

static void damage_range(struct damage *d, uint64_t from, uint64_t to)
{
	d->nranges++;
	d->skipped += to - from;
	if (d->nranges <= 8)
		sbuf_printf(&d->ranges, "%s%llu-%llu", d->nranges > 1 ? ", " : "",
			    (unsigned long long)from,
			    (unsigned long long)to - 1);
	else if (d->nranges == 9)
		sbuf_puts(&d->ranges, ", ...");
}

/* Whether another process has the file open for writing (a recording
 * still going on): the kernel refuses a read lease then. A pipe, or a
 * file we may not lease, cannot tell: false. */
static bool being_written(int fd)
{
	if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) {
		fcntl(fd, F_SETLEASE, F_UNLCK);
		return false;
	}
	return errno == EAGAIN;
}

/* How the recording ended, when that is news: no END record after the
 * last record (from format version 2 on: the recorder was killed, or the
 * machine stopped, before it could write one; not said with -l or while
 * a recorder still has the file open for writing, where the recording
 * goes on), or an END saying writing failed or records were not
 * written. */
static void cut_short(struct kdump *k, struct sbuf *msg, int fd)
{
	const struct ktr_end *e = &k->end;

	if (!k->ended) {
		if (k->o->follow || k->hdr->version < 2 || !k->records ||
		    being_written(fd))
			return;
		sbuf_printf(msg, "%scut short: the recording has no end record "
			    "(its recorder was killed or could not finish); "
			    "its last record is at ", msg->len ? "; " : "");
		kd_put_secs(msg, kd_wall_ns(k, k->last_ts));
		return;
	}
	if (e->how == KTR_END_WRITE_ERROR)
		sbuf_printf(msg, "%srecording stopped early: writing the file "
			    "failed (%s)", msg->len ? "; " : "",
			    strerror(e->code));
	if (e->lost_write)
		sbuf_printf(msg, "%s%llu records were not written",
			    msg->len ? "; " : "",
			    (unsigned long long)e->lost_write);
}

/* The end: drain the window, the view's footer, one line about damage
 * and what could not be put in order. */
static void finish(struct kdump *k, struct damage *d, int fd)
{
	struct sbuf msg;

	kd_in_end(k);
	kd_order_drain(k, UINT64_MAX);
	if (the_view->end)
		the_view->end(k);
	kd_out_flush(k);
	fflush(k->out);
	sbuf_init(&msg);
	if (d->nranges == 1)
		sbuf_printf(&msg, "corrupt records: skipped bytes %s (%llu bytes)",
			    d->ranges.buf, (unsigned long long)d->skipped);
	else if (d->nranges)
		sbuf_printf(&msg, "corrupt records: skipped %llu bytes in %u "
			    "stretches (bytes %s)", (unsigned long long)d->skipped,
			    d->nranges, d->ranges.buf);
	if (d->nsums)
		sbuf_printf(&msg, "%schecksum mismatch over bytes %s: records "
			    "there may be damaged", msg.len ? "; " : "",
			    d->sums.buf);
	if (d->unknown)
		sbuf_printf(&msg, "%s%llu checksums of an algorithm this kdump "
			    "does not know (sum_algo %u) were not checked",
			    msg.len ? "; " : "", (unsigned long long)d->unknown,
			    d->algo);
	if (d->trunc.len)
		sbuf_printf(&msg, "%s%s", msg.len ? "; " : "", d->trunc.buf);
	cut_short(k, &msg, fd);
	if (k->late)
		sbuf_printf(&msg, "%s%llu records came later than the %zu MiB "
			    "time-order window and print out of order",
			    msg.len ? "; " : "", (unsigned long long)k->late,
			    k->o->window >> 20);
	if (msg.len)
		sd_warn("%s: %s", k->name, msg.buf);
	sbuf_free(&msg);
}

int cmd_kdump(int argc, char **argv)
{
	struct kd_opts o;
	struct kdump k;
	struct damage d;
	struct ktr_reader r;
	const struct ktr_rec *rec;
	const char *exprs[MAX_EXPRS + 2] = { 0 };
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	int fd, err, rc = 0, nexprs, idle = 0;
	bool resyncing = false;
	uint64_t bad_from = 0;

	sd_set_prog("sonde kdump");
	err = parse_args(argc, argv, &o, exprs, &nexprs);
	if (err)
		return err < 0 ? 0 : err;
	if (!strcmp(o.file, "-")) {
		fd = 0;
	} else {
		fd = open(o.file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			sd_err("cannot open %s: %s", o.file, strerror(errno));
			return SD_EXIT_FAIL;
		}
	}
	memset(&k, 0, sizeof(k));
	memset(&d, 0, sizeof(d));
	k.o = &o;
	k.out = stdout;
	k.name = fd ? o.file : "stdin";
	sbuf_init(&k.line);
	sbuf_init(&d.ranges);
	sbuf_init(&d.trunc);
	sbuf_init(&d.sums);
	the_view = view_of(o.format);
	stop = 0;
	if (o.follow) {
		/* -l ends on Ctrl-C or a kill: what is held is printed. */
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
	}
	ktr_reader_init(&r, fd);
	while ((err = ktr_reader_header(&r)) == -ENODATA && o.follow && !stop)
		usleep(200000);
	if (err == -ENODATA) {
		sd_warn("%s: truncated at byte offset %zu, inside the file "
			"header: no records", k.name, r.end);
		goto out;
	}
	if (err) {
		sd_err("%s: %s", k.name, err == -EINVAL ? "not a sonde trace "
		       "file (no SONDEKTR magic)" : ktr_strerror(err));
		rc = SD_EXIT_FAIL;
		goto out;
	}
	k.hdr = &r.hdr;
	r.strict = true;
	for (int i = 0; i < MAX_EXPRS + 2; i++) {
		char msg[256];
		const char *e = i < MAX_EXPRS ? exprs[i] :
				i == MAX_EXPRS ? "status=successful" :
						 "status=failed";

		if (!exprs[i])
			continue;
		if (kd_parse_expr(&o, e, msg, sizeof(msg))) {
			rc = sd_usage_error("%s", msg);
			goto out;
		}
	}
	kd_in_init(&k);
	k.count_only = o.format == KD_SUMMARY && o.status == KD_ST_ALL &&
		       !o.fds;
	kd_order_init(&k);
	if (o.fds)
		kd_fd_init(&k);
	if (the_view->init)
		the_view->init(&k);
	while (!stop) {
		uint64_t off = r.offset;

		if (resyncing) {
			err = ktr_reader_resync(&r);
			if (err == 1 || (err == 0 && !o.follow)) {
				damage_range(&d, bad_from, r.offset);
				resyncing = false;
				if (err == 1)
					continue;
				break;
			}
		} else {
			err = ktr_reader_next(&r, &rec);
			/* (The reader consumes SUM records on its way.) */
			off = err == 1 ? r.offset - rec->len : r.offset;
			sum_damage(&d, &r);
		}
		if (err == 1) {
			idle = 0;
			kd_in_record(&k, rec, off);
			continue;
		}
		if (err == -EBADMSG) {
			resyncing = true;
			bad_from = off;
			continue;
		}
		if ((err == 0 || err == -ENODATA) && o.follow) {
			/* Wait for more. Records old enough that nothing
			 * the recorder still holds can come before them are
			 * printed now; all of them after half a second
			 * without news. */
			uint64_t newest = kd_order_newest(&k);

			if (++idle > 2)
				kd_order_drain(&k, UINT64_MAX);
			else if (newest > 100000000)
				kd_order_drain(&k, newest - 100000000);
			kd_out_flush(&k);
			fflush(stdout);
			usleep(200000);
			continue;
		}
		if (err == -ENODATA) {
			/* A record running past the end: cut short, unless
			 * whole records follow inside it (a damaged length). */
			size_t have = r.end - r.start;

			err = ktr_reader_resync(&r);
			if (err == 1) {
				damage_range(&d, off, r.offset);
				continue;
			}
			if (err == 0) {
				sbuf_printf(&d.trunc, "truncated at byte offset "
					    "%llu: the last record is incomplete "
					    "(%zu of its bytes)",
					    (unsigned long long)off, have);
				break;
			}
		}
		if (err < 0) {
			finish(&k, &d, fd);
			sd_err("%s: %s at byte offset %llu", k.name,
			       ktr_strerror(err), (unsigned long long)r.offset);
			rc = SD_EXIT_FAIL;
			goto out_free;
		}
		break;
	}
	if (resyncing)
		damage_range(&d, bad_from, r.offset);
	if (!o.follow) {
		ktr_reader_eof(&r);
		sum_damage(&d, &r);
	}
	finish(&k, &d, fd);
	if (d.nranges || d.nsums)
		rc = SD_EXIT_FAIL;
out_free:
	kd_fd_free(&k);
	kd_order_free(&k);
	kd_in_free(&k);
out:
	if (o.follow) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	fflush(stdout);
	sbuf_free(&k.line);
	sbuf_free(&d.ranges);
	sbuf_free(&d.trunc);
	sbuf_free(&d.sums);
	for (int i = 0; i < SC_NABIS; i++)
		free(o.calls[i]);
	ktr_reader_free(&r);
	if (fd > 0)
		close(fd);
	return rc;
}
