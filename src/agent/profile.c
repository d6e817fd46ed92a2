// SPDX-License-Identifier: GPL-2.0-only
/* profile — /debug/pprof/profile: every online CPU sampled for N seconds
 * through perf's cpu-clock at --profile-hz, kernel and user call chains,
 * written as a gzipped pprof CPU profile ("samples"/count and
 * "cpu"/nanoseconds, as Go's runtime/pprof writes) with the thread's comm
 * and the pid as labels. User frames are resolved to (file, offset) while
 * the process lives (lib/procmaps fed by perf's MMAP2, COMM and FORK
 * records) and named at the end by lib/symbolizer; kallsyms is read before
 * the events are enabled, so the profile does not show it being read.
 * Samples of the idle task and of the agent itself are left out and
 * counted in the profile's comments. One session at a time: a request
 * during one gets -EBUSY and the seconds left. */
#include "agent.h"
#include "../lib/demangle.h"
#include "../lib/hash.h"
#include "../lib/perf.h"
#include "../lib/pprof.h"
#include "../lib/symbolizer.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MAX_FRAMES 128
#define USER_TAG (1ull << 62)	/* a user frame: an index into uframes */

static pthread_mutex_t busy_lock = PTHREAD_MUTEX_INITIALIZER;
static bool busy;
static uint64_t busy_end_ns;

struct chain {
	uint64_t count, ns;
	uint32_t pid;
	int64_t comm;		/* pprof string index */
	uint32_t n;
	uint64_t f[];		/* leaf first */
};

struct uframe {
	uint32_t file;		/* procmaps file, or PROCMAPS_ANON */
	pid_t pid;		/* anonymous code only */
	uint64_t off;		/* file offset, or the address */
};

struct tcomm {
	uint32_t tid;
	int64_t comm;
};

struct prof {
	struct agent *a;
	struct pprof p;
	struct symbolizer *z;
	struct perf_ring *rings;
	int nrings;
	uint64_t sample_type;
	pid_t self;
	struct htab chains, uindex, comms;
	struct uframe *uframes;
	size_t nuframes, capuframes;
	uint64_t idle, own, lost, bad;
};

/* ---- interning ---- */

struct chain_key {
	uint32_t pid;
	int64_t comm;
	const uint64_t *f;
	uint32_t n;
};

static bool chain_eq(const void *val, const void *key)
{
	const struct chain *c = val;
	const struct chain_key *k = key;

	return c->pid == k->pid && c->comm == k->comm && c->n == k->n &&
	       !memcmp(c->f, k->f, k->n * sizeof(*k->f));
}

static void add_chain(struct prof *pr, uint32_t pid, int64_t comm,
		      const uint64_t *f, uint32_t n, uint64_t ns)
{
	struct chain_key k = { pid, comm, f, n };
	uint64_t h = hash_bytes(f, n * sizeof(*f),
				hash_u64(pid) ^ (uint64_t)comm);
	struct chain *c = htab_get(&pr->chains, h, chain_eq, &k);

	if (!c) {
		c = sd_malloc(sizeof(*c) + n * sizeof(*f));
		*c = (struct chain){ .pid = pid, .comm = comm, .n = n };
		memcpy(c->f, f, n * sizeof(*f));
		htab_put(&pr->chains, h, c);
	}
	c->count++;
	c->ns += ns;
}

struct uframe_key {
	const struct prof *pr;
	struct uframe u;
};

static bool uframe_eq(const void *val, const void *key)
{
	const struct uframe_key *k = key;
	const struct uframe *u = &k->pr->uframes[(uintptr_t)val - 1];

	return u->file == k->u.file && u->off == k->u.off &&
	       u->pid == k->u.pid;
}

/* A user address of pid at time t as a frame: its file and offset while
 * the process still exists. */
