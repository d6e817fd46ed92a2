// SPDX-License-Identifier: GPL-2.0-only
/* symbolize — libsonde-prof-write.so: turns the runtime's sample log
 * (dump.h) into a pprof profile while the process still exists. Addresses
 * are named by lib/symbolizer against /proc/self/maps (or the maps a raw
 * dump saved): function, file:line and the inline chain from DWARF, the
 * vDSO, JIT code by the process's perf map, kernel addresses through
 * /proc/kallsyms. Each location carries its inlined frames as pprof
 * lines, each mapping its build-id, each sample the thread's id and name
 * as labels, so viewers need no binary.
 *
 * Loaded by the runtime with dlopen only when it writes, so the profiled
 * program carries no elfutils, zlib or protobuf-c while it runs. */
#include "dump.h"
#include "../lib/demangle.h"
#include "../lib/hash.h"
#include "../lib/outfile.h"
#include "../lib/pprof.h"
#include "../lib/symbolizer.h"
#include "../lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_INLINE 32

/* A mapping written to the profile, found by its start address. */
struct map_id {
	uint64_t start;
	uint64_t id;
};

struct sym {
	struct pprof *p;
	struct symbolizer *z;	/* this process's mappings and files */
	struct procmaps *pm;	/* the symbolizer's */
	pid_t pid;
	struct htab map_index;	/* start -> struct map_id */
	struct htab addr_index;	/* address -> location id */
	bool kernel_mapped;
	uint64_t kernel_map;
	uint64_t unresolved;
};

struct addr_key {
	uint64_t addr;
	uint64_t loc;
};

static bool addr_eq(const void *val, const void *key)
{
	return ((const struct addr_key *)val)->addr == *(const uint64_t *)key;
}

static bool map_eq(const void *val, const void *key)
{
	return ((const struct map_id *)val)->start == *(const uint64_t *)key;
}

static uint64_t map_id(struct sym *s, const struct procmaps_map *m)
{
	struct pprof_mapping pm;
	struct sym_file_info fi;
	uint64_t h = hash_u64(m->start);
	struct map_id *k = htab_get(&s->map_index, h, map_eq, &m->start);

	if (k)
		return k->id;
	symbolizer_file_info(s->z, m->file, &fi);
	memset(&pm, 0, sizeof(pm));
	pm.start = m->start;
	pm.limit = m->end;
	pm.offset = m->pgoff;
	pm.file = pprof_str(s->p, procmaps_file(s->pm, m->file));
	pm.build_id = pprof_str(s->p, fi.build_id);
	pm.has_functions = fi.has_symbols;
	pm.has_filenames = pm.has_lines = pm.has_inlines = fi.has_lines;
	k = sd_malloc(sizeof(*k));
	k->start = m->start;
	k->id = pprof_add_mapping(s->p, &pm);
	htab_put(&s->map_index, h, k);
	return k->id;
}

/* A function named by its symbol. The system name is the symbol as the
 * table has it; the name is what a reader wants: without the symbol
 * version (clock_gettime@@GLIBC_2.17 -> clock_gettime) and, for C++ and
 * Rust, demangled (_ZN2ns1SIlE4spinEl -> ns::S<long>::spin(long),
 * _ZN3std2io5stdio6_print17h...E -> std::io::stdio::_print). */
static uint64_t named_function(struct sym *s, const char *sym, const char *file)
{
	const char *at = strchr(sym, '@');
	char buf[DEMANGLE_MAX], shown[DEMANGLE_MAX];

	if (at && at != sym) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(at - sym), sym);
		return pprof_function(s->p, demangle_name(buf, DEMANGLE_ALL,
				      shown, sizeof(shown)), sym, file, 0);
	}
	return pprof_function(s->p, demangle_name(sym, DEMANGLE_ALL, shown,
						  sizeof(shown)),
			      sym, file, 0);
}

