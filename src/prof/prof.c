// SPDX-License-Identifier: GPL-2.0-only
/* prof — `sonde prof`: run a command under libsonde-prof.so and write its
 * CPU profile as pprof, folded stacks or a table; or (-i) show a profile
 * already written. The command's exit status, stdout and stderr pass
 * through unchanged; sonde speaks on stderr only when something went
 * wrong or with -v. */
#include "prof.h"
#include "dump.h"
#include "../commands.h"
#include "../lib/perf.h"
#include "../lib/cli.h"
#include "../lib/util.h"
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage_text[] =
"usage: sonde prof [-F HZ] [-o FILE] [--format pprof|folded|table] [--kernel]\n"
"                  [-n TOP] [--no-demangle] [-v] -- COMMAND [ARGS...]\n"
"       sonde prof -i PROFILE [--format table|folded|pprof] [-n TOP]\n"
"                  [--no-demangle] [-o FILE]\n"
"\n"
"Profile the CPU time of COMMAND, every thread on its own CPU clock.\n"
"\n"
"  -F, --frequency HZ   samples per second of CPU time, per thread\n"
"                       (default 100, at most 10000)\n"
"  -o, --output FILE    where to write (default sonde-prof.PID.pb.gz for\n"
"                       pprof, stdout for folded and table)\n"
"      --format FORMAT  pprof (default, gzipped profile.proto), folded or\n"
"                       table\n"
"      --kernel         sample with perf events and include kernel frames\n"
"                       (needs root or CAP_PERFMON)\n"
"  -i, --input FILE     show a profile written before (pprof, a raw dump,\n"
"                       or a directory of them, merged)\n"
"  -n, --top N          rows in the table (default 25; 0 for all)\n"
"      --no-demangle    C++ and Rust symbols as they are in the table and\n"
"                       folded stacks (pprof keeps both)\n"
"  -v, --verbose        say what was written on stderr\n"
"  -h, --help           this help\n"
"\n"
"Processes the command forks write PROFILE with their pid inserted\n"
"(sonde-prof.PID.CHILD.pb.gz); programs it execs are profiled too.\n"
"Without the launcher: LD_PRELOAD=libsonde-prof.so SONDE_PROF=FILE cmd.\n";

enum fmt { FMT_PPROF, FMT_FOLDED, FMT_TABLE };

struct opts {
	uint64_t hz;
	const char *out;
	const char *input;
	enum fmt format;
	bool format_set, kernel, verbose, no_demangle;
	uint64_t top;
	char **cmd;
};

enum { OPT_FORMAT = 0x100, OPT_KERNEL, OPT_NO_DEMANGLE };

static const struct option long_opts[] = {
	{ "frequency", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "input", required_argument, NULL, 'i' },
	{ "top", required_argument, NULL, 'n' },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	optind = 1;
	opterr = 0;
	/* '+': options end at the command. */
	while ((c = getopt_long(argc, argv, "+:F:o:i:n:vh", long_opts,
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
		case OPT_KERNEL:
			o->kernel = true;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
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
	if (o->input) {
		if (optind < argc)
			return sd_usage_error("-i takes no command ('%s')",
					   argv[optind]);
		if (!o->format_set)
			o->format = FMT_TABLE;
		if (o->format == FMT_PPROF && (!o->out || !strcmp(o->out, "-")))
			return sd_usage_error("-i with --format pprof writes to a "
					      "file: give -o");
		return -1;
	}
	if (optind >= argc)
		return sd_usage_error("no command to profile");
	o->cmd = argv + optind;
	return -1;
}

static bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Where libsonde-prof.so is: $SONDE_PROF_LIBDIR; next to the binary in a
 * build tree (src/prof); the library directory of the prefix the binary
 * sits in, found relative to it (SONDE_PROF_RELDIR: ../lib/ARCH/sonde from
 * bin/), so a copied or DESTDIR-staged installation finds its own; last,
 * the configured installation directory. */
static char *find_libdir(void)
{
	const char *env = getenv("SONDE_PROF_LIBDIR");
	static const char *const rel[] = { "src/prof",
#ifdef SONDE_PROF_RELDIR
					   SONDE_PROF_RELDIR,
#endif
	};
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n;

	if (env && *env)
		return sd_strdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
				snprintf(path, sizeof(path),
					 "%s/%s/libsonde-prof.so", exe, rel[i]);
				if (!file_exists(path))
					continue;
				snprintf(path, sizeof(path), "%s/%s", exe,
					 rel[i]);
				return realpath(path, NULL) ?: sd_strdup(path);
			}
		}
	}
	return sd_strdup(SONDE_PROF_LIBDIR);
}

/* Can this process open the perf event libsonde-prof.so will use? */
static int check_kernel_sampling(void)
{
	struct perf_event_attr a;
	char why[256];
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 10000000;
	a.sample_type = PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.exclude_callchain_user = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0) {
		sd_err("--kernel: cannot open a task-clock perf event with "
		       "kernel call chains: %s",
		       perf_open_error(fd, false, why, sizeof(why)));
		return -1;
	}
	close(fd);
	return 0;
}

