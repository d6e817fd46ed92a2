// SPDX-License-Identifier: GPL-2.0-only
/* dtrace — `sonde dtrace`: the command line of dtrace(1), option by option
 * and message by message as dtrace-utils' cmd/dtrace.c: the programs from
 * -n, -s, -P, -m, -f and -i, the options (-x and the flags that stand for
 * one), the macro arguments, -c's command started stopped before exec (so
 * $target is its pid) or -p's process watched; then it compiles, lists
 * (-l), prints (-S), stops there (-e), or loads, fires BEGIN, attaches,
 * consumes until exit(), Ctrl-C or the end of the traced process,
 * detaches, fires END and prints the aggregations. Messages that DTrace
 * gives read as DTrace words them ("dtrace: failed to compile script ...");
 * usage errors are sonde's one line. */
#include "dtrace.h"
#include "usdt_gen.h"
#include "config.h"
#include "../commands.h"
#include "../lib/bpf.h"
#include "../lib/cli.h"
#include "../lib/elfsym.h"
#include "../lib/outfile.h"
#include "../lib/util.h"

#include <bpf/libbpf.h>
#include <elf.h>
#include <gelf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>


static const char usage_text[] =
"usage: sonde dtrace [-CeFlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]\n"
"                    [-I path] [-o output] [-p pid] [-s script] [-U name]\n"
"                    [-x opt[=val]] [-X a|c|s|t]\n"
"                    [-P provider [[predicate] action]]\n"
"                    [-m [provider:]module [[predicate] action]]\n"
"                    [-f [[provider:]module:]func [[predicate] action]]\n"
"                    [-n [[[provider:]module:]func:]name [[predicate] "
"action]]\n"
"                    [-i probe-id [[predicate] action]] [args ...]\n"
"\n"
"Compile D programs to BPF and run them, as dtrace(1).\n"
"\n"
"  -n PROGRAM   a probe description with an optional /predicate/ and\n"
"               { actions }, e.g. 'syscall::read:entry { @[execname] =\n"
"               count(); }'\n"
"  -s SCRIPT    a D script file (also #!/usr/bin/env -S sonde dtrace -s)\n"
"  -P, -m, -f   a provider, module or function: its probes, with an\n"
"               optional /predicate/ and { actions }\n"
"  -i ID        the probe of that ID (as -l lists them)\n"
"  -l           list the probes that match, or every probe\n"
"  -q           quiet: only what the program prints\n"
"  -c CMD       run CMD, trace while it runs ($target is its pid)\n"
"  -p PID       trace while process PID lives ($target is PID)\n"
"  -o FILE      append the output to FILE\n"
"  -b SIZE      the trace buffer size (-x bufsize)\n"
"  -x OPT[=VAL] set an option: bufsize, strsize, aggsize, dynvarsize,\n"
"               switchrate, aggrate, quiet, errtags... (sonde-dtrace(1))\n"
"  -C           run the scripts through the C preprocessor (cpp);\n"
"               -D NAME[=DEF], -U NAME, -I DIR, -H and -X a|c|s|t go to it\n"
"  -w           allow destructive actions\n"
"  -Z           allow probe descriptions that match no probes\n"
"  -S           print the generated BPF on stderr\n"
"  -e           compile only: stop before loading anything\n"
"  -v           with -l or -e: the probes' stability and argument types\n"
"  -V           the version of D this implements\n"
"  -h -s PROV.d write PROV.h, the C header of PROV.d's USDT providers\n"
"  -G -s PROV.d OBJECT...\n"
"               write PROV.o (their semaphores) to link with OBJECTs\n"
"  -h, --help   this help (-h without a script)\n"
"\n"
"ARGs become the macro variables $1, $2, ... Ctrl-C ends the run: END\n"
"fires and the aggregations print. Needs root (or CAP_BPF and\n"
"CAP_PERFMON) to load programs.\n";

/* dtrace(1)'s own option letters, and --help. */
static const char optstr[] =
	"+:3:6:aAb:Bc:CD:ef:FGhHi:I:lL:m:n:o:p:P:qs:SU:vVwx:X:Z";
static const struct option longopts[] = {
	{ "help", no_argument, NULL, 1 },
	{ NULL, 0, NULL, 0 },
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted++;
	if (interrupted > 2)
		_exit(SD_EXIT_FAIL);	/* impatient */
}

