/* ARGS: -q -x strsize=64 */
/* String functions as illumos' dtrace_dif_subr defines them: strlen,
 * strjoin, substr (negative index from the end, with and without a
 * length), strchr/strrchr, toupper/tolower, basename/dirname with
 * trailing slashes, lltostr in base 10 and 16. */
BEGIN
{
	s = "/usr/lib/libc.so.6";
	printf("[%d] [%s] [%s] [%s]\n", strlen(s), strjoin("ab", "cd"),
	    substr(s, 5), substr(s, -4, 2));
	printf("[%s] [%s] [%s] [%s]\n", substr(s, 1, 3), substr("hello", 10),
	    strchr(s, 'l'), strrchr(s, 'l'));
	printf("[%s] [%s]\n", toupper("Hello, World"), tolower("Hello, World"));
	printf("[%s] [%s] [%s] [%s] [%s]\n", basename(s), dirname(s),
	    basename("/"), dirname("/usr/"), dirname("usr"));
	printf("[%s] [%s] [%s] [%s]\n", basename("a/b//"), dirname("a/b//"),
	    dirname("//x"), dirname("/x"));
	printf("[%s] [%s] [%s] [%s]\n", lltostr(0), lltostr(-1234567890123),
	    lltostr(255, 16), lltostr(-9223372036854775807 - 1));
	exit(0);
}
