// SPDX-License-Identifier: GPL-2.0-only
/* record — `sonde ktrace`: loads record.bpf.c, puts the processes to trace
 * in its traced map (started with `-- COMMAND`, or attached with -p / -g),
 * and streams the ring buffer into the trace file from a writer thread
 * until every traced process has exited or a signal ends it. */
#include "ktrace.h"
#include "format.h"
#include "record.h"
#include "record_btf.h"
#include "record_load.h"
#include "reader.h"
#include "systab.h"
#include "src/ktrace/record.skel.h"
#include "../commands.h"
#include "../lib/bpf.h"
#include "../lib/ringbuf.h"
#include "../lib/syscalls.h"
#include "../lib/cli.h"
#include "../lib/crc32c.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static const char usage_text[] =
"usage: sonde ktrace [-a] [-i] [-d] [-f FILE] [-t TRSTR] [-m MAXDATA]\n"
"                    [-b BUFSIZE] (-p PID[,PID...] | -g PGID | -- COMMAND [ARGS...])\n"
"\n"
"Record what processes do into a trace file, in the kernel, with eBPF;\n"
"sonde kdump prints it.\n"
"\n"
"  -f, --file FILE          the trace file (default ktrace.out), mode 0600\n"
"  -a, --append             append to FILE instead of truncating it\n"
"  -t, --trace TRSTR        trace points (default cnispt):\n"
"                             c syscalls (call and return)  n path names\n"
"                             i data read and written (genio)  s signals\n"
"                             w context switches  p process life (fork,\n"
"                             exec, exit)  t structures (addresses, stat,\n"
"                             fds of pipe, wait status, environment...)\n"
"  -m, --max-data MAXDATA   data bytes recorded per I/O call (default 4096,\n"
"                           at most 16k)\n"
"  -b, --buffer-size SIZE   ring buffer size (default 8M; a power of two)\n"
"  -p, --pid PID,...        attach to running processes (all their threads)\n"
"  -g, --pgid PGID          attach to every process of a process group\n"
"  -i, --inherit            trace children forked later too (default with\n"
"                           -- COMMAND)\n"
"  -d, --descendants        also trace descendants that already exist (-p, -g)\n"
"  -- COMMAND               run COMMAND, traced from its execve on; exit\n"
"                           with its status\n"
"  -v, --verbose            libbpf's messages on stderr\n"
"  -h, --help               this help\n"
"\n"
"Ctrl-C or SIGTERM end it; every record is flushed. Needs root (or CAP_BPF\n"
"and CAP_PERFMON).\n";

struct opts {
	const char *file;
	bool append, inherit, descend, verbose;
	uint32_t points;
	uint64_t maxdata, bufsize;
	pid_t *pids;
	size_t npids;
	pid_t pgid;
	char **cmd;
};

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static int add_pid(struct opts *o, pid_t pid)
{
	size_t cap = o->npids;

	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			return 0;
	sd_grow(&o->pids, &cap, o->npids + 1, sizeof(*o->pids));
	o->pids[o->npids++] = pid;
	return 0;
}

/* The process a thread id belongs to, its parent and process group, from
 * /proc/PID/stat and status; -ESRCH when it does not exist. */
static int proc_ids(pid_t pid, pid_t *tgid, pid_t *ppid, pid_t *pgrp)
{
	char path[64], *s, *p;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(s = sd_read_file(path, &len)))
		return -ESRCH;
	p = strstr(s, "\nTgid:");
	*tgid = p ? atoi(p + 6) : pid;
	p = strstr(s, "\nPPid:");
	*ppid = p ? atoi(p + 6) : 0;
	free(s);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(s = sd_read_file(path, &len)))
		return -ESRCH;
	/* pid (comm) state ppid pgrp: comm may hold anything, even ')'. */
	p = strrchr(s, ')');
	if (!p || sscanf(p + 1, " %*c %*d %d", pgrp) != 1)
		*pgrp = -1;
	free(s);
	return 0;
}

/* Every process on the machine (process ids only), for -g and -d. */
struct proc {
	pid_t pid, ppid, pgrp;
};

static struct proc *list_procs(size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct proc *v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		pid_t pid = atoi(e->d_name), tgid, ppid, pgrp;

		if (pid <= 0 || proc_ids(pid, &tgid, &ppid, &pgrp))
			continue;
		sd_grow(&v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = (struct proc){ pid, ppid, pgrp };
	}
	closedir(d);
	return v;
}

static void add_descendants(struct opts *o)
{
	size_t n;
	struct proc *v = list_procs(&n);
	bool grew = true;

	/* Children may be listed before their parents: repeat until no
	 * process joins. */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			size_t before = o->npids;
			bool parent_in = false, in = false;

			for (size_t j = 0; j < o->npids; j++) {
				parent_in |= o->pids[j] == v[i].ppid;
				in |= o->pids[j] == v[i].pid;
			}
			if (parent_in && !in) {
				add_pid(o, v[i].pid);
				grew = o->npids != before;
			}
		}
	}
	free(v);
}

