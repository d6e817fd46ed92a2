// SPDX-License-Identifier: GPL-2.0-only
/* culprit — which function a crash report is about, for its title. A
 * report's first frames are usually the machinery that printed it
 * (dump_stack, panic, __warn, kasan_report, ...), the scheduler a hung
 * task sleeps in, or the allocator a leaked object came from; the rules
 * below skip those, as syzkaller's and satyr's report parsers do, and take
 * the headline's function, the lock being taken, the faulting pc or the
 * first reliable frame, depending on the kind. */
#include "report.h"
#include "../lib/demangle.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Generic helpers: never the culprit (shell patterns). */
static const char *const generic[] = {
	/* printing the report */
	"dump_stack", "dump_stack_lvl", "__dump_stack", "show_stack",
	"dump_backtrace", "show_trace_log_lvl", "show_regs", "__show_regs",
	"panic", "panic_*", "__panic*", "vpanic", "nmi_panic", "__warn",
	"__warn_printk", "warn_slowpath_*",
	"report_bug", "handle_bug", "fixup_bug", "do_trap", "do_error_trap",
	"die", "__die", "__die_body", "oops_end", "bust_spinlocks",
	"exc_*", "asm_exc_*", "do_invalid_op", "invalid_op", "do_bug",
	"bug_handler", "call_break_hook", "brk_handler", "do_debug_exception",
	"el1_*", "el1h_*",
	"do_mem_abort", "do_page_fault", "do_translation_fault",
	"__do_kernel_fault", "die_kernel_fault", "do_kern_addr_fault",
	"do_user_addr_fault", "page_fault_oops", "kernelmode_fixup_or_oops",
	"no_context",
	"handle_page_fault", "page_fault", "async_page_fault",
	"do_general_protection", "general_protection", "do_divide_error",
	"divide_error", "error_entry", "error_exit",
	"print_report", "print_address_description*", "describe_object*",
	"print_trailer", "object_err", "check_bytes_and_report",
	/* sanitizers */
	"kasan_*", "__kasan_*", "____kasan_*", "__asan_*", "asan_*",
	"check_memory_region*", "memory_is_poisoned*", "kfence_*",
	"__kfence_*", "kmsan_*", "__kmsan_*", "__msan_*", "kcsan_*",
	"__kcsan_*", "__tsan_*", "ubsan_*", "__ubsan_*", "handle_overflow",
	"__sanitizer_*", "kmemleak_*", "report_*",
	/* lockdep and locks */
	"lockdep_*", "__lockdep_*", "lock_acquire*", "lock_release",
	"__lock_acquire", "lock_acquired", "lock_contended",
	"print_usage_bug", "mark_lock*", "valid_state", "validate_chain",
	"check_prev_add", "check_prevs_add", "check_noncircular",
	"print_circular_bug*", "print_deadlock_bug", "check_deadlock",
	"lock_is_held_type", "debug_check_no_locks_freed", "print_*",
	"_raw_spin_*", "_raw_read_*", "_raw_write_*", "do_raw_spin_*",
	"__raw_spin_*", "spin_bug", "spin_dump", "debug_spin_lock_*",
	"debug_lockdep_*", "rcu_lockdep_*", "lockdep_rcu_suspicious",
	"queued_spin_lock_slowpath", "native_queued_spin_lock_slowpath",
	"__pv_queued_spin_lock_slowpath", "pv_queued_spin_lock_slowpath",
	"down_read*", "down_write*", "__down*", "down", "down_*",
	"up_read", "up_write", "rwsem_*", "__rwsem_*", "mutex_lock*",
	"__mutex_lock*", "mutex_unlock", "__mutex_unlock*", "mutex_trylock",
	"ww_mutex_lock*", "__ww_mutex_lock*", "rt_mutex_*", "__rt_mutex_*",
	"rt_spin_*", "percpu_down_*", "percpu_rwsem_*",
	/* scheduling and waiting */
	"__schedule", "schedule", "schedule_timeout*", "schedule_preempt_disabled",
	"io_schedule*", "preempt_schedule*", "context_switch", "__switch_to",
	"__switch_to_asm", "switch_to", "cpu_switch_to", "__cpu_switch_to",
	"wait_for_completion*", "__wait_for_common", "do_wait_for_common",
	"wait_for_common*", "__wait_event*", "wait_on_bit*", "out_of_line_wait_on_bit*",
	"__wait_on_bit*", "bit_wait*", "synchronize_rcu*", "__synchronize_*",
	"synchronize_srcu*", "__synchronize_srcu", "wait_rcu_gp", "__wait_rcu_gp",
	"rcu_barrier*", "flush_work", "__flush_work", "__flush_workqueue",
	"schedule_hrtimeout*", "do_nanosleep",
	"hrtimer_nanosleep", "freezer_*", "__refrigerator", "try_to_freeze*",
	"__cond_resched*", "_cond_resched", "__might_sleep", "___might_sleep",
	"__might_fault", "__might_resched", "might_fault", "__might_resched_*",
	"rcu_note_context_switch",
	/* interrupts, timers and stall detection */
	"nmi_cpu_backtrace*", "nmi_trigger_cpumask_backtrace",
	"arch_trigger_cpumask_backtrace", "trigger_single_cpu_backtrace",
	"nmi_handle", "default_do_nmi", "do_nmi", "exc_nmi", "end_repeat_nmi",
	"rcu_dump_cpu_stacks", "print_cpu_stall*", "check_cpu_stall*",
	"rcu_pending", "rcu_sched_clock_irq", "rcu_check_callbacks",
	"rcu_stall_*", "update_process_times", "tick_sched_*",
	"tick_periodic", "tick_handle_periodic", "hrtimer_*", "__hrtimer_*",
	"__sysvec_*", "sysvec_*", "asm_sysvec_*", "irq_exit*", "__irq_exit*",
	"apic_timer_interrupt", "smp_apic_timer_interrupt",
	"local_apic_timer_interrupt", "__run_hrtimer", "watchdog_timer_fn",
	"watchdog_overflow_callback", "__perf_event_overflow",
	"handle_irq_event*", "handle_edge_irq", "handle_fasteoi_irq",
	"do_IRQ", "common_interrupt", "ret_from_intr", "irq_handler_entry",
	"gic_handle_irq", "el1_irq", "el1_interrupt", "el1h_64_irq*",
	"call_on_irq_stack", "do_interrupt_handler", "handle_domain_irq",
	"generic_handle_*", "__handle_domain_irq",
	"do_softirq*", "run_ksoftirqd", "invoke_softirq",
	"__irq_exit_rcu", "irq_exit_rcu", "lock_timer_base",
	/* allocation (leaks, bad allocations) */
	"kmalloc*", "__kmalloc*", "kmem_cache_alloc*", "__kmem_cache_alloc*",
	"slab_alloc*", "__slab_alloc*", "___slab_alloc", "slab_post_alloc_hook",
	"kzalloc*", "kcalloc*", "krealloc*", "__krealloc", "kmalloc_trace*",
	"__do_kmalloc_node", "kvmalloc*", "kvzalloc*", "__kvmalloc*",
	"kmemdup*", "kstrdup*", "kstrndup", "vmalloc*", "__vmalloc*",
	"vzalloc*", "__alloc_pages*", "alloc_pages*", "__get_free_pages",
	"get_zeroed_page", "alloc_slab_page", "allocate_slab", "new_slab",
	"kmem_cache_free", "kfree", "__kmem_cache_free", "slab_free*",
	"__slab_free", "do_slab_free", "kvfree", "vfree",
	/* library code that faults on behalf of its caller */
	"memcpy*", "__memcpy*", "memset*", "__memset*", "memmove*",
	"__memmove*", "memcmp", "__memcmp", "bcmp", "strlen", "strnlen",
	"strcmp", "strncmp", "strcpy", "strncpy", "strscpy*", "strlcpy",
	"strchr", "strrchr", "strstr", "memchr", "sized_strscpy",
	"copy_user_*", "_copy_to_user", "_copy_from_user", "copy_to_user",
	"copy_from_user", "__copy_*", "raw_copy_*", "rep_movs_alternative",
	"check_object_size", "__check_object_size", "check_heap_object",
	"usercopy_abort", "__check_heap_object", "memcpy_fromiovec*",
	"refcount_*", "__refcount_*", "debug_object*", "debug_print_object",
	"__debug_object*", "__list_add_valid*", "__list_del_entry_valid*",
	"__list_add", "list_add*", "list_del*", "__list_del*",
	"check_preemption_disabled", "debug_smp_processor_id",
	"__this_cpu_preempt_check", "__stack_chk_fail", "__fortify_*",
	"fortify_*", "__x86_indirect_thunk_*", "__pfx_*", "__x86_return_thunk",
	"entry_SYSCALL_64*", "do_syscall_64", "do_syscall_x64",
	"ret_from_fork*", "kthread", "kernel_thread_helper",
	"__sanitizer_cov_trace_*", "trace_hardirqs_*",
	"bug", "__bug", "complete", "*readb", "*readw", "*readl", "*readq",
	"*writeb", "*writew", "*writel", "*writeq", "crc[0-9]*", "copyin",
	"copyout", "lock_page*", "unlock_page*",
	/* a Rust panic: the C helper its BUG() calls, the handler of old
	 * kernels (not mangled) */
	"rust_helper_BUG", "rust_begin_unwind", NULL,
};

