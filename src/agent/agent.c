// SPDX-License-Identifier: GPL-2.0-only
/* agent — `sonde agent`: the command line, start-up (every script
 * compiled, named and attached before the server answers; any failure
 * stops the agent with the compiler's message), the main loop that drains
 * the scripts' ring buffers (printf() output, trunc(), clear(), exit())
 * and takes signals from a signalfd — SIGTERM and SIGINT detach everything
 * and exit 0, SIGHUP reloads the scripts (all compiled and attached first,
 * swapped only when all succeed) — and shutdown. The HTTP server runs in
 * libmicrohttpd's threads; the lock in struct agent serialises every call
 * into the D sessions between them and this loop. */
#include "agent.h"
#include "../commands.h"
#include "../lib/bpf.h"
#include "../lib/cli.h"
#include "../dtrace/btf.h"
#include "../dtrace/snapshot.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

static const char usage_text[] =
"usage: sonde agent [-l ADDR:PORT] [-s SCRIPT.d]... [-F HZ] [-c N] [-v]\n"
"                   [--tls-cert FILE --tls-key FILE] [--basic-auth FILE]\n"
"\n"
"Serve D aggregations as Prometheus metrics and CPU profiles as pprof over\n"
"HTTP, in the foreground, until SIGTERM or SIGINT. SIGHUP reloads the\n"
"scripts.\n"
"\n"
"  -l, --listen ADDR:PORT     where to listen (default 127.0.0.1:9435);\n"
"                             [::1]:PORT for IPv6, :PORT for every address\n"
"  -s, --script FILE.d|DIR    a D script whose aggregations become metrics,\n"
"                             or every *.d of DIR (repeatable); #pragma\n"
"                             sonde metric names them\n"
"  -F, --profile-hz HZ        samples per second and CPU of\n"
"                             /debug/pprof/profile (default 99)\n"
"  -c, --max-connections N    connections served at once (default 8)\n"
"      --tls-cert FILE        serve HTTPS with this PEM certificate\n"
"      --tls-key FILE         and this PEM private key\n"
"      --basic-auth FILE      require a user of FILE's user:HASH lines\n"
"                             (crypt(3) hashes: openssl passwd -6)\n"
"  -v, --verbose              log HTTP errors and refused connections\n"
"  -h, --help                 this help\n"
"\n"
"GET /metrics: one metric family per aggregation (count() and sum()\n"
"counters, min/max/avg/stddev gauges, quantize histograms), keys as\n"
"labels. GET /debug/pprof/profile?seconds=N: a CPU profile of every CPU,\n"
"for go tool pprof. Needs root, or CAP_BPF, CAP_PERFMON and\n"
"CAP_SYS_RESOURCE. See man sonde-agent.\n";

enum { OPT_TLS_CERT = 0x100, OPT_TLS_KEY, OPT_BASIC_AUTH };

static const struct option long_opts[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "script", required_argument, NULL, 's' },
	{ "profile-hz", required_argument, NULL, 'F' },
	{ "max-connections", required_argument, NULL, 'c' },
	{ "tls-cert", required_argument, NULL, OPT_TLS_CERT },
	{ "tls-key", required_argument, NULL, OPT_TLS_KEY },
	{ "basic-auth", required_argument, NULL, OPT_BASIC_AUTH },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void print_msg(const char *path, const char *msg)
{
	size_t n = strlen(msg);

	/* the compiler's messages name the file already */
	if (strncmp(msg, path, strlen(path)))
		fprintf(stderr, "%s: ", sd_prog());
	fputs(msg, stderr);
	if (n && msg[n - 1] != '\n')
		fputc('\n', stderr);
}