/* dtrace(1)'s words: "dtrace: MESSAGE" on stderr. */
static void __attribute__((format(printf, 1, 2))) dt_say(const char *fmt, ...)
{
	va_list ap;

	fputs("dtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A program given on the command line. */
struct cmd {
	char kind;		/* 'n', 's', 'P', 'm', 'f', 'i' */
	const char *arg;
};

/* -c: the command, held until tracing runs: before its exec
 * (-x evaltime=exec), or ptrace-stopped after it (the others). */
struct child {
	pid_t pid;
	int go;			/* write end: one byte lets it exec */
	int pidfd;
	bool traced;		/* ptrace-stopped: detaching runs it */
};

/* Tell the pid provider which program -c's process (pid) will run: the
 * command's first word, searched in PATH as execvp does. */
static bool find_command(const char *word, char *path, size_t len)
{
	const char *env = getenv("PATH");

	snprintf(path, len, "%s", word);
	if (strchr(word, '/'))
		return access(path, X_OK) == 0;
	char *dirs = sd_strdup(env ? env : "/usr/bin:/bin"), *save = NULL;

	for (char *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(path, len, "%s/%s", *d ? d : ".", word);
		if (access(path, X_OK) == 0) {
			free(dirs);
			return true;
		}
	}
	free(dirs);
	return false;
}

static void note_command(struct dt_session *s, const char *word, long pid)
{
	char path[PATH_MAX];

	if (find_command(word, path, sizeof(path))) {
		char *real = realpath(path, NULL);

		dt_pid_set_command(s->provs, pid, real ? real : path);
		free(real);
	}
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void free_words(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* -c's words: split at blanks as dtrace(1)'s make_argv, and, as sonde
 * always did, with a shell's quoting: '...' and "..." group words and a
 * backslash escapes the next character (nothing is expanded). Unquoted
 * text splits exactly as make_argv splits it. NULL on an unterminated
 * quote. */
static char **split_words(const char *s, int *n)
{
	char **v = sd_calloc(strlen(s) / 2 + 2, sizeof(char *));
	char *w = sd_malloc(strlen(s) + 1);

	*n = 0;
	while (*s) {
		size_t len = 0;
		bool word = false;
		char q = 0;

		while (*s && strchr(" \t\n\r\f\v", *s))
			s++;
		for (; *s && (q || !strchr(" \t\n\r\f\v", *s)); s++) {
			word = true;
			if (q == '\'' ? *s == '\'' : q && *s == '"') {
				q = 0;
			} else if (!q && (*s == '\'' || *s == '"')) {
				q = *s;
			} else if (*s == '\\' && q != '\'' && s[1] &&
				   (!q || strchr("\"\\$`", s[1]))) {
				w[len++] = *++s;
			} else {
				w[len++] = *s;
			}
		}
		if (q) {
			free(w);
			free_words(v, *n);
			return NULL;
		}
		if (word) {
			w[len] = 0;
			v[(*n)++] = sd_strdup(w);
		}
	}
	free(w);
	return v;
}

/* The value of auxv entry type of process pid (0 if none). */
static uint64_t auxv_value(pid_t pid, uint64_t type)
{
	char path[64];
	uint64_t kv[2], v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fread(kv, sizeof(kv), 1, f) == 1 && kv[0])
		if (kv[0] == type) {
			v = kv[1];
			break;
		}
	fclose(f);
	return v;
}

/* Where -x evaltime=main stops: main() of the program pid runs, by its
 * symbol (the load bias from the entry point); 0 if it has none. */
static uint64_t main_address(pid_t pid, uint64_t entry)
{
	char path[64];
	struct elfsym *e;
	uint64_t addr = 0, a, e_entry = 0;
	size_t size;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && gelf_getehdr(elf, &eh))
		e_entry = eh.e_entry;
	if (elf)
		elf_end(elf);
	close(fd);
	e = elfsym_open(path);
	for (size_t i = 0; e && e_entry && i < elfsym_count(e); i++) {
		const char *n = elfsym_get(e, i, &a, &size);

		if (n && !strcmp(n, "main")) {
			addr = a + (entry - e_entry);
			break;
		}
	}
	if (e)
		elfsym_close(e);
	return addr;
}

/* Run the ptrace-stopped process pid to addr (a breakpoint there, the
 * instruction restored after); signals on the way are delivered. False
 * when it ended first. */
static bool run_to(pid_t pid, uint64_t addr)
{
	struct user_regs_struct regs;
	long word;
	int st, sig = 0;

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
	if (errno)
		return true;	/* not there: tracing starts here */
	if (ptrace(PTRACE_POKETEXT, pid, (void *)addr,
		   (void *)((word & ~0xffL) | 0xcc)))
		return true;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) ||
		    waitpid(pid, &st, 0) != pid)
			return false;
		if (!WIFSTOPPED(st))
			return false;
		sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);
		if (sig || ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			continue;
		if (regs.rip == addr + 1)
			break;
	}
	ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)word);
	regs.rip = addr;
	ptrace(PTRACE_SETREGS, pid, NULL, &regs);
	return true;
}

