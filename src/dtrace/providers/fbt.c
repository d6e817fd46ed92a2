// SPDX-License-Identifier: GPL-2.0-only
/* fbt provider — fbt:MODULE:FUNCTION:entry and :return, one kprobe or
 * kretprobe per probe. The functions are those ftrace can patch, read
 * once from tracefs's available_filter_functions when a description
 * names fbt (a function outside that list cannot be probed: it is
 * inlined, notrace, or in the kprobe blacklist's sections); MODULE is
 * "vmlinux" for the kernel's own functions, else the module the list
 * names in brackets. Globs work on all three fields.
 *
 * Each probe is its own program (a kprobe-type program on a perf event
 * made through the kprobe PMU: config1 the function's name, the retprobe
 * format bit for return). entry probes see the function's arguments in
 * arg0..arg9 (registers by the calling convention, then the kernel
 * stack); return probes have arg1 = the return value and arg0 = -1, as on
 * dtrace-utils: a kretprobe fires at the return address and does not know
 * the offset of the instruction that returned. Needs CONFIG_KPROBES;
 * fentry (BPF trampolines) is not used. */
#include "provider.h"
#include "../emit.h"
#include "../../lib/bpf.h"
#include "../../lib/tracefs.h"
#include "../../lib/util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__aarch64__)
static const int reg_arg[8] = { 0, 8, 16, 24, 32, 40, 48, 56 };	/* x0.. */
#define NREGARGS 8
#define RET_OFF 0	/* x0 */
#define SP_OFF 248
#define STACK_FIRST 0	/* stack arguments start at sp */
#else
/* pt_regs: di si dx cx r8 r9 */
static const int reg_arg[6] = { 112, 104, 96, 88, 72, 64 };
#define NREGARGS 6
#define RET_OFF 80	/* ax */
#define SP_OFF 152
#define STACK_FIRST 8	/* past the return address */
#endif

struct kfunc {
	const char *mod, *func;
	struct kprobe *probe[2];	/* entry, return: made as matched */
};

struct kprobe {
	struct dt_probe p;	/* first: probes are handed out as this */
	bool ret;
};

/* available_filter_functions, parsed once. */
static char *text;
static struct kfunc *funcs;
static size_t nfuncs, capfuncs;
static bool loaded;

static struct kprobe **probes;
static size_t nprobes, capprobes;

static int cmp_func(const void *a, const void *b)
{
	const struct kfunc *x = a, *y = b;
	int c = strcmp(x->mod, y->mod);

	return c ? c : strcmp(x->func, y->func);
}

static void load_funcs(void)
{
	char path[512], *save = NULL;

	if (loaded)
		return;
	loaded = true;
	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 tracefs_root());
	text = sd_read_file(path, NULL);
	if (!text)
		return;
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *mod = NULL;

		if (sp) {
			*sp = '\0';
			mod = strchr(sp + 1, '[');
			if (mod) {
				mod++;
				mod[strcspn(mod, "]")] = '\0';
			}
		}
		/* what ftrace left of functions in discarded sections */
		if (!*line || !strncmp(line, "__ftrace_invalid_address__", 26))
			continue;
		sd_grow(&funcs, &capfuncs, nfuncs + 1, sizeof(*funcs));
		funcs[nfuncs].func = line;
		funcs[nfuncs].mod = mod && *mod ? mod : "vmlinux";
		nfuncs++;
	}
	/* A name listed twice (two static functions of one name): one
	 * probe, placed where the kernel's symbol lookup puts it. */
	qsort(funcs, nfuncs, sizeof(*funcs), cmp_func);
	size_t n = 0;

	for (size_t i = 0; i < nfuncs; i++)
		if (!n || cmp_func(&funcs[n - 1], &funcs[i]))
			funcs[n++] = funcs[i];
	nfuncs = n;
}

static struct kprobe *find_or_make(struct kfunc *f, bool ret)
{
	struct kprobe *k = f->probe[ret];

	if (k)
		return k;
	k = f->probe[ret] = sd_calloc(1, sizeof(*k));

	k->p.id = DT_ID_FBT + (uint32_t)nprobes;
	k->p.prov = &dt_prov_fbt;
	k->p.mod = f->mod;
	k->p.func = f->func;
	k->p.name = ret ? "return" : "entry";
	k->ret = ret;
	sd_grow(&probes, &capprobes, nprobes + 1, sizeof(*probes));
	probes[nprobes++] = k;
	return k;
}

static int match(const struct dt_pdesc *pd, dt_probe_fn fn, void *arg)
{
	bool entry = dt_glob(pd->name, "entry");
	bool ret = dt_glob(pd->name, "return");
	int n = 0;

	/* Without kprobes the list is not read: the compiler says what is
	 * missing. */
	if ((!entry && !ret) || !sbpf_has(SBPF_KPROBES))
		return 0;
	load_funcs();
	for (size_t i = 0; i < nfuncs; i++) {
		struct kfunc *f = &funcs[i];

		if (!dt_glob(pd->mod, f->mod) || !dt_glob(pd->func, f->func))
			continue;
		if (entry)
			n += fn(&find_or_make(f, false)->p, arg);
		if (ret)
			n += fn(&find_or_make(f, true)->p, arg);
	}
	return n;
}

