// SPDX-License-Identifier: GPL-2.0-only
/* dtrace — `sonde dtrace`: the command line of dtrace(1). Collects the
 * program from -n, -s, -P, -m and -f, the options (-x, -q), the macro
 * arguments, starts -c's command stopped before exec (so $target is its
 * pid) or watches -p's process, compiles, lists (-l) or prints (-S) or
 * stops there (-e), and otherwise loads, fires BEGIN, attaches, consumes
 * until exit(), Ctrl-C or the end of the traced process, detaches, fires
 * END and prints the aggregations. */
#include "dtrace.h"
#include "config.h"
#include "../commands.h"
#include "../lib/bpf.h"
#include "../lib/util.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>


static const char usage_text[] =
"usage: sonde dtrace [-eqSVZ] [-c CMD] [-p PID] [-o FILE] [-x OPT[=VAL]]\n"
"                    [-n PROGRAM] [-s SCRIPT] [-P PROVIDER] [-m MODULE]\n"
"                    [-f FUNCTION] [-l] [ARG ...]\n"
"\n"
"Compile D programs to BPF and run them, as dtrace(1).\n"
"\n"
"  -n PROGRAM   a probe description with an optional /predicate/ and\n"
"               { actions }, e.g. 'syscall::read:entry { @[execname] =\n"
"               count(); }'\n"
"  -s SCRIPT    a D script file (also #!/usr/bin/env -S sonde dtrace -s)\n"
"  -P PROVIDER  enable (or with -l, list) the provider's probes\n"
"  -m MODULE    the same for a module\n"
"  -f FUNCTION  the same for a function\n"
"  -l           list the probes that match, or every probe\n"
"  -q           quiet: only what the program prints\n"
"  -c CMD       run CMD, trace while it runs ($target is its pid)\n"
"  -p PID       trace while process PID lives ($target is PID)\n"
"  -o FILE      append the output to FILE\n"
"  -x OPT[=VAL] set an option: bufsize, strsize, aggsize, dynvarsize,\n"
"               switchrate, aggrate, quiet\n"
"  -S           print the generated BPF on stderr\n"
"  -e           compile only: stop before loading anything\n"
"  -Z           allow probe descriptions that match no probes\n"
"  -V           the version of D this implements\n"
"  -h           this help\n"
"\n"
"ARGs become the macro variables $1, $2, ... Ctrl-C ends the run: END\n"
"fires and the aggregations print. Needs root (or CAP_BPF and\n"
"CAP_PERFMON) to load programs.\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted++;
	if (interrupted > 2)
		_exit(SD_EXIT_FAIL);	/* impatient */
}

static int usage_error(const char *fmt, const char *arg)
{
	if (fmt) {
		fprintf(stderr, "%s: ", sd_prog());
		fprintf(stderr, fmt, arg);
		fputc('\n', stderr);
	}
	fputs(usage_text, stderr);
	return SD_EXIT_USAGE;
}

struct cmd {
	char kind;		/* 'n', 's', 'P', 'm', 'f' */
	const char *arg;
};

/* -c: the command, stopped before exec until tracing runs. */
struct child {
	pid_t pid;
	int go;			/* write end: one byte lets it exec */
	int pidfd;
};

/* Tell the pid provider which program -c's process (pid) will run: the
 * command's first word, searched in PATH as execvp does. */
static void note_command(const char *cmdline, long pid)
{
	char path[PATH_MAX];
	const char *env = getenv("PATH");
	wordexp_t we;

	if (wordexp(cmdline, &we, WRDE_NOCMD) || !we.we_wordc)
		return;
	snprintf(path, sizeof(path), "%s", we.we_wordv[0]);
	if (!strchr(we.we_wordv[0], '/')) {
		char *dirs = sd_strdup(env ? env : "/usr/bin:/bin"), *save = NULL;

		for (char *d = strtok_r(dirs, ":", &save); d;
		     d = strtok_r(NULL, ":", &save)) {
			snprintf(path, sizeof(path), "%s/%s", d,
				 we.we_wordv[0]);
			if (access(path, X_OK) == 0)
				break;
			path[0] = '\0';
		}
		free(dirs);
	}
	if (path[0]) {
		char *real = realpath(path, NULL);

		dt_pid_set_command(pid, real ? real : path);
		free(real);
	}
	wordfree(&we);
}