static uint64_t user_frame(struct prof *pr, pid_t pid, uint64_t addr,
			   uint64_t t)
{
	struct uframe_key k = { pr, { PROCMAPS_ANON, pid, addr } };
	uint64_t h;
	void *v;

	if (procmaps_find(symbolizer_maps(pr->z), pid, addr, t, &k.u.file,
			  &k.u.off))
		k.u.pid = 0;
	else
		k.u = (struct uframe){ PROCMAPS_ANON, pid, addr };
	h = hash_u64(k.u.off ^ ((uint64_t)k.u.file << 44) ^
		     ((uint64_t)(uint32_t)k.u.pid << 20));
	v = htab_get(&pr->uindex, h, uframe_eq, &k);
	if (!v) {
		sd_grow(&pr->uframes, &pr->capuframes, pr->nuframes + 1,
			sizeof(*pr->uframes));
		pr->uframes[pr->nuframes++] = k.u;
		v = (void *)(uintptr_t)pr->nuframes;
		htab_put(&pr->uindex, h, v);
	}
	return USER_TAG | ((uintptr_t)v - 1);
}

static bool tcomm_eq(const void *val, const void *key)
{
	return ((const struct tcomm *)val)->tid == *(const uint32_t *)key;
}

static void set_comm(struct prof *pr, uint32_t tid, const char *comm)
{
	struct tcomm *t = htab_get(&pr->comms, hash_u64(tid), tcomm_eq, &tid);

	if (!t) {
		t = sd_malloc(sizeof(*t));
		t->tid = tid;
		htab_put(&pr->comms, hash_u64(tid), t);
	}
	t->comm = pprof_str(&pr->p, comm);
}

/* The thread's name: from its COMM records, else read once from /proc. */
static int64_t comm_of(struct prof *pr, uint32_t pid, uint32_t tid)
{
	struct tcomm *t = htab_get(&pr->comms, hash_u64(tid), tcomm_eq, &tid);
	char path[64], *s;

	if (t)
		return t->comm;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	s = sd_read_file(path, NULL);
	if (s)
		s[strcspn(s, "\n")] = '\0';
	set_comm(pr, tid, s && *s ? s : "?");
	free(s);
	return comm_of(pr, pid, tid);
}

/* ---- sampling ---- */

static int open_events(struct prof *pr, uint64_t hz, char *err, size_t elen)
{
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	int ncpus = nconf > 0 ? (int)nconf : 1;
	bool *online = sd_calloc((size_t)ncpus, sizeof(bool));
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_attr at;

	if (sd_read_cpulist("/sys/devices/system/cpu/online", online, ncpus))
		for (int i = 0; i < ncpus; i++)
			online[i] = true;
	memset(&at, 0, sizeof(at));
	at.size = sizeof(at);
	at.type = PERF_TYPE_SOFTWARE;
	at.config = PERF_COUNT_SW_CPU_CLOCK;
	at.sample_period = 1000000000ull / hz;
	at.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN;
	at.exclude_hv = 1;
	at.disabled = 1;
	at.sample_id_all = 1;
	at.mmap = at.mmap2 = at.comm = at.comm_exec = at.task = 1;
	at.watermark = 1;
	pr->sample_type = at.sample_type;
	pr->rings = sd_calloc((size_t)ncpus, sizeof(*pr->rings));
	for (int cpu = 0; cpu < ncpus; cpu++) {
		size_t pages = 128;	/* 512 KiB: a busy machine's mmap and
					 * exec records come in bursts */
		char why[256];
		int fd, e;

		if (!online[cpu])
			continue;
		at.wakeup_watermark = (uint32_t)(pages * (size_t)psz / 4);
		fd = perf_event_open(&at, -1, cpu, -1, 0);
		if (fd < 0) {
			snprintf(err, elen, "cannot open cpu-clock events on "
				 "CPU %d: %s", cpu,
				 perf_open_error(fd, false, why, sizeof(why)));
			free(online);
			return fd;
		}
		/* under the locked-memory limit: halve until it fits */
		while ((e = perf_ring_map(&pr->rings[pr->nrings], fd, cpu,
					  pages)) == -EPERM && pages > 2)
			pages /= 2;
		if (e) {
			snprintf(err, elen, "cannot map the perf ring buffer "
				 "of CPU %d: %s (see kernel.perf_event_mlock_kb)",
				 cpu, strerror(-e));
			close(fd);
			free(online);
			return e;
		}
		pr->nrings++;
	}
	free(online);
	return 0;
}

