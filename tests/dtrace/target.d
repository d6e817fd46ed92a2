/* ARGS: -q */
/* CMD: fixture getppid 7 */
/* $target is -c's pid; syscall entry and return pair up in one thread. */
int ok;		/* += reads it first: DTrace wants it declared (D_VAR_UNDEF) */
syscall::getppid:entry
/pid == $target/
{
	self->in = 1;
	n++;
}

syscall::getppid:return
/self->in/
{
	self->in = 0;
	ok += arg0 == ppid && errno == 0;
}

END
{
	printf("%d calls, %d returned the parent's pid, target %s\n", n, ok,
	    $target == pid ? "is self" : "is another process");
}
