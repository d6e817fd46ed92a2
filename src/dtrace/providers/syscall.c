// SPDX-License-Identifier: GPL-2.0-only
/* syscall provider — syscall::NAME:entry and :return for every system
 * call of the native ABI (names and numbers from lib/syscalls). All entry
 * probes share one program on the raw_syscalls:sys_enter raw tracepoint,
 * all return probes one on sys_exit; the program dispatches on the
 * syscall number in BPF, so attaching every syscall costs one attach.
 * arg0..arg5 are the syscall's arguments on entry; on return arg0 and
 * arg1 are its return value and errno is set when it failed. */
#include "kit.h"
#include "../emit.h"
#include "../../lib/bpf.h"
#include "../../lib/syscalls.h"
#include "../../lib/tracefs.h"
#include "../../lib/util.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Two probes per number (entry, return), made as they are matched. */
struct state {
	struct dt_probe *probes;
	long limit, nnamed;
};

static struct state *state(struct dt_provs *ps)
{
	struct state *st = dt_provs_state(ps, &dt_prov_syscall);

	if (st->probes)
		return st;
	st->limit = sc_limit(sc_native());
	for (long nr = 0; nr < st->limit; nr++)
		st->nnamed += sc_name(sc_native(), nr) != NULL;
	st->probes = sd_calloc((size_t)st->limit * 2, sizeof(*st->probes));
	return st;
}

static void state_free(void *p)
{
	free(((struct state *)p)->probes);
}

static struct dt_probe *probe(struct state *st, long nr, int ret)
{
	struct dt_probe *p = &st->probes[nr * 2 + ret];

	if (!p->id) {
		p->id = DT_ID_SYSCALL + (uint32_t)(nr * 2 + ret);
		p->prov = &dt_prov_syscall;
		p->mod = "vmlinux";
		p->func = sc_name(sc_native(), nr);
		p->name = ret ? "return" : "entry";
		p->arg = (uint64_t)nr;
	}
	return p;
}

static int match(struct dt_provs *ps, const struct dt_pdesc *pd,
		 dt_probe_fn fn, void *arg)
{
	struct state *st = state(ps);
	bool entry = dt_glob(pd->name, "entry"), ret = dt_glob(pd->name,
							       "return");
	int n = 0;

	if (!dt_glob(pd->mod, "vmlinux") || (!entry && !ret))
		return 0;
	for (long nr = 0; nr < st->limit; nr++) {
		const char *name = sc_name(sc_native(), nr);

		if (!name || !dt_glob(pd->func, name))
			continue;
		if (entry)
			n += fn(probe(st, nr, 0), arg);
		if (ret)
			n += fn(probe(st, nr, 1), arg);
	}
	return n;
}

static struct dt_probe *by_id(struct dt_provs *ps, uint32_t id)
{
	struct state *st = state(ps);

	if (id < DT_ID_SYSCALL || id >= DT_ID_SYSCALL + 2 * st->limit)
		return NULL;
	long nr = (id - DT_ID_SYSCALL) / 2;

	if (!sc_name(sc_native(), nr))
		return NULL;
	return probe(st, nr, (id - DT_ID_SYSCALL) % 2);
}

static void unit_of(const struct dt_probe *p, char *key, size_t len,
		    uint64_t *arg)
{
	snprintf(key, len, "%s", p->name);
	*arg = 0;
}

static bool is_return(struct dt_cg *g)
{
	return !strcmp(g->u->key, "return");
}

static void set_test(struct dt_cg *g, struct dt_probe **ps, int np,
		     int skip);

/* The syscall number to STASH1, the return value to STASH2; leave for
 * numbers outside the table (other ABIs). */
static void prologue(struct dt_cg *g)
{
	struct state *st = state(g->provs);
	int leave = dt_label(g), go = dt_label(g);

	dt_emit(g, I_LDX(BPF_DW, BPF_REG_6, BPF_REG_10, DT_FP_CTX));
	if (is_return(g)) {
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_6, 8));
		dt_emit(g, I_STX(BPF_DW, BPF_REG_10, BPF_REG_1, DT_FP_STASH2));
		dt_kit_sys_exit_nr(g, BPF_REG_6, BPF_REG_1);
	} else {
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_6, 8));
	}
	dt_jmp_imm(g, BPF_JGE, BPF_REG_1, (int32_t)st->limit, leave);
	dt_emit(g, I_STX(BPF_DW, BPF_REG_10, BPF_REG_1, DT_FP_STASH1));
	/* Every syscall runs this program: leave at once for those no
	 * clause names, before any map is looked at. */
	set_test(g, g->u->probes, g->u->nprobes, leave);
	dt_jmp(g, go);
	dt_place(g, leave);
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
	dt_emit(g, I_EXIT());
	dt_place(g, go);
}