/* Rust panic machinery, by demangled name: what a panic, an unwrap() or
 * an overflow check runs before the handler calls BUG(). */
static const char *const rust_generic[] = {
	"core::panicking::*", "*::rust_begin_unwind", "rust_begin_unwind",
	"core::result::unwrap_failed*", "core::option::unwrap_failed*",
	"core::option::expect_failed*", "core::cell::panic_already_*",
	"core::slice::index::*_fail*", "core::str::slice_error_fail*",
	"core::panic::*", "std::panicking::*", NULL,
};

bool kp_generic_func(const char *name)
{
	char buf[256];

	if (!name)
		return true;
	if (demangle_is_rust(name)) {
		char shown[1024];
		const char *d = kp_display_name(name, shown, sizeof(shown));

		for (int i = 0; d != name && rust_generic[i]; i++)
			if (!fnmatch(rust_generic[i], d, 0))
				return true;
		if (d != name)
			return false;
	}
	name = kp_func_base(name, buf, sizeof(buf));
	for (int i = 0; generic[i]; i++)
		if (!fnmatch(generic[i], name, 0))
			return true;
	return false;
}

/* Substrings that mark a function as plumbing around the culprit: locks,
 * string and copy helpers, printing, device teardown helpers that are
 * called with the victim's object. */