static void free_scripts(struct ag_script **v, int n)
{
	for (int i = 0; i < n; i++)
		ag_script_free(v[i]);
	free(v);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The script files of --script arguments: a file as given, a directory's
 * *.d files in name order (read again at each reload). NULL after saying
 * why. */
static char **script_files(struct agent *a, int *n)
{
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	for (int i = 0; i < a->npaths; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;
		int first = *n;

		if (stat(a->paths[i], &st) || !S_ISDIR(st.st_mode)) {
			sd_grow(&v, &cap, (size_t)*n + 1, sizeof(*v));
			v[(*n)++] = sd_strdup(a->paths[i]);
			continue;
		}
		if (!(d = opendir(a->paths[i]))) {
			sd_err("cannot read %s: %s", a->paths[i],
			       strerror(errno));
			goto fail;
		}
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);

			if (l < 3 || de->d_name[0] == '.' ||
			    strcmp(de->d_name + l - 2, ".d"))
				continue;
			sd_grow(&v, &cap, (size_t)*n + 1, sizeof(*v));
			v[*n] = sd_malloc(strlen(a->paths[i]) + l + 2);
			sprintf(v[(*n)++], "%s%s%s", a->paths[i],
				a->paths[i][strlen(a->paths[i]) - 1] == '/' ?
				"" : "/", de->d_name);
		}
		closedir(d);
		qsort(v + first, (size_t)(*n - first), sizeof(*v), by_name);
	}
	return v ? v : sd_calloc(1, sizeof(*v));
fail:
	for (int i = 0; i < *n; i++)
		free(v[i]);
	free(v);
	return NULL;
}

/* Compile, name and start every script. The scripts (*n of them), or NULL
 * after printing why. Called with a->lock held (the compiler's probe
 * tables are shared with the scrapes). */
static struct ag_script **start_scripts(struct agent *a, int *n)
{
	char err[512], *msg = NULL, **files = script_files(a, n);
	struct ag_script **v = NULL;
	int i;

	if (!files)
		return NULL;
	v = sd_calloc((size_t)*n + 1, sizeof(*v));
	for (i = 0; i < *n; i++) {
		v[i] = ag_script_compile(files[i], &msg);
		if (!v[i]) {
			print_msg(files[i], msg);
			free(msg);
			goto fail;
		}
	}
	if (ag_scripts_check_names(v, *n, err, sizeof(err))) {
		sd_err("%s", err);
		goto fail;
	}
	for (int j = 0; j < *n; j++)
		if (ag_script_start(v[j], &msg)) {
			print_msg(files[j], msg);
			free(msg);
			goto fail;
		}
	for (int j = 0; j < *n; j++)
		free(files[j]);
	free(files);
	/* The compiler's copy of the kernel's types is not needed while the
	 * scripts run (a reload reads it again). */
	dt_btf_release();
	return v;
fail:
	dt_btf_release();
	free_scripts(v, i);
	for (int j = 0; j < *n; j++)
		free(files[j]);
	free(files);
	return NULL;
}

static void reload(struct agent *a)
{
	struct ag_script **v, **old;
	int nold, n;

	pthread_mutex_lock(&a->lock);
	v = start_scripts(a, &n);
	if (!v) {
		a->reloads_failed++;
		a->last_reload_ok = false;
		pthread_mutex_unlock(&a->lock);
		sd_warn("reload failed: the %d script%s loaded before keep "
			"running", a->nscripts, a->nscripts == 1 ? "" : "s");
		return;
	}
	old = a->scripts;
	nold = a->nscripts;
	a->scripts = v;
	a->nscripts = n;
	a->reloads_ok++;
	a->last_reload_ok = true;
	free_scripts(old, nold);
	pthread_mutex_unlock(&a->lock);
	fprintf(stderr, "sonde agent: reloaded %d script%s\n", a->nscripts,
		a->nscripts == 1 ? "" : "s");
}

/* Until SIGTERM or SIGINT. */
static void loop(struct agent *a, int sigfd)
{
	struct pollfd *pfd = NULL;
	size_t cap = 0;

	for (;;) {
		struct signalfd_siginfo si;
		int n = 1;

		pthread_mutex_lock(&a->lock);
		sd_grow(&pfd, &cap, (size_t)a->nscripts + 1, sizeof(*pfd));
		pfd[0] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		for (int i = 0; i < a->nscripts; i++) {
			struct ag_script *sc = a->scripts[i];

			if (sc->loaded && sc->s.rb && !sc->exited)
				pfd[n++] = (struct pollfd){
					.fd = ring_buffer__epoll_fd(sc->s.rb),
					.events = POLLIN };
		}
		pthread_mutex_unlock(&a->lock);
		if (poll(pfd, (nfds_t)n, 1000) < 0 && errno != EINTR) {
			sd_err("poll: %s", strerror(errno));
			break;
		}
		if ((pfd[0].revents & POLLIN) &&
		    read(sigfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGHUP) {
				reload(a);
				continue;
			}
			fprintf(stderr, "sonde agent: %s: stopping\n",
				strsignal((int)si.ssi_signo));
			break;
		}
		/* what the programs wrote, and whether one called exit() */
		pthread_mutex_lock(&a->lock);
		for (int i = 0; i < a->nscripts; i++)
			ag_script_consume(a->scripts[i]);
		pthread_mutex_unlock(&a->lock);
	}
	free(pfd);
}

