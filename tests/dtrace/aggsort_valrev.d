/* ARGS: -q -x aggsortrev */
/* The order of aggregations: by value, reversed. */
BEGIN
{
	@["b", 2] = count();
	@["a", 3] = count();
	@["a", 3] = count();
	@["c", 1] = count();
	@["c", 1] = count();
	@["c", 1] = count();
	exit(0);
}