static char *default_pprof_name(pid_t pid)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "sonde-prof.%d.pb.gz", (int)pid);
	return sd_strdup(buf);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A raw dump (left by a program killed by a signal) read as a profile:
 * symbolized into a temporary file first. */
static int read_raw(struct pprof *p, const char *path)
{
	char tmp[] = "/tmp/sonde-prof-raw.XXXXXX", why[256];
	int fd = mkstemp(tmp), sig, err;

	if (fd < 0)
		return -errno;
	close(fd);
	err = sprof_convert_raw(path, tmp, &sig, why, sizeof(why));
	if (err)
		sd_warn("cannot symbolize %s: %s", path, why);
	else
		err = pprof_read(p, tmp);
	unlink(tmp);
	return err;
}

/* Read path and, for a directory, every *.pb.gz (and raw dump) in it,
 * into p. */
static int read_profiles(struct pprof *p, const char *path, int *nread)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int err;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		err = ends_with(path, ".raw") ? read_raw(p, path)
					      : pprof_read(p, path);
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
		err = ends_with(f, ".raw") ? read_raw(p, f) : pprof_read(p, f);
		if (err)
			sd_warn("cannot read %s: %s", f, strerror(-err));
		else
			(*nread)++;
		free(f);
	}
	closedir(d);
	return 0;
}

static int render(const struct opts *o, struct pprof *p)
{
	FILE *f = stdout;

	if (o->out && strcmp(o->out, "-")) {
		f = fopen(o->out, "w");
		if (!f) {
			sd_err("cannot write %s: %s", o->out, strerror(errno));
			return SD_EXIT_FAIL;
		}
	}
	if (o->format == FMT_PPROF) {
		int err = pprof_write(p, o->out);

		fclose(f);
		if (err) {
			sd_err("cannot write %s: %s", o->out, strerror(-err));
			return SD_EXIT_FAIL;
		}
		return 0;
	}
	if (o->format == FMT_FOLDED)
		prof_write_folded(p, f, o->no_demangle ? 0 : DEMANGLE_ALL);
	else
		prof_write_table(p, f, o->top,
				 o->no_demangle ? 0 : DEMANGLE_ALL);
	if (f != stdout) {
		if (fclose(f)) {
			sd_err("cannot write %s: %s", o->out, strerror(errno));
			return SD_EXIT_FAIL;
		}
	} else if (fflush(stdout)) {
		return SD_EXIT_FAIL;
	}
	return 0;
}

static int show_input(const struct opts *o)
{
	struct pprof p;
	int n = 0, err, ret;

	pprof_init(&p);
	err = read_profiles(&p, o->input, &n);
	if (err) {
		sd_err("cannot read %s: %s", o->input,
		       err == -EPROTO || err == -EINVAL ?
		       "not a pprof profile" : strerror(-err));
		pprof_free(&p);
		return SD_EXIT_FAIL;
	}
	ret = render(o, &p);
	pprof_free(&p);
	return ret;
}

/* Processes killed by SIGINT, SIGTERM or SIGHUP left raw dumps next to
 * their profile's name (NAME.raw, or NAME with a pid inserted + .raw):
 * symbolize each into the profile it stands for. */
static void convert_raws(const char *name)
{
	char *dir = sd_strdup(name), *slash = strrchr(dir, '/'), *prefix;
	const char *base = slash ? slash + 1 : name;
	size_t plen;
	DIR *d;
	struct dirent *de;

	if (slash)
		*slash = '\0';
	prefix = sd_strdup(base);
	if (ends_with(prefix, ".pb.gz"))
		prefix[strlen(prefix) - 6] = '\0';
	plen = strlen(prefix);
	d = opendir(slash ? (*dir ? dir : "/") : ".");
	while (d && (de = readdir(d))) {
		char raw[PATH_MAX], prof[PATH_MAX], why[256];
		int sig, err;

		if (strncmp(de->d_name, prefix, plen) ||
		    !ends_with(de->d_name, ".raw"))
			continue;
		snprintf(raw, sizeof(raw), "%s/%s", slash ? dir : ".", de->d_name);
		snprintf(prof, sizeof(prof), "%.*s", (int)(strlen(raw) - 4), raw);
		err = sprof_convert_raw(raw, prof, &sig, why, sizeof(why));
		if (err)
			sd_warn("cannot symbolize %s: %s", raw, why);
		else
			unlink(raw);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(dir);
}

static void prepend_env(const char *name, const char *val, char sep)
{
	const char *old = getenv(name);

	if (old && *old) {
		char *v = sd_malloc(strlen(val) + strlen(old) + 2);

		sprintf(v, "%s%c%s", val, sep, old);
		setenv(name, v, 1);
		free(v);
	} else {
		setenv(name, val, 1);
	}
}

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* Exit the way the child did: its status, or death by its signal. */
static _Noreturn void exit_like(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);	/* it dumped already */
		signal(sig, SIG_DFL);
		fflush(NULL);
		raise(sig);
		exit(128 + sig);
	}
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : SD_EXIT_FAIL);
}

