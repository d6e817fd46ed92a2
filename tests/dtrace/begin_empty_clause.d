/* An empty clause has DTrace's default action: the probe line. A clause
 * of only assignments and aggregations records nothing. */
BEGIN
{
}

BEGIN
{
	x = 1;
	@a = count();
}

BEGIN
/x == 1/
{
	exit(0);
}
