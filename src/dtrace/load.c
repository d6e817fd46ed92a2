// SPDX-License-Identifier: GPL-2.0-only
/* load — from compiled units to running programs: the maps a program
 * needs (ring buffer, scratch, globals, frozen literals, one map per
 * thread-local, associative array and aggregation), each unit loaded with
 * libbpf's low-level bpf_prog_load, a verifier rejection turned into the
 * D source line it came from, and the attach and detach of every unit
 * through its provider. */
#include "dtrace.h"
#include "cg.h"
#include "../lib/bpf.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static int map_create(enum bpf_map_type type, const char *name, uint32_t ksz,
		      uint32_t vsz, uint32_t n, uint32_t flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);

	return bpf_map_create(type, name, ksz, vsz, n, &o);
}

static uint32_t entries(uint64_t bytes, int per, uint64_t least)
{
	uint64_t n = bytes / (uint64_t)per;

	if (n < least)
		n = least;
	if (n > (1u << 20))
		n = 1u << 20;
	return (uint32_t)n;
}

/* An aggregation holds aggsize / (key + value) entries, as dtrace-utils
 * sizes its aggregation map, a string in the key counting strsize + 1
 * bytes as there: keys past that are aggregation drops; room for none is
 * refused when tracing is enabled (dtrace.c). */
uint64_t dt_agg_entry_size(const struct dt_prog *p, const struct dt_var *v)
{
	int64_t n = (int64_t)v->key_size + (int64_t)v->val_size;

	for (int i = 0; i < v->nkeys; i++)
		if (v->keys[i].kind == KEY_STR)
			n += dt_str_bytes(p) - ((v->keys[i].ssize + 7) & ~7);
	return (uint64_t)n;
}

static uint32_t dt_agg_entries(const struct dt_prog *p,
			       const struct dt_var *v)
{
	return entries(p->opt.aggsize, (int)dt_agg_entry_size(p, v), 1);
}

static char *msgf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *msgf(const char *fmt, ...)
{
	struct sbuf sb;
	va_list ap;

	sbuf_init(&sb);
	va_start(ap, fmt);
	sbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	return sbuf_steal(&sb);
}