/* Side band: the mappings through lib/symbolizer (hot and dtrace feed it
 * the same way); a COMM record also names the thread for the labels. */
static void side_band(struct prof *pr, const struct perf_event_header *h)
{
	const struct {
		uint32_t pid, tid;
		char comm[];
	} *c = (const void *)(h + 1);

	symbolizer_side_band(pr->z, h, pr->sample_type);
	if (h->type != PERF_RECORD_COMM ||
	    h->size < sizeof(*h) + sizeof(*c) + 1 ||
	    !memchr(c->comm, '\0', h->size - sizeof(*h) - sizeof(*c)))
		return;
	set_comm(pr, c->tid, c->comm);
}

static void sample(struct prof *pr, const struct perf_event_header *h)
{
	uint64_t f[MAX_FRAMES], ctx = 0;
	struct perf_sample ps;
	bool first_k = true, first_u = true;
	uint32_t n = 0;

	if (perf_parse_sample(h, pr->sample_type, &ps)) {
		pr->bad++;
		return;
	}
	if (ps.pid == 0) {
		pr->idle++;
		return;
	}
	if (ps.pid == (uint32_t)pr->self) {
		pr->own++;
		return;
	}
	/* callers' return addresses minus one: named inside the caller */
	for (uint64_t i = 0; i < ps.nr && n < MAX_FRAMES; i++) {
		uint64_t v = ps.chain[i];

		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = v;
			continue;
		}
		if (ctx == (uint64_t)PERF_CONTEXT_KERNEL) {
			f[n++] = first_k ? v : v - 1;
			first_k = false;
		} else if (ctx == (uint64_t)PERF_CONTEXT_USER && v) {
			f[n++] = user_frame(pr, (pid_t)ps.pid,
					    first_u ? v : v - 1, ps.time);
			first_u = false;
		}
	}
	if (!n)
		f[n++] = (ps.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
			 PERF_RECORD_MISC_USER ?
			 user_frame(pr, (pid_t)ps.pid, ps.ip, ps.time) : ps.ip;
	add_chain(pr, ps.pid, comm_of(pr, ps.pid, ps.tid), f, n, ps.period);
}

static void drain(struct prof *pr)
{
	const struct perf_event_header *h;
	uint64_t pos;

	/* side band first: a sample is resolved against the maps of its
	 * time, whichever CPU's ring recorded an exec or mmap */
	for (int i = 0; i < pr->nrings; i++) {
		perf_ring_begin(&pr->rings[i]);
		pos = perf_ring_tail(&pr->rings[i]);
		while ((h = perf_ring_next(&pr->rings[i], &pos)))
			if (h->type != PERF_RECORD_SAMPLE)
				side_band(pr, h);
	}
	for (int i = 0; i < pr->nrings; i++) {
		pos = perf_ring_tail(&pr->rings[i]);
		while ((h = perf_ring_next(&pr->rings[i], &pos))) {
			if (h->type == PERF_RECORD_SAMPLE) {
				sample(pr, h);
			} else if (h->type == PERF_RECORD_LOST &&
				   h->size >= sizeof(*h) + 16) {
				uint64_t v[2];

				memcpy(v, h + 1, sizeof(v));
				pr->lost += v[1];
			}
		}
		perf_ring_end(&pr->rings[i]);
	}
}

