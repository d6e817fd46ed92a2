// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for crash events in the Linux report parser (src/kptrace/
 * linux.c): what follows from a report belongs to it (its panic, "Kernel
 * Offset", the reboot), reports of several tasks printed at once are told
 * apart by their [T..]/[C..] tag and make one event, reports far apart
 * are events of their own; the newer report forms (hung tasks "blocked in
 * I/O wait", a task name split over two lines, arm64 paging requests,
 * 6.15's WARNING); a user-space RIP kept with its report; and a log read a
 * few bytes at a time parsing as it does whole. */
#include "test.h"
#include "kptrace/report.h"

static struct kp_reports parse(const char *text)
{
	struct kp_reports rs = { 0 };

	assert_int_equal(kp_linux_parse(text, strlen(text), &rs), 0);
	return rs;
}

/* An oops, its "end trace", the register dump printed again, the panic
 * it caused, "Kernel Offset" and the reboot: one report, one event. */
static const char gpf_panic[] =
	"[  100.000000][ T1234] general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN\n"
	"[  100.000001][ T1234] KASAN: null-ptr-deref in range [0x0000000000000008-0x000000000000000f]\n"
	"[  100.000002][ T1234] CPU: 0 PID: 1234 Comm: syz-executor Not tainted 6.8.0-syzkaller #0\n"
	"[  100.000003][ T1234] RIP: 0010:foo_ioctl+0x42/0x100\n"
	"[  100.000004][ T1234] Call Trace:\n"
	"[  100.000005][ T1234]  <TASK>\n"
	"[  100.000006][ T1234]  __x64_sys_ioctl+0x1a/0x20\n"
	"[  100.000007][ T1234]  do_syscall_64+0x3b/0x90\n"
	"[  100.000008][ T1234]  entry_SYSCALL_64_after_hwframe+0x63/0xcd\n"
	"[  100.000009][ T1234] RIP: 0033:0x7f2ffb48c0d9\n"
	"[  100.000010][ T1234] RSP: 002b:00007f2ffc1c9168 EFLAGS: 00000246 ORIG_RAX: 0000000000000010\n"
	"[  100.000011][ T1234]  </TASK>\n"
	"[  100.000012][ T1234] Modules linked in:\n"
	"[  100.000013][ T1234] ---[ end trace 0000000000000000 ]---\n"
	"[  100.000014][ T1234] RIP: 0010:foo_ioctl+0x42/0x100\n"
	"[  100.000015][ T1234] RSP: 0018:ffffc90003a4fd80 EFLAGS: 00010202\n"
	"[  100.300000][ T1234] Kernel panic - not syncing: Fatal exception\n"
	"[  100.400000][ T1234] Kernel Offset: 0x1e000000 from 0xffffffff81000000 (relocation range: 0xffffffff80000000-0xffffffffbfffffff)\n"
	"[  100.500000][ T1234] Rebooting in 86400 seconds..\n";

static void panic_belongs_to_its_oops(void **state)
{
	struct kp_reports rs = parse(gpf_panic);
	const struct kp_report *r = &rs.v[0];

	(void)state;
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.nevents, 1);
	assert_true(rs.events[0].panicked);
	assert_string_equal(r->title, "general protection fault in foo_ioctl");
	assert_string_equal(r->panic, "Fatal exception");
	assert_true(r->ended);
	assert_true(r->has_kaslr && r->kaslr == 0x1e000000);
	/* the user RIP is kept with the report, no frame of the kernel's */
	assert_true(r->has_user_pc && r->user_pc == 0x7f2ffb48c0d9ull);
	assert_int_equal(r->nframes, 4);
	for (size_t i = 0; i < r->nframes; i++)
		assert_non_null(r->frames[i].sym);
	kp_reports_free(&rs);
}

/* Two tasks printing reports at the same time: each line goes to its
 * task's report; one event, named by the report that started first. */
static void interleaved_tasks(void **state)
{
	struct kp_reports rs = parse(
		"[    5.000000][   T10] BUG: KASAN: use-after-free in a_func+0x1/0x2\n"
		"[    5.000001][   T11] WARNING: CPU: 1 PID: 11 at kernel/x.c:1 b_func+0x1/0x2\n"
		"[    5.000002][   T10] Read of size 8 at addr ffff888000000000 by task a/10\n"
		"[    5.000003][   T11] Call Trace:\n"
		"[    5.000004][   T10] Call Trace:\n"
		"[    5.000005][   T11]  b_caller+0x1/0x2\n"
		"[    5.000006][   T10]  dump_stack_lvl+0x1/0x2\n"
		"[    5.000007][   T10]  a_caller+0x1/0x2\n"
		"[    5.000008][   T11]  b_syscall+0x1/0x2\n"
		"[    5.000009][   T11] ---[ end trace 0 ]---\n"
		"[    5.000010][   T10]  a_syscall+0x1/0x2\n");
	const struct kp_report *a = &rs.v[0], *b = &rs.v[1];

	(void)state;
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.nevents, 1);
	assert_int_equal(rs.events[0].n, 2);
	assert_string_equal(a->title, "KASAN: use-after-free Read in a_func");
	assert_int_equal(a->nframes, 3);
	assert_string_equal(a->frames[1].sym, "a_caller");
	assert_string_equal(a->frames[2].sym, "a_syscall");
	assert_string_equal(b->title, "WARNING in b_func");
	assert_int_equal(b->nframes, 2);
	assert_string_equal(b->frames[0].sym, "b_caller");
	assert_string_equal(b->frames[1].sym, "b_syscall");
	kp_reports_free(&rs);
}

