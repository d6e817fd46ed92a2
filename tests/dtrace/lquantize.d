/* ARGS: -q */
/* lquantize() with integer keys: the "< lo" and ">= hi" rows, a step, an
 * increment, and negative increments drawn left of a centre line. */
BEGIN
{
	@[1] = lquantize(5, 0, 50, 10);
	@[1] = lquantize(15, 0, 50, 10);
	@[1] = lquantize(16, 0, 50, 10);
	@[1] = lquantize(-7, 0, 50, 10);
	@[1] = lquantize(50, 0, 50, 10);
	@[2] = lquantize(25, 0, 50, 10, 3);
	@neg = lquantize(0, 0, 3, 1, -2);
	@neg = lquantize(2, 0, 3, 1, 2);
	exit(0);
}
