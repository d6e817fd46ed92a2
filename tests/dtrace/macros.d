/* ARGS: -q */
/* MACROS: 42 word -7 */
/* $1.. are the arguments after the script: integers stay integers,
 * $$N is the argument as a string, $0 the script. */
BEGIN
{
	printf("%d %d %s %s %d\n", $1 + 1, $3, $$2, $$1, $1 == 42);
	exit(0);
}
