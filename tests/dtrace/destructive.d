/* ARGS: -q -w */
/* With -w: chill() spins in probe context for the time asked; system()
 * runs its formatted command, whose output comes in order with the
 * clause's other output. */
BEGIN
{
	/* walltimestamp: timestamp is one value for the whole firing */
	t = walltimestamp;
	chill(50000000);
	printf("chilled at least 50 ms: %d\n", walltimestamp - t >= 50000000);
	system("echo hello %d from %s", 42, "sh");
	printf("after\n");
	exit(0);
}
