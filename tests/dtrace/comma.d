/* ARGS: -q */
/* C's comma operator: the left operand for its effects, in order, then
 * the right one's value (and type), in statements and expressions. */
BEGIN
{
	a = 1, b = 2, c = 3;
	x = (a++, b += 10, c * 2);
	s = (a, "str");
	printf("%d %d %d %d %s\n", a, b, c, x, s);
	exit(0);
}
