/* ARGS: -q */
/* CMD: fixture open /nonexistent/sonde-dtrace-test /etc/hostname */
syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/nonexistent/sonde-dtrace-test"/
{
	self->path = copyinstr(arg1);
}

syscall::openat:return
/self->path != NULL/
{
	printf("%s: %d errno %d\n", self->path, (int)arg0, errno);
	self->path = NULL;
}