static int parse_args(int argc, char **argv, struct agent *a,
		      struct ag_http_opts *h)
{
	uint64_t v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":l:s:F:c:vh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'l':
			h->listen = optarg;
			break;
		case 's':
			a->paths = sd_realloc(a->paths, sizeof(*a->paths) *
					      ((size_t)a->npaths + 1));
			a->paths[a->npaths++] = optarg;
			break;
		case 'F':
			if (sd_parse_u64(optarg, 1, 10000, &v))
				return sd_usage_error("bad profile frequency "
						      "'%s' (1 to 10000 Hz)",
						      optarg);
			a->profile_hz = v;
			break;
		case 'c':
			if (sd_parse_u64(optarg, 1, 1024, &v))
				return sd_usage_error("bad connection count "
						      "'%s' (1 to 1024)",
						      optarg);
			h->max_conns = (unsigned)v;
			break;
		case OPT_TLS_CERT:
			h->tls_cert = optarg;
			break;
		case OPT_TLS_KEY:
			h->tls_key = optarg;
			break;
		case OPT_BASIC_AUTH:
			h->basic_auth = optarg;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return sd_getopt_error(c, argv, long_opts);
		}
	}
	if (optind < argc)
		return sd_usage_error("unexpected argument '%s' (scripts are "
				      "given with -s)", argv[optind]);
	if (!h->tls_cert != !h->tls_key)
		return sd_usage_error("--tls-cert and --tls-key go together");
	if (ag_listen_is_loopback(h->listen) < 0)
		return sd_usage_error("bad listen address '%s' (ADDR:PORT, "
				      "[IPV6]:PORT or :PORT)", h->listen);
	return -1;
}

int cmd_agent(int argc, char **argv)
{
	struct agent a = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.profile_hz = 99,
		.last_reload_ok = true,
	};
	struct ag_http_opts h = { .listen = "127.0.0.1:9435", .max_conns = 8 };
	sigset_t set;
	int ret, sigfd, attached = 0;

	sd_set_prog("sonde agent");
	ret = parse_args(argc, argv, &a, &h);
	if (ret >= 0) {
		free(a.paths);
		return ret;
	}
	a.start_unix = time(NULL);
	sbpf_init(a.verbose);
	/* every thread started from here on inherits the mask: signals
	 * reach the loop's signalfd only */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sigfd < 0) {
		sd_err("signalfd: %s", strerror(errno));
		free(a.paths);
		return SD_EXIT_FAIL;
	}

	pthread_mutex_lock(&a.lock);
	a.scripts = start_scripts(&a, &a.nscripts);
	pthread_mutex_unlock(&a.lock);
	if (!a.scripts) {
		close(sigfd);
		free(a.paths);
		return SD_EXIT_FAIL;
	}
	ret = ag_http_start(&a, &h);
	if (!ret) {
		for (int i = 0; i < a.nscripts; i++)
			attached += dt_attached(&a.scripts[i]->s);
		fprintf(stderr, "sonde agent: %d script%s, %d program%s "
			"attached\n", a.nscripts, a.nscripts == 1 ? "" : "s",
			attached, attached == 1 ? "" : "s");
		loop(&a, sigfd);
	}
	a.stopping = true;
	ag_http_stop(&a);
	pthread_mutex_lock(&a.lock);
	free_scripts(a.scripts, a.nscripts);
	a.scripts = NULL;
	a.nscripts = 0;
	pthread_mutex_unlock(&a.lock);
	close(sigfd);
	free(a.paths);
	return ret;
}
