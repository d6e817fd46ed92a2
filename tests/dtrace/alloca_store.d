/* ARGS: -q */
/* Stores through pointers into alloca()'s memory, as DTrace allows them:
 * integers of each size truncated to the pointee's type (char is signed),
 * compound assignment and ++/--, bytes written one by one and then read
 * as a string, and a pointer kept in a global and a this-> variable. */
BEGIN
{
	this->i = (int *)alloca(16);
	*this->i = 42;
	*(this->i + 1) = -7;
	*this->i += 1;
	(*(this->i + 1))--;
	*(this->i + 2) = 0x123456789;
	printf("%d %d %x\n", *this->i, *(this->i + 1), *(this->i + 2));

	c = (char *)alloca(8);
	*c = 300;
	*(c + 1) = 200;
	u = (unsigned char *)c;
	printf("%d %d %d\n", *c, *(c + 1), *(u + 1));

	this->l = (long *)alloca(8);
	*this->l = 1;
	*this->l <<= 40;
	this->h = (short *)this->l;
	*(this->h + 3) = -1;
	printf("%x\n", *this->l);

	s = (char *)alloca(6);
	*s = 'h';
	*(s + 1) = 'e';
	*(s + 2) = 'l';
	*(s + 3) = 'l';
	*(s + 4) = 'o';
	*(s + 5) = 0;
	printf("%s %d\n", stringof(s), strlen(stringof(s)));
	exit(0);
}