static const struct option long_opts[] = {
	{ "append", no_argument, NULL, 'a' },
	{ "inherit", no_argument, NULL, 'i' },
	{ "descendants", no_argument, NULL, 'd' },
	{ "file", required_argument, NULL, 'f' },
	{ "trace", required_argument, NULL, 't' },
	{ "max-data", required_argument, NULL, 'm' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "pid", required_argument, NULL, 'p' },
	{ "pgid", required_argument, NULL, 'g' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	int c;
	bool inherit_set = false;

	*o = (struct opts){ .file = "ktrace.out", .points = KTR_PT_DEFAULT,
			    .maxdata = 4096, .bufsize = 8 << 20, .pgid = -1 };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:aidf:t:m:b:p:g:vh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'a':
			o->append = true;
			break;
		case 'i':
			o->inherit = inherit_set = true;
			break;
		case 'd':
			o->descend = true;
			break;
		case 'f':
			/* strace's "follow forks" would name the file "f". */
			if (!strcmp(argv[optind - 1], "-ff"))
				return sd_usage_error("-ff is strace's; sonde ktrace "
						      "follows forks by default (-i), "
						      "and -f names the trace file");
			o->file = optarg;
			break;
		case 't':
			if (ktrace_parse_points(optarg, &o->points))
				return sd_usage_error("bad trace points '%s' (letters "
						   "c n i s w p t, or +)", optarg);
			break;
		case 'm':
			if (sd_parse_size(optarg, &o->maxdata) ||
			    o->maxdata > KTR_GIO_MAX)
				return sd_usage_error("bad data size '%s' (0 up to "
						   "16k)", optarg);
			break;
		case 'b':
			if (sd_parse_size(optarg, &o->bufsize) ||
			    o->bufsize < 64 * 1024 || o->bufsize > (1ull << 30) ||
			    (o->bufsize & (o->bufsize - 1)))
				return sd_usage_error("bad buffer size '%s' (a power "
						   "of two from 64k to 1G)", optarg);
			break;
		case 'p': {
			char *s = optarg, *end;

			for (;;) {
				long v;

				errno = 0;
				v = strtol(s, &end, 10);
				if (errno || end == s || v <= 0 || v > INT32_MAX ||
				    (*end && *end != ','))
					return sd_usage_error("bad pid list '%s'",
							   optarg);
				add_pid(o, v);
				if (!*end)
					break;
				s = end + 1;
			}
			break;
		}
		case 'g': {
			uint64_t v;

			if (sd_parse_u64(optarg, 1, INT32_MAX, &v))
				return sd_usage_error("bad process group '%s'",
						   optarg);
			o->pgid = v;
			break;
		}
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			return sd_getopt_error(c, argv, long_opts);
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (!!o->cmd + !!o->npids + (o->pgid > 0) != 1)
		return sd_usage_error("%s", o->cmd || o->npids || o->pgid > 0 ?
				   "-p, -g and -- COMMAND exclude each other" :
				   "nothing to trace: give -p PID, -g PGID or "
				   "-- COMMAND");
	if (o->cmd && !inherit_set)
		o->inherit = true;
	if (o->cmd && o->descend)
		return sd_usage_error("%s", "-d needs -p or -g");
	return 0;
}

/* ---- the trace file ---- */

/* The trace file is never destroyed before the traced command runs: a
 * regular file (or a new one) is written under a temporary name in its
 * directory and renamed over it once the command has started
 * (trace_commit); a command that cannot be run leaves it as it was.
 * Anything else (a device, a FIFO, a symlink to one) is written in place:
 * renaming over it would replace the node. -a appends to the file itself. */
/*
 * The first failed write (a full disk) ends the file: what the buffer
 * held and every record after is counted as lost, and the failure is
 * reported at once; the main loop then detaches the programs, so that
 * the command runs on at full speed (see cmd_ktrace).
 */
struct writer {
	int fd;
	char *buf;
	size_t len, cap;
	size_t buf_recs;	/* records in buf */
	int err;		/* first write error, negative errno (read by
				 * the main thread: atomic) */
	uint64_t records, bytes;	/* written to the file */
	uint64_t lost;		/* records that could not be */
	uint64_t drop_count;	/* the counts of the DROP records written */
	char *tmp;		/* the temporary name, until trace_commit */
	const char *path;
	uint16_t algo;		/* the file's KTR_SUM_* (0: no SUM records) */
	uint32_t crc;		/* the checksum of the bytes written since
				 * the last SUM record, and how many */
	uint64_t crc_bytes;
};

static void sum_add(struct writer *w, const void *p, size_t n)
{
	if (w->algo == KTR_SUM_CRC32C)
		w->crc = crc32c(w->crc, p, n);
	else if (w->algo == KTR_SUM_CRC32)
		w->crc = crc32(w->crc, p, n);
	w->crc_bytes += n;
}

/* Whole records in buf[0..n): how many. */
static size_t whole_records(const char *buf, size_t n)
{
	size_t k = 0, off = 0;

	while (off + sizeof(uint32_t) <= n) {
		uint32_t len;

		memcpy(&len, buf + off, sizeof(len));
		if (!len || off + len > n)
			break;
		off += len;
		k++;
	}
	return k;
}

/* A SUM record (format.h) of the bytes since the last one. */
static void sum_record(struct writer *w, struct ktr_sum *s)
{
	struct timespec now;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &now);
	s->h.len = sizeof(*s);
	s->h.type = KTR_SUM;
	s->h.ts = (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	memcpy(s->h.comm, "sonde", 5);
	s->algo = w->algo;
	s->bytes = w->crc_bytes;
	/* The record itself is under its checksum too (its crc as 0):
	 * no byte of the file goes unchecked. */
	sum_add(w, s, sizeof(*s));
	s->crc = w->crc;
	w->crc = 0;
	w->crc_bytes = 0;
}

/* The buffer goes out, closed by a SUM record of what it holds (and of
 * the header, the first time): a reader can tell damaged bytes from
 * good ones. CRC-32C in hardware: under 0.1 s of CPU per GB, in this
 * thread, off the traced programs' path. */
static void wr_flush(struct writer *w)
{
	if (w->len && !w->err && w->algo) {
		struct ktr_sum sum;

		sum_add(w, w->buf, w->len);
		sum_record(w, &sum);
		memcpy(w->buf + w->len, &sum, sizeof(sum));
		w->len += sizeof(sum);
	}
	size_t off = 0;
	int err = 0;

	while (off < w->len) {
		ssize_t n = write(w->fd, w->buf + off, w->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -ENOSPC;
			break;
		}
		off += n;
	}
	if (err) {
		size_t done = whole_records(w->buf, off);

		if (done > w->buf_recs)		/* the SUM record */
			done = w->buf_recs;

		w->records += done;
		w->lost += w->buf_recs - done;
		sd_err("cannot write %s: %s, after %llu records: recording "
		       "stops (the command runs on, untraced)", w->path,
		       strerror(-err), (unsigned long long)w->records);
		__atomic_store_n(&w->err, err, __ATOMIC_SEQ_CST);
	} else {
		w->records += w->buf_recs;
	}
	w->len = 0;
	w->buf_recs = 0;
}

/* A record for the file (after a write error: one more lost). */
static void wr_put(struct writer *w, const void *data, size_t n)
{
	if (w->err) {
		w->lost++;
		return;
	}
	/* Records are at most KTR_REC_MAX, the buffer larger; room is
	 * kept for the SUM record that closes it. */
	if (w->len + n + sizeof(struct ktr_sum) > w->cap)
		wr_flush(w);
	if (w->err) {
		w->lost++;
		return;
	}
	memcpy(w->buf + w->len, data, n);
	w->len += n;
	w->buf_recs++;
	w->bytes += n;
	if (((const struct ktr_rec *)data)->type == KTR_DROP)
		w->drop_count += ((const struct ktr_drop *)data)->count;
}

/* Write all of buf to fd: 0 or -errno. */
static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -ENOSPC;
		p += k;
		n -= k;
	}
	return 0;
}

/* -a: the file must be a trace of this version; its records are read to
 * the last whole one, and a fragment after it (a recorder killed, a disk
 * that filled) is cut off, or the appended records would be lost to
 * every reader behind it. */
