// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the Linux report parser (src/kptrace/linux.c) and its
 * culprit rules on crafted reports: each architecture's frame forms, line
 * prefixes (journal, syslog, dmesg -T, <N>), KASLR and module bases, and
 * input that is not a log at all. */
#include "test.h"
#include "kptrace/kptrace.h"
#include "kptrace/report.h"
#include "lib/json.h"

static struct kp_reports parse(const char *text)
{
	struct kp_reports rs = { 0 };

	assert_int_equal(kp_linux_parse(text, strlen(text), &rs), 0);
	return rs;
}

static void arm64_pc_and_call_trace(void **state)
{
	struct kp_reports rs = parse(
		"[   10.1] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000\n"
		"[   10.1] Mem abort info:\n"
		"[   10.1]   ESR = 0x96000005\n"
		"[   10.1] Internal error: Oops: 96000005 [#1] PREEMPT SMP\n"
		"[   10.1] Modules linked in: kptest(O) ext4\n"
		"[   10.1] CPU: 1 PID: 71 Comm: sh Tainted: G           O      6.1.0-arm64 #1\n"
		"[   10.1] pc : kp_level2+0x14/0x30 [kptest]\n"
		"[   10.1] lr : kp_level1+0x20/0x40 [kptest]\n"
		"[   10.1] Call trace:\n"
		"[   10.1]  kp_level2+0x14/0x30 [kptest]\n"
		"[   10.1]  kp_level1+0x20/0x40 [kptest]\n"
		"[   10.1]  el0t_64_sync+0x18c/0x190\n"
		"[   10.1] Kernel panic - not syncing: Oops: Fatal exception\n"
		"[   10.1] Kernel Offset: 0x4b0c00000 from 0xffff800008000000\n");
	const struct kp_report *r;

	(void)state;
	assert_int_equal(rs.n, 1);
	r = &rs.v[0];
	assert_string_equal(r->kind, "BUG: kernel NULL pointer dereference");
	assert_string_equal(r->title,
			    "BUG: kernel NULL pointer dereference in kp_level2");
	assert_string_equal(r->release, "6.1.0-arm64");
	assert_true(r->has_kaslr);
	assert_true(r->kaslr == 0x4b0c00000ull);
	assert_non_null(r->panic);
	/* pc merged with the identical first call-trace frame */
	assert_int_equal(r->nframes, 3);
	assert_true(r->frames[0].pc);
	assert_string_equal(r->frames[0].sym, "kp_level2");
	assert_true(r->frames[0].off == 0x14 && r->frames[0].size == 0x30);
	assert_string_equal(r->frames[0].module, "kptest");
	assert_null(r->frames[2].module);
	assert_int_equal(r->nmodules, 2);
	assert_string_equal(r->modules[0], "kptest");
	kp_reports_free(&rs);
}