static const char *const plumbing[] = {
	"__sanitizer", "__asan", "kasan", "__msan", "kmsan", "kcsan",
	"check_memory_region", "read_word_at_a_time", "print_address_description",
	"invalid_op", "report_bug", "fixup_bug", "do_error", "_trap",
	"dump_stack", "warn_slowpath", "warn_alloc", "__warn", "debug_object",
	"is_static_object", "lockdep", "perf_trace", "lock_acquire",
	"lock_release", "lock_class", "held_locks", "spin_lock", "spin_trylock",
	"spin_unlock", "raw_read_lock", "raw_write_lock", "read_trylock",
	"write_trylock", "down_read", "down_write", "down_trylock",
	"up_read", "up_write", "mutex_lock",
	"mutex_trylock", "mutex_unlock", "mutex_remove_waiter",
	"mutex_optimistic_spin", "osq_lock", "osq_unlock", "__wake_up",
	"refcount_", "memcpy", "memcmp", "memset", "memchr", "memmove",
	"strcmp", "strncmp", "strcpy", "strlcpy", "strncpy", "strscpy",
	"strlen", "strnstr", "strnlen", "strchr", "copy_to_user",
	"copy_from_user", "put_user", "get_user", "might_fault", "might_sleep",
	"list_add", "list_del", "list_replace", "list_move", "list_splice",
	"_indirect_thunk_", "string", "pointer", "snprintf", "kasprintf",
	"printk", "dev_info", "dev_notice", "dev_warn", "dev_err", "dev_alert",
	"dev_crit", "dev_emerg", "program_check_", "del_timer", "flush_work",
	"cancel_work", "cancel_delayed_work", "try_to_grab_pending",
	"flush_workqueue", "drain_workqueue", "destroy_workqueue",
	"finish_wait", "kthread_stop", "kobject_", "add_uevent_var",
	"get_device_parent", "device_add", "device_del", "device_unregister",
	"device_destroy", "device_release_driver", "bus_remove_device",
	"hwrng_unregister", "i2c_del_adapter", "__unregister_client",
	"device_for_each_child", "rollback_registered", "unregister_netdev",
	"sysfs_remove", "device_remove_file", "tty_unregister_device",
	"dummy_urb_enqueue", "usb_kill_urb", "usb_kill_anchored_urbs",
	"usb_control_msg", "usb_hcd_submit_urb", "usb_submit_urb",
	"usb_start_wait_urb", "usb_bulk_msg", "usb_interrupt_msg",
	"check_panic_on_warn", "ref_tracker", "__seqprop", "seqprop_",
	"rb_erase", "rb_insert", "__rb_", "__phys_addr", "skb_panic",
	"skb_over_panic", "skb_under_panic", "skb_pull", "skb_put", "skb_push",
	"ida_free", "ida_alloc", "idr_", "folio_unlock", "crc_itu_t", "crc32",
	"__fortify", "fortify_", "__stack_chk", "ubsan", "handle_overflow",
	"exc_", "handle_bug", "do_trap", "die", "oops", "show_regs",
	"show_stack", "show_trace", "dump_backtrace", "do_int3",
	"trace_hardirqs", "__x86_return_thunk", "__pfx_", "irqentry_",
	"sysvec_", "__sysvec", "bad_page", "check_new_page", "free_pages_prepare",
	"__free_pages_ok", "__kfence", "kfence_", "page_fault",
	"__get_user", "__put_user", "do_user_addr_fault", "do_kern_addr_fault",
	"asm_exc", "do_mem_abort", "die_kernel_fault",
	"__do_kernel_fault", "do_translation_fault", "do_page_fault",
	"__sanitizer_cov",
	"queue_work", "timer_delete", "kill_fasync", "atomic_read", "atomic_",
	"_compound_head", "va_format", "vsnprintf", "vscnprintf", "hex_dump",
	"crc16", "crc_", "xas_", "iput", "stack_trace_", "_copy_to_iter",
	"_copy_from_iter", "copy_page_to_iter", "aes_encrypt", "aes_decrypt",
	"do_tag_check_fault", "klist_", "rb_first", "rb_next", "rb_prev",
	"put_device", "kfree_skb", "consume_skb", "memdup_user",
	"devres_release", "warn_bogus_irq", "local_bh_enable", "alloc_page",
	"alloc_frozen_pages", "fast_dput", "mark_buffer_dirty",
	"__raw_read", "__raw_write", "assertfail", "__read_once", "__hwasan",
	"hwasan_", "kernel_fpu_begin", "walk_stackframe", "__task_rq_lock",
	"task_rq_lock", "set_page_owner",
	"post_alloc_hook", "prep_new_page", "get_page_from_freelist",
	"seq_read", "__fdget", "vprintk", "format_decode",
	"debug_check_no_locks", "rhashtable_lookup", "__sk_destruct",
	"sk_destruct", "__sk_free", "umount_check", "ret_from_exception", "_atomic_dec_and",
	"dec_and_lock", "psi_group_change", "cap_inode_getsecurity",
	"smp_setup_processor_id", "__mod_timer", "mod_timer", "event_handler",
	"kthread_should_park", "__dev_queue_xmit", "dev_queue_xmit",
	"shmem_uncharge", "cgroup_rstat_flush", "find_lock_entries",
	"arch_stack_walk", "stack_trace_save", "sk_stop_timer_sync",
	"__timer_delete_sync", "dput", "device_release", "logic_in",
	"logic_out", "insert_work", "__queue_delayed_work",
	"queue_delayed_work_on", "__cancel_work_timer", "cancel_work_sync",
	"truncate_inode_pages_range", "cleanup_srcu_struct", "drop_nlink",
	"print_tainted", "get_taint", "iput_final", "ihold",
	"__alloc_frozen_pages", "filemap_alloc_folio", "__filemap_get_folio",
	"find_or_create_page", "do_read_cache_folio", "read_cache_page",
	"pagecache_get_page", "grab_cache_page_write_begin", "owner_on_cpu",
	"raw_spin_rq", "bh_enable", "bh_disable", "imbalance_bug",
	"print_unlock", "walk_stack", "warn_bogus", "check_object",
	"read_lock", "write_lock", "read_unlock", "write_unlock", "kref_",
	"strstr", "strdup", "strndup", "scnprintf", "kvasprintf",
	"copy_to_iter", "copy_from_iter", "copy_page_from_iter",
	"copy_folio_to_iter", "devres_release_all", "kmalloc", "kzalloc",
	"kcalloc", "vmalloc", "kvmalloc", "kvzalloc", "krealloc", "kmem_cache",
	"allocate_slab", "slab_", "set_bit", "clear_bit", "change_bit",
	"test_bit", "print_hex_dump", "extract_user_to_sg",
	"extract_iter_to_sg", "trace_softirq", "do_kernel_fault", NULL,
};

