/* ARGS: -q */
/* exit() ends the probe firing: the later clauses of the same firing do
 * not run, so their exit(1) does not override the status (DTrace's
 * test/unittest/actions/exit/tst.begin-exit.d); END still runs. */
BEGIN
{
	printf("first\n");
	exit(0);
}

BEGIN
{
	printf("not printed\n");
	exit(1);
}

END
{
	printf("end\n");
}
