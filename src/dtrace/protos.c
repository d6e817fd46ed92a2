// SPDX-License-Identifier: GPL-2.0-only
/* protos — D's function prototypes, as dtrace-utils declares them
 * (dt_open.c's identifier table: "string(const char *, [int])"), and the
 * check of a call against one: the number of arguments (D_PROTO_LEN:
 * "trace( ) prototype mismatch: 0 args passed, 1 expected") and each
 * argument's kind (D_PROTO_ARG: "... argument #1 is incompatible with
 * prototype:"), in dtrace(1)'s words. "@" takes anything, "[T]" is
 * optional, "..." takes any number more. A function's own check hook
 * (funcs.c) then checks what the prototype cannot say. */
#include "ast.h"
#include "../lib/util.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	const char *sig;
} protos[] = {
	{ "alloca", "void *(size_t)" },
	{ "avg", "void(@)" },
	{ "basename", "string(const char *)" },
	{ "bcopy", "void(void *, void *, size_t)" },
	{ "breakpoint", "void()" },
	{ "chill", "void(int)" },
	{ "cleanpath", "string(const char *)" },
	{ "clear", "void(@)" },
	{ "commit", "void(int)" },
	{ "copyin", "void *(uintptr_t, size_t)" },
	{ "copyinstr", "string(uintptr_t, [size_t])" },
	{ "copyinto", "void(uintptr_t, size_t, void *)" },
	{ "copyout", "void(void *, uintptr_t, size_t)" },
	{ "copyoutstr", "void(char *, uintptr_t, size_t)" },
	{ "count", "void()" },
	{ "d_path", "string(struct path *)" },
	{ "ddi_pathname", "string(void *, int64_t)" },
	{ "denormalize", "void(@)" },
	{ "dirname", "string(const char *)" },
	{ "discard", "void(int)" },
	{ "exit", "void(int)" },
	{ "freopen", "void(@, ...)" },
	{ "ftruncate", "void()" },
	{ "func", "_symaddr(uintptr_t)" },
	{ "getmajor", "vmlinux`dev_t(vmlinux`dev_t)" },
	{ "getminor", "vmlinux`dev_t(vmlinux`dev_t)" },
	{ "htonl", "uint32_t(uint32_t)" },
	{ "htonll", "uint64_t(uint64_t)" },
	{ "htons", "uint16_t(uint16_t)" },
	{ "index", "int(const char *, const char *, [int])" },
	{ "inet_ntoa", "string(ipaddr_t *)" },
	{ "inet_ntoa6", "string(struct in6_addr *, [int])" },
	{ "inet_ntop", "string(int, void *)" },
	{ "jstack", "stack([uint32_t], [uint32_t])" },
	{ "link_ntop", "string(int, void *)" },
	{ "llquantize", "void(@, int32_t, int32_t, int32_t, int32_t, ...)" },
	{ "lltostr", "string(int64_t, [int])" },	/* sonde: a base */
	{ "lquantize", "void(@, int32_t, int32_t, ...)" },
	{ "max", "void(@)" },
	{ "min", "void(@)" },
	{ "mod", "_symaddr(uintptr_t)" },
	{ "msgdsize", "size_t(mblk_t *)" },
	{ "msgsize", "size_t(mblk_t *)" },
	{ "mutex_owned", "int(vmlinux`struct mutex *)" },
	{ "mutex_owner", "vmlinux`struct task_struct *(vmlinux`struct mutex *)" },
	{ "mutex_type_adaptive", "int(vmlinux`struct mutex *)" },
	{ "mutex_type_spin", "int(vmlinux`struct mutex *)" },
	{ "ntohl", "uint32_t(uint32_t)" },
	{ "ntohll", "uint64_t(uint64_t)" },
	{ "ntohs", "uint16_t(uint16_t)" },
	{ "normalize", "void(@, uint64_t)" },
	{ "panic", "void()" },
	{ "pcap", "void(void *, int)" },
	{ "printa", "void(@, ...)" },
	{ "printf", "void(string, ...)" },
	{ "print", "void(void *)" },
	{ "progenyof", "int(pid_t)" },
	{ "quantize", "void(@, ...)" },
	{ "raise", "void(int)" },
	{ "rand", "int()" },
	{ "rindex", "int(const char *, const char *, [int])" },
	{ "rw_iswriter", "int(vmlinux`rwlock_t *)" },
	{ "rw_read_held", "int(vmlinux`rwlock_t *)" },
	{ "rw_write_held", "int(vmlinux`rwlock_t *)" },
	{ "setopt", "void(const char *, [const char *])" },
	{ "speculate", "void(int)" },
	{ "speculation", "int()" },
	{ "stack", "stack([uint32_t])" },
	{ "stddev", "void(@)" },
	{ "stop", "void()" },
	{ "strchr", "string(const char *, char)" },
	{ "strlen", "size_t(const char *)" },
	{ "strjoin", "string(const char *, const char *)" },
	{ "strrchr", "string(const char *, char)" },
	{ "strstr", "string(const char *, const char *)" },
	{ "strtok", "string(const char *, const char *)" },
	{ "substr", "string(const char *, int, [int])" },
	{ "sum", "void(@)" },
	{ "sym", "_symaddr(uintptr_t)" },
	{ "system", "void(@, ...)" },
	{ "trace", "void(@)" },
	{ "tracemem", "void(@, size_t, [size_t])" },
	{ "trunc", "void(@, [int64_t])" },
	{ "uaddr", "_usymaddr(uintptr_t)" },
	{ "ufunc", "_usymaddr(uintptr_t)" },
	{ "umod", "_usymaddr(uintptr_t)" },
	{ "ustack", "stack([uint32_t], [uint32_t])" },
	{ "usym", "_usymaddr(uintptr_t)" },
};

