/* ARGS: -q -x aggsortkey -x aggsortkeypos=1 */
/* The order of aggregations: by the second key first. */
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
