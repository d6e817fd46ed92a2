#pragma D option quiet
#pragma D option strsize=16
/* strings hold strsize characters at most (as DTrace's); pragmas set
 * options as -x does. */
BEGIN
{
	s = "0123456789abcdefghijklmnop";
	printf("%s %d\n", s, sizeof(s));
	exit(0);
}