static void old_x86_arm32_ppc_frames(void **state)
{
	struct kp_reports rs = parse(
		"<4>[ 3.1] WARNING: at net/sched/sch_generic.c:2204 dev_watchdog+0x231/0x8f0()\n"
		"<4>[ 3.1] Pid: 3, comm: ksoftirqd/0 Not tainted 3.3.7-1.fc16.x86_64 #1\n"
		"<4>[ 3.1] Call Trace:\n"
		"<4>[ 3.1]  [<ffffffff81057adf>] warn_slowpath_common+0x7f/0xc0\n"
		"<4>[ 3.1]  [<ffffffffa0642332>] ? pppol2tp_xmit+0x42/0x220 [l2tp_ppp]\n"
		"<4>[ 3.1]  <IRQ>  [<ffffffff8105f0c8>] __do_softirq+0xb8/0x230\n"
		"<4>[ 3.1] ---[ end trace 1 ]---\n"
		"Unable to handle kernel NULL pointer dereference at virtual address 00000009\n"
		"PC is at shmem_getpage_gfp+0x584/0x72c\n"
		"[<c0333330>] (shmem_getpage_gfp) from [<c0333954>] (shmem_write_begin+0x40/0x50)\n"
		"[<c0333954>] (shmem_write_begin+0x40/0x50) from [<c0120000>] (generic+0x1/0x2)\n"
		"---[ end trace 2 ]---\n"
		"NIP [c000000008068dfc] .eeh_dev_check_failure+0x27c/0x390\n"
		"WARNING: at arch/powerpc/platforms/pseries/eeh.c:390\n"
		"Call Trace:\n"
		"[c000000010f930b0] [c000000008068df8] .eeh_dev_check_failure+0x278/0x390 (unreliable)\n"
		"[c000000010f93340] [d0000000008c991c] .ipr_probe_ioa+0x6c/0x1390 [ipr]\n");
	const struct kp_report *r;

	(void)state;
	assert_int_equal(rs.n, 3);
	r = &rs.v[0];
	assert_string_equal(r->title, "WARNING in dev_watchdog");
	assert_string_equal(r->release, "3.3.7-1.fc16.x86_64");
	assert_int_equal(r->nframes, 3);
	assert_true(r->frames[0].has_addr &&
		    r->frames[0].addr == 0xffffffff81057adfull);
	assert_false(r->frames[1].reliable);
	assert_string_equal(r->frames[1].module, "l2tp_ppp");
	assert_int_equal(r->frames[2].section, KP_SEC_IRQ);
	assert_string_equal(r->arch, "x86_64");

	r = &rs.v[1];
	assert_string_equal(r->title,
			    "BUG: kernel NULL pointer dereference in shmem_getpage_gfp");
	assert_int_equal(r->nframes, 3);
	assert_true(r->frames[0].pc);
	assert_string_equal(r->frames[1].sym, "shmem_getpage_gfp");
	assert_true(r->frames[1].addr == 0xc0333330);
	assert_string_equal(r->frames[2].sym, "shmem_write_begin");

	r = &rs.v[2];
	assert_string_equal(r->frames[0].sym, "eeh_dev_check_failure");
	assert_false(r->frames[0].reliable);
	assert_true(r->frames[0].addr == 0xc000000008068df8ull);
	assert_string_equal(r->frames[1].module, "ipr");
	kp_reports_free(&rs);
}

static void prefixes_and_kinds(void **state)
{
	struct kp_reports rs = parse(
		"Nov 23 18:00:01 host kernel: [  5.0] BUG: KASAN: slab-use-after-free in foo_read+0x10/0x20\n"
		"Nov 23 18:00:01 host kernel: [  5.0] Read of size 8 at addr ffff888 by task sh/1\n"
		"Nov 23 18:00:01 host kernel: [  5.0] Call Trace:\n"
		"Nov 23 18:00:01 host kernel: [  5.0]  dump_stack_lvl+0x4c/0x60\n"
		"Nov 23 18:00:01 host kernel: [  5.0]  kasan_report+0xa0/0xd0\n"
		"Nov 23 18:00:01 host kernel: [  5.0]  foo_read+0x10/0x20\n"
		"MESSAGE=[Mon Nov 23 18:00:02 2026] INFO: task kworker/0:1:12 blocked for more than 120 seconds.\n"
		"MESSAGE=[Mon Nov 23 18:00:02 2026] Call Trace:\n"
		"MESSAGE=[Mon Nov 23 18:00:02 2026]  __schedule+0x1/0x2\n"
		"MESSAGE=[Mon Nov 23 18:00:02 2026]  schedule+0x1/0x2\n"
		"MESSAGE=[Mon Nov 23 18:00:02 2026]  rtnl_lock+0x1/0x2\n"
		"MESSAGE=[Mon Nov 23 18:00:02 2026] ---[ end trace 0 ]---\n"
		"<0>[    7.1] Kernel panic - not syncing: sysrq triggered crash\n"
		"<0>[    7.1] Call Trace:\n"
		"<0>[    7.1]  dump_stack_lvl+0x1/0x2\n"
		"<0>[    7.1]  panic+0x1/0x2\n"
		"<0>[    7.1]  sysrq_handle_crash+0x16/0x20\n"
		"[    8.0] unreferenced object 0xffff888 (size 32):\n"
		"[    8.0]   backtrace:\n"
		"[    8.0]     [<ffffffff81000000>] __kmalloc+0x1/0x2\n"
		"[    8.0]     [<ffffffff81000010>] leaky_init+0x1/0x2\n");

	(void)state;
	assert_int_equal(rs.n, 4);
	assert_string_equal(rs.v[0].title,
			    "KASAN: slab-use-after-free Read in foo_read");
	assert_string_equal(rs.v[1].title, "INFO: task hung in rtnl_lock");
	assert_string_equal(rs.v[2].title,
			    "kernel panic: sysrq triggered crash in sysrq_handle_crash");
	assert_string_equal(rs.v[3].title, "memory leak in leaky_init");
	kp_reports_free(&rs);
}

