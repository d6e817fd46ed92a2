// SPDX-License-Identifier: GPL-2.0-only
/* launch — `sonde prof -- COMMAND`: checks what can be checked before
 * running (the library, --kernel's perf event, a static or setuid program
 * that LD_PRELOAD cannot reach, every output path), runs the command with
 * libsonde-prof.so preloaded, and publishes what it wrote.
 *
 * The profiled program and every process it forks write into a private
 * directory ($TMPDIR/sonde-prof.XXXXXX): regular files that only sonde
 * writes and reads, so the program's exit never waits on the user's
 * output (a FIFO, a terminal, /dev/full) and no existing file of the user
 * is ever read to merge. The launcher copies each profile to where it
 * belongs through lib/outfile (devices and FIFOs written through, regular
 * files replaced atomically); when that fails the private copy stays and
 * is named. The command's exit status, stdout and stderr pass through. */
#include "prof.h"
#include "dump.h"
#include "../lib/perf.h"
#include "../lib/util.h"
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
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

/* The private directory's main profile; the forked processes' are
 * PRIV_BASE.PID.pb.gz, raw dumps add .raw. */
#define PRIV_BASE "profile"
#define PRIV_MAIN PRIV_BASE ".pb.gz"

static bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
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

/* The program as execvp would find it, or NULL. */
static char *which(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return sd_strdup(cmd);
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".",
			 cmd);
		if (!access(buf, X_OK))
			return sd_strdup(buf);
		path += n + (path[n] == ':');
	}
	return NULL;
}

/* Why LD_PRELOAD cannot reach the program, or NULL: an ELF executable
 * without PT_INTERP (static: no dynamic loader to preload with), or a
 * setuid/setgid one run by someone else than root (the loader's secure
 * mode drops LD_PRELOAD). Anything else (a script, an unreadable file)
 * is left to exec. */
static const char *unreachable(const char *path)
{
	Elf64_Ehdr eh;
	struct stat st;
	bool interp = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		close(fd);
		return NULL;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i *
							  sizeof(ph))) !=
		    sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			interp = true;
	}
	close(fd);
	if (!interp)
		return "it is statically linked: there is no dynamic loader to "
		       "preload libsonde-prof.so with";
	if (((st.st_mode & S_ISUID) && st.st_uid != getuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getgid() && getuid())) {
		if (getuid() != 0)
			return "it is setuid or setgid: the dynamic loader "
			       "ignores LD_PRELOAD for it (secure-execution "
			       "mode); run sonde prof as root";
	}
	return NULL;
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


/* Remove the private directory and what is in it. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char f[PATH_MAX + 256];

		if (de->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir, de->d_name);
		unlink(f);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The file a forked process's profile is published as: the main output's
 * name with the pid inserted (f.pb.gz -> f.PID.pb.gz, f -> f.PID). */
static char *child_name(const char *main, const char *pid)
{
	char *s = sd_malloc(strlen(main) + strlen(pid) + 8);

	if (ends_with(main, ".pb.gz") && strlen(main) > 6)
		sprintf(s, "%.*s.%s.pb.gz", (int)(strlen(main) - 6), main, pid);
	else
		sprintf(s, "%s.%s", main, pid);
	return s;
}

/* Copy the forked processes' profiles (profile.PID.pb.gz) next to the
 * main output, when that is a regular file's name. Returns how many
 * failed; *n counts those written. */
