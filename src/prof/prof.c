// SPDX-License-Identifier: GPL-2.0-only
/* prof — `sonde prof`: the command line, and -i (a profile read back and
 * shown). Reading and writing profiles is output.c's, running a command
 * launch.c's. */
#include "prof.h"
#include "dump.h"
#include "../commands.h"
#include "../lib/cli.h"
#include "../lib/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
