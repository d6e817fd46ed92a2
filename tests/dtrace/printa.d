/* ARGS: -q */
/* printa() with and without a format; an aggregation printa() printed is
 * not printed again at exit. */
BEGIN
{
	@calls["read", 3] = count();
	@calls["write", 1] = count();
	@calls["write", 1] = count();
	@bytes["read"] = sum(512);
	@other = count();
}

END
{
	printa(@calls);
	printa("%-8s fd %d: %@d calls\n", @calls);
	printa("%s=%@u\n", @bytes);
}

BEGIN
{
	exit(0);
}