static int create_maps(struct dt_session *s, char **msg)
{
	struct dt_prog *p = &s->prog;
	uint64_t rb = 4096;
	char e[200];
	int n = DT_MAP_FIRST_VAR + s->nvarmaps;

	s->map_fds = sd_malloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
		s->map_fds[i] = -1;
	s->nmaps = n;
	while (rb < p->opt.bufsize)
		rb <<= 1;
	s->map_fds[DT_MAP_OUT] = map_create(BPF_MAP_TYPE_RINGBUF, "dt_out", 0,
					    0, (uint32_t)rb, 0);
	if (s->map_fds[DT_MAP_OUT] < 0 && errno != EPERM &&
	    !sbpf_has(SBPF_RINGBUF)) {
		*msg = msgf("%s", sbpf_feature_missing(SBPF_RINGBUF));
		return -ENOTSUP;
	}
	if (s->map_fds[DT_MAP_OUT] < 0)
		goto fail;
	if (s->scratch_size > 32768) {
		*msg = msgf("the program needs %d bytes of per-CPU scratch "
			    "space, more than 32 KiB (lower strsize or "
			    "scratchsize)",
			    s->scratch_size);
		return -E2BIG;
	}
	s->map_fds[DT_MAP_SCRATCH] = map_create(BPF_MAP_TYPE_PERCPU_ARRAY,
						"dt_scratch", 4,
						(uint32_t)s->scratch_size, 1, 0);
	if (s->map_fds[DT_MAP_SCRATCH] < 0)
		goto fail;
	s->map_fds[DT_MAP_GLOBALS] = map_create(BPF_MAP_TYPE_ARRAY,
						"dt_globals", 4,
						(uint32_t)p->globals_size, 1, 0);
	if (s->map_fds[DT_MAP_GLOBALS] < 0)
		goto fail;
	s->map_fds[DT_MAP_RODATA] = map_create(BPF_MAP_TYPE_ARRAY, "dt_rodata",
					       4, (uint32_t)p->rodata_size, 1,
					       BPF_F_RDONLY_PROG);
	if (s->map_fds[DT_MAP_RODATA] < 0)
		goto fail;
	uint32_t zero = 0;

	if (bpf_map_update_elem(s->map_fds[DT_MAP_RODATA], &zero, p->rodata,
				BPF_ANY) ||
	    bpf_map_freeze(s->map_fds[DT_MAP_RODATA]))
		goto fail;
	if (s->need_stacks) {
		s->map_fds[DT_MAP_STACKS] = map_create(
			BPF_MAP_TYPE_STACK_TRACE, "dt_stacks", 4,
			DT_STACK_FRAMES * 8, 16384, 0);
		if (s->map_fds[DT_MAP_STACKS] < 0)
			goto fail;
	}
	if (s->names_prov) {
		s->map_fds[DT_MAP_SYSNAMES] = s->names_prov->names_map();
		if (s->map_fds[DT_MAP_SYSNAMES] < 0)
			goto fail;
	}
	for (int i = 0; i < s->nvarmaps; i++) {
		struct dt_var *v = s->varmaps[i];
		int fd;

		if (v->scope == DT_SELF)
			fd = map_create(BPF_MAP_TYPE_HASH, "dt_self", 8,
					(uint32_t)v->val_size,
					entries(p->opt.dynvarsize, 8 +
						v->val_size, 1024),
					BPF_F_NO_PREALLOC);
		else if (v->scope == DT_ARRAY)
			fd = map_create(BPF_MAP_TYPE_HASH, "dt_array",
					(uint32_t)v->key_size,
					(uint32_t)v->val_size,
					entries(p->opt.dynvarsize, v->key_size +
						v->val_size, 1024),
					BPF_F_NO_PREALLOC);
		else
			fd = map_create(BPF_MAP_TYPE_PERCPU_HASH, "dt_agg",
					(uint32_t)v->key_size,
					(uint32_t)v->val_size,
					dt_agg_entries(p, v),
					BPF_F_NO_PREALLOC);
		if (fd < 0)
			goto fail;
		s->map_fds[DT_MAP_FIRST_VAR + i] = fd;
	}
	return 0;
fail:
	n = -errno;
	*msg = msgf("cannot create BPF maps: %s",
		    sbpf_strerror(errno, e, sizeof(e)));
	return n;
}

/* The instruction a verifier log blames: the last "N: (..)" line. */
static int blamed_insn(const char *log, char *why, size_t len)
{
	const char *line = log, *next;
	int insn = -1;

	why[0] = '\0';
	for (; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		int n = (int)(next - line);

		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (isdigit((unsigned char)*line)) {
			int i = atoi(line);
			const char *c = line;

			while (isdigit((unsigned char)*c))
				c++;
			if (*c == ':') {
				insn = i;
				continue;
			}
		}
		if (!n || !strncmp(line, "processed ", 10) ||
		    !strncmp(line, "verification time", 17) ||
		    !strncmp(line, "stack depth", 11) ||
		    !strncmp(line, "from ", 5) || *line == ';')
			continue;
		snprintf(why, len, "%.*s", n, line);
	}
	return insn;
}

/* Programs with subprograms (bpf_loop callbacks, BPF_PSEUDO_FUNC) need
 * BTF function info: one static "int f(void *)" per subprogram start.
 * Returns the BTF's fd (or -1 when there are no subprograms) and fills
 * fi (at most 8 entries). */
static int subprog_btf(const struct bpf_insn *insns, int n,
		       struct bpf_func_info *fi, int *nfi, struct btf **out)
{
	int starts[8], ns = 1, id_int, id_ptr, id_proto, id_fn;
	struct btf *btf;

