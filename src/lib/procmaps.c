// SPDX-License-Identifier: GPL-2.0-only
/* procmaps — time-versioned user-space mappings per process. See
 * procmaps.h. */
#include "procmaps.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T_END UINT64_MAX

struct pm_map {
	uint64_t start, end, pgoff;
	uint64_t t_from, t_to;
	uint32_t file;
};

struct pm_proc {
	pid_t pid;
	bool foreign;		/* another mount namespace than ours */
	struct pm_map *maps;
	size_t n, cap;
};

bool procmaps_foreign(pid_t pid)
{
	char path[64], mine[64], theirs[64];
	ssize_t a, b;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	a = readlink("/proc/self/ns/mnt", mine, sizeof(mine) - 1);
	b = readlink(path, theirs, sizeof(theirs) - 1);
	return a > 0 && b > 0 && (a != b || memcmp(mine, theirs, (size_t)a));
}

void procmaps_init(struct procmaps *pm)
{
	memset(pm, 0, sizeof(*pm));
	/* index 0: anonymous code */
	sd_grow(&pm->files, &pm->capfiles, 1, sizeof(*pm->files));
	pm->files[pm->nfiles++] = sd_strdup("[anon]");
}

void procmaps_free(struct procmaps *pm)
{
	for (size_t i = 0; i < pm->procs.cap; i++) {
		struct pm_proc *p = pm->procs.slots[i].val;

		if (p) {
			free(p->maps);
			free(p);
		}
	}
	htab_free(&pm->procs);
	htab_free(&pm->byname);
	for (size_t i = 0; i < pm->nfiles; i++)
		free(pm->files[i]);
	free(pm->files);
	memset(pm, 0, sizeof(*pm));
}

static bool proc_eq(const void *val, const void *key)
{
	return ((const struct pm_proc *)val)->pid == *(const pid_t *)key;
}

static struct pm_proc *get_proc(struct procmaps *pm, pid_t pid, bool create)
{
	uint64_t h = hash_u64((uint64_t)pid);
	struct pm_proc *p = htab_get(&pm->procs, h, proc_eq, &pid);

	if (!p && create) {
		p = sd_calloc(1, sizeof(*p));
		p->pid = pid;
		p->foreign = pid > 0 && procmaps_foreign(pid);
		htab_put(&pm->procs, h, p);
	}
	return p;
}

struct name_key {
	const struct procmaps *pm;
	const char *path;
};

/* byname stores file index + 1 as the pointer value (never NULL). */
static bool name_eq(const void *val, const void *key)
{
	const struct name_key *k = key;

	return strcmp(k->pm->files[(uintptr_t)val - 1], k->path) == 0;
}

static uint32_t intern_path(struct procmaps *pm, const char *path);

/* A file of process p: in a foreign mount namespace, the same path seen
 * through /proc/PID/root (build-ids and debug files are then looked up
 * in the host's directories, by lib/elfsym and lib/dwarf). */
static uint32_t intern_file(struct procmaps *pm, const struct pm_proc *p,
			    const char *path)
{
	char *full;
	uint32_t i;

	if (!p->foreign || !path || path[0] != '/')
		return intern_path(pm, path);
	full = sd_malloc(strlen(path) + 32);
	sprintf(full, "/proc/%d/root%s", (int)p->pid, path);
	i = intern_path(pm, full);
	free(full);
	return i;
}

static uint32_t intern_path(struct procmaps *pm, const char *path)
{
	struct name_key key = { pm, path };
	uint64_t h;
	void *v;

	if (!path || !*path || strcmp(path, "[heap]") == 0 ||
	    strncmp(path, "[stack", 6) == 0 || strncmp(path, "[anon", 5) == 0)
		return PROCMAPS_ANON;
	h = hash_bytes(path, strlen(path), 0);
	v = htab_get(&pm->byname, h, name_eq, &key);
	if (v)
		return (uint32_t)((uintptr_t)v - 1);
	sd_grow(&pm->files, &pm->capfiles, pm->nfiles + 1, sizeof(*pm->files));
	pm->files[pm->nfiles] = sd_strdup(path);
	htab_put(&pm->byname, h, (void *)(uintptr_t)(pm->nfiles + 1));
	return (uint32_t)pm->nfiles++;
}

static void add_map(struct pm_proc *p, uint64_t start, uint64_t end,
		    uint64_t pgoff, uint32_t file, uint64_t t)
{
	/* A new mapping replaces whatever overlapped it from now on. */
	for (size_t i = 0; i < p->n; i++) {
		struct pm_map *m = &p->maps[i];

		if (m->t_to == T_END && m->start < end && start < m->end)
			m->t_to = t;
	}
	sd_grow(&p->maps, &p->cap, p->n + 1, sizeof(*p->maps));
	p->maps[p->n++] = (struct pm_map){ start, end, pgoff, t, T_END, file };
}

