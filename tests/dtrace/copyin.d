/* ARGS: -q */
/* CMD: fixture open /etc/hostname */
/* copyin() gives a buffer that stringof(), a cast and tracemem() read;
 * tracemem() prints dtrace(1)'s hex dump. */
syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/etc/hostname"/
{
	printf("%s|%s|%c\n", stringof(copyin(arg1, 5)), copyinstr(arg1),
	    *(char *)copyin(arg1 + 1, 1));
	tracemem(copyin(arg1, 14), 14);
	exit(0);
}
