/* ARGS: -q */
/* copyin() of an unmapped user address is an invalid-address fault. */
BEGIN
{
	trace(*(int *)copyin(0, 4));
}

BEGIN
{
	exit(0);
}