/* The pprof location of a user-space address. */
static uint64_t user_location(struct sym *s, uint64_t addr)
{
	struct pprof_line lines[SYM_MAX_LINES];
	struct procmaps_map m;
	struct sym_file_info fi;
	struct sym_info r;
	uint64_t mapping = 0;
	bool in_file;

	if (procmaps_lookup(s->pm, s->pid, addr, 0, &m))
		mapping = map_id(s, &m);
	in_file = mapping && m.file != PROCMAPS_ANON;
	symbolizer_file(s->z, s->pid, in_file ? m.file : PROCMAPS_ANON,
			in_file ? addr - m.start + m.pgoff : addr, &r);
	for (int i = 0; i < r.nlines; i++) {
		const char *fn = r.lines[i].function;

		lines[i].function = named_function(s, fn ? fn : "??",
			r.lines[i].file ? r.lines[i].file : "");
		lines[i].line = r.lines[i].line;
		lines[i].column = 0;
	}
	if (r.nlines == 0 && in_file &&
	    (symbolizer_file_info(s->z, m.file, &fi), fi.has_symbols)) {
		/* No symbol: name it by the file and offset so reports still
		 * tell where it was. */
		char buf[512];

		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, r.module, r.offset);
		lines[0].function = pprof_function(s->p, buf, buf, "", 0);
		lines[0].line = 0;
		lines[0].column = 0;
		s->unresolved++;
		return pprof_location(s->p, mapping, addr, lines, 1);
	}
	if (r.nlines == 0)
		s->unresolved++;
	return pprof_location(s->p, mapping, addr, lines, (size_t)r.nlines);
}

static uint64_t kernel_location(struct sym *s, uint64_t addr)
{
	struct pprof_line line = { 0, 0, 0 };
	struct sym_info k;

	if (!s->kernel_mapped) {
		const struct ksym_table *t = symbolizer_kernel_table(s->z);
		struct pprof_mapping pm;

		s->kernel_mapped = true;
		memset(&pm, 0, sizeof(pm));
		pm.start = 0;
		pm.limit = UINT64_MAX;
		pm.file = pprof_str(s->p, "[kernel.kallsyms]");
		pm.build_id = pprof_str(s->p, "");
		pm.has_functions = t && !t->hidden;
		s->kernel_map = pprof_add_mapping(s->p, &pm);
	}
	if (symbolizer_kernel(s->z, addr, &k)) {
		/* kallsyms names are under 512 bytes (KSYM_NAME_LEN) */
		char buf[512 + 64], name[DEMANGLE_MAX + 64],
		     shown[DEMANGLE_MAX];
		const char *d = demangle_display(k.function, shown,
						 sizeof(shown));

		/* Rust-for-Linux symbols are named demangled, as user ones */
		if (k.module == KSYM_KERNEL) {
			snprintf(buf, sizeof(buf), "%s", k.function);
			snprintf(name, sizeof(name), "%s", d);
		} else {
			snprintf(buf, sizeof(buf), "%s [%s]", k.function,
				 k.module);
			snprintf(name, sizeof(name), "%s [%s]", d, k.module);
		}
		line.function = pprof_function(s->p, name, buf, "", 0);
		return pprof_location(s->p, s->kernel_map, addr, &line, 1);
	}
	s->unresolved++;
	return pprof_location(s->p, s->kernel_map, addr, NULL, 0);
}

static uint64_t location(struct sym *s, uint64_t addr, bool kernel)
{
	struct addr_key *k;
	uint64_t h = hash_u64(addr ^ (kernel ? 1ull << 63 : 0));

	/* Kernel and user addresses never collide on x86_64. */
	if ((k = htab_get(&s->addr_index, h, addr_eq, &addr)))
		return k->loc;
	k = sd_malloc(sizeof(*k));
	k->addr = addr;
	k->loc = kernel ? kernel_location(s, addr) : user_location(s, addr);
	htab_put(&s->addr_index, h, k);
	return k->loc;
}

/* The process's start time (jiffies since boot, /proc/self/stat field 22),
 * which an exec keeps: the identity of the process across its images. */