static struct dt_probe *by_id(uint32_t id)
{
	if (id < DT_ID_FBT || id - DT_ID_FBT >= nprobes)
		return NULL;
	return &probes[id - DT_ID_FBT]->p;
}

static void unit_of(const struct dt_probe *p, char *key, size_t len,
		    uint64_t *arg)
{
	snprintf(key, len, "fbt-%u", p->id);
	*arg = p->id;
}

static const struct kprobe *unit_probe(struct dt_cg *g)
{
	return (const struct kprobe *)g->u->probes[0];
}

static int probe_id(struct dt_cg *g)
{
	int r = dt_reg(g);

	dt_emit(g, I_MOV_IMM(r, g->u->probes[0]->id));
	return r;
}

/* A word of the kernel stack at entry: sp + off. */
static int stack_word(struct dt_cg *g, int off)
{
	int tmp = dt_cg_temp(g, 8), r;

	dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, tmp, 0));
	dt_call_begin(g);
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, DT_FP_CTX));
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_3, BPF_REG_3, SP_OFF));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3, off));
	dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, tmp));
	dt_emit(g, I_MOV_IMM(BPF_REG_2, 8));
	dt_call(g, BPF_FUNC_probe_read_kernel);
	dt_call_end_void(g);
	r = dt_reg(g);
	dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, tmp));
	return r;
}

static int arg(struct dt_cg *g, int i)
{
	int r;

	if (unit_probe(g)->ret) {
		if (i == 1) {
			r = dt_cg_ctx(g);
			dt_emit(g, I_LDX(BPF_DW, r, r, RET_OFF));
			return r;
		}
		r = dt_reg(g);
		dt_emit(g, I_MOV_IMM(r, i == 0 ? -1 : 0));
		return r;
	}
	if (i < NREGARGS) {
		r = dt_cg_ctx(g);
		dt_emit(g, I_LDX(BPF_DW, r, r, reg_arg[i]));
		return r;
	}
	return stack_word(g, STACK_FIRST + 8 * (i - NREGARGS));
}

static int probestr(struct dt_cg *g, int which)
{
	return dt_cg_probestr_const(g, which);
}

/* The kprobe PMU's type, and the config bit that makes a kretprobe. */
static int kprobe_pmu(int *retbit)
{
	char *s = sd_read_file("/sys/bus/event_source/devices/kprobe/type",
			       NULL);
	int type;

	if (!s)
		return -errno;
	type = atoi(s);
	free(s);
	*retbit = 0;
	s = sd_read_file("/sys/bus/event_source/devices/kprobe/format/"
			 "retprobe", NULL);
	if (s && !strncmp(s, "config:", 7))
		*retbit = atoi(s + 7);
	free(s);
	return type;
}

static int attach(struct dt_unit *u, char *err, size_t len)
{
	const struct kprobe *k = (const struct kprobe *)u->probes[0];
	int retbit = 0, type = kprobe_pmu(&retbit), fd;
	struct perf_event_attr a = {
		.size = sizeof(a),
		.sample_period = 1,
		.wakeup_events = 1,
	};

	if (type < 0) {
		snprintf(err, len, "the fbt provider needs %s",
			 sbpf_feature_missing(SBPF_KPROBES));
		return type;
	}
	a.type = (uint32_t)type;
	a.config = k->ret ? 1ull << retbit : 0;
	a.config1 = (uint64_t)(uintptr_t)k->p.func;
	a.config2 = 0;
	/* every CPU: the program runs from the kprobe handler whichever
	 * CPU the event is bound to */
	fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(err, len, "cannot place a %s on fbt:%s:%s:%s: %s",
			 k->ret ? "kretprobe" : "kprobe", k->p.mod, k->p.func,
			 k->p.name, strerror(e));
		return -e;
	}
	u->fds = sd_calloc(1, sizeof(int));
	u->fds[u->nfds++] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, u->prog_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = errno;

		snprintf(err, len, "attaching to the kprobe on fbt:%s:%s:%s: "
			 "%s", k->p.mod, k->p.func, k->p.name, strerror(e));
		return -e;
	}
	return 0;
}

const struct dt_provider dt_prov_fbt = {
	.name = "fbt",
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.match = match,
	.by_id = by_id,
	.unit_of = unit_of,
	.cg_probe_id = probe_id,
	.cg_arg = arg,
	.cg_probestr = probestr,
	.attach = attach,
	.needs = { 1 + SBPF_KPROBES },
};
