// SPDX-License-Identifier: GPL-2.0-only
/* symbolizer — addresses to names for every tool. See symbolizer.h. */
#include "symbolizer.h"
#include "dwarf.h"
#include "elfsym.h"
#include "hash.h"
#include "perf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KALLSYMS "/proc/kallsyms"

/* A mapped file, opened on its first address. */
struct symfile {
	bool tried, dwarf_tried;
	struct elfsym *syms;
	struct dsym *dwarf;
	char *base;		/* the path's last element */
};

/* One line of a perf map: [start, end) is name. */
struct pmap_ent {
	uint64_t start, end;
	uint64_t maxend;	/* the largest end of this and every earlier */
	uint32_t name;		/* offset into names */
	uint32_t order;		/* line number: a later line wins */
};

/* A JIT's /tmp/perf-PID.map, read on the first anonymous address of its
 * process and again when it has grown and an address is missing. */
struct perfmap {
	pid_t pid;
	char path[64], base[32];
	struct pmap_ent *v;
	size_t n, cap;
	struct sbuf names;
	off_t size;		/* when read; -1: never read */
};

/* A process followed through a perf side-band event. */
struct follow {
	pid_t pid;
	struct perf_ring ring;
};

#define FOLLOW_PAGES 16
#define FOLLOW_SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

struct symbolizer {
	unsigned flags;
	struct procmaps maps;
	struct follow *follows;
	size_t nfollows, capfollows;
	struct symfile *files;	/* by procmaps file index */
	size_t nfiles;
	struct elfsym *vdso;
	bool vdso_tried;
	struct htab perfmaps;	/* pid -> struct perfmap */
	/* kernel */
	const struct ksym_table *ktab;	/* the table lookups use */
	struct ksym_table *kown;	/* read here: ktab, owned */
	struct ksym_table *kfresh;	/* read again for late BPF programs */
	bool ktried, kfresh_tried, kreread;
	int kerr;
};

struct symbolizer *symbolizer_new(unsigned flags)
{
	struct symbolizer *s = sd_calloc(1, sizeof(*s));

	s->flags = flags;
	s->kreread = true;
	procmaps_init(&s->maps);
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->files[i].syms != s->vdso)
			elfsym_close(s->files[i].syms);
		dsym_close(s->files[i].dwarf);
		free(s->files[i].base);
	}
	free(s->files);
	elfsym_close(s->vdso);
	for (size_t i = 0; i < s->perfmaps.cap; i++) {
		struct perfmap *m = s->perfmaps.slots[i].val;

		if (m) {
			free(m->v);
			sbuf_free(&m->names);
			free(m);
		}
	}
	htab_free(&s->perfmaps);
	for (size_t i = 0; i < s->nfollows; i++) {
		close(s->follows[i].ring.fd);
		perf_ring_unmap(&s->follows[i].ring);
	}
	free(s->follows);
	procmaps_free(&s->maps);
	ksym_free(s->kown);
	ksym_free(s->kfresh);
	free(s);
}

struct procmaps *symbolizer_maps(struct symbolizer *s)
{
	return &s->maps;
}

/* ---- following processes ---- */

void symbolizer_side_band(struct symbolizer *s,
			  const struct perf_event_header *h,
			  uint64_t sample_type)
{
	struct procmaps *pm = &s->maps;
	const char *p = (const char *)(h + 1);
	struct perf_sample id;
	uint32_t v[4];

	if (perf_parse_sample_id(h, sample_type, &id))
		return;
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		const struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_gen;
			uint32_t prot, flags;
			char filename[];
		} *m = (const void *)p;

		if (h->size < sizeof(*h) + sizeof(*m) ||
		    !memchr(m->filename, '\0', h->size - sizeof(*h) - sizeof(*m)))
			return;
		procmaps_mmap(pm, (pid_t)m->pid, m->addr, m->len, m->pgoff,
			      m->filename, id.time);
		break;
	}
	case PERF_RECORD_COMM:
		if (h->size < sizeof(*h) + 4)
			return;
		memcpy(v, p, 4);
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			procmaps_exec(pm, (pid_t)v[0], id.time);
		break;
	case PERF_RECORD_FORK:	/* pid, ppid, tid, ptid */
		if (h->size < sizeof(*h) + sizeof(v))
			return;
		memcpy(v, p, sizeof(v));
		if (v[0] != v[1])
			procmaps_fork(pm, (pid_t)v[1], (pid_t)v[0], id.time);
		break;
	}
}

