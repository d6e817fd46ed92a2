// SPDX-License-Identifier: GPL-2.0-only
/* http — sonde agent's HTTP server, libmicrohttpd doing the protocol: a
 * thread per connection, at most a few connections (more are closed at
 * once), a small memory pool per connection that bounds the request line
 * and headers (larger ones get 431 or 414 from the library), idle
 * connections closed after a timeout, GET and HEAD only, no request body.
 * Optional TLS (libmicrohttpd's GnuTLS) and basic authentication against
 * crypt(3) hashes, both from files. Routes: /metrics, /debug/pprof/profile,
 * and / (an index).
 *
 * libmicrohttpd is opened with dlopen() when the agent starts, not linked:
 * it pulls in GnuTLS and ten more libraries whose constructors cost every
 * sonde command about 2 ms of CPU at start-up (measured: an empty program
 * linked with -lmicrohttpd takes 4.5x the CPU of one without), which the
 * other commands' start-up budgets (dtrace BEGIN{exit(0)} in 10 ms) cannot
 * pay. Its header still gives every type and constant. */
#include "agent.h"
#include "config.h"
#include "../lib/cli.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The longest profile a request may ask for. */
#define MAX_PROFILE_SECONDS 300

struct ag_user {
	char *name, *hash;
};

struct ag_http {
	struct MHD_Daemon *d;
	int fd;
	char *cert, *key;
	struct ag_user *users;
	size_t nusers;
	struct agent *a;
};

/* ---- libmicrohttpd, opened when the server starts ---- */

static struct {
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_basic_auth_get_username_password) basic_auth_get_username_password;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_free) free;
	__typeof__(&MHD_is_feature_supported) is_feature_supported;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
	__typeof__(&MHD_queue_basic_auth_fail_response) queue_basic_auth_fail_response;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
} mhd;

/* The sonames tried, the installed package's first. */
static const char *const mhd_sonames[] = {
	"libmicrohttpd.so.12", "libmicrohttpd.so",
};

/* 0, or -1 with a one-line reason said. */
static int mhd_load(void)
{
	static void *lib;
	const char *why = NULL;

	if (lib)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(mhd_sonames) && !lib; i++)
		lib = dlopen(mhd_sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		sd_err("cannot load %s (install libmicrohttpd12): %s",
		       mhd_sonames[0], dlerror());
		return -1;
	}
#define MHD_SYM(name) \
	if (!why && !(*(void **)&mhd.name = dlsym(lib, "MHD_" #name))) \
		why = "MHD_" #name;
	MHD_SYM(add_response_header)
	MHD_SYM(basic_auth_get_username_password)
	MHD_SYM(create_response_from_buffer)
	MHD_SYM(destroy_response)
	MHD_SYM(free)
	MHD_SYM(is_feature_supported)
	MHD_SYM(lookup_connection_value)
	MHD_SYM(queue_basic_auth_fail_response)
	MHD_SYM(queue_response)
	MHD_SYM(start_daemon)
	MHD_SYM(stop_daemon)
#undef MHD_SYM
	if (why) {
		sd_err("%s has no %s: too old a libmicrohttpd", mhd_sonames[0],
		       why);
		dlclose(lib);
		lib = NULL;
		return -1;
	}
	return 0;
}

/* ---- the listening address ---- */

/* ADDR:PORT, [V6]:PORT or :PORT (every IPv4 address) into host and port
 * (malloc'd host). 0 or -1. */
static int split_addr(const char *s, char **host, char **port)
{
	const char *colon;

	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':' || !end[2])
			return -1;
		*host = sd_strndup(s + 1, (size_t)(end - s - 1));
		*port = sd_strdup(end + 2);
		return 0;
	}
	colon = strrchr(s, ':');
	if (!colon || !colon[1] || strchr(s, ':') != colon)
		return -1;
	*host = colon == s ? sd_strdup("0.0.0.0") :
		sd_strndup(s, (size_t)(colon - s));
	*port = sd_strdup(colon + 1);
	return 0;
}

static int resolve(const char *s, struct addrinfo **res)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	char *host, *port;
	uint64_t p;
	int err;

	if (split_addr(s, &host, &port))
		return EAI_NONAME;
	if (sd_parse_u64(port, 0, 65535, &p)) {
		free(host);
		free(port);
		return EAI_SERVICE;
	}
	err = getaddrinfo(host, port, &hints, res);
	free(host);
	free(port);
	return err;
}

