/* ARGS: -q */
/* Declared associative arrays: their value types, and a map even when a
 * program only reads one. */
long a[int];
string s[int];

BEGIN
{
	a[1] = 5;
	printf("%d %d %d\n", a[1], a[2], s[3] == NULL);
	exit(0);
}