/* -x evaltime other than exec: the child has exec'd under ptrace (its exec
 * stop: preinit); on to its entry point (postinit: the dynamic linker has
 * loaded and initialized the shared libraries, as dtrace-utils' postinit
 * waits for) or to main() (main; the entry point when there is no main
 * symbol). 0, or -errno when it did not get there. */
static int hold_after_exec(pid_t pid, int evaltime)
{
	uint64_t entry, addr;
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return -ENOEXEC;	/* the exec failed: it said why */
	if (evaltime == DT_EVAL_PREINIT)
		return 0;
	entry = auxv_value(pid, AT_ENTRY);
	addr = evaltime == DT_EVAL_MAIN ? main_address(pid, entry) : 0;
	if (!addr)
		addr = entry;
	if (addr && !run_to(pid, addr))
		return -ECHILD;
	return 0;
}

/* Fork -c's command, held as -x evaltime says (before its exec, or
 * ptrace-stopped after it); 0, or -errno with nothing started (the
 * command cannot be found or run). */
static int start_child(struct dt_session *s, const char *cmdline,
		       struct child *c)
{
	char path[PATH_MAX];
	int pfd[2], n;
	char **words = split_words(cmdline, &n);

	if (!words)
		return -EINVAL;
	if (!n) {
		free_words(words, n);
		return -ENOENT;
	}
	if (!find_command(words[0], path, sizeof(path))) {
		int err = errno ? errno : ENOENT;

		free_words(words, n);
		return -err;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		free_words(words, n);
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		free_words(words, n);
		return -errno;
	}
	c->traced = s->opt.evaltime != DT_EVAL_EXEC;
	if (!c->pid) {
		char b;

		close(pfd[1]);
		if (c->traced ? ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0 :
		    read(pfd[0], &b, 1) != 1)
			_exit(127);
		execv(path, words);
		fprintf(stderr, "dtrace: failed to execute %s: %s\n",
			words[0], strerror(errno));
		_exit(127);
	}
	note_command(s, words[0], c->pid);
	free_words(words, n);
	close(pfd[0]);
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (c->traced) {
		int r;

		close(pfd[1]);
		c->go = -1;
		r = hold_after_exec(c->pid, s->opt.evaltime);
		if (r) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, NULL, 0);
			c->pid = 0;
			return r;
		}
		return 0;
	}
	c->go = pfd[1];
	wait_blocked_in_read(c->pid);
	return 0;
}

