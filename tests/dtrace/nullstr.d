/* ARGS: -q */
/* DTrace's NULL string: what a string variable holds after "= NULL", what
 * a missing string element and strchr()/strstr() finding nothing give. It
 * equals NULL and only NULL, sorts below every other string (the empty
 * one too), is copied as NULL; s + i is the string from its i-th byte on,
 * i + s too; using a NULL string faults (the ERROR clause counts it). */
string t, u;

BEGIN
{
	s = "abcdef";
	e = "";
	t = NULL;
	u = t;
	printf("%d %d %d %d\n", s == NULL, e == NULL, t == NULL, u == NULL);
	printf("%d %d %d %d %d\n", t < e, e > t, t == u, t != e, s > e);
	printf("%d %d\n", strchr(s, 'z') == NULL, strstr(s, "zz") == NULL);
	a[1] = "x";
	printf("%d %d\n", a[1] == NULL, a[2] == NULL);
	printf("%s %s %s %c\n", s + 2, 3 + s, s + 1 + 1, s[1]);
}

BEGIN
{
	trace(t);
}

BEGIN
{
	printf("%s\n", strjoin(u, "x"));
}

ERROR
{
	printf("fault %d at %d\n", arg4, arg5);
}

BEGIN
{
	exit(0);
}