static int append_check(const char *file, int fd, uint16_t *algo)
{
	struct ktr_reader r;
	const struct ktr_rec *rec;
	int err;

	ktr_reader_init(&r, fd);
	err = ktr_reader_header(&r);
	if (err == -EINVAL || err == -ENODATA) {
		sd_err("%s is not a sonde trace file: not appending", file);
		goto out;
	}
	if (err) {
		sd_err("%s: %s: not appending", file, ktr_strerror(err));
		goto out;
	}
	if (r.hdr.version != KTR_VERSION) {
		sd_err("%s is a version %u trace, this sonde writes version %u: "
		       "not appending", file, r.hdr.version, KTR_VERSION);
		err = -EPROTONOSUPPORT;
		goto out;
	}
	*algo = r.hdr.sum_algo;
	while ((err = ktr_reader_next(&r, &rec)) == 1)
		;
	if (err == -ENODATA) {
		sd_warn("%s ends with an incomplete record (%llu bytes at "
			"offset %llu): cut off before appending", file,
			(unsigned long long)(r.end - r.start),
			(unsigned long long)r.offset);
		err = ftruncate(fd, r.offset) ? -errno : 0;
		if (err)
			sd_err("cannot cut %s: %s", file, strerror(-err));
	} else if (err < 0) {
		sd_err("%s: %s at offset %llu: not appending", file,
		       ktr_strerror(err), (unsigned long long)r.offset);
	}
out:
	ktr_reader_free(&r);
	return err < 0 ? err : 0;
}

static int open_trace(const struct opts *o, struct writer *w)
{
	struct ktr_file_header h;
	struct utsname u;
	struct timespec rt, mono;
	struct stat st;
	int err;

	w->path = o->file;
	if (o->append) {
		w->fd = open(o->file, O_CREAT | O_CLOEXEC | O_RDWR | O_APPEND,
			     0600);
	} else if (stat(o->file, &st) == 0 && !S_ISREG(st.st_mode)) {
		w->fd = open(o->file, O_WRONLY | O_CLOEXEC);
	} else {
		/* In the file's directory, so that the rename is atomic. */
		const char *slash = strrchr(o->file, '/');
		struct sbuf sb;

		sbuf_init(&sb);
		sbuf_printf(&sb, "%.*s.%s.XXXXXX",
			    slash ? (int)(slash + 1 - o->file) : 0, o->file,
			    slash ? slash + 1 : o->file);
		w->tmp = sbuf_steal(&sb);
		w->fd = mkostemp(w->tmp, O_CLOEXEC);	/* mode 0600 */
		if (w->fd < 0) {
			free(w->tmp);
			w->tmp = NULL;
		}
	}
	if (w->fd < 0) {
		err = -errno;
		sd_err("cannot create %s: %s", o->file, strerror(errno));
		return err;
	}
	w->cap = 2 * KTR_REC_MAX;
	w->buf = sd_malloc(w->cap);
	if (o->append && fstat(w->fd, &st) == 0 && st.st_size > 0) {
		struct ktr_sum sum;

		err = append_check(o->file, w->fd, &w->algo);
		if (err || !w->algo)	/* a file without checksums */
			return err;
		/* A recording begins: a SUM of no bytes, so that a reader
		 * starts its count here (the end of an earlier recording
		 * that was cut short has no SUM of its own). */
		sum_record(w, &sum);
		err = write_all(w->fd, &sum, sizeof(sum));
		if (err)
			sd_err("cannot write %s: %s", o->file, strerror(-err));
		return err;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, KTR_MAGIC, 8);
	h.version = KTR_VERSION;
	h.hdr_len = sizeof(h);
	h.byte_order = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? KTR_LITTLE
								 : KTR_BIG;
	h.abi = sc_native();
	w->algo = h.sum_algo = crc32c_fast() ? KTR_SUM_CRC32C : KTR_SUM_CRC32;
	/* The offset between CLOCK_REALTIME and CLOCK_MONOTONIC (the BPF
	 * clock), taken between two monotonic reads. */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &rt);
	h.clock_base_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec -
			  ((int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec);
	if (uname(&u) == 0) {
		snprintf(h.release, sizeof(h.release), "%s", u.release);
		snprintf(h.hostname, sizeof(h.hostname), "%s", u.nodename);
	}
	/* A header that cannot be written is an error before anything
	 * runs. */
	err = write_all(w->fd, &h, sizeof(h));
	if (err)
		sd_err("cannot write %s: %s", o->file, strerror(-err));
	sum_add(w, &h, sizeof(h));
	return err;
}

/* The command has started: the trace takes the file's name. */
static int trace_commit(struct writer *w)
{
	if (!w->tmp)
		return 0;
	if (rename(w->tmp, w->path)) {
		int err = -errno;

		sd_err("cannot rename %s to %s: %s", w->tmp, w->path,
		       strerror(errno));
		return err;
	}
	free(w->tmp);
	w->tmp = NULL;
	return 0;
}

/* Nothing was traced: the file stays as it was. */
static void trace_discard(struct writer *w)
{
	if (w->tmp) {
		unlink(w->tmp);
		free(w->tmp);
		w->tmp = NULL;
	}
}



/* ---- recording ---- */

/* The ring buffer, the map that takes longest to make (its pages
 * allocated, zeroed and charged: 1.8 ms for 8 MiB), made in a thread
 * from the start of the command. */
struct rb_job {
	uint32_t size;
	int fd;			/* or -errno */
	pthread_t th;
	bool started;
	/* Then its consumer's mapping (16 MiB of page-table entries set
	 * up front, 0.3 ms), made in a thread while libbpf prepares the
	 * programs on one CPU. */
	int map_fd;
	struct ringbuf *rb;
	int map_errno;
	pthread_t map_th;
	bool mapping;
};

static void *rb_main(void *arg)
{
	struct rb_job *j = arg;

	j->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb", 0, 0, j->size,
			       NULL);
	if (j->fd < 0)
		j->fd = -errno;
	return NULL;
}

static void rb_start(struct rb_job *j, uint32_t size)
{
	j->size = size;
	j->fd = -EAGAIN;
	j->started = !pthread_create(&j->th, NULL, rb_main, j);
	if (!j->started)
		rb_main(j);
}

static void *rb_map_main(void *arg)
{
	struct rb_job *j = arg;

	j->rb = ringbuf_open(j->map_fd, j->size);
	j->map_errno = j->rb ? 0 : errno;
	return NULL;
}

static void rb_map_start(struct rb_job *j, int map_fd)
{
	j->map_fd = map_fd;
	j->mapping = !pthread_create(&j->map_th, NULL, rb_map_main, j);
	if (!j->mapping)
		rb_map_main(j);
}

/* The consumer (the caller's), or NULL and errno. */
static struct ringbuf *rb_map_take(struct rb_job *j)
{
	struct ringbuf *rb;

	if (j->mapping)
		pthread_join(j->map_th, NULL);
	j->mapping = false;
	rb = j->rb;
	j->rb = NULL;
	errno = rb ? 0 : j->map_errno ? j->map_errno : EBADF;
	return rb;
}

/* The ring buffer's fd (the caller's to close) or -errno, once. */
static int rb_take(struct rb_job *j)
{
	int fd;

	if (j->started)
		pthread_join(j->th, NULL);
	j->started = false;
	fd = j->fd;
	j->fd = -EBADF;
	return fd;
}