static bool sa_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr)
			>> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a =
			&((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(a))
			return true;
		return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
	}
	return false;
}

int ag_listen_is_loopback(const char *addr)
{
	struct addrinfo *res;
	bool all = true;

	if (resolve(addr, &res))
		return -1;
	for (struct addrinfo *r = res; r; r = r->ai_next)
		all &= sa_loopback(r->ai_addr);
	freeaddrinfo(res);
	return all;
}

static void addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		snprintf(buf, len, "%s:%u", host, port);
	} else {
		const struct sockaddr_in6 *in = (const void *)sa;

		inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof(host));
		port = ntohs(in->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
	}
}

/* The bound listening socket, or -1 after saying why. */
static int listen_on(const char *s, char *bound, size_t blen)
{
	struct addrinfo *res;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int err = resolve(s, &res), fd = -1, one = 1;

	if (err) {
		sd_usage_error("bad listen address '%s' (ADDR:PORT, "
			       "[IPV6]:PORT or :PORT)%s%s", s,
			       err == EAI_SERVICE ? "" : ": ",
			       err == EAI_SERVICE ? "" : gai_strerror(err));
		return -2;
	}
	for (struct addrinfo *r = res; r; r = r->ai_next) {
		fd = socket(r->ai_family, r->ai_socktype | SOCK_CLOEXEC,
			    r->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, r->ai_addr, r->ai_addrlen) && !listen(fd, 16))
			break;
		err = errno;
		close(fd);
		fd = -1;
		errno = err;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		sd_err("cannot listen on %s: %s", s, strerror(errno));
		return -1;
	}
	if (!getsockname(fd, (struct sockaddr *)&ss, &sl))
		addr_text((struct sockaddr *)&ss, bound, blen);
	return fd;
}

/* ---- basic authentication ---- */

