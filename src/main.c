// SPDX-License-Identifier: GPL-2.0-only
/* main — `sonde <command>`: dispatches to the tools through a table. */
#include "commands.h"
#include "config.h"
#include "lib/cli.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "hot", cmd_hot, "which kernel code is hot right now (sampling profiler)" },
	{ "prof", cmd_prof, "CPU profile of a command, right per thread (pprof)" },
	{ "dtrace", cmd_dtrace, "D programs compiled to BPF, as dtrace(1)" },
	{ "kptrace", cmd_kptrace, "kernel crash report to file:line per frame" },
	{ "ktrace", cmd_ktrace, "record what processes do into a trace file (eBPF)" },
	{ "kdump", cmd_kdump, "print a trace file recorded by sonde ktrace" },
	{ "agent", cmd_agent, "D aggregations as Prometheus metrics, CPU profiles over HTTP" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: sonde <command> [options]\n"
		   "       sonde help [command]\n"
		   "       sonde --version\n\n"
		   "Linux kernel and process tracing.\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`sonde <command> --help` and man sonde-<command> tell "
		   "more.\n");
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* The tools people know, and the sonde command that answers their
 * question. */
static const char *const heritage[][2] = {
	{ "strace", "ktrace" }, { "truss", "ktrace" }, { "perf", "hot" },
	{ "hotkernel", "hot" }, { "pprof", "prof" },
	{ "decode_stacktrace", "kptrace" },
};

/* One line: the unknown word, the nearest command if one is near. */
static int unknown(const char *name)
{
	const char *names[ARRAY_SIZE(commands)];
	const char *near = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(heritage); i++)
		if (!strcmp(name, heritage[i][0]))
			near = heritage[i][1];
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		names[i] = commands[i].name;
	if (!near)
		near = sd_nearest(name, names, ARRAY_SIZE(commands));
	if (near)
		return sd_usage_error("unknown command '%s'; did you mean "
				      "'%s'?", name, near);
	return sd_usage_error("unknown command '%s'", name);
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return SD_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("sonde %s\n", SONDE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc == 2) {
			usage(stdout);
			return 0;
		}
		if (!(c = find(argv[2])))
			return unknown(argv[2]);
		char *hargv[] = { (char *)c->name, "--help", NULL };

		return c->run(2, hargv);
	}
	if (!(c = find(argv[1])))
		return unknown(argv[1]);
	return c->run(argc - 1, argv + 1);
}