int symbolizer_follow(struct symbolizer *s, pid_t pid)
{
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	int ncpus = nconf > 0 ? (int)nconf : 1, opened = 0, err = 0;
	bool *online = sd_calloc((size_t)ncpus, sizeof(*online));
	struct perf_event_attr a;

	if (sd_read_cpulist("/sys/devices/system/cpu/online", online, ncpus))
		for (int c = 0; c < ncpus; c++)
			online[c] = true;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = FOLLOW_SAMPLE_TYPE;
	a.sample_id_all = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.inherit = 1;
	/* One event per CPU: the kernel refuses to map an inherited event
	 * that follows a task on every CPU (cpu -1). */
	for (int c = 0; c < ncpus && !err; c++) {
		struct follow *f;
		int fd;

		if (!online[c])
			continue;
		fd = perf_event_open(&a, pid, c, -1, 0);
		if (fd < 0) {
			err = fd;
			break;
		}
		sd_grow(&s->follows, &s->capfollows, s->nfollows + 1,
			sizeof(*s->follows));
		f = &s->follows[s->nfollows];
		memset(f, 0, sizeof(*f));
		f->pid = pid;
		err = perf_ring_map(&f->ring, fd, c, FOLLOW_PAGES);
		if (err) {
			close(fd);
			break;
		}
		s->nfollows++;
		opened++;
	}
	free(online);
	if (err) {
		/* all or nothing: a CPU not watched would lose an exec */
		while (opened--) {
			struct follow *f = &s->follows[--s->nfollows];

			close(f->ring.fd);
			perf_ring_unmap(&f->ring);
		}
		return err;
	}
	/* what it has now (mappings made meanwhile come twice: the later
	 * one replaces the same range) */
	procmaps_load(&s->maps, pid);
	return 0;
}

void symbolizer_poll(struct symbolizer *s)
{
	for (size_t i = 0; i < s->nfollows; i++) {
		struct perf_ring *r = &s->follows[i].ring;
		const struct perf_event_header *h;
		uint64_t pos;

		perf_ring_begin(r);
		pos = perf_ring_tail(r);
		while ((h = perf_ring_next(r, &pos)))
			symbolizer_side_band(s, h, FOLLOW_SAMPLE_TYPE);
		perf_ring_end(r);
	}
}

/* ---- kernel ---- */

int symbolizer_load_kernel(struct symbolizer *s)
{
	if (!s->ktried) {
		s->ktried = true;
		s->kown = ksym_load(KALLSYMS);
		s->kerr = s->kown ? 0 : errno;
		s->ktab = s->kown;
	}
	return s->ktab ? 0 : -s->kerr;
}

void symbolizer_use_kernel(struct symbolizer *s, const struct ksym_table *t,
			   bool reread)
{
	ksym_free(s->kown);
	s->kown = NULL;
	s->ktab = t;
	s->ktried = true;
	s->kerr = t ? 0 : ENOENT;
	s->kreread = reread;
}

const struct ksym_table *symbolizer_kernel_table(struct symbolizer *s)
{
	symbolizer_load_kernel(s);
	errno = s->kerr;
	return s->ktab;
}

bool symbolizer_kernel(struct symbolizer *s, uint64_t addr, struct sym_info *out)
{
	struct ksym k;
	bool found;

	memset(out, 0, sizeof(*out));
	out->kernel = true;
	out->module = KSYM_KERNEL;
	out->offset = addr;
	symbolizer_load_kernel(s);
	found = ksym_lookup(s->ktab, addr, &k);
	/* A BPF program loaded after the table was read is only in a fresh
	 * one: read it once, on the first miss. */
	if (!found && s->kreread && s->ktab && !s->ktab->hidden &&
	    !s->kfresh_tried) {
		s->kfresh_tried = true;
		s->kfresh = ksym_load(KALLSYMS);
	}
	if (!found)
		found = ksym_lookup(s->kfresh, addr, &k);
	if (!found)
		return false;
	out->module = k.module;
	out->function = k.name;
	out->offset = addr - k.addr;
	return true;
}

/* ---- perf maps ---- */

static bool perfmap_eq(const void *val, const void *key)
{
	return ((const struct perfmap *)val)->pid == *(const pid_t *)key;
}

