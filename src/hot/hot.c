// SPDX-License-Identifier: GPL-2.0-only
/* hot — `sonde hot`: which kernel code is hot right now. Parses the command
 * line, checks the output paths, loads kernel symbols in a thread while the
 * sampler opens its events (enabling them once kallsyms is read), then
 * hands the samples to the report. */
#include "report.h"
#include "sample.h"
#include "../commands.h"
#include "../lib/cli.h"
#include "../lib/outfile.h"
#include "../lib/util.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
"usage: sonde hot [-d DURATION] [-F HZ] [-e EVENT] [-f | -m] [-n TOP]\n"
"                 [-C CPUS] [-p PID] [--user] [--no-idle] [--stacks]\n"
"                 [--no-demangle] [--format table|folded|json|pprof] [-o FILE]\n"
"                 [--svg FILE] [-v]\n"
"\n"
"Sample every CPU and show where the kernel spends its time.\n"
"\n"
"  -d, --duration DURATION  how long to sample: 500ms, 10s, 1m (default 5s)\n"
"  -F, --frequency HZ       samples per second per CPU (default 997)\n"
"  -e, --event EVENT        cpu-clock (default), or cycles, instructions,\n"
"                           cache-misses, branch-misses where a PMU exists\n"
"  -f, --functions          one row per function instead of per PC\n"
"  -m, --modules            one row per module\n"
"  -n, --top N              print only the N hottest rows\n"
"  -C, --cpus LIST          sample only these CPUs, e.g. 0,2-3\n"
"  -p, --pid PID            only samples of this process (all its threads)\n"
"      --user               include user-mode samples (binary`function)\n"
"      --no-idle            drop samples of the idle task\n"
"      --stacks             record call chains (for folded, json, svg)\n"
"      --no-demangle        show C++ and Rust symbols as they are\n"
"      --format FORMAT      table (default), folded, json, or pprof (a\n"
"                           gzipped profile for go tool pprof; needs -o)\n"
"  -o, --output FILE        write the output to FILE instead of stdout\n"
"      --svg FILE           also write a flame graph (implies --stacks)\n"
"  -v, --verbose            timings on stderr\n"
"  -h, --help               this help\n"
"\n"
"Ctrl-C ends early and prints what was sampled. Needs root or CAP_PERFMON.\n";

enum {
	OPT_USER = 0x100, OPT_NO_IDLE, OPT_STACKS, OPT_FORMAT, OPT_SVG,
	OPT_NO_DEMANGLE,
};

