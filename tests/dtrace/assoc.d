/* ARGS: -q */
/* Associative arrays with tuple keys; a missing element reads as zero
 * (a string one as NULL, as DTrace's), assigning zero deletes it. */
BEGIN
{
	a["x", 1] = 10;
	a["x", 2] = 20;
	a["y", 1] = 30;
	printf("%d %d %d %d\n", a["x", 1], a["x", 2], a["y", 1], a["y", 2]);
	a["x", 1] += 5;
	a["x", 2]++;
	printf("%d %d\n", a["x", 1], a["x", 2]);
	a["x", 1] = 0;
	printf("%d\n", a["x", 1]);
	names[1] = "one";
	names[2] = "two";
	printf("%s %s %d\n", names[1], names[2], names[3] == NULL);
	k = 2;
	printf("%s\n", names[k]);
	exit(0);
}
