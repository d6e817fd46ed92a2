/* ARGS: -q */
/* Globals declared or typed by their first assignment, clause-locals
 * shared by the clauses of one probe firing, compound assignment and
 * increments. */
int declared;
string name;

BEGIN
{
	printf("%d [%s]\n", declared, name);
	declared = 41;
	declared++;
	implicit = declared * 2;
	implicit -= 4;
	implicit /= 2;
	implicit %= 30;
	implicit <<= 2;
	implicit |= 1;
	implicit ^= 3;
	implicit &= 0xff;
	implicit >>= 1;
	name = "sonde";
	this->local = 7;
	printf("%d %d %s\n", declared, implicit, name);
}

BEGIN
{
	printf("this->local=%d\n", this->local);
	a = 5;
	b = a++;
	c = ++a;
	d = a--;
	e = --a;
	printf("%d %d %d %d %d\n", a, b, c, d, e);
	small = (char)127;
	small++;
	printf("%d\n", small);
	exit(0);
}