static const struct option long_opts[] = {
	{ "duration", required_argument, NULL, 'd' },
	{ "frequency", required_argument, NULL, 'F' },
	{ "event", required_argument, NULL, 'e' },
	{ "functions", no_argument, NULL, 'f' },
	{ "modules", no_argument, NULL, 'm' },
	{ "top", required_argument, NULL, 'n' },
	{ "cpus", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "user", no_argument, NULL, OPT_USER },
	{ "no-idle", no_argument, NULL, OPT_NO_IDLE },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static uint64_t max_sample_rate(void)
{
	char *s = sd_read_file("/proc/sys/kernel/perf_event_max_sample_rate",
			       NULL);
	uint64_t v = s ? strtoull(s, NULL, 10) : 100000;

	free(s);
	return v ? v : 100000;
}

static int possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

static void *load_ksyms(void *arg)
{
	struct hot_ksyms *ks = arg;
	uint64_t t0 = sd_now_ns();

	ks->tab = ksym_load(ks->path);
	ks->err = ks->tab ? 0 : errno;
	ks->ns = sd_now_ns() - t0;
	return NULL;
}

/* Parse argv into o; returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, struct hot_opts *o)
{
	bool *online;
	const char *cpus = NULL;
	uint64_t v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:F:e:fmn:C:p:o:vh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			if (sd_parse_duration(optarg, &o->duration_ns) ||
			    o->duration_ns == 0)
				return sd_usage_error("bad duration '%s' (use e.g. "
						   "500ms, 10s, 1m)", optarg);
			break;
		case 'F':
			if (sd_parse_u64(optarg, 1, max_sample_rate(), &o->freq))
				return sd_usage_error("bad frequency '%s' (1 up to "
						   "kernel.perf_event_max_sample_rate)",
						   optarg);
			break;
		case 'e':
			if (!hot_event_known(optarg))
				return sd_usage_error("unknown event '%s'", optarg);
			o->event = optarg;
			break;
		case 'f':
		case 'm':
			if (o->agg != HOT_AGG_PC)
				return sd_usage_error("-f and -m exclude each "
						   "other");
			o->agg = c == 'f' ? HOT_AGG_FUNC : HOT_AGG_MODULE;
			break;
		case 'n':
			if (sd_parse_u64(optarg, 1, UINT64_MAX, &o->top))
				return sd_usage_error("bad row count '%s'", optarg);
			break;
		case 'C':
			cpus = optarg;
			break;
		case 'p':
			if (sd_parse_u64(optarg, 1, 0x7fffffff, &v))
				return sd_usage_error("bad pid '%s'", optarg);
			o->pid = (pid_t)v;
			break;
		case OPT_USER:
			o->user = true;
			break;
		case OPT_NO_IDLE:
			o->no_idle = true;
			break;
		case OPT_STACKS:
			o->stacks = true;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "table"))
				o->format = HOT_FMT_TABLE;
			else if (!strcmp(optarg, "folded"))
				o->format = HOT_FMT_FOLDED;
			else if (!strcmp(optarg, "json"))
				o->format = HOT_FMT_JSON;
			else if (!strcmp(optarg, "pprof"))
				o->format = HOT_FMT_PPROF;
			else
				return sd_usage_error("unknown format '%s' (table, "
						   "folded, json or pprof)", optarg);
			break;
		case 'o':
			o->out_path = optarg;
			break;
		case OPT_SVG:
			o->svg_path = optarg;
			o->stacks = true;
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
	if (optind < argc)
		return sd_usage_error("unexpected argument '%s'", argv[optind]);
	if (o->format == HOT_FMT_PPROF && !o->out_path)
		return sd_usage_error("--format pprof writes a file: give -o FILE "
				      "(or -o - for stdout)");

	o->ncpus = possible_cpus();
	o->cpus = sd_calloc(o->ncpus, sizeof(bool));
	online = sd_calloc(o->ncpus, sizeof(bool));
	if (sd_read_cpulist("/sys/devices/system/cpu/online", online,
			    o->ncpus))
		for (int i = 0; i < o->ncpus; i++)
			online[i] = true;
	if (cpus) {
		int err = sd_parse_cpulist(cpus, o->cpus, o->ncpus);

		if (err) {
			free(online);
			return sd_usage_error(err == -ERANGE ?
					   "CPU list '%s' names a CPU this "
					   "machine does not have" :
					   "bad CPU list '%s' (e.g. 0,2-3)", cpus);
		}
		for (int i = 0; i < o->ncpus; i++) {
			if (o->cpus[i] && !online[i]) {
				sd_err("CPU %d is not online", i);
				free(online);
				return SD_EXIT_FAIL;
			}
		}
	} else {
		memcpy(o->cpus, online, o->ncpus * sizeof(bool));
	}
	free(online);
	return -1;
}

int cmd_hot(int argc, char **argv)
{
	struct hot_opts o = {
		.duration_ns = 5000000000ull,
		.freq = 997,
		.event = "cpu-clock",
	};
	struct hot_ksyms ks = { .path = "/proc/kallsyms" };
	struct hot_sampler *sampler;
	struct sd_outfile out, svg;
	bool has_out = false;
	struct hot_data d;
	uint64_t t_end;
	int ret;

	sd_set_prog("sonde hot");
	ret = parse_args(argc, argv, &o);
	if (ret >= 0) {
		free(o.cpus);
		return ret;
	}
	if (o.pid && kill(o.pid, 0) && errno == ESRCH) {
		sd_err("no process with pid %d", (int)o.pid);
		free(o.cpus);
		return SD_EXIT_FAIL;
	}

	/* Every output path is checked before sampling: a typo costs no
	 * run. */
	if (o.out_path && strcmp(o.out_path, "-")) {
		if (hot_open_output(o.out_path, &out)) {
			free(o.cpus);
			return SD_EXIT_FAIL;
		}
		has_out = true;
	}
	if (o.svg_path && hot_open_output(o.svg_path, &svg)) {
		if (has_out) {
			sd_outfile_discard(&out);
			sd_outfile_free(&out);
		}
		free(o.cpus);
		return SD_EXIT_FAIL;
	}

	/* kallsyms is read while the events are opened, and before they are
	 * enabled: sonde's reading it is not what the profile shows. */
	hot_data_init(&d);
	if (pthread_create(&ks.thread, NULL, load_ksyms, &ks))
		load_ksyms(&ks);
	else
		ks.thread_started = true;
	sampler = hot_sampler_open(&o, &d);
	if (ks.thread_started)
		pthread_join(ks.thread, NULL);
	hot_sampler_run(sampler);
	t_end = sd_now_ns();

	if (!ks.tab)
		sd_warn("cannot read /proc/kallsyms: %s; kernel addresses are "
			"shown raw", strerror(ks.err));
	else if (ks.tab->hidden)
		sd_warn("kernel addresses are hidden by kernel.kptr_restrict; "
			"kernel functions are shown as raw addresses (run as "
			"root, or set kernel.kptr_restrict=0)");
	ret = hot_report_to(&o, &d, &ks, has_out ? &out : NULL,
			    o.svg_path ? &svg : NULL) ? SD_EXIT_FAIL : 0;
	if (o.verbose) {
		char a[32], b[32];

		sd_err("kallsyms: %zu symbols in %s; report: %s",
		       ks.tab ? ks.tab->n : 0,
		       sd_fmt_duration(ks.ns, a, sizeof(a)),
		       sd_fmt_duration(sd_now_ns() - t_end, b, sizeof(b)));
	}
	ksym_free(ks.tab);
	hot_data_free(&d);
	free(o.cpus);
	return ret;
}