static void release_child(struct child *c)
{
	if (c->traced) {
		if (ptrace(PTRACE_DETACH, c->pid, NULL, NULL))
			sd_warn("cannot start the -c command: %s",
				strerror(errno));
		c->traced = false;
	}
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

/* A compile error as dtrace(1) reports it; on a terminal, sonde's source
 * line, caret and hint follow. */
static void compile_error(struct dt_session *s)
{
	char *msg = dt_compile_message(s);

	fputs(msg, stderr);
	free(msg);
	if (isatty(STDERR_FILENO) && s->cc.msg && s->cc.loc.line > 0) {
		/* the caret display: the source line under the message */
		const char *nl = strchr(s->cc.msg, '\n');

		if (nl && nl[1])
			fputs(nl + 1, stderr);
		if (s->cc.hint)
			fprintf(stderr, "    (%s)\n", s->cc.hint);
	}
}

/* What dtrace(1) refuses when it enables tracing (dtrace_go), in its
 * words: destructive actions without -w; a buffer that cannot hold the
 * largest record with its 8-byte header (dtrace-utils' smallest record
 * to allow for is its 56-byte error record: bufsize 64 is its least);
 * an aggregation with room for no entry. */
static const char *enable_refused(const struct dt_session *s)
{
	const struct dt_prog *p = &s->prog;
	uint64_t rec = p->max_rec > 56 ? (uint64_t)p->max_rec : 56;

	if (p->uses_destructive && !p->opt.destructive)
		return "Destructive actions not allowed";
	if (p->opt.bufsize < 8 + rec)
		return "Enabling exceeds size of buffer";
	for (int i = 0; i < s->nvarmaps; i++) {
		const struct dt_var *v = s->varmaps[i];

		if (v->scope == DT_AGGVAR &&
		    p->opt.aggsize < dt_agg_entry_size(p, v))
			return "Enabling exceeds size of buffer";
	}
	return NULL;
}

static int run(struct dt_session *s, struct child *child, pid_t watch,
	       struct cmd *cmds, int ncmds, const char *outfile,
	       struct sd_outfile *of)
{
	char err[512], *msg = NULL;
	int ret, wstatus = 0;
	struct pollfd pfd[2];
	struct sigaction sa = { .sa_handler = on_signal };

	/* -x cpu=N: BEGIN, END and ERROR run here, so here runs on CPU N
	 * (dtrace-utils runs them in a thread bound to it); tick-N goes
	 * there too (providers/profile.c) */
	if (s->prog.opt.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		if (s->prog.opt.cpu < CPU_SETSIZE)
			CPU_SET((int)s->prog.opt.cpu, &set);
		if (s->prog.opt.cpu >= CPU_SETSIZE ||
		    sched_setaffinity(0, sizeof(set), &set)) {
			dt_say("failed to bind to cpu %lld: %s",
			       (long long)s->prog.opt.cpu,
			       strerror(s->prog.opt.cpu >= CPU_SETSIZE ?
					EINVAL : errno));
			return SD_EXIT_FAIL;
		}
	}
	ret = dt_load(s, &msg);
	if (ret) {
		fprintf(stderr, "%s: ", sd_prog());
		print_msg(msg ? msg : "cannot load the programs\n");
		free(msg);
		return SD_EXIT_FAIL;
	}
	if (outfile) {
		ret = sd_outfile_open(of, outfile, 0644, SD_OUT_APPEND);
		if (ret) {
			dt_say("failed to open output file '%s': %s", outfile,
			       strerror(-ret));
			return SD_EXIT_FAIL;
		}
		s->out = sd_outfile_stream(of);
	}
	if (!s->prog.opt.quiet) {
		for (int i = 0; i < ncmds; i++) {
			char *name = sd_strdup(cmds[i].arg);

			if (cmds[i].kind != 's')
				crop_desc(name);
			dt_say("%s '%s' matched %d probe%s",
			       cmds[i].kind == 's' ? "script" : "description",
			       name, s->src_matches[i],
			       s->src_matches[i] == 1 ? "" : "s");
			free(name);
		}
		if (s->prog.opt.destructive)
			dt_say("allowing destructive actions");
	}
	const char *refused = enable_refused(s);

	if (refused) {
		dt_say("could not enable tracing: %s", refused);
		return SD_EXIT_FAIL;
	}
	if (dt_consume_open(s)) {
		sd_err("cannot read the BPF ring buffer: %s", strerror(errno));
		return SD_EXIT_FAIL;
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN }, NULL);
	/* BEGIN runs first, but what it recorded is consumed once every
	 * probe is on, as in DTrace (whose probes are enabled before BEGIN
	 * fires): a command BEGIN's system() starts is traced. */
	if (dt_fire_only(s, s->begin)) {
		sd_err("cannot run BEGIN: %s", strerror(errno));
		return SD_EXIT_FAIL;
	}
	if (!s->done) {
		ret = dt_attach(s, err, sizeof(err));
		if (ret) {
			dt_consume(s, 0);
			dt_say("could not enable tracing: %s", err);
			dt_detach(s);
			return SD_EXIT_FAIL;
		}
	}
	dt_consume(s, 0);
	release_child(child);
	pfd[0].fd = ring_buffer__epoll_fd(s->rb);
	pfd[0].events = POLLIN;
	pfd[1].fd = child->pidfd;	/* readable when the target exits */
	pfd[1].events = POLLIN;
	uint64_t t0 = mono_ns();

	while (!s->done && !interrupted) {
		/* -x switchrate: how often the consumer wakes (1hz) */
		uint64_t rate_ms = s->prog.opt.switchrate / 1000000;
		int timeout = rate_ms < 1 ? 1 : rate_ms > 1000 ? 1000 :
			      (int)rate_ms;

		if ((watch > 0 || child->pid > 0) && child->pidfd < 0 &&
		    timeout > 100)
			timeout = 100;
		int n = poll(pfd, 2, timeout);

		if (n < 0 && errno != EINTR) {
			sd_err("poll: %s", strerror(errno));
			break;
		}
		dt_stacks_poll(s);	/* the target's mmaps, before it exits */
		if (n > 0 && (pfd[0].revents & POLLIN))
			dt_consume(s, 0);
		if (target_gone(child, watch, &wstatus) ||
		    (watch > 0 && n > 0 && (pfd[1].revents & POLLIN))) {
			dt_consume(s, 0);
			/* illumos' dtrace(1) says so; dtrace-utils (and the
			 * test mode) does not */
			if (!s->prog.opt.quiet && !s->testing)
				dt_say("pid %d has exited",
				       (int)(watch > 0 ? watch :
					     (pid_t)s->macros.target));
			break;
		}
	}
	/* -x statusrate: dtrace(1) sees exit() at its next status check,
	 * every statusrate from the start; END runs then (sonde, without
	 * the option, at once) */
	if (s->done && !interrupted && s->prog.opt.statusrate) {
		uint64_t now = mono_ns(), p = s->prog.opt.statusrate;
		uint64_t next = t0 + ((now - t0) / p + 1) * p;

		while (!interrupted && (now = mono_ns()) < next) {
			uint64_t ms = (next - now + 999999) / 1000000;

			poll(NULL, 0, ms > 1000 ? 1000 : (int)ms);
		}
	}
	if (interrupted && !s->testing)
		fputc('\n', s->out);
	dt_detach(s);
	dt_stacks_poll(s);
	dt_consume(s, 0);
	if (dt_fire(s, s->end))
		sd_warn("cannot run END: %s", strerror(errno));
	dt_consume_finish(s);
	dt_print_drops(s);
	return s->status;
}

