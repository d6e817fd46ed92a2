// SPDX-License-Identifier: GPL-2.0-only
/* usdt provider — the statically defined probes of user programs and
 * libraries: the ELF notes (.note.stapsdt) that <sys/sdt.h>'s
 * STAP_PROBE / DTRACE_PROBE macros leave in a binary, as PROVIDERPID:
 * MODULE:FUNCTION:NAME (PROVIDER the note's provider with the process id
 * appended, as DTrace names USDT providers; MODULE the file's basename or
 * a.out; FUNCTION the function holding the probe site; NAME the note's
 * name with "__" written "-", as DTrace does). Every site is a probe: a
 * uprobe in that one process, through pid.c's machinery. A note with a
 * semaphore has it counted by the kernel (the uprobe's reference counter)
 * while the probe is enabled, so code guarded by PROVIDER_NAME_ENABLED()
 * runs only then.
 *
 * arg0..arg9 are decoded from the note's argument specifications, which
 * say where the compiler left each value at the site: "-4@%edi" (a
 * register, its size and sign), "8@-16(%rbp)" (memory at a register plus
 * a displacement, read from user space), "4@$5" (a constant). Operands
 * relative to a symbol (sym(%rip)) are not decoded: they read 0. x86_64
 * and 32-bit x86 programs (whose notes hold 4-byte addresses). */
#include "kit.h"
#include "../emit.h"
#include "../../lib/bpf.h"
#include "../../lib/elfsym.h"
#include "../../lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXARGS 12

enum akind { A_NONE, A_REG, A_MEM, A_IMM };

struct uarg {
	enum akind kind;
	int size;		/* bytes; negative: signed */
	int reg;		/* pt_regs offset */
	int64_t val;		/* displacement or constant */
};

struct usdt {
	struct dt_probe p;
	struct dt_umod *mod;
	long pid;
	uint64_t off, sem;	/* file offsets of the site and semaphore */
	struct uarg args[MAXARGS];
	int nargs;
	char provname[64];
	char name[64];
	char func[128];
};

/* The sites of every process asked about (probes point into them until
 * the session ends). */
struct state {
	struct usdt **probes;
	size_t nprobes, capprobes;
	long *scanned;		/* the pids whose files were read */
	size_t nscanned, capscanned;
};

static void free_sites(struct state *st)
{
	for (size_t i = 0; i < st->nprobes; i++)
		free(st->probes[i]);
	st->nprobes = 0;
}

static void state_free(void *p)
{
	struct state *st = p;

	free_sites(st);
	free(st->probes);
	free(st->scanned);
}

/* One "SIZE@OPERAND"; false when it cannot be decoded. */
static bool parse_arg(const char *s, struct uarg *a)
{
	char *end;
	const char *p;

	a->kind = A_NONE;
	a->size = (int)strtol(s, &end, 10);
	if (*end != '@' || !a->size)
		return false;
	p = end + 1;
	if (*p == '%') {
		int r = dt_ptregs_by_name(p + 1, strlen(p + 1));

		if (r < 0)
			return false;
		a->kind = A_REG;
		a->reg = r;
		return true;
	}
	if (*p == '$') {
		int bits = 8 * (a->size < 0 ? -a->size : a->size);

		a->kind = A_IMM;
		a->val = strtoll(p + 1, &end, 0);
		/* the assembler's immediate is signed ("2@$-1" is 65535) */
		if (bits < 64) {
			uint64_t v = (uint64_t)a->val & ((1ull << bits) - 1);

			if (a->size < 0 && (v >> (bits - 1)))
				v |= ~0ull << bits;
			a->val = (int64_t)v;
		}
		return !*end;
	}
	/* [disp](%reg) */
	a->val = 0;
	if (*p != '(') {
		a->val = strtoll(p, &end, 0);
		if (end == p || *end != '(')
			return false;	/* sym(%rip) and the like */
		p = end;
	}
	if (p[1] != '%' || !strchr(p, ')'))
		return false;
	a->reg = dt_ptregs_by_name(p + 2,
				   (size_t)(strchr(p, ')') - p - 2));
	if (a->reg < 0)
		return false;
	a->kind = A_MEM;
	return true;
}

