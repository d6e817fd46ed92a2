/* ARGS: -q */
/* CMD: fixture open /etc/hostname */
/* copyinto() copies user memory into alloca()'s, also at an offset into
 * it; read back with stringof(), %s, * and tracemem(). (Its faults:
 * tests/e2e/test_dtrace.py.) */
syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/etc/hostname"/
{
	this->p = (char *)alloca(16);
	copyinto(arg1, 14, this->p);
	printf("%s|%s|%c\n", stringof(this->p), this->p, *(this->p + 5));
	copyinto(arg1 + 5, 4, this->p + 9);
	tracemem(this->p, 14);
	exit(0);
}