/* Wait (up to a second) until the forked child sleeps in its read() of
 * the go pipe, as /proc/PID/syscall shows: its calls before exec (from
 * fork's set_robust_list to that read's entry) are then behind it when
 * tracing starts, whatever the scheduler did, and a script's first call
 * of the target is its execve (after the read's return). */
static void wait_blocked_in_read(pid_t pid)
{
	char path[64], buf[64];
	long nr;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 1000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return;		/* not readable here: do not wait */
		buf[n] = '\0';
		/* "running" while on a CPU; the number when blocked in it */
		if (sscanf(buf, "%ld", &nr) == 1 && nr == SYS_read)
			return;
		usleep(1000);
	}
}

static int start_child(const char *cmdline, struct child *c)
{
	wordexp_t we;
	int pfd[2];

	if (wordexp(cmdline, &we, WRDE_NOCMD) || !we.we_wordc) {
		sd_err("cannot parse -c command '%s'", cmdline);
		return -EINVAL;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		wordfree(&we);
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		wordfree(&we);
		return -errno;
	}
	if (!c->pid) {
		char b;

		close(pfd[1]);
		if (read(pfd[0], &b, 1) != 1)
			_exit(127);
		execvp(we.we_wordv[0], we.we_wordv);
		fprintf(stderr, "sonde dtrace: cannot run %s: %s\n",
			we.we_wordv[0], strerror(errno));
		_exit(127);
	}
	wordfree(&we);
	close(pfd[0]);
	c->go = pfd[1];
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	wait_blocked_in_read(c->pid);
	return 0;
}

static void release_child(struct child *c)
{
	if (c->go >= 0) {
		if (write(c->go, "g", 1) != 1)
			sd_warn("cannot start the -c command: %s",
				strerror(errno));
		close(c->go);
		c->go = -1;
	}
}

static void kill_child(struct child *c)
{
	if (c->pid <= 0)
		return;
	if (c->go >= 0) {
		close(c->go);	/* it exits without exec */
		c->go = -1;
	} else {
		kill(c->pid, SIGKILL);	/* as dtrace(1) ends what it ran */
	}
	waitpid(c->pid, NULL, 0);
	c->pid = 0;
}

/* Whether the traced process is gone (reaping -c's child). */
static bool target_gone(struct child *c, pid_t watch, int *wstatus)
{
	if (c->pid > 0) {
		pid_t r = waitpid(c->pid, wstatus, WNOHANG);

		if (r == c->pid) {
			c->pid = 0;
			return true;
		}
		return false;
	}
	if (watch > 0)
		return kill(watch, 0) && errno == ESRCH;
	return false;
}

static char *read_source(const char *path, size_t *len)
{
	char *s = sd_read_file(path, len);

	if (!s)
		sd_err("cannot read %s: %s", path, strerror(errno));
	return s;
}

/* "BEGIN { exit(0); }" is reported as 'BEGIN ', as DTrace does. */
static void crop_desc(char *s)
{
	char *p = strpbrk(s, "{/;");

	if (p)
		*p = '\0';
}

static void print_msg(const char *msg)
{
	size_t n = strlen(msg);

	fputs(msg, stderr);
	if (n && msg[n - 1] != '\n')
		fputc('\n', stderr);
}

static int run(struct dt_session *s, struct child *child, pid_t watch,
	       struct cmd *cmds, int ncmds)
{
	char err[512], *msg = NULL;
	int ret, wstatus = 0;
	struct pollfd pfd[2];
	struct sigaction sa = { .sa_handler = on_signal };

