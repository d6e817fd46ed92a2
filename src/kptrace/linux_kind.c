// SPDX-License-Identifier: GPL-2.0-only
/* linux_kind — headline recognisers of Linux kernel logs; see
 * linux_kind.h. */
#include "linux_kind.h"
#include "linux_frame.h"
#include "../lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy s[0..n) into a new string with "[hex]" tokens and hex words
 * removed and spaces collapsed, trailing " .:!," trimmed. */
static char *clean_kind(const char *s, size_t n)
{
	struct sbuf sb;
	size_t i = 0;

	sbuf_init(&sb);
	while (i < n) {
		if (s[i] == '[') {
			size_t j = i + 1;

			while (j < n && s[j] != ']')
				j++;
			i = j < n ? j + 1 : n;
			continue;
		}
		if (s[i] == ' ' && sb.len && sb.buf[sb.len - 1] == ' ') {
			i++;
			continue;
		}
		sbuf_putc(&sb, s[i++]);
	}
	while (sb.len && strchr(" .:!,]", sb.buf[sb.len - 1]))
		sb.len--;
	sbuf_putc(&sb, '\0');
	return sbuf_steal(&sb);
}

/* Cut s at the first of the stop strings; the length kept. */
static size_t cut_at(const char *s, const char *const *stops)
{
	size_t n = strlen(s);

	for (int i = 0; stops[i]; i++) {
		const char *c = strstr(s, stops[i]);

		if (c && (size_t)(c - s) < n)
			n = (size_t)(c - s);
	}
	return n;
}


struct fixed {
	const char *prefix, *kind;
};

