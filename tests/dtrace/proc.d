/* ARGS: -q -x evaltime=exec */
/* CMD: ufixture proc */
/* proc provider: the fixture's life, event by event (see ufixture.c):
 * one thread; three children (one exits 7, one is killed by SIGTERM, one
 * fails to exec /nonexistent with ENOENT and runs /bin/true); SIGUSR1
 * handled; SIGUSR2 taken by sigwait. Events of the target and of its
 * children only; counts, so the order of parent and child does not
 * matter. lwp-start and lwp-exit fire for every task, a new process's
 * first thread included, as dtrace-utils fires them: 4 starts (the
 * thread, the three children), 5 exits (those and the fixture). */
proc:::create,proc:::start,proc:::lwp-create,proc:::lwp-start,
proc:::lwp-exit,proc:::exec,proc:::exec-success
/pid == $target || ppid == $target/
{
	@events[probename] = count();
}

proc:::create
/pid == $target && args[0]->pr_ppid == pid && args[0]->pr_pid != pid &&
 args[0]->pr_fname == execname/
{
	@create["child's psinfo: ppid, pid, fname"] = count();
}

proc:::lwp-create
/pid == $target && args[1]->pr_pid == pid && args[0]->pr_lwpid != tid/
{
	@create["new thread's lwpsinfo and psinfo"] = count();
}

proc:::exec-failure
/ppid == $target/
{
	@failure[args[0]] = count();
}

proc:::exit
/pid == $target || ppid == $target/
{
	@exit[args[0] == 1 ? "CLD_EXITED" : args[0] == 2 ? "CLD_KILLED" :
	    args[0] == 3 ? "CLD_DUMPED" : "?"] = count();
}

proc:::signal-send
/pid == $target || ppid == $target/
{
	@send[args[2], args[1]->pr_pid == pid ? "self" :
	    args[1]->pr_pid == ppid ? "parent" : "other",
	    args[0]->pr_lwpid == args[1]->pr_pid ? "main thread" :
	    "another thread"] = count();
}

proc:::signal-handle
/pid == $target || ppid == $target/
{
	@handle[args[0], args[1] == 0 ? 0 : args[1]->si_code,
	    args[2] != 0 ? "handler" : "default"] = count();
}

proc:::signal-clear
/pid == $target/
{
	@clear[args[0]] = count();
}
