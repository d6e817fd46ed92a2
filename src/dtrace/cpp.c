// SPDX-License-Identifier: GPL-2.0-only
/* cpp — -C: a script through the system's C preprocessor, as dtrace(1)
 * runs it (dtrace-utils' dt_preproc): the program on cpp's standard input
 * (so its line markers name /dev/stdin, which the lexer takes as the
 * script itself and any other name as an #include'd file), with DTrace's
 * predefined macros, the -D/-U/-I options in order, -H and -X. Only run
 * when -C is given: nothing here costs a script that does not ask. */
#include "dtrace.h"
#include "../lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ISA_DEFINE "-D__amd64"
#elif defined(__aarch64__)
#define ISA_DEFINE "-D__aarch64__"
#else
#define ISA_DEFINE "-D__unknown_isa"
#endif

static void add(char ***argv, int *argc, const char *s)
{
	*argv = sd_realloc(*argv, sizeof(**argv) * (*argc + 2));
	(*argv)[(*argc)++] = sd_strdup(s);
	(*argv)[*argc] = NULL;
}

/* Write all of in to fd while reading fd2 into out, so neither pipe can
 * fill up and block cpp. */
static int pump(int in_fd, const char *in, size_t len, int out_fd,
		struct sbuf *out)
{
	size_t done = 0;

	if (!len) {
		close(in_fd);
		in_fd = -1;
	}
	for (;;) {
		struct pollfd p[2] = { { out_fd, POLLIN, 0 },
				       { in_fd, POLLOUT, 0 } };
		int n = poll(p, in_fd >= 0 ? 2 : 1, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (in_fd >= 0 && (p[1].revents & (POLLOUT | POLLERR))) {
			ssize_t w = write(in_fd, in + done, len - done);

			if (w < 0 && errno != EINTR && errno != EAGAIN) {
				close(in_fd);	/* cpp stopped reading */
				in_fd = -1;
			} else if (w > 0) {
				done += (size_t)w;
			}
			if (in_fd >= 0 && done == len) {
				close(in_fd);
				in_fd = -1;
			}
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char buf[65536];
			ssize_t r = read(out_fd, buf, sizeof(buf));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			sbuf_put(out, buf, (size_t)r);
		}
	}
	if (in_fd >= 0)
		close(in_fd);
	return 0;
}

char *dt_cpp(const struct dt_options *o, const char *text, size_t len,
	     size_t *outlen, char *err, size_t errlen)
{
	const char *path = o->cpppath ? o->cpppath : "cpp";
	char **argv = NULL, buf[128];
	int argc = 0, in[2] = { -1, -1 }, out[2] = { -1, -1 }, status;
	struct sbuf sb;
	struct utsname u;
	pid_t pid;
	const char *slash = strrchr(path, '/');

	add(&argv, &argc, slash ? slash + 1 : path);
	/* dtrace-utils' arguments first, in its order (-x cpppath's program
	 * sees them as it would there) */
	add(&argv, &argc, "-D__linux");
	add(&argv, &argc, "-D__unix");
	add(&argv, &argc, "-D__SVR4");
	add(&argv, &argc, "-D__SUNW_D=1");
	add(&argv, &argc, "-U__GNUC__");
	snprintf(buf, sizeof(buf), "-D__SUNW_D_%u",
		 (unsigned)(sizeof(void *) * 8));
	add(&argv, &argc, buf);
	if (uname(&u) == 0) {
		snprintf(buf, sizeof(buf), "-D__%s", u.sysname);
		add(&argv, &argc, buf);
	}
	add(&argv, &argc, ISA_DEFINE);
	if (o->cpphdrs)
		add(&argv, &argc, "-H");
	for (int i = 0; i < o->ncppopts; i++)
		add(&argv, &argc, o->cppopts[i]);
	if (o->cppargs) {
		char *words = sd_strdup(o->cppargs), *save = NULL;

		for (char *w = strtok_r(words, " \t", &save); w;
		     w = strtok_r(NULL, " \t", &save))
			add(&argv, &argc, w);
		free(words);
	}
	snprintf(buf, sizeof(buf), "-D__SUNW_D_VERSION=0x%08x",
		 (unsigned)o->version);
	add(&argv, &argc, buf);
	/* dtrace-utils' dt_stdcmode: -X s is traditional cpp; a, c, t and
	 * the default are ISO C (no glibc extensions: <endian.h> brings no
	 * static inline byte swaps into D) */
	if (o->stdc && o->stdc[0] == 's')
		add(&argv, &argc, "-traditional-cpp");
	else
		add(&argv, &argc, "-std=c99");
	add(&argv, &argc, "-fno-show-column");	/* "file:17: error" */
	add(&argv, &argc, "/dev/stdin");

	/* an interpreter line is left out, its newline kept: the lines
	 * cpp numbers are the script's */
	if (len >= 2 && text[0] == '#' && text[1] == '!') {
		const char *nl = memchr(text, '\n', len);
		size_t skip = nl ? (size_t)(nl - text) : len;

		text += skip;
		len -= skip;
	}
	sbuf_init(&sb);
	char *result = NULL;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		snprintf(err, errlen, "Failed to fork preprocessor");
		goto done;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "Failed to fork preprocessor");
		goto done;
	}
	if (!pid) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		execvp(path, argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	/* cpp may exit before reading everything: no SIGPIPE for that */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	sigaction(SIGPIPE, &ign, &old);
	pump(in[1], text, len, out[0], &sb);
	sigaction(SIGPIPE, &old, NULL);
	in[1] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		int st = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

		snprintf(err, errlen, "%s", st == 127 ? "Preprocessor not found" :
			 st == 126 ? "Failed to exec preprocessor" :
			 "Preprocessor failed to process input program");
		goto done;
	}
	*outlen = sb.len;
	result = sbuf_steal(&sb);
	if (!result)
		result = sd_strdup("");
done:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	if (!result)
		sbuf_free(&sb);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return result;
}