static unsigned long long proc_start(void)
{
	char *buf = sd_read_file("/proc/self/stat", NULL), *p;
	unsigned long long t = 0;

	if (!buf)
		return 0;
	p = strrchr(buf, ')');
	if (p) {
		p += 2;
		/* field 3 is at p; field 22 is 19 fields on */
		for (int i = 0; i < 19 && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (p)
			t = strtoull(p, NULL, 10);
	}
	free(buf);
	return t;
}

static bool has_comment(const struct pprof *p, const char *text)
{
	for (size_t i = 0; i < p->ncomments; i++)
		if (!strcmp(pprof_string(p, p->comments[i]), text))
			return true;
	return false;
}

static int add_samples(struct sym *s, const struct sprof_run *run,
		       uint64_t *totals)
{
	const char *p = run->log, *end = p + run->log_len;
	uint64_t locs[256];
	int64_t key_thread = pprof_str(s->p, "thread");
	int64_t key_tid = pprof_str(s->p, "tid");

	while (p < end) {
		struct sprof_thread t;
		struct pprof_label labels[2];
		char name[17];

		if ((size_t)(end - p) < sizeof(t))
			return -EPROTO;
		memcpy(&t, p, sizeof(t));
		p += sizeof(t);
		memcpy(name, t.name, 16);
		name[16] = '\0';
		labels[0] = (struct pprof_label){ key_thread,
			pprof_str(s->p, name[0] ? name : "?"), 0, 0 };
		labels[1] = (struct pprof_label){ key_tid, 0, t.tid, 0 };
		totals[0] += t.signals;
		totals[1] += t.dropped;
		totals[2] += t.truncated;
		for (uint32_t i = 0; i < t.nstacks; i++) {
			struct sprof_stack k;
			size_t n;
			int64_t vals[2];

			if ((size_t)(end - p) < sizeof(k))
				return -EPROTO;
			memcpy(&k, p, sizeof(k));
			n = (size_t)k.nkernel + k.nuser;
			if ((size_t)(end - p) < sizeof(k) + n * 8 ||
			    n > ARRAY_SIZE(locs))
				return -EPROTO;
			for (size_t j = 0; j < n; j++) {
				uint64_t a;

				memcpy(&a, p + sizeof(k) + j * 8, 8);
				locs[j] = location(s, a, j < k.nkernel);
			}
			p += sizeof(k) + n * 8;
			vals[0] = (int64_t)k.count;
			vals[1] = (int64_t)k.ns;
			pprof_add_sample(s->p, locs, n, vals, labels, 2);
		}
	}
	return 0;
}

static void sym_free(struct sym *s)
{
	for (size_t i = 0; i < s->map_index.cap; i++)
		free(s->map_index.slots[i].val);
	htab_free(&s->map_index);
	for (size_t i = 0; i < s->addr_index.cap; i++)
		free(s->addr_index.slots[i].val);
	htab_free(&s->addr_index);
	symbolizer_free(s->z);
}

/* An earlier image's profile is merged only from a regular file of
 * bounded size (sonde's own, as its comment then says): never from a
 * device, a FIFO or a terminal, which would be read without end or
 * block the program's exit. */
#define MERGE_FILE_MAX (64u << 20)
#define MERGE_MAX (512u << 20)

static bool mergeable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size <= MERGE_FILE_MAX;
}

/* Through lib/outfile: a regular file is replaced atomically, anything
 * else (/dev/null, a FIFO, a terminal) written through without blocking:
 * a FIFO nobody reads fails rather than hold the program's exit. */
static int write_out(const struct pprof *p, const char *path)
{
	struct sd_outfile of;
	size_t len;
	uint8_t *buf;
	int err = sd_outfile_open(&of, path, 0644, SD_OUT_NONBLOCK);

	if (err)
		return err;
	buf = pprof_encode_gzip(p, &len);
	err = sd_outfile_write(&of, buf, len);
	if (err)
		sd_outfile_discard(&of);
	else
		err = sd_outfile_close(&of);
	if (err && sd_outfile_kept(&of))
		unlink(sd_outfile_kept(&of));
	sd_outfile_free(&of);
	free(buf);
	return err;
}

EXPORT int sonde_prof_write(const struct sprof_run *run, char *err,
			    size_t errlen);