static bool has(const char *kind, const char *s)
{
	return strstr(kind, s) != NULL;
}

static bool has_any(const char *name, const char *const *subs)
{
	for (int i = 0; subs && subs[i]; i++)
		if (strstr(name, subs[i]))
			return true;
	return false;
}

/* The name substrings are matched against: a Rust symbol demangled (its
 * crate hashes could spell "die" or "oops"), else the name without its
 * suffixes. */
static const char *match_name(const char *name, char *buf, size_t len)
{
	if (demangle_is_rust(name))
		return kp_display_name(name, buf, len);
	return kp_func_base(name, buf, len);
}

bool kp_skip_func(const char *name)
{
	char buf[1024];

	return !name || kp_generic_func(name) ||
	       has_any(match_name(name, buf, sizeof(buf)), plumbing);
}

static const char *const sk_deadlock[] = { "process_one_work",
	"flush_workqueue", "drain_workqueue", "destroy_workqueue", NULL };

bool kp_deadlock_skip(const char *name)
{
	return !name || has_any(name, sk_deadlock);
}

/* Skipped for a culprit: generic helpers, plumbing, and the kind's own
 * extra list. */
static bool skipped(const char *name, const char *const *extra)
{
	char buf[1024];

	if (!name)
		return true;
	if (kp_generic_func(name))
		return true;
	name = match_name(name, buf, sizeof(buf));
	return has_any(name, plumbing) || has_any(name, extra);
}