bool procmaps_parse_line(const char *line, uint64_t *start, uint64_t *end,
			 uint64_t *pgoff, const char **path)
{
	char perms[5];
	int n = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*x:%*x %*u%n",
		   start, end, perms, pgoff, &n) < 4 || n == 0)
		return false;
	if (perms[2] != 'x')
		return false;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	*path = line;
	return true;
}

int procmaps_load_text(struct procmaps *pm, pid_t pid, char *text)
{
	char *line, *save = NULL;
	struct pm_proc *p = get_proc(pm, pid, true);

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint64_t start, end, pgoff;
		const char *path;
		char *del;

		if (!procmaps_parse_line(line, &start, &end, &pgoff, &path))
			continue;
		del = strstr(line, " (deleted)");
		if (del && del[10] == '\0')
			*del = '\0';
		add_map(p, start, end, pgoff, intern_file(pm, p, path), 0);
	}
	return 0;
}

int procmaps_load(struct procmaps *pm, pid_t pid)
{
	char fname[64], *buf;

	snprintf(fname, sizeof(fname), "/proc/%d/maps", (int)pid);
	buf = sd_read_file(fname, NULL);
	get_proc(pm, pid, true);	/* remember the pid even if gone */
	if (!buf)
		return -errno;
	procmaps_load_text(pm, pid, buf);
	free(buf);
	return 0;
}

void procmaps_mmap(struct procmaps *pm, pid_t pid, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *path, uint64_t t)
{
	struct pm_proc *p = get_proc(pm, pid, false);

	if (!p) {
		/* First news of this process: what it had before comes from
		 * /proc, valid from the beginning. */
		procmaps_load(pm, pid);
		p = get_proc(pm, pid, true);
	}
	add_map(p, start, start + len, pgoff, intern_file(pm, p, path), t);
}

void procmaps_exec(struct procmaps *pm, pid_t pid, uint64_t t)
{
	struct pm_proc *p = get_proc(pm, pid, true);

	/* Mappings made after the exec (read earlier from another CPU's
	 * ring) belong to the new program. */
	for (size_t i = 0; i < p->n; i++)
		if (p->maps[i].t_to == T_END && p->maps[i].t_from < t)
			p->maps[i].t_to = t;
}

void procmaps_fork(struct procmaps *pm, pid_t ppid, pid_t pid, uint64_t t)
{
	struct pm_proc *pp = get_proc(pm, ppid, false), *c;

	if (!pp || ppid == pid)
		return;
	c = get_proc(pm, pid, true);
	for (size_t i = 0; i < pp->n; i++) {
		const struct pm_map *m = &pp->maps[i];

		if (m->t_to == T_END)
			add_map(c, m->start, m->end, m->pgoff, m->file, t);
	}
	/* Samples just before the fork record was read still resolve. */
	for (size_t i = 0; i < c->n; i++)
		c->maps[i].t_from = 0;
}

static const struct pm_map *find_map(struct procmaps *pm, pid_t pid,
				     uint64_t addr, uint64_t t)
{
	struct pm_proc *p = get_proc(pm, pid, false);
	const struct pm_map *best = NULL;

	if (!p) {
		procmaps_load(pm, pid);
		p = get_proc(pm, pid, true);
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct pm_map *m = &p->maps[i];

		if (addr < m->start || addr >= m->end || t < m->t_from ||
		    t >= m->t_to)
			continue;
		if (!best || m->t_from >= best->t_from)
			best = m;
	}
	return best;
}

bool procmaps_find(struct procmaps *pm, pid_t pid, uint64_t addr, uint64_t t,
		   uint32_t *file, uint64_t *off)
{
	const struct pm_map *best = find_map(pm, pid, addr, t);

	*file = best ? best->file : PROCMAPS_ANON;
	*off = best ? addr - best->start + best->pgoff : 0;
	return best && best->file != PROCMAPS_ANON;
}

bool procmaps_lookup(struct procmaps *pm, pid_t pid, uint64_t addr,
		     uint64_t t, struct procmaps_map *out)
{
	const struct pm_map *m = find_map(pm, pid, addr, t);

	if (!m)
		return false;
	*out = (struct procmaps_map){ m->start, m->end, m->pgoff, m->file };
	return true;
}

const char *procmaps_file(const struct procmaps *pm, uint32_t file)
{
	return file < pm->nfiles ? pm->files[file] : "[anon]";
}

pid_t procmaps_nspid(pid_t pid)
{
	char path[64], line[256];
	pid_t ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + 7, *end;

		if (strncmp(line, "NStgid:", 7))
			continue;
		for (long v; (v = strtol(p, &end, 10)), end != p; p = end)
			ns = (pid_t)v;	/* the last: the innermost namespace */
		break;
	}
	fclose(f);
	return ns == pid ? 0 : ns;
}