int sonde_prof_write(const struct sprof_run *run, char *err, size_t errlen)
{
	struct pprof p;
	struct sym s;
	char ident[128], buf[512];
	uint64_t totals[3] = { 0, 0, 0 };
	bool merged = false;
	int ret;

	if (run->version != SPROF_VERSION) {
		snprintf(err, errlen, "runtime and writer versions differ");
		return -EINVAL;
	}
	sd_set_prog("sonde prof");
	pprof_init(&p);
	memset(&s, 0, sizeof(s));
	s.p = &p;

	/* An earlier image of this process (before an exec) wrote its part:
	 * the comment naming the process says so. */
	snprintf(ident, sizeof(ident), "sonde-prof: pid %d, started at %llu",
		 (int)run->pid, run->maps ? (unsigned long long)run->starttime :
		 proc_start());
	if (mergeable(run->out_path)) {
		struct pprof old;

		pprof_init(&old);
		if (pprof_read_max(&old, run->out_path, MERGE_MAX) == 0 &&
		    has_comment(&old, ident)) {
			pprof_free(&old);
			ret = pprof_read_max(&p, run->out_path, MERGE_MAX);
			merged = ret == 0;
			if (!merged) {
				pprof_free(&p);
				pprof_init(&p);
			}
		} else {
			pprof_free(&old);
		}
	}
	if (!merged) {
		pprof_add_type(&p, "samples", "count");
		pprof_add_type(&p, "cpu", "nanoseconds");
		pprof_set_period(&p, "cpu", "nanoseconds",
				 (int64_t)run->period_ns);
		p.default_type = pprof_str(&p, "cpu");
		p.time_ns = (int64_t)run->start_ns;
		pprof_add_comment(&p, ident);
	}
	p.duration_ns += (int64_t)run->duration_ns;

	s.z = symbolizer_new(SYMBOLIZER_LINES);
	s.pm = symbolizer_maps(s.z);
	s.pid = run->maps ? run->pid : getpid();
	ret = run->maps ? procmaps_load_text(s.pm, s.pid, run->maps)
			: procmaps_load(s.pm, s.pid);
	if (!ret) {
		/* pprof takes the first mapping for the main binary: the
		 * one holding the program's entry point. */
		struct procmaps_map m;

		if (procmaps_lookup(s.pm, s.pid, run->maps ? run->entry :
				    getauxval(AT_ENTRY), 0, &m))
			map_id(&s, &m);
		ret = add_samples(&s, run, totals);
	}
	if (ret) {
		snprintf(err, errlen, "bad sample log: %s", strerror(-ret));
		goto out;
	}
	snprintf(buf, sizeof(buf),
		 "sonde-prof: %s at %u Hz; %" PRIu64 " signals, %" PRIu64
		 " samples dropped, %" PRIu64 " stacks truncated, %" PRIu64
		 " addresses unresolved, %" PRIu64 " foreign SIGPROF",
		 run->mode == SPROF_PERF ? "perf task-clock" : "thread CPU timers",
		 run->hz, totals[0], totals[1], totals[2], s.unresolved,
		 run->foreign);
	pprof_add_comment(&p, buf);
	if (run->notes) {
		const char *n = run->notes;

		while (*n) {
			const char *nl = strchr(n, '\n');
			size_t len = nl ? (size_t)(nl - n) : strlen(n);

			snprintf(buf, sizeof(buf), "sonde-prof: %.*s", (int)len, n);
			pprof_add_comment(&p, buf);
			n += len + (nl ? 1 : 0);
		}
	}
	ret = write_out(&p, run->out_path);
	if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
out:
	sym_free(&s);
	pprof_free(&p);
	return ret;
}

/* ---- raw dumps ---- */

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int sprof_convert_raw(const char *raw, const char *out, int *sig, char *err,
		      size_t errlen)
{
	size_t len, off;
	char *buf = sd_read_file(raw, &len), *notes = NULL;
	struct sprof_raw h;
	struct sprof_run run;
	int ret;

	*sig = 0;
	if (!buf) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	memcpy(&h, buf, len < sizeof(h) ? len : sizeof(h));
	if (len < sizeof(h) || memcmp(h.magic, SPROF_RAW_MAGIC, 8) ||
	    h.version != SPROF_VERSION) {
		snprintf(err, errlen, "not a sonde prof raw dump (or of another "
			 "version)");
		free(buf);
		return -EINVAL;
	}
	off = sizeof(h);
	if (h.notes_len > len || h.maps_len > len || h.log_len > len ||
	    off + pad8(h.notes_len) + pad8(h.maps_len) + pad8(h.log_len) > len) {
		snprintf(err, errlen, "truncated raw dump");
		free(buf);
		return -EPROTO;
	}
	*sig = h.signal;
	memset(&run, 0, sizeof(run));
	run.version = SPROF_VERSION;
	run.mode = (enum sprof_mode)h.mode;
	run.pid = h.pid;
	run.hz = h.hz;
	run.period_ns = h.period_ns;
	run.start_ns = h.start_ns;
	run.duration_ns = h.duration_ns;
	run.foreign = h.foreign;
	notes = sd_strndup(buf + off, h.notes_len);
	off += pad8(h.notes_len);
	run.maps = sd_strndup(buf + off, h.maps_len);
	off += pad8(h.maps_len);
	run.log = buf + off;
	run.log_len = h.log_len;
	run.notes = notes;
	run.out_path = out;
	run.starttime = h.starttime;
	run.entry = h.entry;
	ret = sonde_prof_write(&run, err, errlen);
	free(run.maps);
	free(notes);
	free(buf);
	return ret;
}
