// SPDX-License-Identifier: GPL-2.0-only
/* dtrace provider — BEGIN, END and ERROR. They fire in sonde's own
 * process: their programs are raw-tracepoint programs that are never
 * attached, run by hand with BPF_PROG_TEST_RUN (BEGIN before tracing
 * starts, END after it stops, ERROR for each fault the consumer reads),
 * so they cost nothing to set up. ERROR's arg1..arg5 arrive in the
 * context: enabled probe id, action, instruction, fault, address. */
#include "provider.h"
#include "../emit.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct dt_probe probes[] = {
	{ DT_ID_DTRACE + 0, &dt_prov_dtrace, "", "", "BEGIN", 0 },
	{ DT_ID_DTRACE + 1, &dt_prov_dtrace, "", "", "END", 0 },
	{ DT_ID_DTRACE + 2, &dt_prov_dtrace, "", "", "ERROR", 0 },
};

static int match(const struct dt_pdesc *pd, dt_probe_fn fn, void *arg)
{
	int n = 0;

	if (!dt_glob(pd->mod, "") || !dt_glob(pd->func, ""))
		return 0;
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (dt_glob(pd->name, probes[i].name))
			n += fn(&probes[i], arg);
	return n;
}

static struct dt_probe *by_id(uint32_t id)
{
	if (id >= DT_ID_DTRACE && id < DT_ID_DTRACE + 3)
		return &probes[id - DT_ID_DTRACE];
	return NULL;
}

static void unit_of(const struct dt_probe *p, char *key, size_t len,
		    uint64_t *arg)
{
	snprintf(key, len, "%s", p->name);
	*arg = 0;
}

static int probe_id(struct dt_cg *g)
{
	int r = dt_reg(g);

	dt_emit(g, I_MOV_IMM(r, g->u->probes[0]->id));
	return r;
}

static int arg(struct dt_cg *g, int i)
{
	int r = dt_reg(g);

	if (strcmp(g->u->key, "ERROR") || i < 1 || i > 5) {
		dt_emit(g, I_MOV_IMM(r, 0));
		return r;
	}
	dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_CTX));
	dt_emit(g, I_LDX(BPF_DW, r, r, 8 * i));
	return r;
}

/* A probe string of a unit of one probe is a constant. */
int dt_cg_probestr_const(struct dt_cg *g, int which)
{
	int r = dt_reg(g);
	const char *s = dt_probe_field(g->u->probes[0], which);

	dt_ld_map_value(g, r, DT_MAP_RODATA,
			dt_literal(g->p, s, DT_PROBESTR_SIZE));
	return r;
}

/* END and ERROR run after exit(). */
static bool after_exit(const struct dt_unit *u)
{
	return strcmp(u->key, "BEGIN") != 0;
}

static int attach(struct dt_unit *u, char *err, size_t len)
{
	(void)u;
	(void)err;
	(void)len;
	return 0;
}

int dt_dtrace_fire(struct dt_unit *u, const uint64_t *args, int nargs)
{
	uint64_t ctx[10] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = ctx,
		    .ctx_size_in = sizeof(ctx));

	for (int i = 0; i < nargs && i < 10; i++)
		ctx[i] = args[i];
	if (bpf_prog_test_run_opts(u->prog_fd, &opts))
		return -errno;
	return 0;
}

const struct dt_provider dt_prov_dtrace = {
	.name = "dtrace",
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.match = match,
	.by_id = by_id,
	.unit_of = unit_of,
	.cg_probe_id = probe_id,
	.cg_arg = arg,
	.cg_probestr = dt_cg_probestr_const,
	.after_exit = after_exit,
	.attach = attach,
};
