/* ARGS: -q */
/* CMD: fixture open /nonexistent/a /etc/hostname /nonexistent/b */
/* The classic pattern: speculate on every open, commit the ones that
 * fail, discard the rest; one speculation buffer (nspec=1) is enough
 * because each is committed or discarded before the next open. */
syscall::openat:entry
/pid == $target && (dirname(copyinstr(arg1)) == "/nonexistent" ||
    copyinstr(arg1) == "/etc/hostname")/
{
	self->spec = speculation();
	speculate(self->spec);
	printf("open %s (speculation %d)\n", copyinstr(arg1), self->spec);
}

syscall::openat:return
/self->spec && (int)arg0 < 0/
{
	commit(self->spec);
	self->spec = 0;
}

syscall::openat:return
/self->spec/
{
	discard(self->spec);
	self->spec = 0;
}