/* A report that ended (the kernel went on) and another seconds later are
 * two events; so are a lockdep report and an oops two minutes after it;
 * a report seconds after one that did not end is part of its event, and
 * a boot banner always starts afresh. */
static void events_apart(void **state)
{
	struct kp_reports rs = parse(
		"[   10.000000] WARNING: CPU: 0 PID: 1 at fs/a.c:1 warn_here+0x1/0x2\n"
		"[   10.000001] Call Trace:\n"
		"[   10.000002]  warn_caller+0x1/0x2\n"
		"[   10.000003] ---[ end trace 0 ]---\n"
		"[   14.000000] BUG: soft lockup - CPU#0 stuck for 22s! [sh:9]\n"
		"[   14.000001] RIP: 0010:spin_here+0x4/0x8\n"
		"[   20.000000] WARNING: possible circular locking dependency detected\n"
		"[   20.000001] Call Trace:\n"
		"[   20.000002]  lock_user+0x1/0x2\n"
		"[  140.000000] BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
		"[  140.000001] RIP: 0010:null_here+0x1/0x2\n"
		"[  141.000000] BUG: unable to handle page fault for address: ffffffffffffffe8\n"
		"[  141.000001] RIP: 0010:fault_here+0x5/0x10\n"
		"[    0.000000] Linux version 6.8.0 (gcc) #1 SMP\n"
		"[    3.000000] BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
		"[    3.000001] RIP: 0010:after_boot+0x1/0x2\n");

	(void)state;
	assert_int_equal(rs.n, 6);
	/* the circular dependency 6 s after the soft lockup (which printed
	 * no end trace) joins its event, the page fault 1 s after the NULL
	 * dereference its; the rest stand alone */
	assert_int_equal(rs.nevents, 4);
	assert_int_equal(rs.events[0].n, 1);
	assert_int_equal(rs.events[1].n, 2);
	assert_string_equal(rs.v[rs.events[1].first].title,
			    "BUG: soft lockup in spin_here");
	assert_int_equal(rs.events[2].n, 2);
	assert_string_equal(rs.v[rs.events[2].first].title,
			    "BUG: kernel NULL pointer dereference in null_here");
	assert_string_equal(rs.v[rs.events[2].first + 1].title,
			    "BUG: unable to handle page fault in fault_here");
	assert_string_equal(rs.v[rs.events[3].first].title,
			    "BUG: kernel NULL pointer dereference in after_boot");
	kp_reports_free(&rs);

	/* no times: lines apart; 31 lines after an ended report is apart */
	{
		char buf[8192];
		size_t n = 0;

		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			"WARNING: CPU: 0 PID: 1 at fs/a.c:1 warn_here+0x1/0x2\n"
			"---[ end trace 0 ]---\n");
		for (int i = 0; i < 31; i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "usb 1-1: new device %d\n", i);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			"BUG: kernel NULL pointer dereference, address: 0\n"
			"RIP: 0010:null_here+0x1/0x2\n");
		rs = parse(buf);
		assert_int_equal(rs.n, 2);
		assert_int_equal(rs.nevents, 2);
		kp_reports_free(&rs);
	}
}