/* Culprit rules taken from syzkaller's: a dentry named by the unmount,
 * a bad page by where it was allocated, a "Backtrace:" after "Preemption
 * disabled at:", arm64's el1_ entry prefixes (not "_del1_" inside a
 * name), KCOV's write_comp_data as a culprit, kinds with no stack. */
static void culprit_rules(void **state)
{
	struct kp_reports rs = parse(
		"[ 1.0] BUG: Dentry ffff8880{i=0,n=.index}  still in use (1) [unmount of ramfs ramfs]\n"
		"[ 1.0] WARNING: CPU: 0 PID: 1 at fs/dcache.c:1667 umount_check+0x1/0x2\n"
		"[ 1.0] ---[ end trace 0 ]---\n"
		"[ 2.0] BUG: Bad page state in process sh  pfn:7071f\n"
		"[ 2.0] page last allocated via order 0, migratetype Unmovable, pid 1\n"
		"[ 2.0]  post_alloc_hook+0x1f3/0x230\n"
		"[ 2.0]  page_pool_alloc_pages+0xcb/0x100\n"
		"[ 2.0]  xdp_run_batch+0x939/0x1000\n"
		"[ 2.0] Call Trace:\n"
		"[ 2.0]  bad_page+0x18e/0x200\n"
		"[ 2.0]  skb_release_data+0x6b2/0x800\n"
		"[ 2.0] ---[ end trace 0 ]---\n"
		"[ 3.0] BUG: scheduling while atomic: sh/5582/0x00000101\n"
		"[ 3.0] Preemption disabled at:\n"
		"[ 3.0] [<80201270>] __do_softirq+0x68/0x480\n"
		"[ 3.0] Backtrace: frame pointer underflow\n"
		"[ 3.0] [<816f6584>] (schedule) from [<816f9364>] (down_write+0x4c/0x50)\n"
		"[ 3.0] [<816f972c>] (down_write) from [<804c4268>] (simple_removal+0x198/0x378)\n"
		"[ 3.0] [<804c40d0>] (simple_removal) from [<80656bdc>] (debugfs_remove+0x40/0x54)\n"
		"[ 3.0] ---[ end trace 0 ]---\n"
		"[ 4.0] BUG: KASAN: invalid-access in __list_add_valid+0x10/0x90\n"
		"[ 4.0] Read at addr f6ff00001d527690 by task sh/5007\n"
		"[ 4.0] Call trace:\n"
		"[ 4.0]  kasan_report+0x134/0x380\n"
		"[ 4.0]  el1h_64_sync+0x78/0x7c\n"
		"[ 4.0]  __list_add_valid+0x10/0x90\n"
		"[ 4.0]  ip6_mc_del1_src+0x78/0x7c\n"
		"[ 4.0] ---[ end trace 0 ]---\n"
		"[ 5.0] Unhandled fault: page domain fault (0x01b) at 0x00000ea3\n"
		"[ 5.0] PC is at write_comp_data+0x4c/0xd8\n"
		"[ 5.0] ---[ end trace 0 ]---\n"
		"[ 6.0] unregister_netdevice: waiting for lo to become free. Usage count = 5\n"
		"[ 7.0] VFS: Busy inodes after unmount of sda1. Self-destruct in 5 seconds.\n");

	(void)state;
	assert_int_equal(rs.n, 7);
	assert_string_equal(rs.v[0].title, "BUG: Dentry still in use in unmount");
	assert_string_equal(rs.v[1].title,
			    "BUG: Bad page state in xdp_run_batch");
	assert_string_equal(rs.v[2].title,
			    "BUG: scheduling while atomic in simple_removal");
	assert_string_equal(rs.v[3].title,
			    "KASAN: invalid-access Read in ip6_mc_del1_src");
	assert_string_equal(rs.v[4].title, "Unhandled fault in write_comp_data");
	assert_string_equal(rs.v[5].title,
			    "unregister_netdevice: waiting for DEV to become free");
	assert_string_equal(rs.v[6].title,
			    "VFS: Busy inodes after unmount (use-after-free)");
	kp_reports_free(&rs);
}