struct tracer {
	struct record *skel;
	struct ktr_par *par;	/* its programs loaded in threads */
	struct ringbuf *rb;
	struct writer w;
	volatile bool done;	/* the writer thread drains and ends */
	struct rb_job rj;
};

/* A ring-buffer record holds one trace-file record or several in a row
 * (a call's CALL, NAMI and RET records go out together); their own
 * lengths are authoritative. A fixed-size reservation may be larger than
 * its record: the BPF program zeroes the rest, and a zero length ends the
 * walk. */
static int on_record(void *ctx, const void *data, size_t size)
{
	struct tracer *t = ctx;
	const char *p = data;

	while (size >= sizeof(struct ktr_rec)) {
		uint32_t len = ((const struct ktr_rec *)p)->len;

		if (len < sizeof(struct ktr_rec) || len > size)
			break;
		wr_put(&t->w, p, len);
		p += len;
		size -= len;
	}
	return 0;
}

/* A thread that computes without leaving its CPU keeps the records of its
 * last calls in that CPU's batch; any context switch on the CPU writes
 * them out. So when the programs have not woken it for a while, the
 * writer moves to the next CPU it may run on (and is let free again at
 * once), which is a switch there: records wait at most a round of the
 * CPUs' rounds. */
struct hop {
	cpu_set_t allowed;
	int ncpu, next;
};

static void hop_init(struct hop *h)
{
	h->next = 0;
	h->ncpu = 0;
	if (!pthread_getaffinity_np(pthread_self(), sizeof(h->allowed),
				    &h->allowed))
		h->ncpu = CPU_COUNT(&h->allowed);
}

static void hop(struct hop *h)
{
	cpu_set_t one;

	if (h->ncpu < 2)
		return;
	for (int i = 0; i < CPU_SETSIZE; i++) {
		int cpu = (h->next + i) % CPU_SETSIZE;

		if (!CPU_ISSET(cpu, &h->allowed))
			continue;
		h->next = cpu + 1;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (!pthread_setaffinity_np(pthread_self(), sizeof(one), &one))
			pthread_setaffinity_np(pthread_self(), sizeof(h->allowed),
					       &h->allowed);
		return;
	}
}

static void *writer_main(void *arg)
{
	struct tracer *t = arg;
	struct hop h;

	hop_init(&h);
	/* The BPF side wakes us when a quarter of the buffer is full; the
	 * timeout bounds how stale the file gets otherwise (kdump -l
	 * follows it), so each round ends with a write. */
	while (!__atomic_load_n(&t->done, __ATOMIC_SEQ_CST)) {
		int woken;

		ringbuf_drain(t->rb, on_record, t);
		if (t->w.len)
			wr_flush(&t->w);
		/* Before sleeping: a new count of bytes towards the mark. */
		__atomic_fetch_add(&t->skel->bss->epoch, 1, __ATOMIC_SEQ_CST);
		woken = ringbuf_wait(t->rb, 100);
		if (woken < 0) {
			sd_err("ring buffer: %s", strerror(-woken));
			break;
		}
		if (!woken)
			hop(&h);
	}
	ringbuf_drain(t->rb, on_record, t);
	wr_flush(&t->w);
	return NULL;
}

/* After detaching: the records still waiting in each CPU's batch (those
 * of the thread each CPU ran last), after everything in the ring buffer. */
static void collect_batches(struct tracer *t)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t sz = (sizeof(struct ktr_batch) + 7) & ~(size_t)7;
	char *v;
	uint32_t key = 0;

	if (ncpu <= 0)
		return;
	v = sd_calloc(ncpu, sz);
	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.batches), &key, v)) {
		for (int i = 0; i < ncpu; i++) {
			const struct ktr_batch *b = (const void *)(v + i * sz);

			if (b->len && b->len <= KTR_BATCH_MAX)
				on_record(t, b->b, b->len);
		}
	}
	wr_flush(&t->w);
	free(v);
}

/* n values of map fd at keys: one batch (a system call per element was
 * ~1 ms of the start-up), element by element where batches are not
 * supported (before Linux 5.6). */
static void update_all(int fd, const uint32_t *keys, const void *vals,
		       size_t size, uint32_t n)
{
	uint32_t count = n;

	if (!n || !bpf_map_update_batch(fd, keys, vals, &count, NULL))
		return;
	for (uint32_t i = 0; i < n; i++)
		bpf_map_update_elem(fd, &keys[i], (const char *)vals + i * size,
				    BPF_ANY);
}

/* The object's maps, made before libbpf loads it (which takes them as
 * they are), all but its own (.rodata, .bss), which it fills in, and the
 * ring buffer (made before, rb_main). */
/* Whether the kernel lets tracing programs use hash maps that allocate
 * their elements as they are added (Linux 6.1: bpf_mem_alloc). */
static bool hash_alloc_ok(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	return !uname(&u) && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 1));
}

static int create_maps(struct record *skel)
{
	struct bpf_map *m;
	/* A preallocated hash map of 16384 entries takes 0.5 ms to make;
	 * the traced and dropped maps hold a few entries each. */
	uint32_t hash_flags = hash_alloc_ok() ? BPF_F_NO_PREALLOC : 0;

	bpf_object__for_each_map(m, skel->obj) {
		LIBBPF_OPTS(bpf_map_create_opts, mo,
			    .map_flags = bpf_map__map_flags(m));
		int fd, err;

		if (bpf_map__type(m) == BPF_MAP_TYPE_HASH)
			mo.map_flags |= hash_flags;

		if (bpf_map__is_internal(m) || m == skel->maps.rb)
			continue;
		fd = bpf_map_create(bpf_map__type(m), bpf_map__name(m),
				    bpf_map__key_size(m), bpf_map__value_size(m),
				    bpf_map__max_entries(m), &mo);
		if (fd < 0)
			return -errno;
		err = bpf_map__reuse_fd(m, fd);
		close(fd);
		if (err)
			return err;
	}
	return 0;
}