/* The panic kinds that follow a report join it; a deliberate one stands
 * alone, and so does a panic long after. */
static void panics(void **state)
{
	struct kp_reports rs = parse(
		"[   50.000000] INFO: task sh:12 blocked for more than 120 seconds.\n"
		"[   50.000001] Call Trace:\n"
		"[   50.000002]  schedule+0x1/0x2\n"
		"[   50.000003]  hang_here+0x1/0x2\n"
		"[   50.100000] Kernel panic - not syncing: hung_task: blocked tasks\n"
		"[   50.200000] ---[ end Kernel panic - not syncing: hung_task: blocked tasks ]---\n"
		"[  300.000000] Kernel panic - not syncing: sysrq triggered crash\n"
		"[  300.000001] Call Trace:\n"
		"[  300.000002]  sysrq_handle_crash+0x16/0x20\n");

	(void)state;
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.nevents, 2);
	assert_string_equal(rs.v[0].title, "INFO: task hung in hang_here");
	assert_string_equal(rs.v[0].panic, "hung_task: blocked tasks");
	assert_true(rs.events[0].panicked);
	assert_string_equal(rs.v[1].title,
			    "kernel panic: sysrq triggered crash in sysrq_handle_crash");
	kp_reports_free(&rs);
}

/* Report forms of recent kernels. */
static void newer_forms(void **state)
{
	struct kp_reports rs = parse(
		/* 6.16: "blocked in I/O wait" */
		"[  584.3][   T31] INFO: task udevd:5612 blocked in I/O wait for more than 143 seconds.\n"
		"[  584.3][   T31] Call trace:\n"
		"[  584.3][   T31]  __switch_to+0x2b0/0x6e0 (T)\n"
		"[  584.3][   T31]  __schedule+0x1b74/0x2d24\n"
		"[  584.3][   T31]  io_schedule+0x1c/0xe0\n"
		"[  584.3][   T31]  folio_wait_bit_common+0x674/0x9ec\n"
		"[  584.3][   T31]  do_read_cache_folio+0x240/0x5b8\n"
		"[  584.3][   T31]  read_cache_folio+0x68/0x84\n"
		"[  584.3][   T31]  read_part_sector+0xcc/0x6e8\n"
		/* a task name with a newline in it */
		"[ 1052.0][   T41] INFO: task \xef\xbf\xbd\n"
		"[ 1052.0][   T41] x:18088 blocked for more than 143 seconds.\n"
		"[ 1052.0][   T41] Call Trace:\n"
		"[ 1052.0][   T41]  __schedule+0x10e9/0x6820\n"
		"[ 1052.0][   T41]  schedule_timeout+0x1b2/0x280\n"
		"[ 1052.0][   T41]  __wait_for_common+0x2e7/0x4c0\n"
		"[ 1052.0][   T41]  p9_fd_close+0x2d0/0x4e0\n"
		/* arm64 */
		"[ 2000.0][  T500] Unable to handle kernel paging request at virtual address dead000000000108\n"
		"[ 2000.0][  T500] Mem abort info:\n"
		"[ 2000.0][  T500] Internal error: Oops: 0000000096000044 [#1] PREEMPT SMP\n"
		"[ 2000.0][  T500] pc : __list_del_entry_valid+0x10/0x30\n"
		"[ 2000.0][  T500] lr : my_remove+0x20/0x40\n"
		"[ 2000.0][  T500] Call trace:\n"
		"[ 2000.0][  T500]  __list_del_entry_valid+0x10/0x30\n"
		"[ 2000.0][  T500]  my_remove+0x20/0x40\n"
		"[ 2000.0][  T500]  el0_svc+0x2c/0x9c\n"
		/* x86 page fault */
		"[ 3000.0][  T600] BUG: unable to handle page fault for address: ffffffffffffffe8\n"
		"[ 3000.0][  T600] #PF: supervisor read access in kernel mode\n"
		"[ 3000.0][  T600] Oops: 0000 [#1] SMP PTI\n"
		"[ 3000.0][  T600] RIP: 0010:fault_fn+0x5/0x10\n"
		/* 6.15+ WARNING */
		"[ 4000.0][  T700] WARNING: drivers/x/y.c:12 at my_warn+0x1a/0x30, CPU#0: sh/700\n"
		"[ 4000.0][  T700] Call Trace:\n"
		"[ 4000.0][  T700]  my_warn_caller+0x1/0x2\n"
		/* an RCU stall whose interrupt warned at once: named by the
		 * code the warning's frames show interrupted */
		"[ 5000.0][    C1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n"
		"[ 5000.0][    C1] rcu: \tTasks blocked on level-0 rcu_node (CPUs 0-1):\n"
		"[ 5000.0][    C1] ------------[ cut here ]------------\n"
		"[ 5000.0][    C1] IRQs not enabled as expected\n"
		"[ 5000.0][    C1] WARNING: CPU: 1 PID: 4737 at kernel/sched/core.c:2698 try_invoke_on_locked_down_task+0x18b/0x320\n"
		"[ 5000.0][    C1] Call Trace:\n"
		"[ 5000.0][    C1]  <IRQ>\n"
		"[ 5000.0][    C1]  __warn+0x227/0x250\n"
		"[ 5000.0][    C1]  rcu_sched_clock_irq+0x12ec/0x1eb0\n"
		"[ 5000.0][    C1]  hrtimer_interrupt+0x373/0xd60\n"
		"[ 5000.0][    C1]  </IRQ>\n"
		"[ 5000.0][    C1]  asm_sysvec_apic_timer_interrupt+0x12/0x20\n"
		"[ 5000.0][    C1] RIP: 0010:smp_call_function_single+0x311/0x450\n"
		"[ 5000.0][    C1]  on_each_cpu+0x4d/0x1f0\n"
		"[ 5000.0][    C1]  do_adjtimex+0x3ac/0x8f0\n");

	(void)state;
	assert_int_equal(rs.n, 7);
	assert_string_equal(rs.v[0].title, "INFO: task hung in read_cache_folio");
	assert_string_equal(rs.v[1].title, "INFO: task hung in p9_fd_close");
	assert_string_equal(rs.v[2].title,
			    "BUG: unable to handle page fault in my_remove");
	assert_string_equal(rs.v[3].title,
			    "BUG: unable to handle page fault in fault_fn");
	assert_string_equal(rs.v[4].title, "WARNING in my_warn");
	assert_string_equal(rs.v[5].title,
			    "INFO: rcu detected stall in smp_call_function");
	assert_int_equal(rs.v[5].nframes, 0);
	assert_string_equal(rs.v[6].title,
			    "WARNING in try_invoke_on_locked_down_task");
	kp_reports_free(&rs);
}