/* Headlines whose kind is fixed text (checked in order, prefix match). */
static const struct fixed fixed_kinds[] = {
	{ "BUG: kernel NULL pointer dereference", "BUG: kernel NULL pointer dereference" },
	{ "BUG: unable to handle kernel NULL pointer dereference", "BUG: kernel NULL pointer dereference" },
	{ "Unable to handle kernel NULL pointer dereference", "BUG: kernel NULL pointer dereference" },
	{ "BUG: unable to handle kernel paging request", "BUG: unable to handle page fault" },
	{ "BUG: unable to handle page fault", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel paging request", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel execute from non-executable memory", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel read from unreadable memory", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel write to read-only memory", "BUG: unable to handle page fault" },
	{ "BUG: unable to handle kernel", "BUG: unable to handle kernel" },
	{ "general protection fault", "general protection fault" },
	{ "kernel BUG at", "kernel BUG" },
	{ "Kernel BUG at", "kernel BUG" },
	{ "divide error:", "divide error" },
	{ "divide_error:", "divide error" },
	{ "stack segment:", "stack segment fault" },
	{ "int3:", "int3" },
	{ "invalid opcode:", "invalid opcode" },
	{ "PANIC: double fault", "PANIC: double fault" },
	{ "kernel stack overflow", "kernel stack overflow" },
	{ "BUG: TASK stack guard page was hit", "BUG: stack guard page was hit" },
	{ "BUG: IRQ stack guard page was hit", "BUG: stack guard page was hit" },
	{ "BUG: Unable to handle kernel data access", "BUG: unable to handle page fault" },
	{ "Unable to handle kernel access to user memory", "BUG: unable to handle kernel access to user memory" },
	{ "WARNING: Nested lock was not taken", "WARNING: nested lock was not taken" },
	{ "BUG: Invalid wait context", "WARNING: locking bug" },
	{ "BUG: soft lockup", "BUG: soft lockup" },
	{ "BUG: spinlock lockup suspected", "BUG: spinlock lockup suspected" },
	{ "BUG: bad unlock balance detected", "BUG: bad unlock balance" },
	{ "BUG: Bad page state", "BUG: Bad page state" },
	{ "BUG: Bad page map", "BUG: Bad page map" },
	{ "BUG: Bad rss-counter state", "BUG: Bad rss-counter state" },
	{ "BUG: Dentry ", "BUG: Dentry still in use" },
	{ "BUG: workqueue lockup", "BUG: workqueue lockup" },
	{ "unregister_netdevice: waiting for ", "unregister_netdevice: waiting for DEV to become free" },
	{ "VFS: Busy inodes after unmount", "VFS: Busy inodes after unmount (use-after-free)" },
	{ "VFS: Close: file count is 0", "VFS: Close: file count is zero (use-after-free)" },
	{ "Watchdog detected hard LOCKUP", "BUG: hard lockup" },
	{ "WARNING: possible circular locking dependency detected", "possible deadlock" },
	{ "WARNING: possible recursive locking detected", "possible deadlock" },
	{ "INFO: possible circular locking dependency detected", "possible deadlock" },
	{ "INFO: possible recursive locking detected", "possible deadlock" },
	{ "WARNING: inconsistent lock state", "inconsistent lock state" },
	{ "INFO: inconsistent lock state", "inconsistent lock state" },
	{ "WARNING: bad unlock balance detected", "WARNING: bad unlock balance" },
	{ "WARNING: kernel stack regs", "WARNING: kernel stack regs has bad value" },
	{ "WARNING: kernel stack frame pointer", "WARNING: kernel stack regs has bad value" },
	{ "WARNING: still has locks held", "WARNING: still has locks held" },
	{ "WARNING: lock held when returning to user space", "WARNING: lock held when returning to user space" },
	{ "INFO: trying to register non-static key", "INFO: trying to register non-static key" },
	{ "INFO: suspicious RCU usage", "INFO: suspicious RCU usage" },
	{ "unreferenced object 0x", "memory leak" },
	{ "BUG: memory leak", "memory leak" },
	{ "WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order", "possible deadlock" },
	{ "WARNING: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order", "possible deadlock" },
	{ "WARNING: possible irq lock inversion dependency", "possible deadlock" },
	{ "INFO: HARDIRQ-safe -> HARDIRQ-unsafe lock order", "possible deadlock" },
	{ "INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order", "possible deadlock" },
	{ "INFO: possible irq lock inversion dependency", "possible deadlock" },
	{ "WARNING: held lock freed", "WARNING: held lock freed" },
	{ "BUG: held lock freed", "BUG: held lock freed" },
	{ "Unhandled fault:", "Unhandled fault" },
	{ "NMI backtrace for cpu", "NMI backtrace" },
	{ "Internal error:", "Internal error" },
	{ "Oops:", "Oops" },
	{ "Oops ", "Oops" },
	{ NULL, NULL },
};

/* Lines that come before a headline and name the report better. */
static const struct fixed prelude_kinds[] = {
	{ "Alignment trap:", "Alignment trap" },
	{ "list_add corruption", "BUG: corrupted list" },
	{ "list_del corruption", "BUG: corrupted list" },
	{ "list_add double add", "BUG: corrupted list" },
	{ "slab corruption", "BUG: corrupted list" },
	{ "ODEBUG:", "WARNING: ODEBUG bug" },
	{ "usercopy: Kernel memory", "BUG: bad usercopy" },
	{ "kobject:", "WARNING: kobject bug" },
	{ "proc_dir_entry", "WARNING: proc registration bug" },
	{ NULL, NULL },
};

/* Lines inside an open report that refine its kind. */
static const struct fixed refine_kinds[] = {
	{ "refcount_t:", "WARNING: refcount bug" },
	{ "Kernel stack is corrupted in:", "kernel panic: stack is corrupted" },
	{ NULL, NULL },
};

const char *lx_prelude_kind(const char *s)
{
	for (const struct fixed *f = prelude_kinds; f->prefix; f++)
		if (lx_starts(s, f->prefix))
			return f->kind;
	return NULL;
}