/* Rust panics: the message names the report that the panic's BUG() opens,
 * the culprit is the first frame past the panic machinery, demangled; the
 * frames keep the names the report printed, and are shown demangled. */
static void rust_panics(void **state)
{
	struct kp_reports rs = parse(
		/* Rust >= 1.73: the message on the line after, another task's
		 * lines between */
		"[ 1.0][ T298] rust_kernel: panicked at drivers/android/binder/node.rs:877:13:\n"
		"[ 1.0][  T36] audit: type=1400 audit(1.3:67): avc:  denied  { mount }\n"
		"[ 1.0][ T298] attempt to subtract with overflow\n"
		"[ 1.0][  T36] audit: type=1400 audit(1.3:68): avc:  denied  { mount }\n"
		"[ 1.0][ T298] ------------[ cut here ]------------\n"
		"[ 1.0][  T36] audit: type=1400 audit(1.3:69): avc:  denied  { mount }\n"
		"[ 1.0][ T298] kernel BUG at rust/helpers/bug.c:7!\n"
		"[ 1.0][ T298] Oops: invalid opcode: 0000 [#1] PREEMPT SMP KASAN PTI\n"
		"[ 1.0][ T298] RIP: 0010:rust_helper_BUG+0x8/0x10\n"
		"[ 1.0][ T298] Call Trace:\n"
		"[ 1.0][ T298]  <TASK>\n"
		"[ 1.0][ T298]  _RNvCscSpY9Juk0HT_7___rustc17rust_begin_unwind+0x15b/0x160\n"
		"[ 1.0][ T298]  ? __cfi__RNvCscSpY9Juk0HT_7___rustc17rust_begin_unwind+0x10/0x10\n"
		"[ 1.0][ T298]  _RNvNtCs9jEwPDbx20M_4core9panicking9panic_fmt+0x84/0x90\n"
		"[ 1.0][ T298]  _RNvNtNtCs9jEwPDbx20M_4core9panicking11panic_const24panic_const_sub_overflow+0xb2/0xc0\n"
		"[ 1.0][ T298]  _RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_7Process10update_ref+0x17e5/0x1860\n"
		"[ 1.0][ T298]  _RNvMs2_NtCshgDM7dBCdno_11rust_binder6threadNtB5_6Thread10write_read+0x27cf/0x96a0\n"
		"[ 1.0][ T298]  </TASK>\n"
		"[ 1.0][ T298] ---[ end trace 0000000000000000 ]---\n"
		/* before Rust 1.73: the message quoted on the same line; legacy
		 * symbols and the handler under its own name */
		"[ 2.0] rust_kernel: panicked at 'called `Option::unwrap()` on a `None` value', rust/kernel/lib.rs:12:5\n"
		"[ 2.0] ------------[ cut here ]------------\n"
		"[ 2.0] kernel BUG at rust/helpers.c:34!\n"
		"[ 2.0] invalid opcode: 0000 [#1] PREEMPT SMP NOPTI\n"
		"[ 2.0] RIP: 0010:rust_helper_BUG+0x5/0x10\n"
		"[ 2.0] Call Trace:\n"
		"[ 2.0]  rust_begin_unwind+0x5d/0x60\n"
		"[ 2.0]  _ZN4core9panicking9panic_fmt17h7a1d3b0f6c2e4a58E+0x2a/0x30\n"
		"[ 2.0]  _ZN4core6option13unwrap_failed17h0f1e2d3c4b5a6978E+0x1c/0x20\n"
		"[ 2.0]  _ZN60_$LT$rust_minimal..RustMinimal$u20$as$u20$kernel..Module$GT$4init17h1122334455667788E+0x44/0x90\n"
		"[ 2.0]  do_one_initcall+0x5e/0x320\n"
		"[ 2.0] ---[ end trace 0000000000000000 ]---\n"
		/* a BUG with no panic message: still past the machinery */
		"[ 3.0] kernel BUG at rust/helpers/bug.c:7!\n"
		"[ 3.0] RIP: 0010:rust_helper_BUG+0x8/0x10\n"
		"[ 3.0] Call Trace:\n"
		"[ 3.0]  _RNvCscSpY9Juk0HT_7___rustc17rust_begin_unwind+0x15b/0x160\n"
		"[ 3.0]  _RNvNtCs9jEwPDbx20M_4core9panicking9panic_fmt+0x84/0x90\n"
		"[ 3.0]  _RNvXs1_CscPPBqWtAqum_11ashmem_rustNtB5_6AshmemNtNtCs43vyB533jt3_6kernel10miscdevice10MiscDevice4mmap+0xe44/0xfb0\n"
		"[ 3.0] ---[ end trace 0000000000000000 ]---\n");
	const struct kp_report *r;
	char *text = NULL;
	size_t len = 0;
	FILE *o;
	struct json j;

	(void)state;
	assert_int_equal(rs.n, 3);
	r = &rs.v[0];
	assert_string_equal(r->kind, "attempt to subtract with overflow");
	assert_string_equal(r->culprit,
			    "<rust_binder::process::Process>::update_ref");
	assert_string_equal(r->title, "attempt to subtract with overflow in "
			    "<rust_binder::process::Process>::update_ref");
	/* the report's own names stay, for the symbol lookups */
	assert_string_equal(r->frames[5].sym,
			    "_RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_7Process10update_ref");
	assert_string_equal(rs.v[1].title,
			    "called `Option::unwrap()` on a `None` value in "
			    "<rust_minimal::RustMinimal as kernel::Module>::init");
	assert_string_equal(rs.v[2].title, "kernel BUG in <ashmem_rust::Ashmem as "
			    "kernel::miscdevice::MiscDevice>::mmap");

	/* text: demangled, the __cfi_ prefix kept in front */
	o = open_memstream(&text, &len);
	kp_print_text(o, r, NULL);
	fclose(o);
	assert_non_null(strstr(text, "  - vmlinux`__rustc::rust_begin_unwind+0x15b\n"));
	assert_non_null(strstr(text, "  ? vmlinux`__cfi___rustc::rust_begin_unwind+0x10\n"));
	assert_non_null(strstr(text, "  - vmlinux`<rust_binder::process::Process>::update_ref+0x17e5\n"));
	assert_non_null(strstr(text, "  - vmlinux`rust_helper_BUG+0x8\n"));
	assert_null(strstr(text, "_RNv"));
	free(text);
	/* JSON: the symbol as printed, its demangled form beside it */
	text = NULL;
	o = open_memstream(&text, &len);
	json_init(&j, o, false);
	kp_print_json_report(&j, r, NULL);
	fclose(o);
	assert_non_null(strstr(text, "\"symbol\":\"_RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_7Process10update_ref\""));
	assert_non_null(strstr(text, "\"demangled\":\"<rust_binder::process::Process>::update_ref\""));
	assert_non_null(strstr(text, "\"symbol\":\"rust_helper_BUG\",\"symbol_offset\":\"0x8\",\"symbol_size\":\"0x10\",\"function\":\"rust_helper_BUG\",\"demangled\":null"));
	free(text);
	kp_reports_free(&rs);
}

