// SPDX-License-Identifier: GPL-2.0-only
/* kptrace — `sonde kptrace`: from a kernel crash report to file:line for
 * every frame. Reads a log (a file, stdin, or the newest report it finds
 * in pstore, /var/crash or the kernel log), finds the reports in it,
 * symbolizes their frames against vmlinux and the modules with DWARF and
 * prints them as text or JSON. */
#include "../commands.h"
#include "kptrace.h"
#include "../lib/json.h"
#include "../lib/cli.h"
#include "../lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sonde kptrace [REPORT | -] [-k VMLINUX] [-M MODULE.ko | DIR]...\n"
		"                     [-r RELEASE] [--kaslr auto|OFFSET] [-S SYSTEM.MAP]\n"
		"                     [--kdk DIR] [--kext PATH]...\n"
		"                     [--strip PREFIX] [--format text|json] [-a]\n\n"
		"Symbolize a kernel crash report (Oops, panic, BUG, WARNING, KASAN,\n"
		"lockdep, hung task, stalls, lockups; macOS panics): every frame as\n"
		"module`function+offset at file:line, with inlined calls.\n\n"
		"  REPORT            a log file (dmesg, console, journal, pstore), - for\n"
		"                    stdin; default: the newest in /sys/fs/pstore,\n"
		"                    /var/lib/systemd/pstore, /var/crash, the kernel log\n"
		"  -k, --vmlinux F   vmlinux with DWARF (default: found by release)\n"
		"  -M, --module P    a module .ko, or a directory searched for them\n"
		"  -r, --release R   kernel release when the report does not say\n"
		"      --kaslr V     auto (default) or the KASLR offset in hex\n"
		"  -S, --system-map F  System.map or a copy of /proc/kallsyms, used when\n"
		"                    there is no DWARF (function+offset only)\n"
		"      --kdk DIR     macOS: a Kernel Debug Kit, or a directory of them\n"
		"                    chosen by the report's build and Kernel UUID\n"
		"                    (default: /Library/Developer/KDKs)\n"
		"      --kext P      macOS: a .kext bundle or Mach-O file (its dSYM\n"
		"                    beside it or inside), matched by bundle id, UUID\n"
		"      --strip P     remove P from file names (default: detected)\n"
		"      --format F    text (default) or json\n"
		"      --max-input N read at most N bytes (default 64M): a larger\n"
		"                    file's last N, a device's first N; a pipe is\n"
		"                    read to its end, each crash printed as it ends\n"
		"  -a, --all         every report in the input, not just the last\n"
		"  -h, --help        this help\n");
}

/* Whether the input is a stream read as it grows (a pipe, a socket, a
 * terminal: journalctl -f | sonde kptrace -), rather than a file. */
static bool is_stream(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || isatty(fd);
}

/* Read up to want bytes (fewer at the end of the input) into sb. 0, or
 * -errno. */