static void fill_sysinfo(struct record *skel)
{
	uint32_t *keys = sd_calloc(KTR_NPERS * KTR_NR_MAX, sizeof(*keys));
	uint32_t *ckeys = sd_calloc(KTR_NPERS * KTR_NR_MAX, sizeof(*ckeys));
	uint32_t *vals = sd_calloc(KTR_NPERS * KTR_NR_MAX, sizeof(*vals));
	struct ktr_captures *caps = sd_calloc(KTR_NPERS * KTR_NR_MAX,
					      sizeof(*caps));
	uint32_t n = 0, nc = 0;

	/* Each ABI's numbers: a hint never applies to another ABI's call. */
	for (unsigned pers = 0; pers < KTR_NPERS; pers++) {
		int abi = ktr_pers_abi(sc_native(), pers);
		long lim = abi < 0 ? 0 : sc_limit(abi);

		for (long nr = 0; nr < lim && nr < KTR_NR_MAX; nr++) {
			const struct ktrace_syscall *sc = ktrace_syscall_nr(abi, nr);
			uint32_t key = KTR_SI_KEY(pers, nr);

			if (!sc)
				continue;
			if ((vals[n] = ktrace_syscall_hints(sc)))
				keys[n++] = key;
			if (ktrace_syscall_captures(sc, abi, &caps[nc]))
				ckeys[nc++] = key;
		}
	}
	update_all(bpf_map__fd(skel->maps.sysinfo), keys, vals, sizeof(*vals), n);
	update_all(bpf_map__fd(skel->maps.captures), ckeys, caps, sizeof(*caps),
		   nc);
	free(keys);
	free(ckeys);
	free(vals);
	free(caps);
}

static bool privileged(void)
{
	/* CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON (38, 39). */
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long eff = 0;

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff & (1ull << 21)) ||
	       ((eff & (1ull << 38)) && (eff & (1ull << 39)));
}

/* COMMAND's path, searched in PATH as execvp would, before the fork: the
 * traced execve is then the one that runs it (strace does the same), not
 * a series of failures in PATH's other directories. */
static char *find_command(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	struct sbuf sb;

	if (strchr(cmd, '/'))
		return sd_strdup(cmd);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	sbuf_init(&sb);
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		sbuf_reset(&sb);
		if (end == p)	/* an empty element is the current directory */
			sbuf_printf(&sb, "./%s", cmd);
		else
			sbuf_printf(&sb, "%.*s/%s", (int)(end - p), p, cmd);
		if (access(sb.buf, X_OK) == 0)
			return sbuf_steal(&sb);
		if (!*end)
			break;
	}
	sbuf_free(&sb);
	return NULL;
}

/* Start COMMAND (its path exe) stopped on a pipe: it execs once the
 * tracer has put it in the traced map (armed: tracing starts at its
 * execve) and attached. A second pipe, closed by the exec, says whether
 * the exec failed (the errno comes through it). */
struct child {
	pid_t pid;
	int go_fd, st_fd;
};

/* The signals sonde catches while recording (set after the command is
 * forked, which keeps those sonde was given). */
static const int caught_sig[] = { SIGINT, SIGTERM, SIGHUP };

