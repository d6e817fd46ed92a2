// SPDX-License-Identifier: GPL-2.0-only
/* pid provider — pidPID:MODULE:FUNCTION:NAME, one uprobe per probe in one
 * process's code. MODULE is an executable or library the process maps
 * (its basename, its path, or a.out for the executable), FUNCTION an ELF
 * function symbol (lib/elfsym: .symtab, else .dynsym, else the debug file
 * by build-id), NAME entry, return, or a hexadecimal offset into the
 * function. Globs work on all three; "*" names entry and return (offsets
 * only when named). The modules are those of /proc/PID/maps; for -c's
 * command, which is stopped before its exec while probes are matched,
 * they are the executable and the libraries it needs (DT_NEEDED, found
 * in the dynamic linker's default directories).
 *
 * Each probe is its own program (a kprobe-type program on a uprobe perf
 * event, created through the uprobe PMU for the one process). entry and
 * offset probes see the function's arguments in arg0..arg9 (registers,
 * then the stack); return probes have arg1 = the return value and arg0 =
 * -1, as on dtrace-utils: a uretprobe fires at the return address and
 * does not know which instruction returned. */
#include "kit.h"
#include "../emit.h"
#include "../../lib/bpf.h"
#include "../../lib/elfsym.h"
#include "../../lib/procmaps.h"
#include "../../lib/util.h"

#include <ctype.h>
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#define MULTIARCH "x86_64-linux-gnu"
#endif

enum { KIND_ENTRY, KIND_RETURN, KIND_OFFSET };

#define upmod dt_umod

struct uprobe {
	struct dt_probe p;	/* first: probes are handed out as this */
	const struct upmod *mod;
	long pid;
	int kind;
	uint64_t off;		/* file offset of the probed instruction */
	char provname[24];
	char namebuf[20];
};

static bool mod_matches(const struct upmod *m, const char *pat);
static bool is_glob(const char *s);

/* The modules of one process. */
struct modset {
	long pid;
	struct upmod *mods;
	size_t nmods, capmods;
};

/* The session's pid probes, the modules of the process last asked about
 * (and, put aside, of every other process asked about: its probes point
 * into them), -c's command (its pid and the program it is about to exec),
 * and every pid and usdt probe by id. */
struct state {
	struct uprobe **probes;
	size_t nprobes, capprobes;
	long mods_pid;		/* 0: none */
	struct upmod *mods;
	size_t nmods, capmods;
	struct modset *sets;
	size_t nsets, capsets;
	long cmd_pid;		/* 0: none */
	char *cmd_path;
	struct dt_probe **byid;
	size_t nbyid, capbyid;
};

static struct state *state(struct dt_provs *ps)
{
	return dt_provs_state(ps, &dt_prov_pid);
}

static void free_modv(struct upmod *mods, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(mods[i].path);
		elfsym_close(mods[i].syms);
	}
}

static void free_mods(struct state *st)
{
	free_modv(st->mods, st->nmods);
	st->nmods = 0;
	for (size_t i = 0; i < st->nsets; i++) {
		free_modv(st->sets[i].mods, st->sets[i].nmods);
		free(st->sets[i].mods);
	}
	free(st->sets);
	st->sets = NULL;
	st->nsets = st->capsets = 0;
}

/* Makes pid's modules the current ones; false when they are not known
 * yet (the current set is then empty). The arrays never move or go away
 * before the session ends. */
static bool switch_mods(struct state *st, long pid)
{
	if (st->mods_pid) {
		sd_grow(&st->sets, &st->capsets, st->nsets + 1,
			sizeof(*st->sets));
		st->sets[st->nsets++] = (struct modset){ st->mods_pid,
			st->mods, st->nmods, st->capmods };
	}
	st->mods_pid = pid;
	st->mods = NULL;
	st->nmods = st->capmods = 0;
	for (size_t i = 0; i < st->nsets; i++) {
		if (st->sets[i].pid != pid)
			continue;
		st->mods = st->sets[i].mods;
		st->nmods = st->sets[i].nmods;
		st->capmods = st->sets[i].capmods;
		st->sets[i] = st->sets[--st->nsets];
		return true;
	}
	return false;
}

static void state_free(void *p)
{
	struct state *st = p;

	for (size_t i = 0; i < st->nprobes; i++) {
		free((char *)st->probes[i]->p.func);
		free(st->probes[i]);
	}
	free(st->probes);
	free_mods(st);
	free(st->mods);
	free(st->cmd_path);
	free(st->byid);
}