/* The same log fed a few bytes at a time (lines split anywhere) gives the
 * same reports, events complete as later ones start, and lines longer
 * than KP_MAX_LINE are cut and counted wherever the pieces end. */
static void fed_in_pieces(void **state)
{
	struct kp_reports whole = parse(gpf_panic), rs = { 0 };
	struct kp_linux *p = kp_linux_begin(&rs);
	size_t n = strlen(gpf_panic), done_before;
	char *big = malloc(KP_MAX_LINE * 3);
	static const char tail[] =
		"\n[  900.0] BUG: kernel NULL pointer dereference, address: 0\n";

	(void)state;
	for (size_t i = 0; i < n; i += 7)
		kp_linux_feed(p, gpf_panic + i, n - i < 7 ? n - i : 7);
	done_before = kp_linux_done_events(p);
	memset(big, 'x', KP_MAX_LINE * 3);
	kp_linux_feed(p, big, KP_MAX_LINE * 3);
	kp_linux_feed(p, tail, strlen(tail));
	assert_int_equal(kp_linux_done_events(p), done_before + 1);
	kp_linux_end(p);
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.long_lines, 1);
	assert_int_equal(rs.lines, whole.lines + 2);
	assert_string_equal(rs.v[0].title, whole.v[0].title);
	assert_string_equal(rs.v[0].panic, whole.v[0].panic);
	assert_int_equal(rs.v[0].nframes, whole.v[0].nframes);
	for (size_t i = 0; i < whole.v[0].nframes; i++)
		assert_string_equal(rs.v[0].frames[i].sym,
				    whole.v[0].frames[i].sym);
	free(big);
	kp_reports_free(&rs);
	kp_reports_free(&whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(panic_belongs_to_its_oops),
		cmocka_unit_test(interleaved_tasks),
		cmocka_unit_test(events_apart),
		cmocka_unit_test(panics),
		cmocka_unit_test(newer_forms),
		cmocka_unit_test(fed_in_pieces),
	};

	return RUN(tests);
}