enum pkind { P_ANY, P_INT, P_STR, P_PTR, P_STACK };

/* The kind a prototype's type names, and its name as dtrace(1) prints
 * it (without const). */
static enum pkind kind_of(const char *t, char *name, size_t len)
{
	size_t n;

	while (*t == ' ')
		t++;
	if (!strncmp(t, "const ", 6))
		t += 6;
	/* dtrace(1) names kernel types without their module */
	if (!strncmp(t, "vmlinux`", 8))
		t += 8;
	n = strcspn(t, ",)");
	while (n && (t[n - 1] == ' ' || t[n - 1] == ']'))
		n--;
	snprintf(name, len, "%.*s", (int)n, t);
	if (!strcmp(name, "@"))
		return P_ANY;
	if (!strcmp(name, "string") || !strcmp(name, "char *"))
		return P_STR;
	if (!strcmp(name, "stack") || name[0] == '_')
		return P_STACK;
	if (n && name[n - 1] == '*')
		return P_PTR;
	return P_INT;
}

static bool compatible(enum pkind k, const char *pname,
		       const struct dt_node *a)
{
	const struct dt_type *t = &a->type;

	switch (k) {
	case P_ANY:
	case P_STACK:
		return true;
	case P_INT:
		return t->kind == DT_TINT || t->kind == DT_TSYM;
	case P_STR:
		/* NULL or 0: a null pointer constant, faulting at run time */
		return t->kind == DT_TSTR || dt_node_is_null(a) ||
		       (a->kind == N_INT && !a->ival) ||
		       (t->kind == DT_TPTR && t->pointee == 1 && !t->xlate);
	case P_PTR:
		/* a string is a char *: only void * and char * take it */
		if (t->kind == DT_TSTR)
			return !strcmp(pname, "void *") ||
			       !strcmp(pname, "char *");
		return t->kind == DT_TPTR || t->kind == DT_TINT;
	}
	return true;
}

const char *dt_proto(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(protos); i++)
		if (!strcmp(protos[i].name, name))
			return protos[i].sig;
	return NULL;
}

bool dt_proto_check(struct dt_ck *k, struct dt_node *n)
{
	const char *sig = dt_proto(n->name), *p;
	struct dt_cc *cc = dt_ck_cc(k);
	int nfixed = 0, nopt = -1, varargs = -1, total, limit, cmp = 0;
	bool mismatch;

	if (!sig)
		return false;
	p = strchr(sig, '(') + 1;
	/* count: fixed arguments, where the optional ones start, "..." */
	for (int i = 0; *p && *p != ')'; i++) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "...", 3))
			varargs = i;
		else if (*p == '[' && nopt < 0)
			nopt = i;
		if (varargs < 0)
			nfixed = i + 1;
		p += strcspn(p, ",)");
		if (*p == ',')
			p++;
	}
	total = nfixed;
	if (varargs >= 0) {
		mismatch = n->nargs < varargs;
		limit = varargs;
		cmp = 1;
	} else if (nopt >= 0) {
		if (n->nargs < nopt) {
			mismatch = true;
			cmp = 1;
			limit = nopt;
		} else if (n->nargs > total) {
			mismatch = true;
			cmp = -1;
			limit = total;
		} else {
			mismatch = false;
			limit = n->nargs;
		}
	} else {
		mismatch = n->nargs != total;
		limit = total;
	}
	if (mismatch)
		dt_cerror(cc, &n->loc, D_PROTO_LEN, "%s( ) prototype mismatch: "
			  "%d arg%spassed, %s%d expected", n->name, n->nargs,
			  n->nargs == 1 ? " " : "s ", cmp > 0 ? "at least " :
			  cmp < 0 ? "at most " : "", limit);
	p = strchr(sig, '(') + 1;
	for (int i = 0; i < limit && i < n->nargs; i++) {
		char pname[64], aname[64];
		enum pkind pk;

		while (*p == ' ')
			p++;
		pk = kind_of(*p == '[' ? p + 1 : p, pname, sizeof(pname));
		if (pname[0] && pname[strlen(pname) - 1] == ']')
			pname[strlen(pname) - 1] = '\0';
		p += strcspn(p, ",)");
		if (*p == ',')
			p++;
		if (pk == P_ANY || pk == P_STACK)
			continue;
		struct dt_node *a = n->args[i];
		const struct dt_func *f = a->kind == N_CALL ?
					  dt_func_lookup(a->name) : NULL;

		/* an action has no value: it is void here, as in DTrace */
		if (f && f->is_action && f->check)
			a->type = dt_void;
		else if (a->kind == N_AGG)
			dt_cerror(cc, &n->loc, D_PROTO_ARG, "%s( ) argument #%d "
				  "is incompatible with prototype:\n\tprototype: "
				  "%s\n\t argument: aggregation", n->name, i + 1,
				  pname);
		else
			dt_ck_expr(k, a);
		if (!compatible(pk, pname, a))
			dt_cerror(cc, &n->loc, D_PROTO_ARG, "%s( ) "
				  "argument #%d is incompatible with prototype:"
				  "\n\tprototype: %s\n\t argument: %s", n->name,
				  i + 1, pname, dt_type_name(&a->type, aname,
							   sizeof(aname)));
	}
	return true;
}
