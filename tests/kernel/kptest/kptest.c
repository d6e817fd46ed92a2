// SPDX-License-Identifier: GPL-2.0-only
/*
 * kptest: a module that crashes on request, for sonde's qemu test tier
 * (tests/kernel). Writing a word to /proc/kptest triggers one crash:
 *
 *   oops    NULL dereference in kp_level2 (through the inlined kp_deref)
 *   bug     BUG() in kp_bug
 *   warn    WARN_ON() in kp_warn, then returns normally
 *   panic   panic() from kp_panic
 *   spin    kp_spin busy-waits for spin_ms milliseconds (for NMI backtraces)
 *
 * Loaded with init_crash=1, its init function waits for `go` to be written
 * to /proc/kptest and then dereferences NULL in kp_init_level (.init.text):
 * a crash in a module that is still loading.
 *
 * Every path goes through kp_write -> kp_dispatch (always inlined) ->
 * kp_level1 -> ..., so the reports carry module frames at several depths and
 * an inline chain both at a faulting address and at a return address.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static unsigned int spin_ms = 3000;
module_param(spin_ms, uint, 0644);
MODULE_PARM_DESC(spin_ms, "how long kp_spin busy-waits, in milliseconds");

static bool init_crash;
module_param(init_crash, bool, 0);
MODULE_PARM_DESC(init_crash, "crash in the init function once `go` is written");

static DECLARE_COMPLETION(kp_go);

/* NULL, but the compiler cannot know it. */
static int *kp_ptr;

static int kp_sink;

static __always_inline int kp_deref(int *p)
{
	return READ_ONCE(*p) + 1;
}

static noinline int kp_level2(int x)
{
	return kp_deref(READ_ONCE(kp_ptr)) + x;
}

static noinline void kp_bug(int x)
{
	if (x >= 0)
		BUG();
}

static noinline void kp_warn(int x)
{
	WARN_ON(x >= 0);
}

static noinline void kp_panic(int x)
{
	panic("kptest: panic requested (%d)", x);
}

static noinline void kp_spin(int x)
{
	unsigned long end = jiffies + msecs_to_jiffies(spin_ms);

	while (time_before(jiffies, end))
		cpu_relax();
	WRITE_ONCE(kp_sink, x);
}

static noinline int kp_level1(const char *cmd, int x)
{
	int r = 0;

	if (!strcmp(cmd, "oops"))
		r = kp_level2(x);
	else if (!strcmp(cmd, "bug"))
		kp_bug(x);
	else if (!strcmp(cmd, "warn"))
		kp_warn(x);
	else if (!strcmp(cmd, "panic"))
		kp_panic(x);
	else if (!strcmp(cmd, "spin"))
		kp_spin(x);
	else
		return -EINVAL;
	WRITE_ONCE(kp_sink, r);
	return 0;
}

static __always_inline int kp_dispatch(const char *cmd, size_t len)
{
	int r = kp_level1(cmd, (int)len);

	/* Keeps the call above from being a tail call. */
	barrier();
	return r;
}

static ssize_t kp_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *off)
{
	char cmd[16];
	size_t n = min(len, sizeof(cmd) - 1);
	int r;

	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = '\0';
	strim(cmd);
	if (!strcmp(cmd, "go")) {
		complete(&kp_go);
		return len;
	}
	r = kp_dispatch(cmd, n);
	return r < 0 ? r : len;
}

static const struct proc_ops kp_proc_ops = {
	.proc_write = kp_write,
};

static struct proc_dir_entry *kp_entry;

static noinline int __init kp_init_level(int x)
{
	return kp_deref(READ_ONCE(kp_ptr)) + x;
}

static int __init kp_init(void)
{
	kp_entry = proc_create("kptest", 0200, NULL, &kp_proc_ops);
	if (!kp_entry)
		return -ENOMEM;
	if (init_crash && wait_for_completion_timeout(&kp_go, 60 * HZ))
		WRITE_ONCE(kp_sink, kp_init_level(1));
	return 0;
}

static void __exit kp_exit(void)
{
	proc_remove(kp_entry);
}

module_init(kp_init);
module_exit(kp_exit);
MODULE_DESCRIPTION("crashes on request, for sonde's kernel test tier");
MODULE_LICENSE("GPL");