const char *lx_refine_kind(const char *s, size_t *len)
{
	for (const struct fixed *f = refine_kinds; f->prefix; f++)
		if (lx_starts(s, f->prefix)) {
			*len = strlen(f->prefix);
			return f->kind;
		}
	return NULL;
}

/* Remove a leading "rcu: ", "watchdog: ", "NMI watchdog: ", "Oops: "
 * (6.10+ prints "Oops: general protection fault, ..."). */
const char *lx_strip_subsys(const char *s)
{
	static const char *const pre[] = {
		"rcu: ", "watchdog: ", "NMI watchdog: ", "Oops: ", "[ ", NULL,
	};

	for (int i = 0; pre[i]; i++)
		if (lx_starts(s, pre[i]) && (strcmp(pre[i], "Oops: ") ||
					  !isdigit((unsigned char)s[6])))
			return s + strlen(pre[i]);
	return s;
}

/* 6.15+ WARNING headline: the file:line comes first. */
static bool warning_new(const char *s)
{
	const char *p = s + 9, *sp, *colon;

	if (!lx_starts(s, "WARNING: "))
		return false;
	if (*p == '[') {	/* "WARNING: [cond] file:line at func" */
		const char *e = strstr(p, "] ");

		if (!e)
			return false;
		p = e + 2;
	}
	sp = strchr(p, ' ');
	colon = strchr(p, ':');
	return sp && colon && colon < sp && isdigit((unsigned char)colon[1]) &&
	       lx_starts(sp, " at ");
}

/* WARNINGs named by the file that warned. */
static const char *warning_kind(const char *file, size_t n, const char *func)
{
	static const char *const by_file[][2] = {
		{ "lib/debugobjects.c", "WARNING: ODEBUG bug" },
		{ "mm/usercopy.c", "WARNING: bad usercopy" },
		{ "lib/kobject.c", "WARNING: kobject bug" },
		{ "fs/proc/generic.c", "WARNING: proc registration bug" },
		{ "lib/refcount.c", "WARNING: refcount bug" },
		{ "kernel/locking/lockdep.c", "WARNING: locking bug" },
	};

	if (!file)
		return "WARNING";
	for (size_t i = 0; i < ARRAY_SIZE(by_file); i++)
		if (memmem(file, n, by_file[i][0], strlen(by_file[i][0])))
			return by_file[i][1];
	if (memmem(file, n, "mm/vmalloc.c", 12) && func &&
	    strstr(func, "vmalloc"))
		return "WARNING: zero-size vmalloc";
	/* an allocator warning: the function is kmalloc, kvmalloc, vmalloc
	 * ..., "malloc" at most two letters in (free_large_kmalloc is not) */
	if (memmem(file, n, "mm/", 3) && func &&
	    (!strncmp(func, "malloc", 6) ||
	     (func[0] && !strncmp(func + 1, "malloc", 6)) ||
	     (func[0] == 'k' && func[1] && !strncmp(func + 2, "malloc", 6))))
		return "WARNING: kmalloc bug";
	return "WARNING";
}

/* The kind of the report this line starts, or NULL. *func gets a
 * function the headline names (WARNING at ... func, KASAN in func). */
