/* ARGS: -q */
/* A bad address (a NULL dereference, copyinstr() of an unmapped address,
 * also in a predicate) is DTrace's "invalid address" fault: reported with
 * the address, ERROR fires with it in arg5 (arg1 the probe ID, arg2 the
 * clause, as dtrace-utils' dt_probe_error), the clause's record is
 * dropped, the other clauses and END still run. */
BEGIN
{
	printf("dropped with its clause\n");
	x = *(int *)0;
}

BEGIN
/copyinstr(16) == "x"/
{
	printf("not reached\n");
}

BEGIN
{
	next_clause = 1;
	exit(0);
}

ERROR
{
	printf("ERROR: probe %d, clause %d, fault %d, address %d\n",
	    arg1, arg2, arg4, arg5);
}

END
{
	printf("end, the next clause ran: %d\n", next_clause);
}