static int spawn(const char *exe, char **cmd, struct child *c)
{
	int p[2], st[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	if (pipe2(st, O_CLOEXEC)) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		close(st[0]);
		close(st[1]);
		return err;
	}
	if (pid == 0) {
		char ch;
		int e;

		close(p[1]);
		close(st[0]);
		/* (Forked before sonde sets its handlers: the command gets
		 * the dispositions sonde was given, an ignored SIGINT stays
		 * ignored, as under strace.) */
		if (read(p[0], &ch, 1) != 1)
			_exit(127);	/* the tracer failed: do not run */
		execv(exe, cmd);
		e = errno;
		if (write(st[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(p[0]);
	close(st[1]);
	c->pid = pid;
	c->go_fd = p[1];
	c->st_fd = st[0];
	return 0;
}

/* Let the child exec: 0 once it has, or the exec's -errno. */
static int start_child(struct child *c)
{
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, "g", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	do {
		n = read(c->st_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(c->st_fd);
	c->st_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

static int attach_all(struct tracer *t)
{
	char eb[256];
	int err = record__attach(t->skel);

	if (!err)
		err = ktr_par_attach(t->par);
	if (err) {
		sd_err("cannot attach to the tracepoints: %s",
		       sbpf_strerror(err, eb, sizeof(eb)));
		return -1;
	}
	return 0;
}

struct maps_job {
	struct record *skel;
	int err;
};

static void *maps_main(void *arg)
{
	struct maps_job *j = arg;

	j->err = create_maps(j->skel);
	/* Their contents too, before the programs' verification (which
	 * does not look at them) takes both CPUs. */
	if (!j->err)
		fill_sysinfo(j->skel);
	return NULL;
}

static void detach_all(struct tracer *t)
{
	record__detach(t->skel);
	ktr_par_detach(t->par);
}

/* The programs, each verified in a thread of its own (record_load.c), the
 * largest first (CPU per load, on_sys_exit 9.3 ms, on_sys_enter 3.0, the
 * others 0.8-1.8); on_sys_enter attached last (record starts there). */
static const char *const par_secs[] = {
	"tp_btf/sys_exit", "tp_btf/sched_process_exec", "tp_btf/signal_generate",
	"tp_btf/sched_process_exit", "tp_btf/signal_deliver",
	"tp_btf/sched_switch", "tp_btf/task_rename", "tp_btf/sched_process_fork",
	"tp_btf/sys_enter",
};

/* Every kernel field the programs read through CO-RE (record.bpf.c and
 * its headers): libbpf relocates against these alone (record_btf.c). A
 * field missing here (or from the kernel) leaves libbpf's poisoned call
 * in its place, which the verifier refuses: the load fails, saying so,
 * and the e2e tests see it. */
#define CORE_POISON "unknown#195896080"
static const struct ktr_btf_field core_fields[] = {
	{ "task_struct", { "tgid" } },
	{ "task_struct", { "pid" } },
	{ "task_struct", { "comm" } },
	{ "task_struct", { "start_time" } },
	{ "task_struct", { "mm" } },
	{ "task_struct", { "signal" } },
	{ "task_struct", { "exit_code" } },
	{ "task_struct", { "thread_info", "cpu" } },
	{ "task_struct", { "thread_info", "status" } },
	{ "signal_struct", { "live", "counter" } },
	{ "signal_struct", { "group_exit_code" } },
	{ "signal_struct", { "flags" } },
	{ "mm_struct", { "arg_start" } },
	{ "mm_struct", { "arg_end" } },
	{ "mm_struct", { "env_start" } },
	{ "mm_struct", { "env_end" } },
	{ "mm_struct", { "start_stack" } },
	{ "linux_binprm", { "filename" } },
};

static int load(struct tracer *t, const struct opts *o)
{
	struct record *s;
	char eb[256];
	int err, perr, rfd, ncpu = libbpf_num_possible_cpus();
	const char *pprog = NULL, *plog = NULL, *missing = NULL;
	struct maps_job mj = { 0 };
	pthread_t mt;
	bool mthread;
	long nr;

	t->par = ktr_par_new(par_secs, ARRAY_SIZE(par_secs), core_fields,
			     ARRAY_SIZE(core_fields));
	LIBBPF_OPTS(bpf_object_open_opts, oo,
		    .btf_custom_path = ktr_par_btf_path(t->par));
	s = record__open_opts(&oo);
	if (!s) {
		sd_err("cannot open the BPF program: %s",
		       sbpf_strerror(-errno, eb, sizeof(eb)));
		return -1;
	}
	t->skel = s;
	s->rodata->points = o->points;
	s->rodata->maxdata = o->maxdata;
	s->rodata->inherit = o->inherit;
	/* Each CPU's share of a quarter of the buffer. */
	s->rodata->wake_bytes = o->bufsize / 4 / (ncpu > 0 ? ncpu : 1);
	for (unsigned pers = 0; pers < KTR_NPERS; pers++) {
		int abi = ktr_pers_abi(sc_native(), pers);

		if (abi < 0)
			continue;
		nr = sc_number(abi, "execve");
		s->rodata->nr_execve[pers] = nr >= 0 ? nr : ~0u;
		nr = sc_number(abi, "execveat");
		s->rodata->nr_execveat[pers] = nr >= 0 ? nr : ~0u;
		nr = sc_number(abi, "rt_sigreturn");
		s->rodata->nr_rt_sigreturn[pers] = nr >= 0 ? nr : ~0u;
	}
	bpf_map__set_max_entries(s->maps.rb, o->bufsize);
	bpf_map__set_max_entries(s->maps.scratch, ncpu > 0 ? ncpu : 1);
	/* Without w, on_switch only writes out the kept syscall entry of
	 * a thread leaving its CPU. */
	if (!(o->points & (KTR_PT_CSW | KTR_PT_SYSCALL)))
		bpf_program__set_autoload(s->progs.on_switch, false);
	/* Without c no cached comm needs refreshing. */
	if (!(o->points & KTR_PT_SYSCALL))
		bpf_program__set_autoload(s->progs.on_rename, false);
	if (!(o->points & KTR_PT_SIG)) {
		bpf_program__set_autoload(s->progs.on_sig_generate, false);
		bpf_program__set_autoload(s->progs.on_sig_deliver, false);
	}
	/* Only what the points need is loaded (the verifier's time is most
	 * of the start-up): nothing is recorded at a syscall's exit without
	 * c, n, i or t, nor at an exec without n or p. (sys_enter arms the
	 * command at its execve; fork and exit keep the traced map.) */
	if (!(o->points & (KTR_PT_SYSCALL | KTR_PT_NAMEI | KTR_PT_GENIO |
			   KTR_PT_STRU)))
		bpf_program__set_autoload(s->progs.on_sys_exit, false);
	if (!(o->points & (KTR_PT_NAMEI | KTR_PT_PROC)))
		bpf_program__set_autoload(s->progs.on_exec, false);
	/* The maps are made in a thread while the scan of the kernel's BTF
	 * is waited for here (ktr_par_resolve). */
	mj.skel = s;
	mthread = !pthread_create(&mt, NULL, maps_main, &mj);
	if (!mthread)
		maps_main(&mj);
	perr = ktr_par_resolve(t->par, s->obj, &missing);
	if (mthread)
		pthread_join(mt, NULL);
	rfd = rb_take(&t->rj);
	err = mj.err;
	if (!err)
		err = rfd < 0 ? rfd : bpf_map__reuse_fd(s->maps.rb, rfd);
	if (rfd >= 0)
		close(rfd);
	if (!err)
		rb_map_start(&t->rj, bpf_map__fd(s->maps.rb));
	if (err && rfd < 0 && !sbpf_has(SBPF_RINGBUF)) {
		sd_err("%s", sbpf_feature_missing(SBPF_RINGBUF));
		return -1;
	}
	if (err) {
		sd_err("cannot create the BPF maps: %s",
		       sbpf_strerror(err, eb, sizeof(eb)));
		return -1;
	}
	if (perr) {
		if (missing)
			sd_err("the kernel has no tracepoint %s", missing);
		else
			sd_err("cannot read the kernel's BTF: %s",
			       sbpf_strerror(perr, eb, sizeof(eb)));
		return -1;
	}
	err = record__load(s);
	perr = ktr_par_wait(t->par, &pprog, &plog);
	if (err) {
		sd_err("cannot load the BPF program: %s",
		       sbpf_strerror(err, eb, sizeof(eb)));
		if (o->verbose)
			fputs(sbpf_log(), stderr);
		return -1;
	}
	if (perr && plog && strstr(plog, CORE_POISON)) {
		sd_err("cannot load the BPF program %s: it reads a kernel "
		       "field not found in the kernel's BTF", pprog);
		if (o->verbose)
			fputs(plog, stderr);
		return -1;
	}
	if (perr) {
		sd_err("cannot load the BPF program %s: %s", pprog,
		       sbpf_strerror(perr, eb, sizeof(eb)));
		if (o->verbose && plog)
			fputs(plog, stderr);
		return -1;
	}
	return 0;
}

static int trace_pid(struct tracer *t, pid_t pid, uint32_t state)
{
	uint32_t key = pid;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.traced), &key,
				&state, BPF_NOEXIST))
		return errno == EEXIST ? 0 : -errno;
	__atomic_fetch_add(&t->skel->bss->live, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Whether a process is there and not a zombie (one that exited before
 * the traced map saw it never takes live down, and its parent may not
 * reap it before the recorder ends). */
static bool alive(pid_t pid)
{
	char path[64], *s, *p;
	size_t len;
	bool zombie = false;

	if (kill(pid, 0) && errno != EPERM)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((s = sd_read_file(path, &len))) {
		p = strrchr(s, ')');
		zombie = p && (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
		free(s);
	}
	return !zombie;
}

/* Whether a process of the traced map still exists. */
static bool any_traced_alive(struct tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.traced);
	uint32_t key, next;
	uint32_t *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (alive(next))
			return true;
		key = next;
		prev = &key;
	}
	return false;
}

static uint64_t total_drops(struct tracer *t)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = sd_calloc(ncpu, sizeof(*v)), sum = 0;
	uint32_t key = 0;

	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.drops), &key, v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* Resolve -p (threads to their process) and -g, -d into the pid list. */
static int resolve_targets(struct opts *o)
{
	for (size_t i = 0; i < o->npids; i++) {
		pid_t tgid, ppid, pgrp;

		if (proc_ids(o->pids[i], &tgid, &ppid, &pgrp)) {
			sd_err("no process %d", (int)o->pids[i]);
			return -ESRCH;
		}
		o->pids[i] = tgid;
	}
	if (o->pgid > 0) {
		size_t n;
		struct proc *v = list_procs(&n);

		for (size_t i = 0; i < n; i++)
			if (v[i].pgrp == o->pgid)
				add_pid(o, v[i].pid);
		free(v);
		if (!o->npids) {
			sd_err("no process in process group %d", (int)o->pgid);
			return -ESRCH;
		}
	}
	if (o->descend)
		add_descendants(o);
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == getpid()) {
			sd_err("cannot trace itself (pid %d)", (int)getpid());
			return -EINVAL;
		}
	return 0;
}

/* The losses the kernel still holds per process (its DROP record could
 * not be written before recording ended, or the process was not seen
 * again): a DROP record each, so that the file's DROP records add up to
 * every record lost. */
static void flush_drops(struct tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.dropped);
	uint32_t key, next, *prev = NULL;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct ktr_drop d;
		uint64_t n;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &n) || !n)
			continue;
		memset(&d, 0, sizeof(d));
		d.h.len = sizeof(d);
		d.h.type = KTR_DROP;
		d.h.flags = KTR_F_DROP;
		d.h.pid = d.h.tid = key;
		d.h.ts = (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec;
		d.count = n;
		wr_put(&t->w, &d, sizeof(d));
	}
}