char *lx_headline(const char *body, char **func)
{
	const char *s = lx_strip_subsys(body), *op;
	static const char *const bug_stops[] = {
		" at ", ":", "!", ",", " - ", " in process", " on CPU",
		" (", NULL,
	};
	size_t n;

	*func = NULL;
	if (lx_starts(s, "BUG: KASAN: ") || lx_starts(s, "KASAN: ") ||
	    lx_starts(s, "BUG: KFENCE: ") || lx_starts(s, "BUG: KMSAN: ") ||
	    lx_starts(s, "KMSAN: ") || lx_starts(s, "BUG: KCSAN: ") ||
	    lx_starts(s, "UBSAN: ")) {
		const char *k = lx_starts(s, "BUG: ") ? s + 5 : s;
		const char *in = strstr(k, " in ");

		if (lx_starts(k, "KASAN: ") && strstr(k, " in range ["))
			return NULL;	/* part of a general protection fault */
		if (lx_starts(k, "KASAN: double-free") && in) {
			*func = lx_func_at(in + 4);
			return sd_strdup("KASAN: invalid-free");
		}
		{
			const char *on = strstr(k, " on address");

			if (on && (!in || on < in))
				return clean_kind(k, (size_t)(on - k));
		}
		if (!in)
			return clean_kind(k, strlen(k));
		if (lx_starts(k, "UBSAN: ")) {
			char *kind = clean_kind(k, (size_t)(in - k));

			if (!strcmp(kind, "UBSAN: Undefined behaviour"))
				strcpy(kind + 7, "undefined-behaviour");
			return kind;
		}
		if (lx_starts(k, "KCSAN: ")) {
			/* "f+0x1/0x2 / g+0x3/0x4" -> "f / g" */
			char *a = lx_func_at(in + 4), *sl = strstr(in + 4, " / ");

			if (a && sl) {
				char *bb = lx_func_at(sl + 3);

				if (bb) {
					size_t n2 = strlen(a) + strlen(bb) + 4;

					*func = sd_malloc(n2);
					snprintf(*func, n2, "%s / %s", a, bb);
					free(a);
					free(bb);
					a = NULL;
				}
			}
			if (a)
				*func = a;
		} else {
			*func = lx_func_at(in + 4);
		}
		return clean_kind(k, (size_t)(in - k));
	}
	if (lx_starts(s, "WARNING: CPU:") || lx_starts(s, "WARNING: at ") ||
	    (lx_starts(s, "WARNING: ") && strstr(s, " PID: ") &&
	     strstr(s, " at ")) || warning_new(s)) {
		const char *at = strstr(s, " at "), *file = NULL;
		size_t flen = 0;

		if (warning_new(s)) {
			/* 6.15+: "WARNING: fs/x.c:12 at func+0x1/0x2, CPU#0" */
			file = s + 9;
			if (*file == '[')
				file = strstr(file, "] ") + 2;
			at = strstr(file, " at ");
			flen = strcspn(file, " ");
			*func = lx_func_at(at + 4);
		} else if (at) {
			const char *p = lx_skip_ws(at + 4);

			file = p;
			while (*p && *p != ' ')	/* file:line */
				p++;
			flen = (size_t)(p - file);
			if (*p == ' ')
				*func = lx_func_at(p);
		}
		return sd_strdup(warning_kind(file, flen, *func));
	}
	if (lx_starts(s, "kernel BUG at mm/usercopy.c"))
		return sd_strdup("BUG: bad usercopy");
	if (lx_starts(s, "kernel BUG at lib/list_debug.c"))
		return sd_strdup("BUG: corrupted list");
	/* a frame pointer printed as an address keeps its kind; "(ptrval)"
	 * is the regs kind, as syzkaller names it */
	if (lx_starts(s, "WARNING: kernel stack frame pointer at ") &&
	    isxdigit((unsigned char)s[39]))
		return sd_strdup("WARNING: kernel stack frame pointer has bad value");
	/* "BUG: Dentry ... still in use (1) [unmount of fs dev]": named by
	 * the operation, as syzkaller names it */
	if (lx_starts(s, "BUG: Dentry ") && (op = strstr(s, " still in use")) &&
	    (op = strchr(op, '[')) && strstr(op, " of ")) {
		*func = sd_strndup(op + 1, strcspn(op + 1, " ]"));
		return sd_strdup("BUG: Dentry still in use");
	}
	for (const struct fixed *f = fixed_kinds; f->prefix; f++)
		if (lx_starts(s, f->prefix))
			return sd_strdup(f->kind);
	if (lx_starts(s, "INFO: task ")) {
		/* "blocked in I/O wait for more than" since 6.16 */
		if (strstr(s, " blocked") && strstr(s, " for more than "))
			return sd_strdup("INFO: task hung");
		if (strstr(s, " can't die for more than"))
			return sd_strdup("INFO: task can't die");
		return NULL;
	}
	if (lx_starts(s, "INFO: rcu") && strstr(s, "detected") &&
	    strstr(s, "stall"))
		return sd_strdup("INFO: rcu detected stall");
	if (lx_starts(s, "Kernel panic - not syncing: ")) {
		const char *m = s + 28;
		static const char *const stops[] = { " ...", "!", "\n", NULL };

		if (lx_starts(m, "stack-protector: Kernel stack is corrupted in: ")) {
			*func = lx_func_at(m + 47);
			/* a bare address names no function: the stack will */
			if (*func && strspn(*func, "0123456789abcdef") ==
				     strlen(*func)) {
				free(*func);
				*func = NULL;
			}
			return sd_strdup("kernel panic: stack is corrupted");
		}
		if (lx_starts(m, "corrupted stack end detected"))
			return sd_strdup("kernel panic: corrupted stack end");
		if (lx_starts(m, "panic_on_warn set"))
			return sd_strdup("kernel panic: panic_on_warn set");
		if (lx_starts(m, "kernel stack overflow"))
			return sd_strdup("kernel stack overflow");
		if (lx_starts(m, "Fatal exception"))	/* "... in interrupt" */
			return sd_strdup("kernel panic: Fatal exception");
		n = cut_at(m, stops);
		char *k = sd_malloc(n + 15);

		memcpy(k, "kernel panic: ", 14);
		memcpy(k + 14, m, n);
		k[14 + n] = '\0';
		while (n && strchr(" .", k[13 + n]))
			k[13 + n--] = '\0';
		return k;
	}
	/* SLUB: "BUG kmalloc-1024 (Not tainted): Object already free" */
	if (lx_starts(s, "BUG ") && strstr(s, "): ")) {
		const char *m = strstr(s, "): ") + 3;
		char *k;

		if (!*m)
			return NULL;
		k = sd_malloc(strlen(m) + 6);
		sprintf(k, "BUG: %s", m);
		return k;
	}
	if ((lx_starts(s, "BUG: ") || lx_starts(s, "WARNING: ")) &&
	    strstr(s, " still has locks held"))
		return sd_strdup(s[0] == 'B' ? "BUG: still has locks held" :
				 "WARNING: still has locks held");
	if (lx_starts(s, "BUG: ") && strlen(s) > 6) {
		const char *k = s;

		if (lx_starts(s, "BUG: using ") && strstr(s, " in preemptible")) {
			const char *e = strstr(s, " in preemptible");

			n = (size_t)(e - s);
			char *kind = sd_malloc(n + 30);

			memcpy(kind, s, n);
			strcpy(kind + n, " in preemptible code");
			return kind;
		}
		n = cut_at(k + 5, bug_stops) + 5;
		return clean_kind(k, n);
	}
	if (lx_starts(s, "WARNING: ") && strlen(s) > 10) {
		static const char *const stops[] = { "!", " detected", NULL };

		n = cut_at(s, stops);
		return clean_kind(s, n);
	}
	return NULL;
}