static int read_users(struct ag_http *h, const char *path)
{
	char *text = sd_read_file(path, NULL), *save = NULL;
	size_t cap = 0;
	int line = 0;

	if (!text) {
		sd_err("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *colon;

		line++;
		l[strcspn(l, "\r")] = '\0';
		if (!*l || *l == '#')
			continue;
		colon = strchr(l, ':');
		if (!colon || colon == l || colon[1] != '$') {
			sd_err("%s:%d: expected user:HASH with a crypt(3) "
			       "hash (openssl passwd -6, mkpasswd, htpasswd "
			       "-B)", path, line);
			free(text);
			return -1;
		}
		sd_grow(&h->users, &cap, h->nusers + 1, sizeof(*h->users));
		h->users[h->nusers].name = sd_strndup(l, (size_t)(colon - l));
		h->users[h->nusers++].hash = sd_strdup(colon + 1);
	}
	free(text);
	if (!h->nusers) {
		sd_err("%s: no user:HASH line", path);
		return -1;
	}
	return 0;
}

static bool same(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	unsigned char d = n != m;

	for (size_t i = 0; i < n && i < m; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return !d;
}

static bool allowed(struct ag_http *h, struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	bool ok = false;

	if (!h->nusers)
		return true;
	user = mhd.basic_auth_get_username_password(c, &pass);
	if (user && pass) {
		struct crypt_data *cd = sd_calloc(1, sizeof(*cd));

		for (size_t i = 0; i < h->nusers && !ok; i++) {
			const char *out;

			if (strcmp(user, h->users[i].name))
				continue;
			/* crypt_rn: NULL on failure, never a "*0" string */
			out = crypt_rn(pass, h->users[i].hash, cd, sizeof(*cd));
			ok = out && same(out, h->users[i].hash);
		}
		free(cd);
	}
	if (user)
		mhd.free(user);
	if (pass)
		mhd.free(pass);
	return ok;
}

/* ---- responses ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
			     const char *type, void *body, size_t len,
			     const char *const *headers)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	for (int i = 0; headers && headers[i]; i += 2)
		mhd.add_response_header(r, headers[i], headers[i + 1]);
	ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status,
			    const char *const *headers, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static enum MHD_Result text(struct MHD_Connection *c, unsigned status,
			    const char *const *headers, const char *fmt, ...)
{
	struct sbuf sb;
	va_list ap;
	size_t len;

	sbuf_init(&sb);
	va_start(ap, fmt);
	sbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	sbuf_putc(&sb, '\n');
	len = sb.len;
	return reply(c, status, "text/plain; charset=utf-8", sbuf_steal(&sb),
		     len, headers);
}

static enum MHD_Result metrics(struct ag_http *h, struct MHD_Connection *c)
{
	const char *accept = mhd.lookup_connection_value(c, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	bool om = ag_expo_wants_om(accept);
	size_t len;
	char *body = ag_scrape(h->a, om, &len);

	return reply(c, MHD_HTTP_OK, ag_expo_content_type(om), body, len,
		     NULL);
}

/* Go's net/http/pprof: seconds (default 30), the profile as an attachment
 * named "profile", errors as text with X-Go-Pprof: 1. */
static enum MHD_Result profile(struct ag_http *h, struct MHD_Connection *c)
{
	static const char *const err_headers[] = {
		"X-Go-Pprof", "1", "X-Content-Type-Options", "nosniff", NULL,
	};
	static const char *const ok_headers[] = {
		"Content-Disposition", "attachment; filename=\"profile\"",
		"X-Content-Type-Options", "nosniff", NULL,
	};
	const char *arg = mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						      "seconds");
	uint64_t secs = 30, left = 0;
	uint8_t *out = NULL;
	size_t len = 0;
	char err[256];
	int ret;

	if (arg && sd_parse_u64(arg, 1, UINT64_MAX, &secs))
		return text(c, MHD_HTTP_BAD_REQUEST, err_headers,
			    "bad seconds '%s': a whole number of seconds, "
			    "1 to %d", arg, MAX_PROFILE_SECONDS);
	if (secs > MAX_PROFILE_SECONDS)
		return text(c, MHD_HTTP_BAD_REQUEST, err_headers,
			    "seconds=%" PRIu64 " is longer than this agent "
			    "profiles for (at most %d)", secs,
			    MAX_PROFILE_SECONDS);
	ret = ag_profile_take(h->a, secs, &out, &len, &left, err,
			      sizeof(err));
	if (ret == -EBUSY) {
		char retry[32];
		const char *hdrs[] = { "Retry-After", retry, "X-Go-Pprof", "1",
				       NULL };

		snprintf(retry, sizeof(retry), "%" PRIu64, left ? left : 1);
		return text(c, MHD_HTTP_TOO_MANY_REQUESTS, hdrs,
			    "a profile is being taken (%" PRIu64 " s left); "
			    "one at a time: retry after it", left);
	}
	if (ret)
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, err_headers,
			    "Could not enable CPU profiling: %s", err);
	return reply(c, MHD_HTTP_OK, "application/octet-stream", out, len,
		     ok_headers);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	static int seen;
	struct ag_http *h = cls;
	const char *cl;

	(void)version;
	(void)upload;
	if (!*state) {
		/* headers only: refuse what is not a plain GET at once */
		*state = &seen;
		if (strcmp(method, MHD_HTTP_METHOD_GET) &&
		    strcmp(method, MHD_HTTP_METHOD_HEAD)) {
			static const char *const allow[] = {
				"Allow", "GET, HEAD", NULL,
			};
			return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, allow,
				    "method %.32s not allowed: GET only",
				    method);
		}
		cl = mhd.lookup_connection_value(c, MHD_HEADER_KIND,
						 MHD_HTTP_HEADER_CONTENT_LENGTH);
		if ((cl && strcmp(cl, "0")) ||
		    mhd.lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_TRANSFER_ENCODING))
			return text(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL,
				    "a GET request takes no body");
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* not announced: dropped */
		return MHD_YES;
	}
	if (!allowed(h, c)) {
		char *body = sd_strdup("401 authorization required\n");
		struct MHD_Response *r = mhd.create_response_from_buffer(
			strlen(body), body, MHD_RESPMEM_MUST_FREE);
		enum MHD_Result ret;

		if (!r)
			return MHD_NO;
		mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; charset=utf-8");
		ret = mhd.queue_basic_auth_fail_response(c, "sonde agent", r);
		mhd.destroy_response(r);
		return ret;
	}
	if (!strcmp(url, "/metrics"))
		return metrics(h, c);
	if (!strcmp(url, "/debug/pprof/profile"))
		return profile(h, c);
	if (!strcmp(url, "/"))
		return text(c, MHD_HTTP_OK, NULL,
			    "sonde agent %s\n\n"
			    "/metrics                         the scripts' "
			    "aggregations (Prometheus, OpenMetrics)\n"
			    "/debug/pprof/profile?seconds=N   a CPU profile "
			    "of every CPU (pprof)", SONDE_VERSION);
	return text(c, MHD_HTTP_NOT_FOUND, NULL, "404 page not found");
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct ag_http *h = cls;
	char line[512];
	size_t n;

	if (!h->a->verbose)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	sd_warn("http: %s", line);
}

