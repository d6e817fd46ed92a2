/* ARGS: -q */
/* count, sum, avg, min, max with tuple keys, printed at exit in DTrace's
 * layout, sorted by value then by key, in the order the aggregations
 * first appear. */
BEGIN
{
	@count["b"] = count();
	@count["a"] = count();
	@count["b"] = count();
	@count["c"] = count();
	@sum[1, "x"] = sum(10);
	@sum[1, "x"] = sum(-3);
	@sum[2, "y"] = sum(100);
	@avg = avg(1);
	@avg = avg(2);
	@avg = avg(6);
	@min["m"] = min(5);
	@min["m"] = min(-2);
	@min["m"] = min(9);
	@max["m"] = max(5);
	@max["m"] = max(-2);
	@max["m"] = max(9);
	@total = sum(1ll << 40);
	exit(0);
}