/* Kinds whose culprit is where the pc was. */
static bool pc_kind(const char *k)
{
	static const char *const kinds[] = {
		"BUG: kernel NULL pointer dereference",
		"BUG: unable to handle", "general protection fault",
		"kernel BUG", "divide error", "stack segment fault", "int3",
		"invalid opcode", "PANIC: double fault", "Oops",
		"Internal error", "Unhandled fault", "kernel stack overflow",
		"BUG: soft lockup", "BUG: hard lockup", "NMI backtrace",
		"INFO: rcu detected stall", "WARNING", "BUG: corrupted list",
		"BUG: bad usercopy", "BUG: stack guard page", NULL,
	};

	for (int i = 0; kinds[i]; i++)
		if (!strncmp(k, kinds[i], strlen(kinds[i])))
			return true;
	return false;
}

/* Stall and lockup reports: the interrupted code, not the interrupt. */
static bool stall_kind(const char *k)
{
	return has(k, "rcu detected stall") || has(k, "soft lockup") ||
	       has(k, "hard lockup") || has(k, "NMI backtrace") ||
	       has(k, "corrupted stack end") || has(k, "kernel stack overflow") ||
	       has(k, "stack guard page");
}

/* Dispatchers whose callee names a stall well: syscall and work entry
 * points, file and socket operations, fault handlers. */
static const char *const stall_anchor[] = {
	"process_one_work", "do_syscall_", "do_fast_syscall_",
	"sysenter_dispatch", "tracesys_phase2", "el0_svc_handler",
	"invoke_syscall", "ret_fast_syscall", "netif_receive_skb",
	"do_softirq", "call_timer_fn", "_run_timers", "run_timer_softirq",
	"hrtimer_run", "run_ksoftirqd", "smpboot_thread_fn", "^kthread$",
	"start_secondary", "cpu_startup_entry", "ret_from_fork", "vfs_write",
	"vfs_read", "vfs_iter_read", "vfs_iter_write", "do_iter_read",
	"do_iter_write", "call_read_iter", "call_write_iter",
	"new_sync_read", "new_sync_write", "vfs_ioctl", "ksys_ioctl",
	"compat_ioctl", "compat_sys_ioctl", "blkdev_driver_ioctl",
	"blkdev_ioctl", "do_iter_readv_writev", "^call_mmap",
	"mmap_region", "do_mmap", "do_dentry_open", "vfs_open",
	"^sock_sendmsg", "^sock_recvmsg", "^sock_release", "^__sock_release",
	"^setsockopt$", "__sys_setsockopt", "kernel_setsockopt",
	"sock_common_setsockopt", "^listen$", "__sys_listen",
	"kernel_listen", "sk_common_release", "^sock_mmap", "^accept$",
	"__sys_accept", "kernel_accept", "^sock_do_ioctl", "^sock_ioctl",
	"^compat_sock_ioctl", "^nfnetlink_rcv_msg", "^rtnetlink_rcv_msg",
	"^netlink_dump", "__do_fault", "do_page_fault", "^page_fault$",
	"__fput", "task_work_run", "exit_to_usermode", "smp_call_function",
	"tasklet_action", "tasklet_hi_action", NULL,
};

/* A stall anchor matches as syzkaller's patterns do: anywhere in the
 * name, at its start with a leading ^, the whole name with ^...$. */
