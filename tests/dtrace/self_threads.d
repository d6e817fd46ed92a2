/* ARGS: -q */
/* CMD: fixture threads 3 5 */
/* Thread-local variables are per thread: two threads count their own
 * calls. The run ends with -c's command; END still runs. */
syscall::getppid:entry
/pid == $target/
{
	self->calls++;
	@most[tid] = max(self->calls);
	@all = count();
}

END
{
	printa("%@d\n", @most);
	printa("total %@d\n", @all);
}