/* Lockdep reports named as syzkaller names each form: an inconsistent
 * lock state by its call trace (not the lock's "at:", nor the chain where
 * the state was registered), a circular dependency whose two locks are
 * work-queue machinery by its first chain, the old "[ INFO: ]" form by
 * the "at:" as it is. */
static void lockdep_rules(void **state)
{
	struct kp_reports rs = parse(
		"[ 1.0] WARNING: inconsistent lock state\n"
		"[ 1.0] inconsistent {HARDIRQ-ON-W} -> {IN-HARDIRQ-W} usage.\n"
		"[ 1.0] sh/1 [HC1[1]:SC0[0]:HE0:SE1] takes:\n"
		"[ 1.0] ffff8801e85ebf20 (&fs->lock){?.+.}, at: io_dismantle+0x411/0xae0\n"
		"[ 1.0] {HARDIRQ-ON-W} state was registered at:\n"
		"[ 1.0]   lock_acquire+0x1da/0xb70\n"
		"[ 1.0]   set_fs_pwd+0x89/0x1e0\n"
		"[ 1.0] 2 locks held by sh/1:\n"
		"[ 1.0]  #0: ffff88806f912620 (k-slock-AF_INET6/1){+.-.}, at: tcp_v6_rcv+0x3317/0x4470\n"
		"[ 1.0] stack backtrace:\n"
		"[ 1.0] Call Trace:\n"
		"[ 1.0]  dump_stack_lvl+0x1dc/0x2d8\n"
		"[ 1.0]  print_usage_bug+0xa6d/0xea0\n"
		"[ 1.0]  mark_lock+0x168c/0x1e00\n"
		"[ 1.0]  fs_reclaim_acquire+0x77/0x110\n"
		"[ 1.0]  kmem_cache_alloc_node+0x46/0x340\n"
		"[ 1.0] ---[ end trace 0 ]---\n"
		"[ 2.0] WARNING: possible circular locking dependency detected\n"
		"[ 2.0] kworker/u8:2/43 is trying to acquire lock:\n"
		"[ 2.0] ffffc9000027fdf0 ((work_completion)(&w)){+.+.}, at: process_one_work+0x8c0/0x17b0\n"
		"[ 2.0] but task is already holding lock:\n"
		"[ 2.0] ffff8880649b0d28 ((wq_completion)wg){+.+.}, at: process_one_work+0x88b/0x17b0\n"
		"[ 2.0] -> #1 ((wq_completion)wg){+.+.}:\n"
		"[ 2.0]        flush_workqueue+0x115/0x1520\n"
		"[ 2.0]        peer_remove_after_dead+0x16a/0x230\n"
		"[ 2.0]  #0: ffff8880649b0d28 ((wq_completion)wg){+.+.}, at: wg_packet_tx+0x88b/0x17b0\n"
		"[ 2.0] ---[ end trace 0 ]---\n"
		"[ 3.0] [ INFO: possible circular locking dependency detected ]\n"
		"[ 3.0] kacpi_hotplug/246 is trying to acquire lock:\n"
		"[ 3.0]  (kacpid){+.+.+.}, at: [<ffffffff8105bbd0>] flush_workqueue+0x0/0xb0\n");

	(void)state;
	assert_int_equal(rs.n, 3);
	assert_string_equal(rs.v[0].title,
			    "inconsistent lock state in fs_reclaim_acquire");
	assert_string_equal(rs.v[1].title,
			    "possible deadlock in peer_remove_after_dead");
	assert_string_equal(rs.v[2].title, "possible deadlock in flush_workqueue");
	kp_reports_free(&rs);
}

