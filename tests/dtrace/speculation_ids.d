/* ARGS: -q -x nspec=2 */
/* speculation() hands out ids 1..nspec and 0 when none is free; commit()
 * prints what was speculated, discard() drops it, and both free the id
 * for the next speculation(). */
BEGIN
{
	a = speculation();
	b = speculation();
	c = speculation();
	printf("%d %d %d\n", a, b, c);
}

BEGIN
{
	speculate(a);
	printf("committed\n");
}

BEGIN
{
	speculate(b);
	printf("discarded\n");
}

BEGIN
{
	commit(a);
	discard(b);
}

BEGIN
{
	printf("after: %d\n", speculation());
	exit(0);
}