void dt_pid_set_command(struct dt_provs *ps, long pid, const char *path)
{
	struct state *st = state(ps);

	st->cmd_pid = pid;
	free(st->cmd_path);
	st->cmd_path = path ? sd_strdup(path) : NULL;
}

static void add_mod(struct state *st, const char *path, bool exe)
{
	for (size_t i = 0; i < st->nmods; i++)
		if (!strcmp(st->mods[i].path, path)) {
			st->mods[i].exe |= exe;
			return;
		}
	sd_grow(&st->mods, &st->capmods, st->nmods + 1, sizeof(*st->mods));
	struct upmod *m = &st->mods[st->nmods++];

	memset(m, 0, sizeof(*m));
	m->path = sd_strdup(path);
	m->base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
	m->exe = exe;
}

/* A library name from DT_NEEDED, in the default search directories. */
static bool find_lib(const char *name, char *out, size_t len)
{
	static const char *const dirs[] = {
		"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64",
		"/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
	};

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, R_OK) == 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (access(out, R_OK) == 0)
			return true;
	}
	return false;
}

/* path's interpreter and DT_NEEDED libraries, recursively. */
static void add_needed(struct state *st, const char *path, int depth)
{
	char found[PATH_MAX];
	size_t nph;
	Elf *elf;
	int fd;

	if (depth > 8)
		return;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &nph)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return;
	}
	size_t first = st->nmods;

	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		size_t n;
		const char *interp;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		interp = elf_rawfile(elf, &n);
		if (interp && ph.p_offset + ph.p_filesz <= n &&
		    ph.p_filesz < sizeof(found)) {
			snprintf(found, sizeof(found), "%.*s",
				 (int)ph.p_filesz, interp + ph.p_offset);
			if (access(found, R_OK) == 0)
				add_mod(st, found, false);
		}
	}
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize &&
		     i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *name;

			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (name && find_lib(name, found, sizeof(found)))
				add_mod(st, found, false);
		}
	}
	elf_end(elf);
	close(fd);
	for (size_t i = first, end = st->nmods; i < end; i++)
		add_needed(st, st->mods[i].path, depth + 1);
}

static void load_mods(struct state *st, long pid)
{
	char path[64], exe[PATH_MAX];
	ssize_t n;

	if (st->mods_pid == pid || switch_mods(st, pid))
		return;
	if (pid == st->cmd_pid && st->cmd_path) {
		/* Not exec'd yet: what it will map (a script's interpreter
		 * and its libraries) */
		char interp[PATH_MAX];
		const char *prog = st->cmd_path;
		FILE *f = fopen(prog, "re");

		if (f && fgets(interp, sizeof(interp), f) &&
		    !strncmp(interp, "#!", 2)) {
			char *b = interp + 2;

			b += strspn(b, " \t");
			b[strcspn(b, " \t\n")] = '\0';
			if (*b == '/')
				prog = memmove(interp, b, strlen(b) + 1);
		}
		if (f)
			fclose(f);
		add_mod(st, prog, true);
		add_needed(st, prog, 0);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		add_mod(st, exe, true);
	}
	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	char *text = sd_read_file(path, NULL), *save = NULL;

	if (!text)
		return;
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint64_t start, end, pgoff;
		const char *file;

		if (procmaps_parse_line(line, &start, &end, &pgoff, &file) &&
		    file && *file == '/')
			add_mod(st, file, false);
	}
	free(text);
}

int dt_uprobe_mods(struct dt_provs *ps, long pid, struct dt_umod **out)
{
	struct state *st = state(ps);

	load_mods(st, pid);
	*out = st->mods;
	return st->nmods ? (int)st->nmods : -ESRCH;
}

struct elfsym *dt_uprobe_syms(struct dt_umod *m)
{
	if (!m->tried) {
		m->tried = true;
		m->syms = elfsym_open(m->path);
	}
	return m->syms;
}

bool dt_uprobe_mod_matches(const struct dt_umod *m, const char *pat)
{
	return mod_matches(m, pat);
}

static bool mod_matches(const struct upmod *m, const char *pat)
{
	if (!*pat)
		return true;
	if (m->exe && dt_glob(pat, "a.out"))
		return true;
	if (dt_glob(pat, m->base) || dt_glob(pat, m->path))
		return true;
	/* "libc" and "libc.so" name libc.so.6, as in dtrace(1) */
	size_t n = strlen(pat);

	return !is_glob(pat) && !strncmp(m->base, pat, n) &&
	       m->base[n] == '.';
}

