/* ARGS: -q */
/* A fault ends its clause's actions, is reported as DTrace reports it,
 * and the run goes on. */
BEGIN
{
	zero = 0;
	printf("before\n");
	x = 1 / zero;
	printf("not reached\n");
}

BEGIN
{
	printf("next clause\n");
}

BEGIN
{
	y = 5 % zero;
}

BEGIN
{
	exit(0);
}
