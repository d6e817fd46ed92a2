/* STATUS: 2 */
/* Destructive actions need -w. */
syscall::getppid:entry
{
	raise(9);
}