	ret = dt_load(s, &msg);
	if (ret) {
		fprintf(stderr, "%s: ", sd_prog());
		print_msg(msg ? msg : "cannot load the programs\n");
		free(msg);
		return SD_EXIT_FAIL;
	}
	if (!s->prog.opt.quiet) {
		for (int i = 0; i < ncmds; i++) {
			char *name = sd_strdup(cmds[i].arg);

			if (cmds[i].kind == 'n')
				crop_desc(name);
			fprintf(stderr, "dtrace: %s '%s' matched %d probe%s\n",
				cmds[i].kind == 's' ? "script" : "description",
				name, s->src_matches[i],
				s->src_matches[i] == 1 ? "" : "s");
			free(name);
		}
	}
	if (dt_consume_open(s)) {
		sd_err("cannot read the BPF ring buffer: %s", strerror(errno));
		return SD_EXIT_FAIL;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN }, NULL);
	if (dt_fire(s, s->begin)) {
		sd_err("cannot run BEGIN: %s", strerror(errno));
		return SD_EXIT_FAIL;
	}
	if (!s->done) {
		ret = dt_attach(s, err, sizeof(err));
		if (ret) {
			sd_err("%s", err);
			dt_detach(s);
			return SD_EXIT_FAIL;
		}
	}
	release_child(child);
	pfd[0].fd = ring_buffer__epoll_fd(s->rb);
	pfd[0].events = POLLIN;
	pfd[1].fd = child->pidfd;	/* readable when the target exits */
	pfd[1].events = POLLIN;
	while (!s->done && !interrupted) {
		int timeout = (watch > 0 || child->pid > 0) && child->pidfd < 0 ?
			      100 : 1000;
		int n = poll(pfd, 2, timeout);

		if (n < 0 && errno != EINTR) {
			sd_err("poll: %s", strerror(errno));
			break;
		}
		if (n > 0 && (pfd[0].revents & POLLIN))
			dt_consume(s, 0);
		if (target_gone(child, watch, &wstatus) ||
		    (watch > 0 && n > 0 && (pfd[1].revents & POLLIN))) {
			dt_consume(s, 0);
			if (!s->prog.opt.quiet)
				fprintf(stderr, "dtrace: pid %d has exited\n",
					(int)(watch > 0 ? watch :
					      (pid_t)s->macros.target));
			break;
		}
	}
	if (interrupted && !s->prog.opt.quiet)
		fputc('\n', s->out);
	dt_detach(s);
	dt_consume(s, 0);
	if (dt_fire(s, s->end))
		sd_warn("cannot run END: %s", strerror(errno));
	dt_consume_finish(s);
	dt_print_drops(s);
	return s->status;
}