static int pmap_cmp(const void *a, const void *b)
{
	const struct pmap_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Who may have written a process's perf map: root, the process's owner,
 * or whoever runs sonde (perf asks the same). */
static bool trusted_owner(pid_t pid, uid_t uid)
{
	char proc[32];
	struct stat st;

	if (uid == 0 || uid == geteuid())
		return true;
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	return stat(proc, &st) == 0 && st.st_uid == uid;
}

/* "START SIZE name" per line, START and SIZE in hex. Lines that do not
 * parse are skipped. */
static void perfmap_parse(struct perfmap *m, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint32_t order = 0;

	while ((len = getline(&line, &cap, f)) > 0) {
		char *p = line, *end;
		uint64_t start, size;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		errno = 0;
		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || errno)
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || errno || !size ||
		    start + size < start || !end[1] ||
		    m->names.len > UINT32_MAX - (size_t)len)
			continue;
		sd_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v));
		m->v[m->n++] = (struct pmap_ent){
			.start = start, .end = start + size,
			.name = (uint32_t)m->names.len, .order = order++,
		};
		sbuf_put(&m->names, end + 1, strlen(end + 1) + 1);
	}
	free(line);
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), pmap_cmp);
	for (size_t i = 0; i < m->n; i++)
		m->v[i].maxend = i && m->v[i - 1].maxend > m->v[i].end ?
				 m->v[i - 1].maxend : m->v[i].end;
}

/* (Re)read the map when its size changed since it was read. */
static void perfmap_refresh(struct perfmap *m)
{
	struct stat st;
	FILE *f;
	int fd;

	/* never block on a FIFO, never follow a link planted in /tmp */
	fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == m->size ||
	    !trusted_owner(m->pid, st.st_uid) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	m->size = st.st_size;
	m->n = 0;
	sbuf_reset(&m->names);
	perfmap_parse(m, f);
	fclose(f);
}

static const struct pmap_ent *perfmap_find(const struct perfmap *m,
					   uint64_t addr)
{
	const struct pmap_ent *best = NULL;
	size_t lo = 0, hi = m->n;

	while (lo < hi) {	/* entries starting at or below addr: [0, lo) */
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && m->v[i].maxend > addr;)
		if (addr < m->v[i].end && (!best || m->v[i].order > best->order))
			best = &m->v[i];
	return best;
}

static bool perfmap_lookup(struct symbolizer *s, pid_t pid, uint64_t addr,
			   struct sym_info *out)
{
	uint64_t h = hash_u64((uint64_t)pid);
	struct perfmap *m = htab_get(&s->perfmaps, h, perfmap_eq, &pid);
	const struct pmap_ent *e;

	if (pid <= 0)
		return false;
	if (!m) {
		pid_t ns = procmaps_nspid(pid);

		m = sd_calloc(1, sizeof(*m));
		m->pid = pid;
		m->size = -1;
		/* a container's JIT writes its own /tmp, named by the pid
		 * it knows itself by (as perf looks for it) */
		if (ns || procmaps_foreign(pid))
			snprintf(m->path, sizeof(m->path),
				 "/proc/%d/root/tmp/perf-%d.map", (int)pid,
				 (int)(ns ? ns : pid));
		else
			snprintf(m->path, sizeof(m->path), "/tmp/perf-%d.map",
				 (int)pid);
		snprintf(m->base, sizeof(m->base), "perf-%d.map",
			 (int)(ns ? ns : pid));
		sbuf_init(&m->names);
		htab_put(&s->perfmaps, h, m);
		perfmap_refresh(m);
	}
	e = perfmap_find(m, addr);
	if (!e && m->size >= 0) {	/* the JIT may have written more */
		perfmap_refresh(m);
		e = perfmap_find(m, addr);
	}
	if (!e)
		return false;
	out->module = m->base;
	out->path = m->path;
	out->function = m->names.buf + e->name;
	out->offset = addr - e->start;
	if (s->flags & SYMBOLIZER_LINES) {
		out->nlines = 1;
		out->lines[0].function = out->function;
	}
	return true;
}

/* ---- mapped files ---- */

static bool is_vdso(const char *path)
{
	return !strcmp(path, "[vdso]");
}

static struct symfile *get_file(struct symbolizer *s, uint32_t file)
{
	struct symfile *f;
	const char *path = procmaps_file(&s->maps, file);