static int run_command(struct opts *o)
{
	char *libdir = find_libdir(), *lib, *out = NULL, *tmpdir = NULL;
	char hzbuf[32];
	int status, pipefd[2];
	pid_t pid;

#if !defined(__x86_64__)
	sd_err("profiling a command needs libsonde-prof.so, which supports "
	       "x86_64 only (sonde prof -i still reads profiles here)");
	return SD_EXIT_FAIL;
#endif
	lib = sd_malloc(strlen(libdir) + 32);
	sprintf(lib, "%s/libsonde-prof.so", libdir);
	if (!file_exists(lib)) {
		sd_err("cannot find %s: %s (set SONDE_PROF_LIBDIR to its "
		       "directory)", lib, strerror(errno));
		return SD_EXIT_FAIL;
	}
	if (o->kernel && check_kernel_sampling())
		return SD_EXIT_FAIL;
	if (o->format != FMT_PPROF) {
		const char *t = getenv("TMPDIR");

		tmpdir = sd_malloc(PATH_MAX);
		snprintf(tmpdir, PATH_MAX, "%s/sonde-prof.XXXXXX",
			 t && *t ? t : "/tmp");
		if (!mkdtemp(tmpdir)) {
			sd_err("cannot create a directory in %s: %s",
			       t && *t ? t : "/tmp", strerror(errno));
			return SD_EXIT_FAIL;
		}
		out = sd_malloc(PATH_MAX);
		snprintf(out, PATH_MAX, "%s/profile.pb.gz", tmpdir);
	} else if (o->out) {
		out = sd_strdup(o->out);
	}

	/* The child waits for its pid-derived name before it execs. */
	if (pipe2(pipefd, O_CLOEXEC)) {
		sd_err("pipe: %s", strerror(errno));
		return SD_EXIT_FAIL;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		sd_err("cannot fork: %s", strerror(errno));
		return SD_EXIT_FAIL;
	}
	if (pid == 0) {
		char *name = out ? out : default_pprof_name(getpid());
		int err;

		close(pipefd[0]);
		setenv("SONDE_PROF", name, 1);
		snprintf(hzbuf, sizeof(hzbuf), "%" PRIu64, o->hz);
		setenv("SONDE_PROF_HZ", hzbuf, 1);
		setenv("SONDE_PROF_LIBDIR", libdir, 1);
		if (o->kernel)
			setenv("SONDE_PROF_KERNEL", "1", 1);
		else
			unsetenv("SONDE_PROF_KERNEL");
		unsetenv("SONDE_PROF_PID");
		prepend_env("LD_PRELOAD", lib, ':');
		execvp(o->cmd[0], o->cmd);
		err = errno;
		fprintf(stderr, "sonde prof: cannot run %s: %s\n", o->cmd[0],
			strerror(err));
		/* Tell the parent, which prints nothing more. */
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(pipefd[1]);
	child = pid;
	signal(SIGINT, SIG_IGN);	/* the terminal sends it to the child */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	{
		int err = 0;

		if (read(pipefd[0], &err, sizeof(err)) == sizeof(err)) {
			waitpid(pid, &status, 0);
			exit_like(status);
		}
		close(pipefd[0]);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			sd_err("waitpid: %s", strerror(errno));
			return SD_EXIT_FAIL;
		}
	}

	if (o->format == FMT_PPROF) {
		char *name = out ? out : default_pprof_name(pid);

		convert_raws(name);
		if (!file_exists(name))
			sd_warn("no profile was written to %s (%s)", name,
				WIFSIGNALED(status) ?
				"the command was killed by a signal" :
				"the command ended through _exit or exec'd a "
				"program that was not profiled");
		else if (o->verbose)
			sd_err("wrote %s", name);
		if (name != out)
			free(name);
	} else {
		struct pprof p;
		int n = 0, err;

		pprof_init(&p);
		convert_raws(out);
		err = read_profiles(&p, tmpdir, &n);
		if (err || n == 0) {
			sd_warn("no profile was written (%s)",
				WIFSIGNALED(status) ?
				"the command was killed by a signal" :
				"the command ended through _exit or exec'd a "
				"program that was not profiled");
		} else if (render(o, &p)) {
			status = SD_EXIT_FAIL << 8;
		}
		pprof_free(&p);
		/* Remove what the run wrote in the directory. */
		{
			DIR *d = opendir(tmpdir);
			struct dirent *de;

			while (d && (de = readdir(d))) {
				char f[PATH_MAX + 256];

				if (de->d_name[0] == '.')
					continue;
				snprintf(f, sizeof(f), "%s/%s", tmpdir, de->d_name);
				unlink(f);
			}
			if (d)
				closedir(d);
			rmdir(tmpdir);
		}
	}
	free(out);
	free(tmpdir);
	free(lib);
	free(libdir);
	exit_like(status);
}

int cmd_prof(int argc, char **argv)
{
	struct opts o = { .hz = 100, .top = 25 };
	int ret;

	sd_set_prog("sonde prof");
	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.input)
		return show_input(&o);
	return run_command(&o);
}