	starts[0] = 0;
	for (int i = 0; i + 1 < n; i++) {
		if (insns[i].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (insns[i].src_reg == BPF_PSEUDO_FUNC && ns < 8) {
			int at = i + insns[i].imm + 1;
			bool seen = false;

			for (int k = 0; k < ns; k++)
				seen |= starts[k] == at;
			if (!seen)
				starts[ns++] = at;
		}
		i++;
	}
	*nfi = 0;
	*out = NULL;
	if (ns == 1)
		return -1;
	btf = btf__new_empty();
	if (!btf)
		return -1;
	id_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	id_ptr = btf__add_ptr(btf, 0);
	id_proto = btf__add_func_proto(btf, id_int);
	btf__add_func_param(btf, "ctx", id_ptr);
	id_fn = btf__add_func(btf, "dt_main", BTF_FUNC_STATIC, id_proto);
	if (id_fn < 0 || btf__load_into_kernel(btf)) {
		btf__free(btf);
		return -1;
	}
	/* subprograms in instruction order */
	for (int a = 0; a < ns; a++)
		for (int b = a + 1; b < ns; b++)
			if (starts[b] < starts[a]) {
				int t = starts[a];

				starts[a] = starts[b];
				starts[b] = t;
			}
	for (int k = 0; k < ns; k++) {
		fi[k].insn_off = (uint32_t)starts[k];
		fi[k].type_id = (uint32_t)id_fn;
	}
	*nfi = ns;
	*out = btf;
	return btf__fd(btf);
}

/* -x bpflog: the verifier's log of every program, each line after
 * "BPF: " on stderr, as dtrace-utils prints it (dt_bpf_load_prog). */
static void print_vlog(const char *log)
{
	for (const char *p = log; p && *p;) {
		const char *q = strchr(p, '\n');
		int n = q ? (int)(q - p) : (int)strlen(p);

		fprintf(stderr, "BPF: %.*s\n", n, p);
		p = q ? q + 1 : NULL;
	}
}

/* The verifier log's size: -x bpflogsize, else dtrace-utils' default
 * (16 MiB - 1). */
static size_t vlog_size(const struct dt_session *s)
{
	uint64_t n = s->prog.opt.bpflogsize;

	return n ? (size_t)(n > UINT32_MAX ? UINT32_MAX : n) :
		   16 * 1024 * 1024 - 1;
}

static int load_unit(struct dt_session *s, struct dt_unit *u, char **msg)
{
	struct bpf_insn *insns = sd_malloc(sizeof(*insns) * u->ninsns);
	char name[16], e[200];
	int fd;

	memcpy(insns, u->insns, sizeof(*insns) * u->ninsns);
	for (int i = 0; i < u->ninsns; i++) {
		struct bpf_insn *in = &insns[i];

		if (in->code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (in->src_reg == BPF_PSEUDO_MAP_FD ||
		    in->src_reg == BPF_PSEUDO_MAP_VALUE)
			in->imm = s->map_fds[in->imm];
		i++;
	}
	snprintf(name, sizeof(name), "dt_%.12s", u->key);
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
	struct bpf_func_info fi[8];
	struct btf *btf = NULL;
	int nfi = 0, btf_fd = subprog_btf(insns, u->ninsns, fi, &nfi, &btf);
	LIBBPF_OPTS(bpf_prog_load_opts, po);

	if (btf_fd >= 0) {
		po.prog_btf_fd = (uint32_t)btf_fd;
		po.func_info = fi;
		po.func_info_cnt = (uint32_t)nfi;
		po.func_info_rec_size = sizeof(*fi);
	}
	bool vlog = s->prog.opt.bpflog;

	fd = vlog ? -1 : bpf_prog_load(u->prov->prog_type, name, "GPL",
				       insns, (size_t)u->ninsns, &po);
	if (vlog || (fd < 0 && errno != EPERM && errno != ENOMEM)) {
		/* Load again with the verifier's log to say why; with
		 * -x bpflog, load with it (and print it) in any case. */
		size_t loglen = vlog_size(s);
		char *log = sd_malloc(loglen), why[512];
		LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
			    .log_size = (uint32_t)loglen,
			    .log_level = vlog ? 4 | 2 | 1 : 1);

		if (btf_fd >= 0) {
			o.prog_btf_fd = (uint32_t)btf_fd;
			o.func_info = fi;
			o.func_info_cnt = (uint32_t)nfi;
			o.func_info_rec_size = sizeof(*fi);
		}
		int err = errno, insn;

		log[0] = '\0';
		fd = bpf_prog_load(u->prov->prog_type, name, "GPL", insns,
				   (size_t)u->ninsns, &o);
		if (fd < 0 && vlog)
			err = errno;
		if (fd < 0 && vlog && err == ENOSPC) {
			fprintf(stderr, "BPF verifier log is incomplete and is "
				"not reported.\nSet DTrace option 'bpflogsize' "
				"to some greater size for more output.\n"
				"(Current size is %zu.)\n", loglen);
			log[0] = '\0';
		} else if (vlog) {
			print_vlog(log);
		}
		if (fd >= 0) {
			free(log);
			goto done;
		}
		insn = blamed_insn(log, why, sizeof(why));
		/* a kernel in lockdown (kernel_lockdown(7)) takes the helper
		 * away: say so rather than the verifier's words */
		if (strstr(log, "cannot use helper bpf_probe_write_user"))
			snprintf(why, sizeof(why), "copyout() and copyoutstr() "
				 "need bpf_probe_write_user, which this kernel "
				 "refuses: it is locked down (kernel_lockdown(7))");
		if (insn >= 0 && insn < u->ninsns && u->locs[insn].line) {
			char m[768];

			snprintf(m, sizeof(m), "the BPF verifier rejected the "
				 "program for %s:%s:%s:%s at instruction %d: %s",
				 u->prov->name, u->probes[0]->mod,
				 u->nprobes > 1 ? "*" : u->probes[0]->func,
				 u->key, insn, why[0] ? why : strerror(err));
			*msg = dt_format_diag(&u->locs[insn], m);
		} else {
			*msg = msgf("the BPF verifier rejected the program for "
				    "%s:::%s: %s\n", u->prov->name, u->key,
				    why[0] ? why : strerror(err));
		}
		if (getenv("SONDE_DTRACE_VLOG"))
			fputs(log, stderr);
		free(log);
		free(insns);
		btf__free(btf);
		return -err;
	}
	if (fd < 0) {
		int err = errno;

		for (int j = 0; j < 2; j++) {
			int f = u->prov->needs[j];

			if (f && err != EPERM &&
			    !sbpf_has((enum sbpf_feature)(f - 1))) {
				*msg = msgf("the %s provider needs %s: %s",
					    u->prov->name,
					    sbpf_feature_name(f - 1),
					    sbpf_feature_missing(f - 1));
				free(insns);
				btf__free(btf);
				return -ENOTSUP;
			}
		}
		*msg = msgf("cannot load the program for %s:::%s: %s\n",
			    u->prov->name, u->key,
			    sbpf_strerror(err, e, sizeof(e)));
		free(insns);
		btf__free(btf);
		return -err;
	}
done:
	free(insns);
	btf__free(btf);
	u->prog_fd = fd;
	return 0;
}

int dt_load(struct dt_session *s, char **msg)
{
	int ret;

	s->possible_cpus = libbpf_num_possible_cpus();
	if (s->possible_cpus <= 0)
		s->possible_cpus = 1;
	ret = create_maps(s, msg);
	if (ret) {
		if (*msg && (*msg)[strlen(*msg) - 1] != '\n') {
			char *m = msgf("%s\n", *msg);

			free(*msg);
			*msg = m;
		}
		return ret;
	}
	for (int i = 0; i < s->nunits; i++) {
		ret = load_unit(s, s->units[i], msg);
		if (ret)
			return ret;
	}
	return 0;
}

int dt_attach(struct dt_session *s, char *err, size_t len)
{
	/* A process's probes first: a probe elsewhere may end the process
	 * (raise(), a signal, a system call it waits for) before they are
	 * placed, as DTrace enables them all at once. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->nunits; i++) {
			struct dt_unit *u = s->units[i];
			bool uprobe = u->prov == &dt_prov_pid ||
				      u->prov == &dt_prov_usdt;
			int ret;

			if (u->prov == &dt_prov_dtrace || uprobe != !pass)
				continue;
			ret = u->prov->attach(u, err, len);
			if (ret)
				return ret;
		}
	return 0;
}

void dt_detach(struct dt_session *s)
{
	for (int i = 0; i < s->nunits; i++) {
		struct dt_unit *u = s->units[i];

		for (int j = 0; j < u->nfds; j++)
			close(u->fds[j]);
		u->nfds = 0;
	}
}

void dt_unload(struct dt_session *s)
{
	dt_detach(s);
	for (int i = 0; i < s->nunits; i++)
		if (s->units[i]->prog_fd >= 0) {
			close(s->units[i]->prog_fd);
			s->units[i]->prog_fd = -1;
		}
	for (int i = 0; i < s->nmaps; i++)
		if (s->map_fds[i] >= 0)
			close(s->map_fds[i]);
	s->nmaps = 0;
}