static int probe_id(struct dt_cg *g)
{
	int r = dt_reg(g);

	dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH1));
	dt_emit(g, I_ALU64_IMM(BPF_LSH, r, 1));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, r, DT_ID_SYSCALL + is_return(g)));
	return r;
}

/* Jump to skip unless the syscall number (in STASH1) is one of probes':
 * a few comparisons, or a bitmap in the read-only data. */
static void set_test(struct dt_cg *g, struct dt_probe **ps, int np,
		     int skip)
{
	struct state *st = state(g->provs);
	long limit = st->limit;
	int ret = is_return(g), n = 0, ok = dt_label(g);
	uint8_t *bits = sd_calloc((size_t)(limit + 7) / 8, 1);
	int r;

	for (int i = 0; i < np; i++) {
		struct dt_probe *p = ps[i];

		if (p->prov != &dt_prov_syscall || (int)(p->id % 2) != ret)
			continue;
		if (!(bits[p->arg / 8] & (1u << (p->arg % 8))))
			n++;
		bits[p->arg / 8] |= (uint8_t)(1u << (p->arg % 8));
	}
	if (n == st->nnamed) {	/* every syscall: nothing to test */
		free(bits);
		return;
	}
	r = dt_reg(g);
	dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH1));
	if (n <= 8) {
		for (long nr = 0; nr < limit; nr++)
			if (bits[nr / 8] & (1u << (nr % 8)))
				dt_jmp_imm(g, BPF_JEQ, r, (int32_t)nr, ok);
		dt_jmp(g, skip);
	} else {
		int off = dt_rodata_add(g->p, bits, (size_t)(limit + 7) / 8);
		int b = dt_reg(g);

		dt_jmp_imm(g, BPF_JGE, r, (int32_t)limit, skip);
		dt_ld_map_value(g, b, DT_MAP_RODATA, off);
		dt_emit(g, I_ALU64_IMM(BPF_RSH, r, 3));
		dt_emit(g, I_ALU64_REG(BPF_ADD, b, r));
		dt_emit(g, I_LDX(BPF_B, b, b, 0));
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH1));
		dt_emit(g, I_ALU64_IMM(BPF_AND, r, 7));
		dt_emit(g, I_ALU64_REG(BPF_RSH, b, r));
		dt_emit(g, I_ALU64_IMM(BPF_AND, b, 1));
		dt_jmp_imm(g, BPF_JEQ, b, 0, skip);
		dt_reg_free(g, b);
	}
	dt_place(g, ok);
	dt_reg_free(g, r);
	free(bits);
}

/* A clause that names only some of the unit's syscalls tests them. */
static void guard(struct dt_cg *g, struct dt_clause *cl, int skip)
{
	bool all = true;

	for (int i = 0; i < g->u->nprobes && all; i++) {
		bool found = false;

		for (int j = 0; j < cl->nprobes && !found; j++)
			found = cl->probes[j] == g->u->probes[i];
		all = found;
	}
	if (!all)
		set_test(g, cl->probes, cl->nprobes, skip);
}

static int arg(struct dt_cg *g, int i)
{
	int r;

	if (is_return(g)) {
		if (i >= 2)
			return dt_cg_const(g, 0);
		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH2));
		return r;
	}
	if (i >= 6)
		return dt_cg_const(g, 0);
	/* the saved registers: pt_regs at the context's first word */
	r = dt_kit_tp_arg(g, 0);
	return dt_cg_read(g, r, dt_ptregs.sys_arg[i], 8,
			  BPF_FUNC_probe_read_kernel);
}

/* args[i]: typed as dtrace-utils types it, by the fields of the
 * syscall's tracepoint (events/syscalls/sys_enter_NAME: the arguments;
 * sys_exit_NAME: the return value). A pointer field is a pointer, the
 * others integers of the field's size and signedness. */
