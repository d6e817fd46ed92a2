/* STATUS: 1 */
/* Destructive actions need -w: refused when tracing is enabled, as
 * dtrace(1) does. */
syscall::getppid:entry
{
	raise(9);
}