static bool is_anchor(const char *name)
{
	for (int i = 0; stall_anchor[i]; i++) {
		const char *a = stall_anchor[i];
		size_t n = strlen(a);

		if (a[0] != '^') {
			if (strstr(name, a))
				return true;
		} else if (a[n - 1] == '$') {
			if (strlen(name) == n - 2 && !strncmp(name, a + 1, n - 2))
				return true;
		} else if (!strncmp(name, a + 1, n - 1)) {
			return true;
		}
	}
	return false;
}

static bool is_syscall_dispatch(const char *f)
{
	static const char *const disc[] = {
		"socketpair", "connect", "ioctl", NULL,
	};
	static const char *const pre[] = {
		"SYSC_", "SyS_", "__sys_", "___sys_", "__do_sys_", "__se_sys_",
		"__x64_sys_", "compat_SYSC_", "compat_SyS_", "__ia32_sys_",
		"__arm64_sys_", "__ia32_compat_sys_", "__x64_compat_sys_",
		"compat_sys_", "__se_compat_sys_", "__do_compat_sys_",
		"__arm64_compat_sys_", NULL,
	};

	for (int i = 0; pre[i]; i++)
		if (!strncmp(f, pre[i], strlen(pre[i])))
			for (int j = 0; disc[j]; j++)
				if (!strcmp(f + strlen(pre[i]), disc[j]))
					return true;
	return false;
}

/* A stall's culprit: the function just above the first dispatcher, with
 * syscall wrapper prefixes removed (__x64_sys_mount -> mount, old
 * SyS_rmdir -> sys_rmdir). */
static const char *stall_culprit(const char **v, int n, char *buf,
				 size_t len)
{
	static const char *const pre[] = {
		"__x64_", "SYSC_", "SyS_", "compat_SYSC_", "compat_SyS_",
		"__ia32_sys_",
	};
	const char *prev;

	if (!n)
		return NULL;
	prev = v[0];
	for (int i = 0; i < n; i++) {
		if (is_anchor(v[i]) || is_syscall_dispatch(v[i])) {
			snprintf(buf, len, "%s", prev);
			for (size_t j = 0; j < sizeof(pre) / sizeof(pre[0]); j++)
				if (!strncmp(buf, pre[j], strlen(pre[j])))
					memmove(buf, buf + strlen(pre[j]),
						strlen(buf + strlen(pre[j])) + 1);
			return buf;
		}
		prev = v[i];
	}
	return NULL;
}

/* The stack a report is about: the first "Call Trace" that has frames
 * (a "Preemption disabled at:" or lockdep chain may come before it), else
 * the first stack. */
static int main_stack_of(const struct kp_report *r)
{
	for (size_t i = 0; i < r->nframes; i++) {
		const char *l = r->stacks[r->frames[i].stack];

		if (!strncasecmp(l, "Call Trace", 10) ||
		    !strncmp(l, "Backtrace", 9))
			return r->frames[i].stack;
	}
	return r->nframes ? r->frames[0].stack : 0;
}

/* The first stack whose header starts with prefix and that has frames,
 * or -1. */
static int stack_named(const struct kp_report *r, const char *prefix)
{
	for (size_t i = 0; i < r->nframes; i++)
		if (!strncmp(r->stacks[r->frames[i].stack], prefix,
			     strlen(prefix)))
			return r->frames[i].stack;
	return -1;
}

/* Frames of the main stack (or of stack want, when not -1) that may be
 * blamed, by name. */
static int candidates(const struct kp_report *r, int want, bool from_pc,
		      bool after_irq, bool anchors, const char *const *extra,
		      const char **v, int max)
{
	size_t start = 0;
	int n = 0, main_stack = want >= 0 ? want : main_stack_of(r);

	if (after_irq) {
		/* the code the timer interrupt interrupted: after the
		 * interrupt entry, or the RIP of the interrupted task */
		for (size_t i = 0; i < r->nframes; i++) {
			const struct kp_frame *f = &r->frames[i];

			if (f->sym && f->reliable &&
			    strstr(f->sym, "apic_timer_interrupt")) {
				start = i + 1;
				break;
			}
		}
		if (!start)
			for (size_t i = 0; i < r->nframes; i++)
				if (r->frames[i].pc &&
				    r->frames[i].section == KP_SEC_TASK) {
					start = i;
					break;
				}
		if (start)
			main_stack = r->frames[start < r->nframes ? start :
					       r->nframes - 1].stack;
	}
	for (int pass = 0; pass < 2 && !n; pass++)
	for (size_t i = start; i < r->nframes && n < max; i++) {
		const struct kp_frame *f = &r->frames[i];

		/* `?` frames only when no reliable one is left */
		if (!f->sym || (!f->reliable && !f->pc && !pass))
			continue;
		if (f->stack != main_stack && !after_irq) {
			if (f->stack > main_stack)
				break;
			continue;
		}
		if (!from_pc && f->pc && i == 0 && !after_irq)
			continue;
		/* a stall's dispatchers stay: they point at the culprit */
		if (skipped(f->sym, extra) &&
		    !(anchors && (is_anchor(f->sym) ||
				    is_syscall_dispatch(f->sym))))
			continue;
		v[n++] = f->sym;
	}
	return n;
}

