/* ARGS: -q */
/* alloca() memory, 8-byte aligned and handed out again in each clause:
 * bcopy() into it from kernel memory (a string variable, a literal), read
 * back with stringof(), printf's %s of the char *, a cast and *, and
 * tracemem(); pointers kept in this-> and global variables. */
string greeting;

BEGIN
{
	greeting = "hello, world";
	s = (char *)alloca(14);
	bcopy(greeting, s, 13);
	t = (char *)alloca(1);
	this->u = (int *)alloca(0);
	this->v = (char *)alloca(8);
	bcopy("abcdefg", this->v, 8);
	printf("[%s] [%s] %c %d %d %d\n", stringof(s), s, *(char *)(s + 7),
	    t - s, (char *)this->u - t, this->v - (char *)this->u);
	printf("[%s] %x\n", this->v, *(int *)this->v);
	bcopy("XY", s + 7, 2);
	printf("[%s]\n", s);
	tracemem(s, 13);
	first = (uint64_t)s;
}

BEGIN
{
	/* a new clause: the memory is handed out from its start again */
	p = (char *)alloca(8);
	printf("same memory: %d, aligned: %d\n", (uint64_t)p == first,
	    ((uint64_t)p & 7) == 0);
	exit(0);
}