static void http_free(struct ag_http *h)
{
	if (h->fd >= 0)
		close(h->fd);
	free(h->cert);
	free(h->key);
	for (size_t i = 0; i < h->nusers; i++) {
		free(h->users[i].name);
		free(h->users[i].hash);
	}
	free(h->users);
	free(h);
}

int ag_http_start(struct agent *a, const struct ag_http_opts *o)
{
	struct ag_http *h = sd_calloc(1, sizeof(*h));
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
			 MHD_USE_ERROR_LOG;
	char bound[80] = "?";
	int loop;

	h->a = a;
	h->fd = -1;
	if (!o->tls_cert != !o->tls_key) {
		http_free(h);
		return sd_usage_error("--tls-cert and --tls-key go together");
	}
	if (mhd_load()) {
		http_free(h);
		return SD_EXIT_FAIL;
	}
	if (o->tls_cert) {
		if (!mhd.is_feature_supported(MHD_FEATURE_TLS)) {
			sd_err("this libmicrohttpd has no TLS support");
			http_free(h);
			return SD_EXIT_FAIL;
		}
		h->cert = sd_read_file(o->tls_cert, NULL);
		if (!h->cert)
			sd_err("cannot read %s: %s", o->tls_cert,
			       strerror(errno));
		h->key = h->cert ? sd_read_file(o->tls_key, NULL) : NULL;
		if (h->cert && !h->key)
			sd_err("cannot read %s: %s", o->tls_key,
			       strerror(errno));
		if (!h->key) {
			http_free(h);
			return SD_EXIT_FAIL;
		}
		flags |= MHD_USE_TLS;
	}
	if (o->basic_auth && read_users(h, o->basic_auth)) {
		http_free(h);
		return SD_EXIT_FAIL;
	}
	h->fd = listen_on(o->listen, bound, sizeof(bound));
	if (h->fd < 0) {
		int ret = h->fd == -2 ? SD_EXIT_USAGE : SD_EXIT_FAIL;

		h->fd = -1;
		http_free(h);
		return ret;
	}
	h->d = mhd.start_daemon(flags, 0, NULL, NULL, answer, h,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
		MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_CONNECTION_LIMIT, o->max_conns,
		MHD_OPTION_CONNECTION_TIMEOUT, 10u,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
		MHD_OPTION_THREAD_STACK_SIZE, (size_t)(1 << 20),
		h->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, h->cert,
		MHD_OPTION_HTTPS_MEM_KEY, h->key,
		MHD_OPTION_END);
	if (!h->d) {
		sd_err("cannot start the HTTP server on %s%s", bound,
		       h->cert ? " (is the TLS key or certificate bad?)" : "");
		http_free(h);
		return SD_EXIT_FAIL;
	}
	a->http = h;
	loop = ag_listen_is_loopback(o->listen);
	fprintf(stderr, "sonde agent: listening on %s://%s/metrics\n",
		h->cert ? "https" : "http", bound);
	if (loop == 0 && !h->cert && !h->nusers)
		sd_warn("%s is not a loopback address and neither TLS nor "
			"basic authentication is set: anyone who reaches it "
			"reads the metrics and CPU profiles", o->listen);
	return 0;
}

void ag_http_stop(struct agent *a)
{
	struct ag_http *h = a->http;

	if (!h)
		return;
	mhd.stop_daemon(h->d);
	http_free(h);
	a->http = NULL;
}
