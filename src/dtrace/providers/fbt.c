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
#include "kit.h"
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


struct kfunc {
	const char *mod, *func;
	struct kprobe *probe[2];	/* entry, return: made as matched */
};

struct kprobe {
	struct dt_probe p;	/* first: probes are handed out as this */
	bool ret;
};

/* available_filter_functions, read when a description first names fbt,
 * and the probes made from it. */
struct state {
	char *text;
	struct kfunc *funcs;
	size_t nfuncs, capfuncs;
	bool loaded;
	struct kprobe **probes;
	size_t nprobes, capprobes;
};

static void state_free(void *p)
{
	struct state *st = p;

	for (size_t i = 0; i < st->nprobes; i++)
		free(st->probes[i]);
	free(st->probes);
	free(st->funcs);
	free(st->text);
}

static int cmp_func(const void *a, const void *b)
{
	const struct kfunc *x = a, *y = b;
	int c = strcmp(x->mod, y->mod);

	return c ? c : strcmp(x->func, y->func);
}

static void load_funcs(struct state *st)
{
	char path[512], *save = NULL;

	if (st->loaded)
		return;
	st->loaded = true;
	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 tracefs_root());
	st->text = sd_read_file(path, NULL);
	if (!st->text)
		return;
	for (char *line = strtok_r(st->text, "\n", &save); line;
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
		sd_grow(&st->funcs, &st->capfuncs, st->nfuncs + 1,
			sizeof(*st->funcs));
		st->funcs[st->nfuncs].func = line;
		st->funcs[st->nfuncs].mod = mod && *mod ? mod : "vmlinux";
		st->nfuncs++;
	}
	/* A name listed twice (two static functions of one name): one
	 * probe, placed where the kernel's symbol lookup puts it. */
	qsort(st->funcs, st->nfuncs, sizeof(*st->funcs), cmp_func);
	size_t n = 0;

	for (size_t i = 0; i < st->nfuncs; i++)
		if (!n || cmp_func(&st->funcs[n - 1], &st->funcs[i]))
			st->funcs[n++] = st->funcs[i];
	st->nfuncs = n;
}

static struct kprobe *find_or_make(struct state *st, struct kfunc *f,
				   bool ret)
{
	struct kprobe *k = f->probe[ret];

	if (k)
		return k;
	k = f->probe[ret] = sd_calloc(1, sizeof(*k));

	k->p.id = DT_ID_FBT + (uint32_t)st->nprobes;
	k->p.prov = &dt_prov_fbt;
	k->p.mod = f->mod;
	k->p.func = f->func;
	k->p.name = ret ? "return" : "entry";
	k->ret = ret;
	sd_grow(&st->probes, &st->capprobes, st->nprobes + 1,
		sizeof(*st->probes));
	st->probes[st->nprobes++] = k;
	return k;
}

static int match(struct dt_provs *ps, const struct dt_pdesc *pd,
		 dt_probe_fn fn, void *arg)
{
	struct state *st = dt_provs_state(ps, &dt_prov_fbt);
	bool entry = dt_glob(pd->name, "entry");
	bool ret = dt_glob(pd->name, "return");
	int n = 0;

	/* Without kprobes the list is not read: the compiler says what is
	 * missing. */
	if ((!entry && !ret) || !sbpf_has(SBPF_KPROBES))
		return 0;
	load_funcs(st);
	for (size_t i = 0; i < st->nfuncs; i++) {
		struct kfunc *f = &st->funcs[i];

		if (!dt_glob(pd->mod, f->mod) || !dt_glob(pd->func, f->func))
			continue;
		if (entry)
			n += fn(&find_or_make(st, f, false)->p, arg);
		if (ret)
			n += fn(&find_or_make(st, f, true)->p, arg);
	}
	return n;
}

bool dt_fbt_kernel_has(const struct dt_pdesc *pd)
{
	bool entry = dt_glob(pd->name, "entry");
	bool ret = dt_glob(pd->name, "return");
	char *text = (entry || ret) ? sd_read_file("/proc/kallsyms", NULL) :
				      NULL;
	char *save = NULL;
	bool found = false;

	if (!text)
		return false;
	for (char *line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		/* "ADDR TYPE NAME [MODULE]" */
		char *type = strchr(line, ' '), *name, *mod;

		if (!type || !strchr("tTwW", type[1]) || type[2] != ' ')
			continue;
		name = type + 3;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			mod += *mod == '[';
			mod[strcspn(mod, "]")] = '\0';
		}
		found = dt_glob(pd->mod, mod && *mod ? mod : "vmlinux") &&
			dt_glob(pd->func, name);
	}
	free(text);
	return found;
}

static struct dt_probe *by_id(struct dt_provs *ps, uint32_t id)
{
	struct state *st = dt_provs_state(ps, &dt_prov_fbt);

	if (id < DT_ID_FBT || id - DT_ID_FBT >= st->nprobes)
		return NULL;
	return &st->probes[id - DT_ID_FBT]->p;
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

static int arg(struct dt_cg *g, int i)
{
	if (unit_probe(g)->ret)
		return dt_kit_return_arg(g, i);
	return dt_kit_entry_arg(g, i, BPF_FUNC_probe_read_kernel);
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
	.state_size = sizeof(struct state),
	.state_free = state_free,
	.match = match,
	.by_id = by_id,
	.unit_of = unit_of,
	.cg_probe_id = dt_kit_probe_id,
	.cg_arg = arg,
	.cg_probestr = dt_cg_probestr_const,
	.attach = attach,
	.needs = { 1 + SBPF_KPROBES },
};