/* A headline glued to or after other text on the line (two printks
 * interleaved, "syz-executor: ...BUG: unable to handle ..."). */
char *lx_headline_inside(const char *body, char **func)
{
	static const char *const marks[] = {
		"general protection fault", "BUG: ", "WARNING: CPU:",
		"Kernel panic - not syncing", "kernel BUG at ",
		"Unable to handle kernel ", "INFO: task ", "INFO: rcu_",
		": WARNING: ",	/* dev_warn(): "usb 5-1: WARNING: ..." */
		NULL,
	};
	const char *best = NULL;

	for (int i = 0; marks[i]; i++) {
		const char *m = strstr(body + 1, marks[i]);

		if (m && marks[i][0] == ':')
			m += 2;
		if (m && (!best || m < best))
			best = m;
	}
	return best ? lx_headline(best, func) : NULL;
}

/* Kinds that continue an open report when they come right after its
 * headline (the Oops line after "BUG: kernel NULL pointer dereference",
 * "Internal error: Oops" after arm64's "Unable to handle", the "kernel
 * BUG at" after "list_add corruption", ...). */
bool lx_continues(const struct kp_report *r, const char *kind, int lineno)
{
	static const char *const cont[] = {
		"Oops", "Internal error", "invalid opcode",
		"kernel stack overflow", "PANIC: double fault", NULL,
	};

	if (r && !strcmp(kind, "memory leak") && !strcmp(r->kind, kind) &&
	    r->nframes == 0)
		return true;	/* "BUG: memory leak", "unreferenced object" */
	if (!r || lineno - r->first_line > 30)
		return false;
	for (size_t i = 0; i < r->nframes; i++)
		if (!r->frames[i].pc)
			return false;
	for (int i = 0; cont[i]; i++)
		if (!strcmp(kind, cont[i]))
			return true;
	/* "kernel BUG at" / "WARNING" after a list/usercopy line */
	return (!strcmp(kind, "kernel BUG") || !strcmp(kind, "WARNING")) &&
	       lineno - r->first_line <= 3 && strcmp(r->kind, kind) &&
	       strcmp(r->kind, "WARNING") && strcmp(r->kind, "kernel BUG");
}