static int read_some(int fd, struct sbuf *sb, size_t want, size_t *got)
{
	char buf[65536];

	*got = 0;
	while (*got < want) {
		size_t n = want - *got < sizeof(buf) ? want - *got : sizeof(buf);
		ssize_t r = read(fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		sbuf_put(sb, buf, (size_t)r);
		*got += (size_t)r;
		if (r < (ssize_t)n)
			break;	/* what the pipe had: parse it now */
	}
	return 0;
}

/* A crash event as text: its first report, which names it, in full;
 * the reports that followed from it one line each. */
static void print_event(const struct kp_reports *rs, size_t ev,
			const char *strip)
{
	const struct kp_event *e = &rs->events[ev];

	kp_print_text(stdout, &rs->v[e->first], strip);
	for (size_t i = e->first + 1; i < e->first + e->n; i++)
		printf("  then: %s (line %d; -a shows it)\n", rs->v[i].title,
		       rs->v[i].first_line);
}

/* The JSON document: reports first .. rs->n - 1, the events they are in
 * (docs/kptrace.md). */
static void print_json(const struct kp_reports *rs, size_t first,
		       const char *what, const char *strip)
{
	struct json j;
	size_t ev0 = first < rs->n ? (size_t)rs->v[first].event : 0;

	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_key(&j, "input");
	json_str(&j, what);
	json_key(&j, "lines");
	json_u64(&j, rs->lines);
	json_key(&j, "long_lines");
	json_u64(&j, rs->long_lines);
	json_key(&j, "reports_found");
	json_u64(&j, rs->n);
	json_key(&j, "events_found");
	json_u64(&j, rs->nevents);
	json_key(&j, "strip");
	json_str(&j, strip);
	json_key(&j, "reports");
	json_arr_begin(&j);
	for (size_t i = first; i < rs->n; i++)
		kp_print_json_report(&j, &rs->v[i], strip);
	json_arr_end(&j);
	/* each event: its title (its first report's) and its reports as
	 * indices into "reports" */
	json_key(&j, "events");
	json_arr_begin(&j);
	for (size_t ev = ev0; first < rs->n && ev < rs->nevents; ev++) {
		const struct kp_event *e = &rs->events[ev];

		json_obj_begin(&j);
		json_key(&j, "title");
		json_str(&j, rs->v[e->first].title);
		json_key(&j, "panicked");
		json_bool(&j, e->panicked);
		json_key(&j, "reports");
		json_arr_begin(&j);
		for (size_t i = e->first; i < e->first + e->n; i++)
			json_u64(&j, i - first);
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

static void opts_free(struct kp_symopts *so)
{
	free(so->modules);
	free(so->kexts);
}

enum { OPT_KDK = 0x100, OPT_KEXT, OPT_MAX_INPUT };

/* What one run reads and prints. */
struct run {
	struct kp_symopts so;
	struct kp_reports rs;
	const char *strip;	/* --strip, or NULL: detected */
	bool json, all;
	bool stream;		/* a pipe: crash events printed as they end */
	bool cut;		/* a device stopped at max bytes */
	bool tail;		/* a file larger than max: its last max bytes */
	uint64_t max;		/* --max-input */
	size_t printed;		/* crash events printed so far (stream) */
	bool failed;		/* a symbolization failed (said) */
};

/* Symbolize and print crash event ev (text). */
static void print_stream_event(struct run *ru, size_t ev)
{
	const struct kp_event *e = &ru->rs.events[ev];
	struct kp_report *v[1024];
	char *auto_strip = NULL;
	const char *strip = ru->strip;
	size_t n = 0;

	for (size_t i = e->first; i < e->first + e->n; i++)
		if (kp_symbolize(&ru->rs.v[i], &ru->rs, &ru->so))
			ru->failed = true;
	if (!strip) {
		for (size_t i = e->first; i < e->first + e->n && n < 1024; i++)
			v[n++] = &ru->rs.v[i];
		strip = auto_strip = kp_detect_strip(v, n);
	}
	if (ru->printed)
		putchar('\n');
	print_event(&ru->rs, ev, strip);
	fflush(stdout);
	free(auto_strip);
	ru->printed++;
}

/* A Linux log from fd (head: what was read of it already), fed to the
 * parser a piece at a time: memory holds reports, never the whole input.
 * A file stops at ru->max bytes (ru->cut); a stream is read to its end,
 * each crash event printed once it is complete (text). 0, or -errno. */
static int read_linux(struct run *ru, int fd, const struct sbuf *head)
{
	struct kp_linux *p = kp_linux_begin(&ru->rs);
	uint64_t total = head->len;
	struct sbuf sb;
	size_t got;
	int err = 0;

	sbuf_init(&sb);
	if (head->len)
		kp_linux_feed(p, head->buf, head->len);
	while (!ru->rs.binary && !ru->failed) {
		size_t want = 1 << 20;

		/* before waiting for more: what is complete is printed */
		while (ru->stream && !ru->json &&
		       ru->printed < kp_linux_done_events(p))
			print_stream_event(ru, ru->printed);

		if (!ru->stream && total >= ru->max) {
			/* one byte more says whether there was more */
			err = read_some(fd, &sb, 1, &got);
			ru->cut = !err && got;
			break;
		}
		if (!ru->stream && ru->max - total < want)
			want = (size_t)(ru->max - total);
		sbuf_reset(&sb);
		err = read_some(fd, &sb, want, &got);
		if (err || !got)
			break;
		kp_linux_feed(p, sb.buf, got);
		total += got;
	}
	kp_linux_end(p);
	sbuf_free(&sb);
	return err;
}

/* The files the options name must be what they say, before any work: a
 * one-line error otherwise (-S or -M naming nothing were ignored). An
 * absent --kdk is no error: the frames are printed un-slid with a note
 * saying what was looked for. */
static int check_paths(const struct kp_symopts *so)
{
	struct stat st;

	if (so->vmlinux && stat(so->vmlinux, &st))
		return sd_err("-k %s: %s", so->vmlinux, strerror(errno)), -1;
	if (so->vmlinux && S_ISDIR(st.st_mode))
		return sd_err("-k %s: a directory; -k takes the vmlinux file "
			      "(and -M a directory of modules)", so->vmlinux), -1;
	if (so->sysmap && stat(so->sysmap, &st))
		return sd_err("-S %s: %s", so->sysmap, strerror(errno)), -1;
	if (so->sysmap && !S_ISREG(st.st_mode))
		return sd_err("-S %s: not a file (a System.map or a copy of "
			      "/proc/kallsyms)", so->sysmap), -1;
	for (size_t i = 0; i < so->nmodules; i++)
		if (stat(so->modules[i], &st))
			return sd_err("-M %s: %s", so->modules[i],
				      strerror(errno)), -1;
	for (size_t i = 0; i < so->nkexts; i++)
		if (stat(so->kexts[i], &st))
			return sd_err("--kext %s: %s", so->kexts[i],
				      strerror(errno)), -1;
	return 0;
}


int cmd_kptrace(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "module", required_argument, NULL, 'M' },
		{ "release", required_argument, NULL, 'r' },
		{ "kaslr", required_argument, NULL, 'K' },
		{ "system-map", required_argument, NULL, 'S' },
		{ "strip", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "kdk", required_argument, NULL, OPT_KDK },
		{ "kext", required_argument, NULL, OPT_KEXT },
		{ "max-input", required_argument, NULL, OPT_MAX_INPUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run ru = { .so = { .root = "" }, .max = 64ull << 20 };
	struct kp_symopts so = { .root = "" };
	struct kp_reports rs = { 0 };
	const char *input = NULL, *strip = NULL;
	char *what = NULL, *auto_strip = NULL;
	struct sbuf head;
	bool all = false, json = false;
	size_t len = 0, first;
	int c, ret = 0, fd = -1, err = 0;

	sd_set_prog("sonde kptrace");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:M:r:S:ah", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			so.vmlinux = optarg;
			break;
		case 'M':
			so.modules = sd_realloc(so.modules, (so.nmodules + 1) *
						sizeof(*so.modules));
			so.modules[so.nmodules++] = optarg;
			break;
		case 'r':
			so.release = optarg;
			break;
		case 'K': {
			char *end;

			if (!strcmp(optarg, "auto"))
				break;
			errno = 0;
			so.kaslr = strtoull(optarg, &end, 16);
			if (!*optarg || *end || errno || *optarg == '-') {
				opts_free(&so);
				return sd_usage_error("--kaslr: '%s' is not auto "
						      "or a hex offset (e.g. "
						      "0x1e000000)", optarg);
			}
			so.kaslr_set = true;
			break;
		}
		case 'S':
			so.sysmap = optarg;
			break;
		case OPT_KDK:
			so.kdk = optarg;
			break;
		case OPT_MAX_INPUT:
			if (sd_parse_size(optarg, &ru.max) || !ru.max) {
				opts_free(&so);
				return sd_usage_error("--max-input: '%s' is not "
						      "a size (e.g. 256M)",
						      optarg);
			}
			break;
		case OPT_KEXT:
			so.kexts = sd_realloc(so.kexts, (so.nkexts + 1) *
					      sizeof(*so.kexts));
			so.kexts[so.nkexts++] = optarg;
			break;
		case 's':
			strip = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "json")) {
				json = true;
			} else if (strcmp(optarg, "text")) {
				opts_free(&so);
				return sd_usage_error("--format: '%s' is not "
						      "text or json", optarg);
			}
			break;
		case 'a':
			all = true;
			break;
		case 'h':
			usage(stdout);
			opts_free(&so);
			return 0;
		default:
			opts_free(&so);
			return sd_getopt_error(c, argv, opts);
		}
	}
	if (optind + 1 < argc) {
		opts_free(&so);
		return sd_usage_error("one report at a time ('%s' is extra)",
				      argv[optind + 1]);
	}
	if (optind < argc)
		input = argv[optind];

	sbuf_init(&head);
	if (check_paths(&so)) {
		ret = SD_EXIT_FAIL;
		goto out;
	}
	if (input) {
		struct stat st;

		fd = strcmp(input, "-") ? open(input, O_RDONLY | O_CLOEXEC)
					: STDIN_FILENO;
		if (fd < 0 || fstat(fd, &st)) {
			sd_err("%s: %s", input, strerror(errno));
			ret = SD_EXIT_FAIL;
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			sd_err("%s: a directory, not a log file", input);
			ret = SD_EXIT_FAIL;
			goto out;
		}
		what = sd_strdup(strcmp(input, "-") ? input : "stdin");
		ru.stream = is_stream(fd);
		/* A file larger than --max-input: its last max bytes, from a
		 * line's start (the default output is the last crash). */
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > ru.max &&
		    lseek(fd, st.st_size - (off_t)ru.max, SEEK_SET) >= 0) {
			ru.tail = true;
			err = read_some(fd, &head, 65536, &len);
			if (!err) {
				char *nl = memchr(head.buf, '\n', head.len);
				size_t skip = nl ? (size_t)(nl - head.buf) + 1
						 : head.len;

				memmove(head.buf, head.buf + skip,
					head.len - skip);
				head.len -= skip;
			}
		}
		/* enough to tell a macOS panic from a Linux log */
		if (!ru.tail)
			err = read_some(fd, &head, 65536, &len);
		if (!err && head.len && kp_macos_detect(head.buf, head.len)) {
			/* a panic report is small: the whole of it, bounded */
			while (!err && len && head.len <= ru.max)
				err = read_some(fd, &head, 1 << 20, &len);
			if (!err && head.len > ru.max) {
				sd_err("%s: larger than %" PRIu64 " bytes "
				       "(--max-input)", what, ru.max);
				ret = SD_EXIT_FAIL;
				goto out;
			}
			if (!err)
				kp_macos_parse(head.buf, head.len, &ru.rs);
		} else if (!err) {
			ru.so = so;
			ru.strip = strip;
			ru.json = json;
			ru.all = all;
			err = read_linux(&ru, fd, &head);
		}
		if (err) {
			sd_err("%s: %s", what, strerror(-err));
			ret = SD_EXIT_FAIL;
			goto out;
		}
		if (ru.failed) {	/* kp_symbolize said why */
			ret = SD_EXIT_FAIL;
			goto out;
		}
		if (ru.cut)
			sd_warn("%s: read the first %" PRIu64 " bytes only "
				"(--max-input)", what, ru.max);
		if (ru.tail)
			sd_warn("%s: read its last %" PRIu64 " bytes only "
				"(--max-input)", what, ru.max);
	} else {
		char *buf = kp_discover(&len, &what);

		if (!buf) {
			if (errno == EPERM)
				sd_err("reading the kernel log was refused "
				       "(kernel.dmesg_restrict is 1: run as "
				       "root, or sysctl kernel.dmesg_restrict=0)"
				       ", and no crash report was found in "
				       "/sys/fs/pstore, /var/lib/systemd/pstore "
				       "or /var/crash; give a file or - for "
				       "stdin");
			else
				sd_err("no crash report found in /sys/fs/pstore, "
				       "/var/lib/systemd/pstore, /var/crash or the "
				       "kernel log; give a file or - for stdin");
			ret = SD_EXIT_FAIL;
			goto out;
		}
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "sonde kptrace: reading %s\n", what);
		if (kp_macos_detect(buf, len))
			kp_macos_parse(buf, len, &ru.rs);
		else
			kp_linux_parse(buf, len, &ru.rs);
		free(buf);
	}
	rs = ru.rs;
	ru.rs = (struct kp_reports){ 0 };
	if (ru.printed && rs.nevents == ru.printed) {
		/* a stream whose every crash event was printed as it ended */
		goto flush;
	}
	if (!rs.n) {
		if (rs.binary)
			sd_err("%s: binary data, not a kernel log", what);
		else
			sd_err("%s: no kernel crash report found (%zu lines "
			       "read)", what, rs.lines);
		if (json)	/* an empty document, same exit status */
			print_json(&rs, 0, what, "");
		ret = SD_EXIT_FAIL;
		goto out;
	}
	if (rs.long_lines)
		sd_warn("%s: %zu lines longer than %d bytes were cut", what,
			rs.long_lines, KP_MAX_LINE);

	/* every report with -a, else those of the last crash event; a
	 * stream, the events not printed yet */
	first = all ? 0 : rs.events[rs.nevents - 1].first;
	if (ru.stream && !json && !all)
		first = rs.events[ru.printed].first;
	for (size_t i = first; i < rs.n; i++) {
		if (kp_symbolize(&rs.v[i], &rs, &so)) {
			/* kp_symbolize said what went wrong */
			ret = SD_EXIT_FAIL;
			goto out;
		}
	}
	if (!strip) {
		struct kp_report *v[1024];
		size_t n = 0;

		for (size_t i = first; i < rs.n && n < 1024; i++)
			v[n++] = &rs.v[i];
		strip = auto_strip = kp_detect_strip(v, n);
	}
	if (json) {
		print_json(&rs, first, what, strip);
	} else if (all) {
		for (size_t i = first; i < rs.n; i++) {
			if (i > first)
				putchar('\n');
			kp_print_text(stdout, &rs.v[i], strip);
		}
	} else if (ru.stream) {
		for (size_t ev = ru.printed; ev < rs.nevents; ev++) {
			if (ev)
				putchar('\n');
			print_event(&rs, ev, strip);
		}
	} else {
		print_event(&rs, rs.nevents - 1, strip);
		if (rs.nevents > 1 && rs.nevents == rs.n)
			printf("\n# the last of %zu reports in %s; -a shows "
			       "all\n", rs.n, what);
		else if (rs.nevents > 1)
			printf("\n# the last of %zu crash events (%zu reports) "
			       "in %s; -a shows all\n", rs.nevents, rs.n, what);
	}
flush:
	if (fflush(stdout) || ferror(stdout)) {
		sd_err("writing output: %s", strerror(errno));
		ret = SD_EXIT_FAIL;
	}
out:
	kp_symbolize_done();
	kp_reports_free(&rs);
	kp_reports_free(&ru.rs);
	sbuf_free(&head);
	if (fd > STDIN_FILENO)
		close(fd);
	free(what);
	free(auto_strip);
	opts_free(&so);
	return ret;
}