static int publish_children(const struct prof_opts *o, const char *dir,
			    const char *main, bool through, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int failed = 0;

	*n = 0;
	while (d && (de = readdir(d))) {
		char src[PATH_MAX + 256], pid[32];
		struct sd_outfile of;
		size_t len;
		char *buf, *name;
		int err;

		if (strncmp(de->d_name, PRIV_BASE ".", strlen(PRIV_BASE) + 1) ||
		    !strcmp(de->d_name, PRIV_MAIN) ||
		    !ends_with(de->d_name, ".pb.gz") ||
		    sscanf(de->d_name, PRIV_BASE ".%31[0-9].pb.gz", pid) != 1)
			continue;
		if (through) {	/* /dev/null, a FIFO: no siblings */
			(*n)++;
			continue;
		}
		snprintf(src, sizeof(src), "%s/%s", dir, de->d_name);
		buf = sd_read_file(src, &len);
		name = child_name(main, pid);
		err = buf ? sd_outfile_open(&of, name, 0644, 0) : -errno;
		if (!err) {
			err = sd_outfile_write(&of, buf, len);
			err = err ? (sd_outfile_discard(&of), err) :
			      sd_outfile_close(&of);
			if (err && sd_outfile_kept(&of))
				unlink(sd_outfile_kept(&of));
			sd_outfile_free(&of);
		}
		if (err) {
			sd_err("cannot write %s: %s; the profile is in %s",
			       name, strerror(-err), src);
			failed++;
		} else {
			unlink(src);
			(*n)++;
			if (o->verbose)
				sd_err("wrote %s", name);
		}
		free(name);
		free(buf);
	}
	if (d)
		closedir(d);
	return failed;
}

/* The reason no profile came, for the one message that says so. */
static const char *no_profile_reason(int status, const char *priv)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s.err", priv, PRIV_MAIN);
	if (file_exists(path))
		return NULL;	/* the writer said why itself */
	return WIFSIGNALED(status) ? "the command was killed by a signal" :
	       "the command ended through _exit or exec'd a program that was "
	       "not profiled";
}

