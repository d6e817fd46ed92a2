/* ARGS: -q */
/* Clauses of one probe run in program order; a predicate's side effects
 * happen whether or not it is true; exit() ends the firing (the last
 * clause does not run, as in DTrace). */
BEGIN
{
	n = 0;
	printf("first %d\n", n);
}

BEGIN
/n++ == 5/
{
	printf("not printed\n");
}

BEGIN
/n++ == 1/
{
	printf("third %d\n", n);
}

BEGIN
{
	printf("fourth %d\n", n);
	exit(0);
}

BEGIN
{
	printf("after exit() in the same firing\n");
}
