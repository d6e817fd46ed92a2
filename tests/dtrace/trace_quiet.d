/* ARGS: -q */
BEGIN
{
	trace(1);
	trace("hi");
	trace(-5);
	printf("\n");
	exit(0);
}