int prof_run(struct prof_opts *o)
{
	char *libdir = find_libdir(), *lib, *exe, priv[PATH_MAX];
	char main_path[PATH_MAX + 32], hzbuf[32], go = 1;
	const char *why, *tmp = getenv("TMPDIR");
	struct prof_outputs outs = { 0 };
	int status, errpipe[2], gopipe[2], ret = 0;
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
	exe = which(o->cmd[0]);
	if (exe && (why = unreachable(exe))) {
		sd_err("cannot profile %s: %s", exe, why);
		return SD_EXIT_FAIL;
	}
	free(exe);
	/* Outputs whose names are known now are checked now: a typo costs
	 * no run. The default pprof name holds the command's pid: checked
	 * once the child exists, before it execs. */
	if (o->out && strcmp(o->out, "-")) {
		if (prof_open_output(o->out, &outs.main))
			return SD_EXIT_FAIL;
		outs.has_main = true;
	} else if (o->out && o->format == FMT_PPROF) {
		if (prof_open_output("-", &outs.main))
			return SD_EXIT_FAIL;
		outs.has_main = true;
	}
	if (o->svg) {
		if (prof_open_output(o->svg, &outs.svg))
			goto fail_outputs;
		outs.has_svg = true;
	}
	snprintf(priv, sizeof(priv), "%s/sonde-prof.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(priv)) {
		sd_err("cannot create a directory in %s: %s",
		       tmp && *tmp ? tmp : "/tmp", strerror(errno));
		goto fail_outputs;
	}

	/* The child waits for the go-ahead (its output checked) before it
	 * execs, and says on errpipe when the exec failed. */
	if (pipe2(errpipe, O_CLOEXEC) || pipe2(gopipe, O_CLOEXEC)) {
		sd_err("pipe: %s", strerror(errno));
		goto fail_dir;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		sd_err("cannot fork: %s", strerror(errno));
		goto fail_dir;
	}
	if (pid == 0) {
		char out[PATH_MAX + 16];
		int err;

		close(errpipe[0]);
		close(gopipe[1]);
		if (read(gopipe[0], &go, 1) != 1)
			_exit(SD_EXIT_FAIL);
		snprintf(out, sizeof(out), "%s/%s", priv, PRIV_MAIN);
		setenv("SONDE_PROF", out, 1);
		setenv("SONDE_PROF_LAUNCHED", "1", 1);
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
		if (write(errpipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(errpipe[1]);
	close(gopipe[0]);
	child = pid;
	if (o->format == FMT_PPROF && !outs.has_main) {
		snprintf(main_path, sizeof(main_path), "sonde-prof.%d.pb.gz",
			 (int)pid);
		if (prof_open_output(main_path, &outs.main)) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto fail_dir;
		}
		outs.has_main = true;
	}
	signal(SIGINT, SIG_IGN);	/* the terminal sends it to the child */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	if (write(gopipe[1], &go, 1) != 1) {
		sd_err("cannot start the command: %s", strerror(errno));
		kill(pid, SIGKILL);
	}
	close(gopipe[1]);
	{
		int err = 0;

		if (read(errpipe[0], &err, sizeof(err)) == sizeof(err)) {
			waitpid(pid, &status, 0);
			if (outs.has_main)
				sd_outfile_discard(&outs.main);
			if (outs.has_svg)
				sd_outfile_discard(&outs.svg);
			remove_dir(priv);
			exit_like(status);
		}
		close(errpipe[0]);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			sd_err("waitpid: %s", strerror(errno));
			return SD_EXIT_FAIL;
		}
	}
	/* nothing to forward to any more: SIGTERM ends sonde prof itself */
	child = 0;
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);

	{
		char priv_main[PATH_MAX + 16];
		struct pprof p;
		int n = 0, nchildren = 0;
		const char *reason;
		bool keep = false, through = false;

		snprintf(priv_main, sizeof(priv_main), "%s/%s", priv, PRIV_MAIN);
		convert_raws(priv_main);
		pprof_init(&p);
		/* The main profile, then (for the views) every process's */
		if (o->format == FMT_PPROF && file_exists(priv_main)) {
			size_t len;
			char *bytes = sd_read_file(priv_main, &len);

			if (bytes && !pprof_read(&p, priv_main)) {
				char *name = sd_strdup(outs.main.path);

				through = outs.main.through;
				if (prof_render(o, &p, &outs, bytes, len,
						priv_main))
					keep = true;
				else if (publish_children(o, priv, name, through,
							  &nchildren))
					keep = true;
				free(name);
				n = 1;
			}
			free(bytes);
		} else if (o->format != FMT_PPROF) {
			prof_read_profiles(o, &p, priv, &n);
			if (n && prof_render(o, &p, &outs, NULL, 0, priv))
				keep = true;
		}
		if (!n) {
			reason = no_profile_reason(status, priv);
			if (reason)
				sd_warn("no profile was written (%s)", reason);
			else
				keep = true;	/* the writer's error: fail */
			if (outs.has_main)
				sd_outfile_discard(&outs.main);
			if (outs.has_svg)
				sd_outfile_discard(&outs.svg);
		} else if (nchildren && !o->quiet && (o->verbose || isatty(2))) {
			sd_err("and %d profile%s of forked processes%s", nchildren,
			       nchildren == 1 ? "" : "s",
			       through ? " (not written: the output "
			       "is not a regular file)" : "");
		}
		pprof_free(&p);
		if (keep && n)
			ret = SD_EXIT_FAIL;	/* the profile stays in priv */
		else
			remove_dir(priv);
		if (keep && !n)
			ret = SD_EXIT_FAIL;
	}
	free(lib);
	free(libdir);
	/* an output that failed fails the run, unless the command failed */
	if (ret && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		exit(SD_EXIT_FAIL);
	exit_like(status);

fail_dir:
	remove_dir(priv);
fail_outputs:
	if (outs.has_main) {
		sd_outfile_discard(&outs.main);
		sd_outfile_free(&outs.main);
	}
	if (outs.has_svg) {
		sd_outfile_discard(&outs.svg);
		sd_outfile_free(&outs.svg);
	}
	return SD_EXIT_FAIL;
}