/* How a lockdep headline names its lock, as syzkaller reads each: the
 * old "[ INFO: ... ]" forms and the recursive, irq-inversion and held-lock
 * reports by the "at:" of the lock in question; a circular dependency by
 * that lock or the one held, unless both are plumbing or work-queue
 * machinery; an inconsistent lock state by its call trace. */
enum lx_lock_mode lx_lock_mode_of(const char *s)
{
	if (lx_starts(s, "WARNING: possible circular locking"))
		return LOCK_CIRCULAR;
	if (lx_starts(s, "WARNING: inconsistent lock state"))
		return LOCK_STACK;
	if (lx_starts(s, "INFO: ") || lx_starts(s, "WARNING: possible recursive") ||
	    lx_starts(s, "WARNING: possible irq lock inversion"))
		return LOCK_DIRECT;
	return LOCK_FIRST;
}

/* "CPU: 0 PID: 1 Comm: sh Tainted: G  O  6.1.0-18-cloud-amd64 #1" and
 * "Pid: 3, comm: x Not tainted 3.3.7 #1": the release. */
char *lx_release_of(const char *s)
{
	const char *p = strstr(s, "Not tainted ");
	size_t n;

	if (p) {
		p += 12;
	} else if ((p = strstr(s, "Tainted: "))) {
		p += 9;
		/* taint flags: words of capital letters */
		for (;;) {
			const char *w = lx_skip_ws(p), *e = w;

			while (isupper((unsigned char)*e))
				e++;
			if (e == w || (*e && *e != ' '))
				break;
			p = e;
		}
	} else if ((p = strstr(s, "Linux version "))) {
		p += 14;
	} else {
		return NULL;
	}
	p = lx_skip_ws(p);
	n = strcspn(p, " ");
	if (!n || !isdigit((unsigned char)*p) || n > 64)
		return NULL;
	return sd_strndup(p, n);
}

bool lx_panic_follows(const char *msg)
{
	static const char *const after[] = {
		"Fatal exception", "panic_on_", "hung_task: blocked tasks",
		"softlockup: hung tasks", "hardlockup", "Hard LOCKUP",
		"RCU Stall", "rcu_stall", "Attempted to kill init",
		"Attempted to kill the idle task", "Machine halted",
		"Aiee, killing interrupt handler", "scheduling while atomic",
		NULL,
	};

	for (int i = 0; after[i]; i++)
		if (strstr(msg, after[i]))
			return true;
	return false;
}