/* -h and -G: the provider declarations of the -s scripts as a C header
 * or a link object (usdt_gen.c), named after the first script unless -o
 * says; objv: the objects given to -G. dtrace(1)'s words and statuses. */
static int gen_mode(struct dt_session *s, bool header, const struct cmd *cmds,
		    int ncmds, const char *outfile, char **objv, int objc)
{
	struct sbuf text = { 0 };
	const char *first = NULL;
	char out[PATH_MAX], err[512];
	int r;

	for (int i = 0; i < ncmds; i++) {
		char *t;
		size_t len;

		/* -G also links programs given with -n (dtrace(1)) */
		if (cmds[i].kind == 'n' && !header) {
			sbuf_puts(&text, cmds[i].arg);
			sbuf_putc(&text, '\n');
			continue;
		}
		if (cmds[i].kind != 's') {
			dt_say("-%c requires scripts: -%c is not supported "
			       "with it", header ? 'h' : 'G', cmds[i].kind);
			free(text.buf);
			return SD_EXIT_USAGE;
		}
		if (!first)
			first = cmds[i].arg;
		t = sd_read_file(cmds[i].arg, &len);
		if (!t) {
			dt_say("failed to open %s: %s", cmds[i].arg,
			       strerror(errno));
			free(text.buf);
			return SD_EXIT_FAIL;
		}
		if (s->opt.cpp) {
			char *pp = dt_cpp(&s->opt, t, len, &len, err,
					  sizeof(err));

			free(t);
			if (!pp) {
				dt_say("failed to compile script %s: %s",
				       cmds[i].arg, err);
				free(text.buf);
				return SD_EXIT_FAIL;
			}
			t = pp;
		}
		sbuf_put(&text, t, len);
		sbuf_putc(&text, '\n');
		free(t);
	}
	if (outfile) {
		snprintf(out, sizeof(out), "%s", outfile);
	} else if (!first) {
		snprintf(out, sizeof(out), "d.out");
	} else {
		const char *b = strrchr(first, '/');
		size_t n;

		b = b ? b + 1 : first;
		n = strlen(b);
		if (n > 2 && !strcmp(b + n - 2, ".d")) {
			snprintf(out, sizeof(out), "%.*s.%c", (int)(n - 2), b,
				 header ? 'h' : 'o');
		} else if (header) {
			dt_say("-h requires an output file if no scripts are "
			       "specified");
			free(text.buf);
			return SD_EXIT_USAGE;
		} else {
			snprintf(out, sizeof(out), "d.out");
		}
	}
	if (!first)
		first = "-n";
	if (header)
		r = dt_usdt_header(first, text.buf ? text.buf : "", text.len,
				   out, err, sizeof(err));
	else
		r = dt_usdt_link(first, text.buf ? text.buf : "", text.len,
				 out, objv, objc, err, sizeof(err));
	free(text.buf);
	if (r == 1)
		dt_say("failed to compile script %s: %s", first, err);
	else if (r && header)
		dt_say("failed to create header file %s: %s", out, err);
	else if (r)
		dt_say("failed to link script %s: %s", first, err);
	return r ? SD_EXIT_FAIL : 0;
}