static bool args_type(const struct dt_probe *p, int i, struct dt_type *t)
{
	const char *root = tracefs_root();
	char path[512], line[512];
	bool found = false;
	int n = -1;
	FILE *f;

	if (!root || i < 0)
		return false;
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_%s_%s/format",
		 root, strcmp(p->name, "return") ? "enter" : "exit", p->func);
	if (!(f = fopen(path, "r")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *fld = strstr(line, "field:"), *end, *sz, *sg;

		if (!fld || !(end = strchr(fld, ';')))
			continue;
		if (n < 0) {	/* the fields after __syscall_nr */
			char *nr = strstr(fld, "__syscall_nr");

			n = nr && nr < end ? 0 : -1;
			continue;
		}
		if (n++ != i)
			continue;
		sz = strstr(end, "size:");
		sg = strstr(end, "signed:");
		*end = '\0';
		*t = (struct dt_type){ DT_TINT, 8, true };
		if (strchr(fld, '*')) {
			*t = (struct dt_type){ DT_TPTR, 8, false, 0, 1 };
		} else {
			if (sz)
				t->size = (uint8_t)atoi(sz + 5);
			if (t->size != 1 && t->size != 2 && t->size != 4)
				t->size = 8;
			t->sign = sg && atoi(sg + 7) != 0;
		}
		found = true;
	}
	fclose(f);
	return found;
}

static int cg_args(struct dt_cg *g, int i)
{
	return arg(g, i);
}

static int errno_(struct dt_cg *g)
{
	int r = dt_reg(g), zero = dt_label(g), done = dt_label(g);

	if (!is_return(g)) {
		dt_emit(g, I_MOV_IMM(r, 0));
		return r;
	}
	/* -4095 <= ret < 0: errno = -ret */
	dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH2));
	dt_jmp_imm(g, BPF_JSGE, r, 0, zero);
	dt_jmp_imm(g, BPF_JSLT, r, -4095, zero);
	dt_emit(g, I_ALU64_IMM(BPF_NEG, r, 0));
	dt_jmp(g, done);
	dt_place(g, zero);
	dt_emit(g, I_MOV_IMM(r, 0));
	dt_place(g, done);
	return r;
}

static int probestr(struct dt_cg *g, int which)
{
	int r, found = dt_label(g);
	static const char *const fixed[] = { "syscall", "vmlinux" };

	if (which != 2) {
		r = dt_reg(g);
		dt_ld_map_value(g, r, DT_MAP_RODATA,
				dt_literal(g->p, which == 3 ? g->u->key :
					   fixed[which], DT_PROBESTR_SIZE));
		return r;
	}
	/* The function is the syscall's name: a table lookup. */
	g->names_prov = &dt_prov_syscall;
	dt_call_begin(g);
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, DT_FP_STASH1));
	dt_emit(g, I_STX(BPF_W, BPF_REG_10, BPF_REG_1, DT_FP_KEY));
	dt_ld_map(g, BPF_REG_1, DT_MAP_SYSNAMES);
	dt_emit(g, I_MOV(BPF_REG_2, BPF_REG_10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, DT_FP_KEY));
	dt_call(g, BPF_FUNC_map_lookup_elem);
	r = dt_call_end(g);
	dt_jmp_imm(g, BPF_JNE, r, 0, found);
	dt_ld_map_value(g, r, DT_MAP_RODATA, g->p->empty_off);
	dt_place(g, found);
	return r;
}

/* The syscall-name table map, for probefunc as a string value. */
static int names_map(void)
{
	char name[DT_PROBESTR_SIZE];
	uint32_t limit = (uint32_t)sc_limit(sc_native());
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "dt_sysnames", 4,
			    DT_PROBESTR_SIZE, limit, NULL);
	if (fd < 0)
		return -errno;
	for (uint32_t nr = 0; nr < limit; nr++) {
		const char *s = sc_name(sc_native(), nr);

		if (!s)
			continue;
		memset(name, 0, sizeof(name));
		snprintf(name, sizeof(name), "%s", s);
		bpf_map_update_elem(fd, &nr, name, BPF_ANY);
	}
	return fd;
}

static int attach(struct dt_unit *u, char *err, size_t len)
{
	return dt_kit_attach_raw_tp(u, !strcmp(u->key, "return") ?
				    "sys_exit" : "sys_enter", err, len);
}

const struct dt_provider dt_prov_syscall = {
	.name = "syscall",
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.state_size = sizeof(struct state),
	.state_free = state_free,
	.match = match,
	.by_id = by_id,
	.unit_of = unit_of,
	.cg_prologue = prologue,
	.cg_guard = guard,
	.cg_probe_id = probe_id,
	.cg_arg = arg,
	.cg_errno = errno_,
	.args_type = args_type,
	.cg_args = cg_args,
	.cg_probestr = probestr,
	.names_map = names_map,
	.attach = attach,
	.needs = { 1 + SBPF_TRACEPOINTS },
};
