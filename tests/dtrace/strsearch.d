/* ARGS: -q */
/* index, rindex (with and without a start) and strstr, as illumos
 * defines them: -1 (NULL for strstr) when absent; the empty substring is
 * found where the search starts. */
BEGIN
{
	s = "abcabc";
	printf("%d %d %d %d %d %d\n", index(s, "bc"), rindex(s, "bc"),
	    index(s, "bc", 2), index(s, "x"), rindex(s, "bc", 3),
	    index(s, ""));
	printf("[%s] %d [%s]\n", strstr(s, "ca"), strstr(s, "zz") == NULL,
	    strstr("/usr/lib", "/lib"));
	exit(0);
}