/* Extra skips by kind. */
struct kind_skip {
	const char *kind;
	const char *const *skip;
};

static const char *const sk_odebug[] = { "debug_", "rcu", "hrtimer_",
	"timer_", "work_", "percpu_", "kmem_", "slab_", "kfree", "vunmap",
	"vfree", "__free_", "debug_check", "kobject_", NULL };
static const char *const sk_alloc[] = { "kmemleak", "kmalloc", "kcalloc",
	"kzalloc", "vmalloc", "mmap", "kmem", "slab", "alloc", "create_object",
	"idr_get", "list_lru_init", "kasprintf", "kvasprintf", "pcpu_create",
	"strdup", "strndup", "memdup", "krealloc", NULL };
static const char *const sk_kmalloc[] = { "kmalloc", "krealloc", "slab",
	"kmem", NULL };
static const char *const sk_usercopy[] = { "usercopy", "__check", NULL };
static const char *const sk_refcount[] = { "refcount", "kobject_", NULL };
static const char *const sk_locking[] = { "lock_sock", "release_sock", NULL };
static const char *const sk_rcu[] = { "rcu", "kmem", "slab", "kmalloc",
	"vmalloc", "kcalloc", "kzalloc", "apic_timer_interrupt", NULL };
static const char *const sk_proc[] = { "proc_", NULL };
static const char *const sk_free[] = { "kmem_", "slab_", "kfree",
	"vunmap", "vfree", NULL };
static const char *const sk_spin[] = { "spin_", NULL };
static const char *const sk_preempt[] = { "dump_stack", "preemption",
	"preempt", NULL };
static const char *const sk_nonstatic[] = { "stack", "lock", "IRQ", NULL };
static const char *const sk_badpage[] = { "free_page", "put_page",
	"get_page", "update_page", "release_page", "free_unref", "folio",
	"truncate_inode_pages", "page_frag_free", "alloc", "vmap",
	"page_owner", NULL };
static const char *const sk_sched[] = { "schedule", "retint_kernel", NULL };

/* KMSAN: the allocator and netlink plumbing that carried the value, and
 * generic crypto code that used it, are no culprit. */
static const char *const sk_kmsan[] = { "alloc_skb", "netlink_ack",
	"netlink_rcv_skb", "_encrypt", "_decrypt", "crypto_", "cipher_",
	"drbg_", "rng_", NULL };

static const struct kind_skip kind_skips[] = {
	{ "KMSAN:", sk_kmsan },
	{ "WARNING: ODEBUG bug", sk_odebug },
	{ "memory leak", sk_alloc },
	{ "WARNING: kmalloc bug", sk_kmalloc },
	{ "BUG: bad usercopy", sk_usercopy },
	{ "WARNING: bad usercopy", sk_usercopy },
	{ "WARNING: refcount bug", sk_refcount },
	{ "WARNING: locking bug", sk_locking },
	{ "WARNING: suspicious RCU usage", sk_rcu },
	{ "INFO: suspicious RCU usage", sk_rcu },
	{ "INFO: rcu detected stall", sk_rcu },
	{ "WARNING: proc registration bug", sk_proc },
	{ "WARNING: kobject bug", sk_refcount },
	{ "KASAN: invalid-free", sk_free },
	{ "KASAN: double-free", sk_free },
	{ "BUG: spinlock", sk_spin },
	{ "BUG: using ", sk_preempt },
	{ "INFO: trying to register non-static key", sk_nonstatic },
	{ "kernel panic: corrupted stack end", sk_sched },
	{ "BUG: scheduling while atomic", sk_sched },
	{ NULL, NULL },
};

/* A hung task: hangs in synchronize_rcu & co. are one bucket, rtnl_lock
 * another; else the first frame that is not waiting or locking. */