	if (file >= s->nfiles) {
		s->files = sd_realloc(s->files, (file + 1) * sizeof(*s->files));
		memset(s->files + s->nfiles, 0,
		       (file + 1 - s->nfiles) * sizeof(*s->files));
		s->nfiles = file + 1;
	}
	f = &s->files[file];
	if (f->tried)
		return f;
	f->tried = true;
	f->base = sd_strdup(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	if (file == PROCMAPS_ANON)
		return f;
	if (is_vdso(path)) {
		if (!s->vdso_tried) {
			s->vdso_tried = true;
			s->vdso = elfsym_open_vdso();
		}
		f->syms = s->vdso;
	} else if (path[0] == '/') {
		f->syms = elfsym_open(path);
	}
	return f;
}

static struct dsym *get_dwarf(struct symbolizer *s, uint32_t file,
			      struct symfile *f)
{
	const char *path = procmaps_file(&s->maps, file);

	if (!f->dwarf_tried) {
		f->dwarf_tried = true;
		if (f->syms && path[0] == '/')
			f->dwarf = dsym_open(path, NULL);
	}
	return f->dwarf;
}

void symbolizer_file_info(struct symbolizer *s, uint32_t file,
			  struct sym_file_info *out)
{
	struct symfile *f = get_file(s, file);
	struct dsym *d = s->flags & SYMBOLIZER_LINES ?
			 get_dwarf(s, file, f) : NULL;

	out->build_id = f->syms ? elfsym_build_id(f->syms) : "";
	out->has_symbols = f->syms != NULL;
	out->has_lines = d && dsym_has_dwarf(d);
}

/* A C++ or Rust symbol (_Z..., _R...), as linkage names are. */
static bool mangled(const char *name)
{
	return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

/* The inline chain of an ELF address from DWARF; 0 levels when none. */
static void add_lines(struct symbolizer *s, uint32_t file,
		      struct symfile *f, uint64_t addr, struct sym_info *out)
{
	struct dsym_loc locs[SYM_MAX_LINES];
	struct dsym *d = get_dwarf(s, file, f);
	int n = d ? dsym_lookup(d, addr, locs, SYM_MAX_LINES) : 0;

	for (int i = 0; i < n; i++) {
		struct sym_line *l = &out->lines[i];

		/* The linkage name carries the path a C++ or Rust DIE's
		 * plain name lacks (spin, write_volatile<u64>); the
		 * outermost level's ELF symbol has it already. */
		l->function = locs[i].func;
		if (mangled(locs[i].linkage) && !mangled(l->function))
			l->function = locs[i].linkage;
		l->file = locs[i].file;
		l->line = locs[i].line;
		l->inlined = locs[i].inlined;
	}
	out->nlines = n;
	if (n && !out->function && locs[n - 1].func) {
		out->function = locs[n - 1].func;
		out->offset = locs[n - 1].func_off;
	}
}

bool symbolizer_file(struct symbolizer *s, pid_t pid, uint32_t file,
		     uint64_t off, struct sym_info *out)
{
	struct symfile *f;
	uint64_t addr, delta;
	const char *path;

	memset(out, 0, sizeof(*out));
	out->offset = off;
	if (file == PROCMAPS_ANON) {
		out->module = "[anon]";
		return perfmap_lookup(s, pid, off, out);
	}
	f = get_file(s, file);
	path = procmaps_file(&s->maps, file);
	out->module = f->base;
	out->path = path;
	if (!f->syms)
		return false;
	/* the vDSO image is mapped whole: its offsets are addresses */
	if (!elfsym_off_to_addr(f->syms, off, &addr)) {
		if (!is_vdso(path))
			return false;
		addr = off;
	}
	if ((out->function = elfsym_lookup(f->syms, addr, &delta)))
		out->offset = delta;
	if (s->flags & SYMBOLIZER_LINES) {
		add_lines(s, file, f, addr, out);
		if (!out->nlines && out->function) {
			out->nlines = 1;
			out->lines[0].function = out->function;
		}
	}
	return out->function != NULL;
}

bool symbolizer_user(struct symbolizer *s, pid_t pid, uint64_t addr,
		     uint64_t t, struct sym_info *out)
{
	uint32_t file;
	uint64_t off;

	if (!procmaps_find(&s->maps, pid, addr, t, &file, &off))
		off = addr;
	return symbolizer_file(s, pid, file, off, out);
}