/* A command's start FD records are not records of what it did: kdump
 * does not show them, and the totals (sonde's last line, END) leave them
 * out, as the number of records a reader shows. */
static void put_fd(struct tracer *t, const void *rec, uint32_t len,
		   const char *start_comm)
{
	uint64_t lost = t->w.lost;

	wr_put(&t->w, rec, len);
	if (start_comm && t->w.lost == lost)
		t->w.buf_recs--;
}

/* The FD records of a process attached to (-p, -g): its fds as
 * /proc/PID/fd and fdinfo show them (format.h), then its working
 * directory (/proc/PID/cwd) as fd AT_FDCWD, ts the time before the
 * attach. Written before the writer thread starts: the main thread owns
 * the writer then. For -- COMMAND (start_comm: the name it will have),
 * what the forked command will hold after its exec: the fds without
 * FD_CLOEXEC, flagged KTR_F_START. */
static void fd_records(struct tracer *t, pid_t pid, uint64_t ts,
		       const char *start_comm)
{
	union {
		struct ktr_fd f;
		char b[sizeof(struct ktr_fd) + 4096 + 8];
	} u;
	char p[64], comm[KTR_COMM_LEN + 1] = "", line[128];
	struct dirent *de;
	ssize_t n;
	FILE *fp;
	DIR *d;

	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	if (start_comm)
		snprintf(comm, sizeof(comm), "%s", start_comm);
	else if ((fp = fopen(p, "re"))) {
		if (fgets(comm, sizeof(comm), fp))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(fp);
	}
	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	if (!(d = opendir(p)))
		return;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		uint32_t len;

		if (end == de->d_name || *end || fd < 0 || fd > INT32_MAX)
			continue;
		memset(&u, 0, sizeof(u));
		snprintf(p, sizeof(p), "/proc/%d/fd/%ld", (int)pid, fd);
		n = readlink(p, u.f.path, 4096);
		if (n < 0)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/fdinfo/%ld", (int)pid, fd);
		if ((fp = fopen(p, "re"))) {
			unsigned flags;

			while (fgets(line, sizeof(line), fp))
				if (sscanf(line, "flags: %o", &flags) == 1)
					u.f.flags = flags;
			fclose(fp);
		}
		if (start_comm && (u.f.flags & O_CLOEXEC))
			continue;	/* gone at the exec */
		len = (uint32_t)(sizeof(u.f) + n + 1 + 7) & ~7u;
		u.f.h.len = len;
		u.f.h.type = KTR_FD;
		u.f.h.flags = start_comm ? KTR_F_START : 0;
		u.f.h.pid = u.f.h.tid = (uint32_t)pid;
		u.f.h.ts = ts;
		memcpy(u.f.h.comm, comm, strnlen(comm, KTR_COMM_LEN));
		u.f.fd = (int32_t)fd;
		put_fd(t, &u, len, start_comm);
	}
	closedir(d);
	/* The working directory, as fd AT_FDCWD. */
	memset(&u, 0, sizeof(u));
	snprintf(p, sizeof(p), "/proc/%d/cwd", (int)pid);
	n = readlink(p, u.f.path, 4096);
	if (n >= 0) {
		uint32_t len = (uint32_t)(sizeof(u.f) + n + 1 + 7) & ~7u;

		u.f.h.len = len;
		u.f.h.type = KTR_FD;
		u.f.h.flags = start_comm ? KTR_F_START : 0;
		u.f.h.pid = u.f.h.tid = (uint32_t)pid;
		u.f.h.ts = ts;
		memcpy(u.f.h.comm, comm, strnlen(comm, KTR_COMM_LEN));
		u.f.fd = AT_FDCWD;
		put_fd(t, &u, len, start_comm);
	}
}

/* The END record: totals, and how recording ended (status: the
 * command's wait status when it was reaped). */
