/* ARGS: -q */
/* llquantize(expr, 10, 0, 2, 20) as dtrace-utils draws it: the middle row
 * "0" (abs() < 1) with "-1" above it, single units to 9, steps of 5 to
 * 95, of 50 to 950, then ">= 1000"; every bucket between the first and
 * the last with data is printed. */
BEGIN
{
	@ = llquantize(0, 10, 0, 2, 20);
	@ = llquantize(7, 10, 0, 2, 20);
	@ = llquantize(12, 10, 0, 2, 20);
	@ = llquantize(999, 10, 0, 2, 20);
	@ = llquantize(5000, 10, 0, 2, 20);
	exit(0);
}
