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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
		"  -a, --all         every report in the input, not just the last\n"
		"  -h, --help        this help\n");
}

static char *read_stream(FILE *f, size_t *len)
{
	struct sbuf sb;
	char buf[65536];
	size_t n;

	sbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_put(&sb, buf, n);
	if (ferror(f)) {
		sbuf_free(&sb);
		return NULL;
	}
	*len = sb.len;
	sbuf_putc(&sb, '\0');
	return sbuf_steal(&sb);
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

enum { OPT_KDK = 0x100, OPT_KEXT };

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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kp_symopts so = { .root = "" };
	struct kp_reports rs = { 0 };
	const char *input = NULL, *strip = NULL;
	char *buf = NULL, *what = NULL, *auto_strip = NULL;
	bool all = false, json = false;
	size_t len = 0, first;
	int c, ret = 0;

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

	if (input && strcmp(input, "-")) {
		FILE *f = fopen(input, "r");

		if (!f) {
			sd_err("%s: %s", input, strerror(errno));
			ret = SD_EXIT_FAIL;
			goto out;
		}
		buf = read_stream(f, &len);
		fclose(f);
		if (!buf) {
			sd_err("%s: %s", input, strerror(EIO));
			ret = SD_EXIT_FAIL;
			goto out;
		}
		what = sd_strdup(input);
	} else if (input) {
		buf = read_stream(stdin, &len);
		if (!buf) {
			sd_err("stdin: %s", strerror(EIO));
			ret = SD_EXIT_FAIL;
			goto out;
		}
		what = sd_strdup("stdin");
	} else {
		buf = kp_discover(&len, &what);
		if (!buf) {
			sd_err("no crash report found in /sys/fs/pstore, "
			       "/var/lib/systemd/pstore, /var/crash or the "
			       "kernel log; give a file or - for stdin");
			ret = SD_EXIT_FAIL;
			goto out;
		}
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "sonde kptrace: reading %s\n", what);
	}

	if (kp_macos_detect(buf, len))
		kp_macos_parse(buf, len, &rs);
	else
		kp_linux_parse(buf, len, &rs);
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

	/* every report with -a, else those of the last crash event */
	first = all ? 0 : rs.events[rs.nevents - 1].first;
	for (size_t i = first; i < rs.n; i++) {
		int err = kp_symbolize(&rs.v[i], &rs, &so);

		if (err) {	/* kp_symbolize said what went wrong */
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
	} else {
		print_event(&rs, rs.nevents - 1, strip);
		if (rs.nevents > 1 && rs.nevents == rs.n)
			printf("\n# the last of %zu reports in %s; -a shows "
			       "all\n", rs.n, what);
		else if (rs.nevents > 1)
			printf("\n# the last of %zu crash events (%zu reports) "
			       "in %s; -a shows all\n", rs.nevents, rs.n, what);
	}
	if (fflush(stdout) || ferror(stdout)) {
		sd_err("writing output: %s", strerror(errno));
		ret = SD_EXIT_FAIL;
	}
out:
	kp_symbolize_done();
	kp_reports_free(&rs);
	free(buf);
	free(what);
	free(auto_strip);
	opts_free(&so);
	return ret;
}