static void end_record(struct tracer *t, uint64_t drops, int sig, int status)
{
	struct ktr_end e;
	struct timespec now;

	memset(&e, 0, sizeof(e));
	clock_gettime(CLOCK_MONOTONIC, &now);
	e.h.len = sizeof(e);
	e.h.type = KTR_END;
	e.h.ts = (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	memcpy(e.h.comm, "sonde", 5);
	e.records = t->w.records + t->w.buf_recs;
	e.bytes = t->w.bytes;
	e.lost_ring = drops;
	e.lost_write = t->w.lost;
	if (t->w.err) {
		e.how = KTR_END_WRITE_ERROR;
		e.code = -t->w.err;
	} else if (sig) {
		e.how = sig == SIGINT ? KTR_END_INTERRUPT : KTR_END_SIGNAL;
		e.code = sig;
	} else {
		e.how = KTR_END_EXIT;
		e.code = status;
	}
	wr_put(&t->w, &e, sizeof(e));
}

int cmd_ktrace(int argc, char **argv)
{
	struct opts o;
	struct tracer t = { .rj = { .fd = -EBADF } };
	struct sigaction sa = { .sa_handler = on_signal };
	pthread_t th;
	struct child c = { .pid = -1, .go_fd = -1, .st_fd = -1 };
	pid_t child = -1;
	int child_fd = -1;	/* a pidfd of the command */
	int status = 0, rc = SD_EXIT_FAIL, err;
	bool writer = false, detached = false;
	char *exe = NULL;
	uint64_t drops;
	struct timespec attach_ts;

	sd_set_prog("sonde ktrace");
	err = parse_args(argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	if (!privileged()) {
		sd_err("need root, or CAP_BPF and CAP_PERFMON, to load BPF "
		       "programs");
		goto out_free;
	}
	/* (Whether the kernel has BPF ring buffers, the making of ours
	 * says: see load().) */
	if (!sbpf_has(SBPF_BTF)) {
		sd_err("%s", sbpf_feature_missing(SBPF_BTF));
		goto out_free;
	}
	if (o.npids || o.pgid > 0) {
		if (resolve_targets(&o))
			goto out_free;
	}
	if (o.cmd && !(exe = find_command(o.cmd[0]))) {
		sd_err("%s: command not found", o.cmd[0]);
		goto out_free;
	}
	/* The ring buffer's pages take longest to make: from now on. */
	rb_start(&t.rj, o.bufsize);
	/* The file first: whether it can be written is known before the
	 * work of loading. */
	if (open_trace(&o, &t.w))
		goto out;
	/* The command is forked before the loading: a fork of the small
	 * process sonde still is costs less, and none of its threads runs
	 * yet. It waits to exec until it is traced. */
	if (o.cmd) {
		err = spawn(exe, o.cmd, &c);
		if (err) {
			sd_err("cannot fork: %s", strerror(-err));
			goto out;
		}
		child = c.pid;
	}
	sbpf_init(o.verbose);
	if (load(&t, &o))
		goto out;
	/* Attaching to running processes: the file is theirs from here on
	 * (where it was created before). */
	if (!o.cmd && trace_commit(&t.w))
		goto out;
	t.rb = rb_map_take(&t.rj);
	if (!t.rb) {
		sd_err("cannot map the ring buffer: %s", strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(caught_sig); i++)
		sigaction(caught_sig[i], &sa, NULL);
	if (o.cmd) {
		err = trace_pid(&t, child, KTR_ST_ARMED);
	} else {
		err = 0;
		for (size_t i = 0; i < o.npids && !err; i++)
			err = trace_pid(&t, o.pids[i], KTR_ST_TRACING);
	}
	if (err) {
		sd_err("cannot fill the traced map: %s", strerror(-err));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &attach_ts);
	if (attach_all(&t))
		goto out;
	/* What the attached processes held already: -y names their fds.
	 * Written out at once: a file longer than its header says the
	 * recorder is attached. */
	for (size_t i = 0; !o.cmd && i < o.npids; i++)
		fd_records(&t, o.pids[i], (uint64_t)attach_ts.tv_sec *
					  1000000000 + attach_ts.tv_nsec, NULL);
	/* And what the command inherits (its exec is still to come), for
	 * the names of the fds its calls take. */
	if (o.cmd && (o.points & KTR_PT_SYSCALL))
		fd_records(&t, child, (uint64_t)attach_ts.tv_sec * 1000000000 +
				      attach_ts.tv_nsec,
			   strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe);
	if (!o.cmd)
		wr_flush(&t.w);
	if (pthread_create(&th, NULL, writer_main, &t)) {
		sd_err("cannot start the writer thread");
		goto out;
	}
	writer = true;
	if (o.cmd && (err = start_child(&c))) {
		/* Nothing ran: the trace file stays as it was. */
		sd_err("cannot run %s: %s", o.cmd[0], strerror(-err));
		rc = 127;
		goto out;
	}
	if (o.cmd && trace_commit(&t.w))
		goto out;
	/* The command's end wakes the loop below at once (a short command's
	 * whole run is otherwise stretched by the polling interval). */
	if (o.cmd)
		child_fd = (int)syscall(SYS_pidfd_open, child, 0);
	/* Until a signal, or every traced process is gone (a process that
	 * exits before the map saw it leaves live at 0 too). After a write
	 * error the programs are detached at once (nothing more can be
	 * written: the command runs on untraced) and only the command's end
	 * is waited for. */
	while (!stop_sig) {
		if (child > 0) {
			pid_t r = waitpid(child, &status, WNOHANG);

			if (r == child)
				child = -status - 1;	/* reaped */
		}
		if (!detached && __atomic_load_n(&t.w.err, __ATOMIC_SEQ_CST)) {
			detach_all(&t);
			detached = true;
		}
		if (detached) {
			if (o.cmd ? child < 0 : !any_traced_alive(&t))
				break;
		} else {
			if (__atomic_load_n(&t.skel->bss->live,
					    __ATOMIC_SEQ_CST) <= 0)
				break;
			/* A process that exited between the look-up in
			 * /proc and its entry in the map never decrements
			 * live. */
			if (child < 0 && !any_traced_alive(&t))
				break;
		}
		if (child > 0 && child_fd >= 0) {
			struct pollfd pf = { .fd = child_fd, .events = POLLIN };

			poll(&pf, 1, 20);
		} else {
			usleep(20000);
		}
	}
	if (child > 0 && !stop_sig && waitpid(child, &status, 0) == child)
		child = -status - 1;
	/* Detach first: nothing more is produced, the writer drains. */
	detach_all(&t);
	__atomic_store_n(&t.done, true, __ATOMIC_SEQ_CST);
	ringbuf_kick(t.rb);
	pthread_join(th, NULL);
	collect_batches(&t);
	flush_drops(&t);
	drops = total_drops(&t);
	end_record(&t, drops, stop_sig, child < -1 ? -child - 1 : 0);
	wr_flush(&t.w);
	if (!t.w.err) {
		rc = 0;
		fprintf(stderr, "%s: %llu records (%llu bytes) in %s, %llu "
			"dropped%s\n", sd_prog(),
			(unsigned long long)t.w.records,
			(unsigned long long)t.w.bytes, o.file,
			(unsigned long long)drops,
			drops ? " (the ring buffer was full: try a larger -b)"
			      : "");
	} else {
		/* The command's own status still says how it went. */
		rc = o.cmd ? 0 : SD_EXIT_FAIL;
		fprintf(stderr, "%s: %llu records in %s, %llu dropped, %llu "
			"lost: %s\n", sd_prog(),
			(unsigned long long)t.w.records, o.file,
			(unsigned long long)drops, (unsigned long long)t.w.lost,
			strerror(-t.w.err));
	}
	if (o.cmd && rc == 0) {
		if (child > 0) {
			/* Stopped by a signal: the command goes on. */
			rc = 0;
		} else if (child < -1) {
			status = -child - 1;
			rc = WIFEXITED(status) ? WEXITSTATUS(status)
					       : 128 + WTERMSIG(status);
		}
	}
out:
	if (child_fd >= 0)
		close(child_fd);
	if (c.go_fd >= 0)
		close(c.go_fd);	/* the child reads EOF and exits 127 */
	if (c.st_fd >= 0)
		close(c.st_fd);
	if (child > 0 && (rc == SD_EXIT_FAIL || rc == 127) && !stop_sig)
		waitpid(child, NULL, 0);
	if (writer && t.w.tmp) {
		/* (The writer thread writes to the temporary file.) */
		detach_all(&t);
		__atomic_store_n(&t.done, true, __ATOMIC_SEQ_CST);
		ringbuf_kick(t.rb);
		pthread_join(th, NULL);
	}
	trace_discard(&t.w);
	ringbuf_close(t.rb);
	if ((err = rb_take(&t.rj)) >= 0)
		close(err);
	ringbuf_close(rb_map_take(&t.rj));
	ktr_par_detach(t.par);
	record__destroy(t.skel);
	ktr_par_free(t.par);	/* (its section handlers outlive the object) */
	if (t.w.fd > 0)
		close(t.w.fd);
	free(t.w.buf);
out_free:
	free(exe);
	free(o.pids);
	return rc;
}