static void run(struct prof *pr, uint64_t ns)
{
	struct pollfd *pfd = sd_calloc((size_t)pr->nrings + 1, sizeof(*pfd));
	uint64_t t0 = sd_now_ns();

	for (int i = 0; i < pr->nrings; i++) {
		pfd[i] = (struct pollfd){ .fd = pr->rings[i].fd,
					  .events = POLLIN };
		ioctl(pr->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	for (;;) {
		uint64_t now = sd_now_ns(), left;

		if (now - t0 >= ns || pr->a->stopping)
			break;
		left = ns - (now - t0);
		/* drained at least four times a second: short-lived
		 * processes still have their maps */
		poll(pfd, (nfds_t)pr->nrings, (int)((left < 250000000ull ?
			left : 250000000ull) / 1000000 + 1));
		drain(pr);
	}
	for (int i = 0; i < pr->nrings; i++)
		ioctl(pr->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(pr);
	free(pfd);
}

/* ---- the profile ---- */

struct loc_key {
	uint64_t frame;
	pid_t pid;		/* user frames: locations are per process */
	uint64_t loc;
};

static bool loc_eq(const void *val, const void *key)
{
	const struct loc_key *a = val, *b = key;

	return a->frame == b->frame && a->pid == b->pid;
}

static uint64_t function(struct prof *pr, const char *sym, const char *mod)
{
	char shown[DEMANGLE_MAX], name[DEMANGLE_MAX + 64], sys[DEMANGLE_MAX];
	const char *at = strchr(sym, '@');

	/* clock_gettime@@GLIBC_2.17 is named clock_gettime */
	snprintf(sys, sizeof(sys), "%.*s", at && at != sym ?
		 (int)(at - sym) : (int)strlen(sym), sym);
	demangle_display(sys, shown, sizeof(shown));
	if (mod)
		snprintf(name, sizeof(name), "%s [%s]", shown, mod);
	else
		snprintf(name, sizeof(name), "%s", shown);
	return pprof_function(&pr->p, name, sym, "", 0);
}

static uint64_t kernel_loc(struct prof *pr, uint64_t addr, uint64_t map)
{
	struct pprof_line line = { 0, 0, 0 };
	struct sym_info k;

	if (!symbolizer_kernel(pr->z, addr, &k))
		return pprof_location(&pr->p, map, addr, NULL, 0);
	line.function = function(pr, k.function, k.module == KSYM_KERNEL ?
				 NULL : k.module);
	return pprof_location(&pr->p, map, addr, &line, 1);
}

static uint64_t user_loc(struct prof *pr, const struct uframe *u,
			 uint64_t frame)
{
	struct pprof_line lines[SYM_MAX_LINES];
	struct sym_info r;
	char buf[600];

	symbolizer_file(pr->z, u->pid, u->file, u->off, &r);
	for (int i = 0; i < r.nlines; i++) {
		lines[i].function = function(pr, r.lines[i].function ?
					     r.lines[i].function : "??", NULL);
		lines[i].line = r.lines[i].line;
		lines[i].column = 0;
	}
	if (!r.nlines && r.function) {
		lines[0].function = function(pr, r.function, NULL);
		lines[0].line = lines[0].column = 0;
		r.nlines = 1;
	} else if (!r.nlines) {
		/* no symbol: the file and offset still say where */
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64,
			 r.module ? r.module : "[unknown]", r.offset);
		lines[0].function = pprof_function(&pr->p, buf, buf, "", 0);
		lines[0].line = lines[0].column = 0;
		r.nlines = 1;
	}
	return pprof_location(&pr->p, 0, frame & ~USER_TAG, lines,
			      (size_t)r.nlines);
}

static void build(struct prof *pr, uint64_t hz, uint64_t t0_unix_ns,
		  uint64_t dur_ns)
{
	struct pprof_mapping km = { .limit = UINT64_MAX };
	struct htab locs = { 0 };
	uint64_t kmap, ids[MAX_FRAMES];
	char text[160];

	pprof_add_type(&pr->p, "samples", "count");
	pprof_add_type(&pr->p, "cpu", "nanoseconds");
	pprof_set_period(&pr->p, "cpu", "nanoseconds",
			 (int64_t)(1000000000ull / hz));
	pr->p.time_ns = (int64_t)t0_unix_ns;
	pr->p.duration_ns = (int64_t)dur_ns;
	km.file = pprof_str(&pr->p, "[kernel.kallsyms]");
	km.has_functions = true;
	kmap = pprof_add_mapping(&pr->p, &km);
	for (size_t i = 0; i < pr->chains.cap; i++) {
		struct chain *c = pr->chains.slots[i].val;
		struct pprof_label lb[2] = {
			{ .key = pprof_str(&pr->p, "comm"), .str = c ? c->comm : 0 },
			{ .key = pprof_str(&pr->p, "pid"), .num = c ? c->pid : 0 },
		};
		int64_t vals[2];

		if (!c)
			continue;
		for (uint32_t j = 0; j < c->n; j++) {
			bool user = (c->f[j] >> 62) == 1;
			const struct uframe *u = user ?
				&pr->uframes[c->f[j] & ~USER_TAG] : NULL;
			struct loc_key k = { c->f[j],
					     user && u->file == PROCMAPS_ANON ?
					     u->pid : 0, 0 };
			uint64_t h = hash_u64(k.frame ^ (uint64_t)k.pid << 32);
			struct loc_key *found = htab_get(&locs, h, loc_eq, &k);

			if (!found) {
				found = sd_malloc(sizeof(*found));
				*found = k;
				found->loc = user ? user_loc(pr, u, c->f[j]) :
					     kernel_loc(pr, c->f[j], kmap);
				htab_put(&locs, h, found);
			}
			ids[j] = found->loc;
		}
		vals[0] = (int64_t)c->count;
		vals[1] = (int64_t)c->ns;
		pprof_add_sample(&pr->p, ids, c->n, vals, lb, 2);
	}
	for (size_t i = 0; i < locs.cap; i++)
		free(locs.slots[i].val);
	htab_free(&locs);
	snprintf(text, sizeof(text), "sonde agent: every CPU at %" PRIu64
		 " Hz; left out: %" PRIu64 " idle, %" PRIu64 " of the agent; "
		 "lost %" PRIu64, hz, pr->idle, pr->own, pr->lost);
	pprof_add_comment(&pr->p, text);
}

static void prof_free(struct prof *pr)
{
	for (int i = 0; i < pr->nrings; i++) {
		close(pr->rings[i].fd);
		perf_ring_unmap(&pr->rings[i]);
	}
	free(pr->rings);
	for (size_t i = 0; i < pr->chains.cap; i++)
		free(pr->chains.slots[i].val);
	htab_free(&pr->chains);
	for (size_t i = 0; i < pr->comms.cap; i++)
		free(pr->comms.slots[i].val);
	htab_free(&pr->comms);
	htab_free(&pr->uindex);
	free(pr->uframes);
	symbolizer_free(pr->z);
	pprof_free(&pr->p);
}

int ag_profile_take(struct agent *a, uint64_t seconds, uint8_t **out,
		    size_t *len, uint64_t *busy_left, char *err, size_t elen)
{
	struct prof pr = { .a = a, .self = getpid() };
	struct timespec ts;
	uint64_t t0;
	int ret;

	pthread_mutex_lock(&busy_lock);
	if (busy) {
		uint64_t now = sd_now_ns();

		*busy_left = busy_end_ns > now ?
			     (busy_end_ns - now + 999999999ull) / 1000000000ull :
			     1;
		pthread_mutex_unlock(&busy_lock);
		return -EBUSY;
	}
	busy = true;
	busy_end_ns = sd_now_ns() + seconds * 1000000000ull;
	pthread_mutex_unlock(&busy_lock);

	pprof_init(&pr.p);
	pr.z = symbolizer_new(0);
	/* kallsyms before the events: its reading is not sampled */
	if (symbolizer_load_kernel(pr.z))
		sd_warn("cannot read /proc/kallsyms: kernel frames stay "
			"addresses");
	ret = open_events(&pr, a->profile_hz, err, elen);
	if (!ret) {
		clock_gettime(CLOCK_REALTIME, &ts);
		t0 = sd_now_ns();
		run(&pr, seconds * 1000000000ull);
		build(&pr, a->profile_hz, (uint64_t)ts.tv_sec * 1000000000ull +
		      (uint64_t)ts.tv_nsec, sd_now_ns() - t0);
		*out = pprof_encode_gzip(&pr.p, len);
	}
	prof_free(&pr);
	pthread_mutex_lock(&busy_lock);
	busy = false;
	pthread_mutex_unlock(&busy_lock);
	return ret;
}