static void parse_args(struct usdt *u, const char *spec)
{
	char *copy = sd_strdup(spec), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w && u->nargs < MAXARGS;
	     w = strtok_r(NULL, " ", &save))
		parse_arg(w, &u->args[u->nargs++]);
	free(copy);
}

/* "pid" is the pid provider's; any other NAME followed by digits is a
 * USDT provider of process DIGITS. */
static long split(const char *prov, char *name, size_t len)
{
	size_t n = strlen(prov), d = n;

	while (d && isdigit((unsigned char)prov[d - 1]))
		d--;
	if (d == n || !d || d >= len)
		return -1;
	memcpy(name, prov, d);
	name[d] = '\0';
	if (!strcmp(name, "pid"))
		return -1;
	return strtol(prov + d, NULL, 10);
}

static bool owns(const char *prov)
{
	char name[64];

	return split(prov, name, sizeof(name)) >= 0;
}

static void add_site(struct dt_provs *ps, long pid, struct dt_umod *m,
		     const char *prov, const char *name, const char *spec,
		     uint64_t pc, uint64_t sem)
{
	struct state *st = dt_provs_state(ps, &dt_prov_usdt);
	struct elfsym *syms = dt_uprobe_syms(m);
	struct usdt *u;
	uint64_t off, delta;
	const char *fn;

	if (!syms || !elfsym_addr_to_off(syms, pc, &off))
		return;
	u = sd_calloc(1, sizeof(*u));
	u->mod = m;
	u->pid = pid;
	u->off = off;
	if (sem && !elfsym_addr_to_off(syms, sem, &u->sem))
		u->sem = 0;
	snprintf(u->provname, sizeof(u->provname), "%s%ld", prov, pid);
	/* DTrace writes a probe's "__" as "-" */
	size_t j = 0;

	for (size_t i = 0; name[i] && j + 1 < sizeof(u->name); i++) {
		if (name[i] == '_' && name[i + 1] == '_') {
			u->name[j++] = '-';
			i++;
		} else {
			u->name[j++] = name[i];
		}
	}
	u->name[j] = '\0';
	fn = elfsym_lookup(syms, pc, &delta);
	snprintf(u->func, sizeof(u->func), "%.*s",
		 fn ? (int)strcspn(fn, "@") : 0, fn ? fn : "");
	parse_args(u, spec);
	u->p.prov = &dt_prov_usdt;
	u->p.provname = u->provname;
	u->p.mod = m->base;
	u->p.func = u->func;
	u->p.name = u->name;
	u->p.id = dt_uprobe_new_id(ps, &u->p);
	sd_grow(&st->probes, &st->capprobes, st->nprobes + 1,
		sizeof(*st->probes));
	st->probes[st->nprobes++] = u;
}

int dt_stapsdt_each(struct Elf *elf,
		    int (*fn)(const struct dt_stapsdt *n, void *arg),
		    void *arg)
{
	size_t asz = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	Elf_Scn *scn = NULL;
	int r = 0;

	while (!r && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while (!r && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const char *desc = (const char *)d->d_buf + doff;
			const char *end = desc + nh.n_descsz;
			struct dt_stapsdt n = { 0 };

			if (nh.n_type != 3 || nh.n_namesz != 8 ||
			    memcmp((char *)d->d_buf + noff, "stapsdt", 8) ||
			    nh.n_descsz < 3 * asz + 3)
				continue;
			memcpy(&n.pc, desc, asz);
			memcpy(&n.base, desc + asz, asz);
			memcpy(&n.sem, desc + 2 * asz, asz);
			n.prov = desc + 3 * asz;
			n.name = memchr(n.prov, 0, (size_t)(end - n.prov));
			if (!n.name++ || n.name >= end)
				continue;
			n.args = memchr(n.name, 0, (size_t)(end - n.name));
			if (!n.args++ || n.args >= end ||
			    !memchr(n.args, 0, (size_t)(end - n.args)))
				continue;
			r = fn(&n, arg);
		}
	}
	return r;
}

struct scan_ctx {
	struct dt_provs *ps;
	long pid;
	struct dt_umod *m;
	uint64_t base_addr;
	bool have_base;
};

