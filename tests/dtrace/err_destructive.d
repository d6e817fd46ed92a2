/* STATUS: 1 */
/* Destructive actions need -w. */
syscall::getppid:entry
{
	raise(9);
}