static const char *hung_culprit(const struct kp_report *r)
{
	static const char *const sync[] = { "synchronize_rcu",
		"synchronize_srcu", "synchronize_net", "synchronize_sched",
		NULL };
	static const char *const wait[] = { "sched", "_lock", "_slowlock",
		"down", "completion", "kthread", "wait", "synchronize",
		"context_switch", "__switch_to", "cancel_delayed_work", "rwsem",
		"rcu_barrier", NULL };
	int main_stack = r->nframes ? r->frames[0].stack : 0;

	for (size_t i = 0; i < r->nframes; i++) {
		const struct kp_frame *f = &r->frames[i];

		if (!f->sym || f->stack != main_stack || !f->reliable)
			continue;
		for (int j = 0; sync[j]; j++)
			if (!strncmp(f->sym, sync[j], strlen(sync[j])))
				return "synchronize_rcu";
		if (!strncmp(f->sym, "rtnl_lock", 9))
			return "rtnl_lock";
	}
	for (size_t i = 0; i < r->nframes; i++) {
		const struct kp_frame *f = &r->frames[i];

		if (!f->sym || f->stack != main_stack || !f->reliable)
			continue;
		if (!has_any(f->sym, wait) && !kp_skip_func(f->sym))
			return f->sym;
	}
	return NULL;
}

/* Syscall wrappers by their syscall: __se_sys_mremap -> mremap,
 * __x64_sys_memfd_secret -> sys_memfd_secret. */
static const char *unwrap(const char *c, char *buf, size_t len)
{
	static const char *const pre[] = {
		"__se_sys_", "__do_sys_", "__x64_", "__ia32_", "__arm64_",
		"__riscv_", "__s390x_", "__s390_",
	};

	if (!c)
		return c;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(c, pre[i], strlen(pre[i]))) {
			snprintf(buf, len, "%s", c + strlen(pre[i]));
			return buf;
		}
	return c;
}

static const char *culprit(const struct kp_report *r);

const char *kp_culprit(const struct kp_report *r)
{
	static __thread char ubuf[256];

	return unwrap(culprit(r), ubuf, sizeof(ubuf));
}

static const char *culprit(const struct kp_report *r)
{
	static __thread char buf[256];
	const char *k = r->kind, *v[256];
	const char *const *extra = NULL;
	int n;

	if (!k)
		return NULL;
	for (const struct kind_skip *s = kind_skips; s->kind; s++)
		if (!strncmp(k, s->kind, strlen(s->kind)))
			extra = s->skip;
	if (has(k, "task hung") || has(k, "task can't die"))
		return hung_culprit(r);
	if ((has(k, "deadlock") || has(k, "lock state") ||
	     has(k, "unlock balance") || has(k, "held lock") ||
	     has(k, "locks held") ||
	     has(k, "returning to user space")) && r->lock_func)
		return r->lock_func;
	/* a circular dependency whose locks are taken by plumbing: the
	 * first chain names it */
	if (!strcmp(k, "possible deadlock")) {
		int chain = stack_named(r, "-> #");

		if (chain >= 0 && (n = candidates(r, chain, false, false,
						  false, sk_deadlock, v, 256)))
			return v[0];
	}
	if (r->headline_func && !skipped(r->headline_func, extra) &&
	    strcmp(k, "WARNING: refcount bug") && strcmp(k, "WARNING: kmalloc bug") &&
	    strcmp(k, "WARNING: ODEBUG bug") && strcmp(k, "WARNING: locking bug") &&
	    strcmp(k, "WARNING: kobject bug"))
		return r->headline_func;
	if (stall_kind(k)) {
		const char *c;

		n = candidates(r, -1, true, has(k, "rcu detected stall"),
			       true, extra, v, 256);
		for (int i = 0; i < n; i++)
			if (!strncmp(v[i], "smp_call_function", 17))
				return "smp_call_function";
		c = stall_culprit(v, n, buf, sizeof(buf));
		if (c)
			return c;
		return n ? v[0] : NULL;
	}
	/* a bad page: where it was allocated, when page_owner says */
	if (!strcmp(k, "BUG: Bad page state")) {
		int alloc = stack_named(r, "page last allocated");

		if (alloc >= 0 && (n = candidates(r, alloc, false, false,
						  false, sk_badpage, v, 256)))
			return v[0];
	}
	n = candidates(r, -1, pc_kind(k), false, false, extra, v, 256);
	if (n)
		return v[0];
	if (r->headline_func)
		return r->headline_func;
	return NULL;
}