static int scan_note(const struct dt_stapsdt *n, void *arg)
{
	struct scan_ctx *c = arg;
	uint64_t pc = n->pc, sem = n->sem;

	/* prelinked: move by the base section's shift */
	if (c->have_base && n->base) {
		pc += c->base_addr - n->base;
		if (sem)
			sem += c->base_addr - n->base;
	}
	add_site(c->ps, c->pid, c->m, n->prov, n->name, n->args, pc, sem);
	return 0;
}

/* The stapsdt notes of one file. */
static void scan(struct dt_provs *ps, long pid, struct dt_umod *m)
{
	Elf_Scn *scn = NULL;
	uint64_t base_addr = 0;
	bool have_base = false;
	Elf *elf;
	size_t shstr;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstr)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (gelf_getshdr(scn, &sh) &&
		    (nm = elf_strptr(elf, shstr, sh.sh_name)) &&
		    !strcmp(nm, ".stapsdt.base")) {
			base_addr = sh.sh_addr;
			have_base = true;
		}
	}
	struct scan_ctx c = { ps, pid, m, base_addr, have_base };

	dt_stapsdt_each(elf, scan_note, &c);
	elf_end(elf);
	close(fd);
}

static int match(struct dt_provs *ps, const struct dt_pdesc *pd,
		 dt_probe_fn fn, void *arg)
{
	struct state *st = dt_provs_state(ps, &dt_prov_usdt);
	char prov[64];
	long pid = split(pd->prov, prov, sizeof(prov));
	struct dt_umod *mods;
	int n = 0, nmods;

	if (pid < 0)
		return 0;
	nmods = dt_uprobe_mods(ps, pid, &mods);
	if (nmods < 0)
		return nmods;
	bool known = false;

	for (size_t i = 0; i < st->nscanned && !known; i++)
		known = st->scanned[i] == pid;
	if (!known) {
		for (int i = 0; i < nmods; i++)
			scan(ps, pid, &mods[i]);
		sd_grow(&st->scanned, &st->capscanned, st->nscanned + 1,
			sizeof(*st->scanned));
		st->scanned[st->nscanned++] = pid;
	}
	for (size_t i = 0; i < st->nprobes; i++) {
		struct usdt *u = st->probes[i];

		if (!dt_glob(pd->prov, u->provname) ||
		    !dt_uprobe_mod_matches(u->mod, pd->mod) ||
		    !dt_glob(pd->func, u->func) || !dt_glob(pd->name, u->name))
			continue;
		n += fn(&u->p, arg);
	}
	return n;
}

static struct dt_probe *by_id(struct dt_provs *ps, uint32_t id)
{
	struct dt_probe *p = dt_uprobe_by_id(ps, id);

	return p && p->prov == &dt_prov_usdt ? p : NULL;
}

static void unit_of(const struct dt_probe *p, char *key, size_t len,
		    uint64_t *arg)
{
	snprintf(key, len, "usdt-%u", p->id);
	*arg = p->id;
}

static const struct usdt *unit_probe(struct dt_cg *g)
{
	return (const struct usdt *)g->u->probes[0];
}

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
	const struct usdt *u = unit_probe(g);
	const struct uarg *a = i < u->nargs ? &u->args[i] : NULL;
	int size = a ? (a->size < 0 ? -a->size : a->size) : 8;
	struct dt_type t = { DT_TINT, (uint8_t)size, a && a->size < 0, 0, 0,
			     false, 0 };
	int r;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		a = NULL;
	if (!a || a->kind == A_NONE || a->kind == A_IMM)
		return dt_cg_const(g, a ? a->val : 0);
	r = dt_cg_ctx(g);
	dt_emit(g, I_LDX(BPF_DW, r, r, a->reg));
	if (a->kind == A_MEM)
		r = dt_cg_read(g, r, (int)a->val, size,
			       BPF_FUNC_probe_read_user);
	dt_cg_normalize(g, r, &t);
	return r;
}

static int attach(struct dt_unit *u, char *err, size_t len)
{
	const struct usdt *up = (const struct usdt *)u->probes[0];

	return dt_uprobe_attach(u, &up->p, up->mod->path, up->off, up->sem,
				false, up->pid, err, len);
}

const struct dt_provider dt_prov_usdt = {
	.name = "usdt",
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
