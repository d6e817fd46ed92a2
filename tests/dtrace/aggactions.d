/* ARGS: -q */
/* stddev(); printa() with %@d, %@u, %@x and a histogram's %@d;
 * normalize() and denormalize(); trunc() to the largest and smallest
 * values and to nothing; clear() keeps the keys with zero values. */
BEGIN
{
	@sd = stddev(2);
	@sd = stddev(4);
	@sd = stddev(4);
	@sd = stddev(4);
	@sd = stddev(5);
	@sd = stddev(5);
	@sd = stddev(7);
	@sd = stddev(9);
	@c["a"] = sum(1);
	@c["b"] = sum(3);
	@c["c"] = sum(2);
	@c["d"] = sum(26);
	@q["x"] = quantize(4);
	@q["x"] = quantize(5);
	@bytes = sum(3000);
	@gone = count();
}

END
{
	printa("stddev %@d\n", @sd);
	printa("%s %@x\n", @c);
	printa("%s %@u\n", @c);
	normalize(@bytes, 1000);
	printa("bytes/1000 %@d\n", @bytes);
	denormalize(@bytes);
	printa("bytes %@d\n", @bytes);
	trunc(@c, 2);
	printa("top2 %s %@d\n", @c);
	trunc(@c, -1);
	printa("bottom1 %s %@d\n", @c);
	printa("%s:%@d\n", @q);
	clear(@q);
	printa("%s:%@d\n", @q);
	trunc(@gone);
}

BEGIN
{
	exit(0);
}
