/* ARGS: -q */
/* A store through a pointer variable that held alloca()'s memory but no
 * longer does (NULL: DTrace lets such a variable keep nothing else) is
 * DTrace's invalid-address fault (checked when it runs):
 * it fires ERROR and ends the clause; the next clauses and END still run.
 * (A store past the memory handed out: test_dtrace.py, whose address
 * differs from run to run.) */
BEGIN
{
	p = (int *)alloca(8);
	p = NULL;
	*p = 5;
	printf("not reached\n");
}

BEGIN
{
	q = (int *)alloca(8);
	*q = 7;
	printf("%d\n", *q);
	exit(0);
}

ERROR
{
	errs[arg4]++;
}

END
{
	printf("faults: %d invalid address\n", errs[1]);
}
