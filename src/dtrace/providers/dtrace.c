// SPDX-License-Identifier: GPL-2.0-only
/* dtrace provider — BEGIN, END and ERROR. They fire in sonde's own
 * process: their programs are raw-tracepoint programs that are never
 * attached, run by hand with BPF_PROG_TEST_RUN (BEGIN before tracing
 * starts, END after it stops, ERROR for each fault the consumer reads),
 * so they cost nothing to set up. ERROR's arg1..arg5 arrive in the
 * context: enabled probe id, action, instruction, fault, address. */
#include "kit.h"
#include "../emit.h"
#include "../../lib/util.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = { "BEGIN", "END", "ERROR" };

static struct dt_ptable *table(struct dt_provs *ps)
{
	struct dt_ptable *t = dt_provs_state(ps, &dt_prov_dtrace);

	dt_ptable_init(t, &dt_prov_dtrace, DT_ID_DTRACE, "", names,
		       sizeof(names[0]), ARRAY_SIZE(names));
	return t;
}

static void state_free(void *st)
{
	dt_ptable_free(st);
}

static int match(struct dt_provs *ps, const struct dt_pdesc *pd,
		 dt_probe_fn fn, void *arg)
{
	return dt_ptable_match(table(ps), pd, fn, arg);
}

static struct dt_probe *by_id(struct dt_provs *ps, uint32_t id)
{
	return dt_ptable_by_id(table(ps), id);
}

/* ERROR's arg1..arg5 arrive in the context. */
static int arg(struct dt_cg *g, int i)
{
	if (strcmp(g->u->key, "ERROR") || i < 1 || i > 5)
		return dt_cg_const(g, 0);
	return dt_kit_tp_arg(g, i);
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
	.state_size = sizeof(struct dt_ptable),
	.state_free = state_free,
	.match = match,
	.by_id = by_id,
	.unit_of = dt_kit_unit_by_name,
	.cg_probe_id = dt_kit_probe_id,
	.cg_arg = arg,
	.cg_probestr = dt_cg_probestr_const,
	.after_exit = after_exit,
	.attach = attach,
};