static void proc_modules_lines(void **state)
{
	struct kp_reports rs = parse(
		"kptest 16384 0 - Live 0xffffffffc03df000 (OE)\n"
		"module ext4 999424 1 - Live 0xffffffffc0400000\n"
		"not a module line 0x1234\n");

	(void)state;
	assert_int_equal(rs.n, 0);
	assert_int_equal(rs.nmodbases, 2);
	assert_string_equal(rs.modbases[0].name, "kptest");
	assert_true(rs.modbases[0].base == 0xffffffffc03df000ull);
	assert_true(rs.modbases[0].size == 16384);
	assert_string_equal(rs.modbases[1].name, "ext4");
	kp_reports_free(&rs);
}

static void garbage_and_long_lines(void **state)
{
	size_t n = 3 << 20;
	char *buf = malloc(n);
	struct kp_reports rs = { 0 };

	(void)state;
	srand(7);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(rand() & 0xff);
	assert_int_equal(kp_linux_parse(buf, n, &rs), 0);
	assert_true(rs.binary);
	kp_reports_free(&rs);

	/* one 3 MB line of frame-like text, then a report */
	memset(buf, 'a', n);
	memcpy(buf + 100, " [<ffffffff81000000>] x+0x1/0x2", 31);
	buf[n - 1] = '\n';
	assert_int_equal(kp_linux_parse(buf, n, &rs), 0);
	assert_int_equal(rs.long_lines, 1);
	assert_int_equal(rs.n, 0);
	kp_reports_free(&rs);

	assert_int_equal(kp_linux_parse("", 0, &rs), 0);
	assert_int_equal(rs.n, 0);
	kp_reports_free(&rs);
	/* a headline and nothing else, at the very end without newline */
	assert_int_equal(kp_linux_parse("BUG: unable to handle page fault for "
					"address: 0", 46, &rs), 0);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.v[0].nframes, 0);
	kp_reports_free(&rs);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(arm64_pc_and_call_trace),
		cmocka_unit_test(old_x86_arm32_ppc_frames),
		cmocka_unit_test(prefixes_and_kinds),
		cmocka_unit_test(culprit_rules),
		cmocka_unit_test(rust_panics),
		cmocka_unit_test(lockdep_rules),
		cmocka_unit_test(proc_modules_lines),
		cmocka_unit_test(garbage_and_long_lines),
	};

	return RUN(tests);
}
