/* STATUS: 1 */
/* lquantize()'s parameters are checked as DTrace checks them. */
BEGIN
{
	@l = lquantize(1, 0, 10, 20);
}
