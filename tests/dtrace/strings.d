/* ARGS: -q */
BEGIN
{
	s = "hello";
	t = "world";
	printf("%d %d %d\n", s == "hello", s != "hello", s == t);
	printf("%d %d %d %d\n", s < t, s > t, s <= "hello", "abc" < "abd");
	printf("%d %d\n", "" < "a", "ab" < "a");
	u = s;
	s = "changed";
	printf("%s %s\n", u, s);
	printf("%s\n", 1 > 0 ? "yes" : "no");
	printf("[%s]\n", "esc\tapes\\ \"q\" \101\x42");
	printf("%s\n", "concatenated " "literals");
	@[u] = count();
	@[s] = count();
	@[u] = count();
	exit(0);
}