int cmd_dtrace(int argc, char **argv)
{
	struct dt_session s;
	struct cmd *cmds = sd_calloc((size_t)argc + 1, sizeof(*cmds));
	char **margs = sd_calloc((size_t)argc + 2, sizeof(char *));
	int ncmds = 0, nmargs = 1, c, status = 0;
	bool list = false, dump = false, compile_only = false;
	const char *cmdline = NULL, *outfile = NULL, *script0 = NULL;
	struct child child = { .go = -1, .pidfd = -1 };
	pid_t watch = 0;
	char err[256];

	sd_set_prog("sonde dtrace");
	sbpf_init(false);
	dt_session_init(&s);
	margs[0] = "dtrace";
	opterr = 0;
	optind = 1;
	for (;;) {
		/* A negative number is a macro argument, not an option. */
		if (optind < argc && argv[optind][0] == '-' &&
		    argv[optind][1] >= '0' && argv[optind][1] <= '9') {
			margs[nmargs++] = argv[optind++];
			continue;
		}
		c = getopt(argc, argv, "+:n:s:P:m:f:lqc:p:o:x:SeZwhCFvV");
		if (c == -1) {
			if (optind >= argc)
				break;
			if (!strcmp(argv[optind], "--help")) {
				c = 'h';
			} else {
				margs[nmargs++] = argv[optind++];
				continue;
			}
		}
		switch (c) {
		case 'n': case 's': case 'P': case 'm': case 'f':
			cmds[ncmds].kind = (char)c;
			cmds[ncmds++].arg = optarg;
			if (c == 's' && !script0)
				script0 = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'q':
			s.opt.quiet = true;
			break;
		case 'c':
			cmdline = optarg;
			break;
		case 'p': {
			uint64_t v;

			if (sd_parse_u64(optarg, 1, INT32_MAX, &v)) {
				status = usage_error("bad pid '%s'", optarg);
				goto out;
			}
			watch = (pid_t)v;
			break;
		}
		case 'o':
			outfile = optarg;
			break;
		case 'x': {
			char *name = sd_strdup(optarg), *eq = strchr(name, '=');

			if (eq)
				*eq++ = '\0';
			if (dt_set_option(&s.opt, name, eq, err, sizeof(err))) {
				free(name);
				status = usage_error("%s", err);
				goto out;
			}
			free(name);
			break;
		}
		case 'S':
			dump = true;
			break;
		case 'e':
			compile_only = true;
			break;
		case 'Z':
			s.allow_zero = true;
			break;
		case 'w':
			s.opt.destructive = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			goto out;
		case 'C':
			status = usage_error("not supported: -C (the C "
					     "preprocessor)%s", "");
			goto out;
		case 'F':
			status = usage_error("not supported: -F (flowindent)%s",
					     "");
			goto out;
		case 'v': case 'V':
			printf("dtrace: Sun D 1.6.3 (sonde %s)\n", SONDE_VERSION);
			goto out;
		case ':':
			status = usage_error("option '-%s' needs a value",
					     (char[]){ (char)optopt, 0 });
			goto out;
		default:
			status = usage_error("unknown option '-%s'",
					     (char[]){ (char)optopt, 0 });
			goto out;
		}
	}
	if (!ncmds && !list) {
		status = usage_error("no program: give -n, -s, -P, -m or -f%s",
				     "");
		goto out;
	}
	if (cmdline && watch) {
		status = usage_error("-c and -p exclude each other%s", "");
		goto out;
	}
	if (script0)
		margs[0] = (char *)script0;
	s.macros.argv = margs;
	s.macros.argc = nmargs;
	if (watch) {
		if (kill(watch, 0) && errno == ESRCH) {
			sd_err("failed to grab pid %d: no such process",
			       (int)watch);
			status = SD_EXIT_FAIL;
			goto out;
		}
		s.macros.target = watch;
		child.pidfd = (int)syscall(SYS_pidfd_open, watch, 0);
	}
	for (int i = 0; i < ncmds; i++) {
		char *text;
		size_t len;

		switch (cmds[i].kind) {
		case 's':
			text = read_source(cmds[i].arg, &len);
			if (!text) {
				status = SD_EXIT_FAIL;
				goto out;
			}
			dt_session_add(&s, cmds[i].arg, text, len);
			free(text);
			break;
		case 'n':
			dt_session_add(&s, "-n", cmds[i].arg,
				       strlen(cmds[i].arg));
			break;
		default: {
			/* -P p, -m m, -f f: a probe description */
			char buf[512];

			snprintf(buf, sizeof(buf), "%s%s%s",
				 cmds[i].kind == 'P' ? "" :
				 cmds[i].kind == 'm' ? ":" : "::", cmds[i].arg,
				 cmds[i].kind == 'P' ? ":::" :
				 cmds[i].kind == 'm' ? "::" : ":");
			dt_session_add(&s, buf, buf, strlen(buf));
		}
		}
	}
	if (cmdline && !compile_only) {
		if (start_child(cmdline, &child)) {
			sd_err("cannot start '%s': %s", cmdline,
			       strerror(errno));
			status = SD_EXIT_FAIL;
			goto out;
		}
		s.macros.target = child.pid;
		note_command(cmdline, child.pid);
	} else if (cmdline) {
		/* -e, -l: not run; its pid is 0 */
		s.macros.target = 0;
		note_command(cmdline, 0);
	}
	if (list) {
		char *msg = NULL;

		if (outfile && !(s.out = fopen(outfile, "a"))) {
			sd_err("cannot open %s: %s", outfile, strerror(errno));
			status = SD_EXIT_FAIL;
			goto out;
		}
		status = dt_list(&s, s.out, &msg);
		if (msg)
			print_msg(msg);
		free(msg);
		kill_child(&child);
		goto out;
	}
	status = dt_compile(&s);
	if (status) {
		print_msg(s.cc.msg ? s.cc.msg : "compilation failed\n");
		kill_child(&child);
		goto out;
	}
	if (dump)
		dt_dump(&s, stderr);
	if (compile_only) {
		kill_child(&child);
		goto out;
	}
	if (outfile && !(s.out = fopen(outfile, "a"))) {
		sd_err("cannot open %s: %s", outfile, strerror(errno));
		kill_child(&child);
		status = SD_EXIT_FAIL;
		goto out;
	}
	status = run(&s, &child, watch, cmds, ncmds);
	kill_child(&child);
	dt_unload(&s);
out:
	if (s.out && s.out != stdout)
		fclose(s.out);
	if (child.pidfd >= 0)
		close(child.pidfd);
	dt_stacks_free(&s);
	dt_session_free(&s);
	free(cmds);
	free(margs);
	return status;
}