static bool is_negative_number(const char *s)
{
	return s[0] == '-' && isdigit((unsigned char)s[1]);
}

int cmd_dtrace(int argc, char **argv)
{
	struct dt_session s;
	struct cmd *cmds = sd_calloc((size_t)argc + 1, sizeof(*cmds));
	char **margs = sd_calloc((size_t)argc + 2, sizeof(char *));
	int ncmds = 0, nmargs = 1, c, status = 0, modes = 0;
	bool list = false, dump = false, compile_only = false, version = false;
	bool header = false, link = false;
	const char *cmdline = NULL, *outfile = NULL, *script0 = NULL;
	struct child child = { .go = -1, .pidfd = -1 };
	struct sd_outfile of = { .fd = -1 };
	pid_t watch = 0;
	char err[256];

	sd_set_prog("sonde dtrace");
	/* The consumer is dtrace to the programs it runs (execname). */
	prctl(PR_SET_NAME, "dtrace", 0, 0, 0);
	sbpf_init(false);
	dt_session_init(&s);
	s.testing = getenv("_DTRACE_TESTING") != NULL;
	margs[0] = argv[0];
	opterr = 0;
	optind = 1;
	for (;;) {
		if (optind < argc && !strcmp(argv[optind], "--")) {
			/* the rest are macro arguments, even "-e" */
			for (optind++; optind < argc; optind++)
				margs[nmargs++] = argv[optind];
			break;
		}
		/* After a program, a negative number is a macro argument,
		 * not an option (before one, "-9" is an unknown option, a
		 * usage error as dtrace(1) says: tst.ExitStatus2). */
		if (ncmds && optind < argc && is_negative_number(argv[optind])) {
			margs[nmargs++] = argv[optind++];
			continue;
		}
		c = getopt_long(argc, argv, optstr, longopts, NULL);
		if (c == -1) {
			if (optind >= argc)
				break;
			margs[nmargs++] = argv[optind++];
			continue;
		}
		switch (c) {
		case 'n': case 's': case 'P': case 'm': case 'f': case 'i':
			cmds[ncmds].kind = (char)c;
			cmds[ncmds++].arg = optarg;
			if (c == 's' && !script0)
				script0 = optarg;
			break;
		case 'l':
			list = true;
			modes++;
			s.opt.zdefs = true;	/* -l implies -Z */
			break;
		case 'q':
			s.opt.quiet = true;
			break;
		case 'c':
			if (cmdline) {
				status = sd_usage_error("only one -c command");
				goto out;
			}
			cmdline = optarg;
			break;
		case 'p': {
			uint64_t v;

			if (sd_parse_u64(optarg, 1, INT32_MAX, &v)) {
				dt_say("invalid pid: %s", optarg);
				status = SD_EXIT_FAIL;
				goto out;
			}
			watch = (pid_t)v;
			break;
		}
		case 'o':
			outfile = optarg;
			break;
		case 'b': case 'x': case 'D': case 'U': case 'I': case 'X':
		case 'L': {
			char *name = sd_strdup(c == 'x' ? optarg : ""),
			     *eq = strchr(name, '=');
			/* the value in argv: string options keep it */
			const char *oname = name,
				   *val = eq ? optarg + (eq - name) + 1 : NULL;

			if (eq)
				*eq = '\0';
			switch (c) {
			case 'b': oname = "bufsize"; val = optarg; break;
			case 'D': oname = "define"; val = optarg; break;
			case 'U': oname = "undef"; val = optarg; break;
			case 'I': oname = "incdir"; val = optarg; break;
			case 'X': oname = "stdc"; val = optarg; break;
			case 'L': oname = "libdir"; val = optarg; break;
			}
			if (dt_set_option(&s.opt, oname, val, err,
					  sizeof(err))) {
				if (c == 'x')
					dt_say("failed to set -x %s: %s", name,
					       err);
				else
					dt_say("failed to set -%c %s: %s", c,
					       optarg, err);
				free(name);
				status = SD_EXIT_FAIL;
				goto out;
			}
			free(name);
			break;
		}
		case 'C':
			s.opt.cpp = true;
			break;
		case 'H':
			s.opt.cpphdrs = true;
			break;
		case 'S':
			dump = true;
			break;
		case 'e':
			compile_only = true;
			break;
		case 'Z':
			s.opt.zdefs = true;
			break;
		case 'w':
			s.opt.destructive = true;
			break;
		case 'v':
			s.verbose = true;
			break;
		case 'V':
			version = true;
			modes++;
			break;
		case 'F':
			s.opt.flowindent = true;
			break;
		case '6':
			if (strcmp(optarg, "4")) {
				status = sd_usage_error("unknown option "
							"'-6%s'", optarg);
				goto out;
			}
			break;
		case '3':
			if (strcmp(optarg, "2")) {
				status = sd_usage_error("unknown option "
							"'-3%s'", optarg);
				goto out;
			}
			status = sd_usage_error("not supported: -32 (BPF "
						"programs are 64-bit)");
			goto out;
		case 'a': case 'A':
			status = sd_usage_error("not supported: -%c (anonymous "
						"tracing is Solaris' boot-time "
						"tracing)", c);
			goto out;
		case 'B':
			status = sd_usage_error("not supported: -B (libdtrace's "
						"buffered-output handler)");
			goto out;
		case 'G':
			link = true;
			modes++;
			break;
		case 'h':
			header = true;
			modes++;
			break;
		case 1:
			fputs(usage_text, stdout);
			goto out;
		default:
			status = sd_getopt_error(c, argv, longopts);
			goto out;
		}
	}
	/* -h alone is sonde's help; with a script, dtrace(1)'s header */
	if (header && !ncmds && modes == 1) {
		fputs(usage_text, stdout);
		goto out;
	}
	if (modes > 1) {
		status = sd_usage_error("only one of the [-GhlV] options can be "
					"specified at a time");
		goto out;
	}
	if (header || link) {
		if (!ncmds) {
			fprintf(stderr, "dtrace: -%c requires one or more "
				"scripts or enabling options\n", header ? 'h' : 'G');
			status = SD_EXIT_USAGE;
			goto out;
		}
		status = gen_mode(&s, header, cmds, ncmds, outfile,
				  margs + 1, nmargs - 1);
		goto out;
	}
	if (version) {
		printf("dtrace: Oracle D 2.0\n");
		if (s.verbose)
			printf("This is sonde %s\n", SONDE_VERSION);
		goto out;
	}
	if (!ncmds && !list) {
		/* dtrace(1): with -e there is nothing to compile, so nothing
		 * fails; other options without a program match no probe */
		if (compile_only) {
			status = 0;
			goto out;
		}
		if (argc > 1) {
			fprintf(stderr, "dtrace: no probes specified\n");
			status = SD_EXIT_FAIL;
			goto out;
		}
		status = sd_usage_error("no program: give -n, -s, -P, -m, -f "
					"or -i");
		goto out;
	}
	if (cmdline && watch) {
		status = sd_usage_error("-c and -p exclude each other");
		goto out;
	}
	if (script0)
		margs[0] = (char *)script0;
	s.macros.argv = margs;
	s.macros.argc = nmargs;
	if (watch) {
		if (kill(watch, 0) && errno == ESRCH) {
			/* dtrace(1)'s words (dfatal of the grab's error) */
			dt_say("No such process");
			status = SD_EXIT_FAIL;
			goto out;
		}
		s.macros.target = watch;
		child.pidfd = (int)syscall(SYS_pidfd_open, watch, 0);
		if (!compile_only)
			dt_stacks_follow(&s, watch);
	}
	for (int i = 0; i < ncmds; i++) {
		char *text;
		size_t len;

		if (cmds[i].kind == 's') {
			text = sd_read_file(cmds[i].arg, &len);
			if (!text) {
				dt_say("failed to open %s: %s", cmds[i].arg,
				       strerror(errno));
				status = SD_EXIT_FAIL;
				goto out;
			}
			if (s.opt.cpp) {
				char *pp = dt_cpp(&s.opt, text, len, &len, err,
						  sizeof(err));

				free(text);
				if (!pp) {
					dt_say("failed to compile script %s: %s",
					       cmds[i].arg, err);
					status = SD_EXIT_FAIL;
					goto out;
				}
				text = pp;
			}
			dt_session_add(&s, cmds[i].arg, text, len, 's');
			free(text);
		} else {
			char name[3] = { '-', cmds[i].kind, 0 };

			dt_session_add(&s, name, cmds[i].arg,
				       strlen(cmds[i].arg), cmds[i].kind);
		}
	}
	/* -l starts it too (stopped before its exec, killed after the
	 * listing): pid$target lists the probes of its program. */
	if (cmdline && !compile_only) {
		int r = start_child(&s, cmdline, &child);

		if (r == -EINVAL) {
			dt_say("failed to execute %s: unterminated quote",
			       cmdline);
			status = SD_EXIT_FAIL;
			goto out;
		} else if (r) {
			char *w = sd_strdup(cmdline);

			w[strcspn(w, " \t\n")] = '\0';
			dt_say("failed to execute %s: %s", w, strerror(-r));
			free(w);
			status = SD_EXIT_FAIL;
			goto out;
		}
		s.macros.target = child.pid;
		dt_stacks_follow(&s, child.pid);	/* from before its exec */
	} else if (cmdline) {
		/* -e: not run; its pid is 0 */
		char *w = sd_strdup(cmdline);

		w[strcspn(w, " \t\n")] = '\0';
		s.macros.target = 0;
		note_command(&s, w, 0);
		free(w);
	}
	if (list) {
		char *msg = NULL;

		if (outfile) {
			int r = sd_outfile_open(&of, outfile, 0644,
						SD_OUT_APPEND);

			if (r) {
				dt_say("failed to open output file '%s': %s",
				       outfile, strerror(-r));
				status = SD_EXIT_FAIL;
				goto out;
			}
			s.out = sd_outfile_stream(&of);
		}
		status = dt_list(&s, s.out, &msg);
		if (status && !msg)
			compile_error(&s);
		if (msg)
			print_msg(msg);
		free(msg);
		kill_child(&child);
		goto out;
	}
	status = dt_compile(&s);
	if (status) {
		compile_error(&s);
		kill_child(&child);
		goto out;
	}
	/* -x empty and nothing to trace: dtrace(1)'s words */
	if (!s.prog.nclauses) {
		for (int i = 0; i < ncmds && !s.prog.opt.quiet; i++)
			dt_say("%s '%s' matched 0 probes",
			       cmds[i].kind == 's' ? "script" : "description",
			       cmds[i].arg);
		dt_say("no probes matched");
		status = SD_EXIT_FAIL;
		kill_child(&child);
		goto out;
	}
	if (dump)
		dt_dump(&s, stderr);
	if (compile_only) {
		kill_child(&child);
		goto out;
	}
	status = run(&s, &child, watch, cmds, ncmds, outfile, &of);
	kill_child(&child);
	dt_unload(&s);
out:
	if (s.out && s.out != stdout) {
		fflush(s.out);
		if (sd_outfile_close(&of))
			dt_say("failed to write to %s: %s", outfile,
			       strerror(-of.err));
		sd_outfile_free(&of);
		s.out = stdout;
	}
	if (child.pidfd >= 0)
		close(child.pidfd);
	dt_stacks_free(&s);
	dt_session_free(&s);
	free(cmds);
	free(margs);
	return status;
}