/* Of the symbols at symbol i's address, the one whose name a probe
 * there takes, as libproc prefers them for dtrace(1): sized, then global
 * before weak before local, then fewer leading underscores, then the
 * shorter name (malloc, not __libc_malloc; go, not its weak alias _go). */
static const char *canonical(const struct elfsym *e, size_t i)
{
	uint64_t addr, size, a, sz;
	const char *best = elfsym_get(e, i, &addr, &size), *n;
	size_t b = i, k = i;

	while (k > 0 && elfsym_get(e, k - 1, &a, &sz) && a == addr)
		k--;
	for (; (n = elfsym_get(e, k, &a, &sz)) && a == addr; k++) {
		uint64_t bs;
		int r = elfsym_binding_rank(e, k), br = elfsym_binding_rank(e, b);
		size_t u = strspn(n, "_"), bu = strspn(best, "_");

		elfsym_get(e, b, &a, &bs);
		if ((!sz != !bs) ? sz != 0 : r != br ? r > br :
		    u != bu ? u < bu : strlen(n) < strlen(best)) {
			best = n;
			b = k;
		}
	}
	return best;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static struct uprobe *find_or_make(struct dt_provs *ps, long pid,
				   const struct upmod *m, const char *func,
				   int kind, uint64_t off)
{
	struct state *st = state(ps);

	for (size_t i = 0; i < st->nprobes; i++) {
		struct uprobe *u = st->probes[i];

		if (u->pid == pid && u->mod == m && u->kind == kind &&
		    u->off == off && !strcmp(u->p.func, func))
			return u;
	}
	struct uprobe *u = sd_calloc(1, sizeof(*u));

	u->p.id = dt_uprobe_new_id(ps, &u->p);
	u->p.prov = &dt_prov_pid;
	u->p.mod = m->base;
	u->p.func = sd_strdup(func);
	u->mod = m;
	u->pid = pid;
	u->kind = kind;
	u->off = off;
	snprintf(u->provname, sizeof(u->provname), "pid%ld", pid);
	u->p.provname = u->provname;
	u->p.name = kind == KIND_ENTRY ? "entry" : kind == KIND_RETURN ?
		    "return" : u->namebuf;
	sd_grow(&st->probes, &st->capprobes, st->nprobes + 1,
		sizeof(*st->probes));
	st->probes[st->nprobes++] = u;
	return u;
}

/* "pid123" -> 123; -1 if prov is not a pid provider name. */
static long pid_of(const char *prov)
{
	char *end;
	long pid;

	if (strncmp(prov, "pid", 3) || !isdigit((unsigned char)prov[3])) {
		/* a glob naming pidN ("p*d$target"), as dtrace(1): N is the
		 * trailing digits */
		size_t n = strlen(prov), d = n;
		char name[32];

		while (d && isdigit((unsigned char)prov[d - 1]))
			d--;
		if (d == n || !is_glob(prov))
			return -1;
		pid = strtol(prov + d, NULL, 10);
		snprintf(name, sizeof(name), "pid%ld", pid);
		return dt_glob(prov, name) ? pid : -1;
	}
	pid = strtol(prov + 3, &end, 10);
	return *end ? -1 : pid;
}

static bool owns(const char *prov)
{
	return pid_of(prov) >= 0;
}

/* pid$target:a.out:-:ADDRESS: the instruction at that address of the
 * program. */
static int match_address(struct dt_provs *ps, long pid, const char *name,
			 dt_probe_fn fn, void *arg)
{
	struct state *st = state(ps);
	char *end;
	uint64_t addr = strtoull(name, &end, 16), foff;

	if (*end || !*name)
		return dt_provs_fail(ps, D_PROC_NAME, "'%s' is an invalid "
				     "probe name", name);
	for (size_t i = 0; i < st->nmods; i++) {
		struct upmod *m = &st->mods[i];
		struct uprobe *u;

		if (!m->exe || !dt_uprobe_syms(m) ||
		    !elfsym_addr_to_off(m->syms, addr, &foff))
			continue;
		u = find_or_make(ps, pid, m, "-", KIND_OFFSET, foff);
		u->p.arg = addr;
		snprintf(u->namebuf, sizeof(u->namebuf), "%" PRIx64, addr);
		return fn(&u->p, arg);
	}
	return 0;
}

static int match(struct dt_provs *ps, const struct dt_pdesc *pd,
		 dt_probe_fn fn, void *arg)
{
	struct state *st = state(ps);
	long pid = pid_of(pd->prov);
	bool entry = dt_glob(pd->name, "entry");
	bool ret = dt_glob(pd->name, "return");
	bool dash = !strcmp(pd->func, "-"), found = false;
	uint64_t offset = 0;
	int n = 0;

	if (pid < 0)
		return 0;
	/* dtrace(1)'s refusals, in its words */
	if (pid == 0)
		return dt_provs_fail(ps, D_PROC_BADPID, "pid0 does not contain "
				     "a valid pid");
	if (dash && *pd->mod && (is_glob(pd->mod) ||
				 strcmp(pd->mod, "a.out")))
		return dt_provs_fail(ps, D_PROC_LIB, "only the a.out module "
				     "is valid with the '-' function");
	if (dash && (!*pd->name || is_glob(pd->name)))
		return dt_provs_fail(ps, D_PROC_NAME, "only individual "
				     "addresses may be specified with the '-' "
				     "function");
	if (!entry && !ret && !dash) {
		char *end;

		if (!*pd->name || is_glob(pd->name))
			return 0;
		offset = strtoull(pd->name, &end, 16);
		if (*end)
			return dt_provs_fail(ps, D_PROC_NAME, "'%s' is an "
					     "invalid probe name", pd->name);
	}
	load_mods(st, pid);
	if (!st->nmods)
		return -ESRCH;
	if (dash)
		return match_address(ps, pid, pd->name, fn, arg);
	for (size_t i = 0; i < st->nmods; i++) {
		struct upmod *m = &st->mods[i];
		uint64_t addr, size, foff;
		const char *name;

		if (!mod_matches(m, pd->mod))
			continue;
		if (!dt_uprobe_syms(m))
			continue;
		for (size_t j = 0; (name = elfsym_get(m->syms, j, &addr,
						      &size)); j++) {
			char bare[256], cbare[256];
			const char *canon;

			/* "clock_nanosleep@@GLIBC_2.17": the version goes */
			if (strchr(name, '@')) {
				snprintf(bare, sizeof(bare), "%.*s",
					 (int)strcspn(name, "@"), name);
				name = bare;
			}
			if (!dt_glob(pd->func, name))
				continue;
			/* aliases are one function, under the name DTrace
			 * gives it */
			canon = canonical(m->syms, j);
			snprintf(cbare, sizeof(cbare), "%.*s",
				 (int)strcspn(canon, "@"), canon);
			name = cbare;
			found = true;
			if (entry || ret) {
				if (!elfsym_addr_to_off(m->syms, addr, &foff))
					continue;
				if (entry)
					n += fn(&find_or_make(ps, pid, m, name,
						KIND_ENTRY, foff)->p, arg);
				if (ret)
					n += fn(&find_or_make(ps, pid, m, name,
						KIND_RETURN, foff)->p, arg);
				continue;
			}
			if (offset >= (size ? size : 1) && *pd->func &&
			    !is_glob(pd->func))
				return dt_provs_fail(ps, D_PROC_OFF, "offset "
						     "0x%" PRIx64 " outside of "
						     "function '%s'", offset,
						     name);
			if (offset >= (size ? size : 1) ||
			    !elfsym_addr_to_off(m->syms, addr + offset, &foff))
				continue;
			struct uprobe *u = find_or_make(ps, pid, m, name,
							KIND_OFFSET, foff);

			u->p.arg = offset;
			snprintf(u->namebuf, sizeof(u->namebuf), "%" PRIx64,
				 offset);
			n += fn(&u->p, arg);
		}
	}
	if (!found && *pd->func && !is_glob(pd->func) && *pd->mod &&
	    !is_glob(pd->mod))
		return dt_provs_fail(ps, D_PROC_FUNC, "failed to lookup '%s' "
				     "in module '%s'", pd->func, pd->mod);
	return n;
}

/* Every pid and usdt probe, by id. */
uint32_t dt_uprobe_new_id(struct dt_provs *ps, struct dt_probe *p)
{
	struct state *st = state(ps);

	sd_grow(&st->byid, &st->capbyid, st->nbyid + 1, sizeof(*st->byid));
	st->byid[st->nbyid] = p;
	return DT_ID_UPROBE + (uint32_t)st->nbyid++;
}

struct dt_probe *dt_uprobe_by_id(struct dt_provs *ps, uint32_t id)
{
	struct state *st = state(ps);

	if (id < DT_ID_UPROBE || id - DT_ID_UPROBE >= st->nbyid)
		return NULL;
	return st->byid[id - DT_ID_UPROBE];
}

static struct dt_probe *by_id(struct dt_provs *ps, uint32_t id)
{
	struct dt_probe *p = dt_uprobe_by_id(ps, id);

	return p && p->prov == &dt_prov_pid ? p : NULL;
}

static void unit_of(const struct dt_probe *p, char *key, size_t len,
		    uint64_t *arg)
{
	snprintf(key, len, "pid-%u", p->id);
	*arg = p->id;
}

static const struct uprobe *unit_probe(struct dt_cg *g)
{
	return (const struct uprobe *)g->u->probes[0];
}

/* The uprobe is the one process's, but a fork inherits its breakpoints
 * until they are removed: leave unless the process is the target. */
static void prologue(struct dt_cg *g)
{
	int go = dt_label(g);

	dt_call(g, BPF_FUNC_get_current_pid_tgid);
	dt_emit(g, I_ALU64_IMM(BPF_RSH, BPF_REG_0, 32));
	dt_jmp_imm(g, BPF_JEQ, BPF_REG_0, (int32_t)unit_probe(g)->pid, go);
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
	dt_emit(g, I_EXIT());
	dt_place(g, go);
}

static int arg(struct dt_cg *g, int i)
{
	if (unit_probe(g)->kind == KIND_RETURN)
		return dt_kit_return_arg(g, i);
	return dt_kit_entry_arg(g, i, BPF_FUNC_probe_read_user);
}

/* The uprobe PMU's type, and the config bit that makes a uretprobe. */
static int uprobe_pmu(int *retbit)
{
	char *s = sd_read_file("/sys/bus/event_source/devices/uprobe/type",
			       NULL);
	int type;

	if (!s)
		return -errno;
	type = atoi(s);
	free(s);
	*retbit = 0;
	s = sd_read_file("/sys/bus/event_source/devices/uprobe/format/"
			 "retprobe", NULL);
	if (s && !strncmp(s, "config:", 7))
		*retbit = atoi(s + 7);
	free(s);
	return type;
}

int dt_uprobe_attach(struct dt_unit *u, const struct dt_probe *p,
		     const char *path, uint64_t off, uint64_t ref_ctr,
		     bool ret, long pid, char *err, size_t len)
{
	int retbit = 0, type = uprobe_pmu(&retbit), fd;
	struct perf_event_attr a = {
		.size = sizeof(a),
		.sample_period = 1,
		.wakeup_events = 1,
	};

	if (type < 0) {
		snprintf(err, len, "the %s provider needs %s", p->prov->name,
			 sbpf_feature_missing(SBPF_UPROBES));
		return type;
	}
	a.type = (uint32_t)type;
	/* the semaphore's file offset goes in config's upper half */
	a.config = (ret ? 1ull << retbit : 0) | ref_ctr << 32;
	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = off;
	fd = (int)syscall(SYS_perf_event_open, &a, (pid_t)pid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(err, len, "cannot place a uprobe on %s:%s:%s (%s at "
			 "offset 0x%" PRIx64 ") in process %ld: %s",
			 p->mod, p->func, p->name, path, off, pid, strerror(e));
		return -e;
	}
	u->fds = sd_calloc(1, sizeof(int));
	u->fds[u->nfds++] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, u->prog_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = errno;

		snprintf(err, len, "attaching to the uprobe on %s:%s:%s: %s",
			 p->mod, p->func, p->name, strerror(e));
		return -e;
	}
	return 0;
}

static int attach(struct dt_unit *u, char *err, size_t len)
{
	const struct uprobe *up = (const struct uprobe *)u->probes[0];

	return dt_uprobe_attach(u, &up->p, up->mod->path, up->off, 0,
				up->kind == KIND_RETURN, up->pid, err, len);
}

const struct dt_provider dt_prov_pid = {
	.name = "pid",
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.owns = owns,
	.state_size = sizeof(struct state),
	.state_free = state_free,
	.match = match,
	.by_id = by_id,
	.unit_of = unit_of,
	.cg_prologue = prologue,
	.cg_probe_id = dt_kit_probe_id,
	.cg_arg = arg,
	.cg_probestr = dt_cg_probestr_const,
	.attach = attach,
	.needs = { 1 + SBPF_UPROBES },
};
