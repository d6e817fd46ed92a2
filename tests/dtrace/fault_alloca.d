/* ARGS: -q */
/* alloca() beyond scratchsize is DTrace's "out of scratch space" fault,
 * bcopy() from a bad address an invalid-address fault: each fires ERROR
 * and ends its clause; the next clauses and END still run. */
#pragma D option scratchsize=64

BEGIN
{
	n = 40;
	p = (char *)alloca(n);
	q = (char *)alloca(n);
	printf("not reached\n");
}

BEGIN
{
	p = (char *)alloca(8);
	bcopy((char *)0, p, 8);
	printf("not reached\n");
}

BEGIN
{
	/* the memory is free again in a new clause */
	p = (char *)alloca(64);
	bcopy("all of it", p, 10);
	printf("%s\n", p);
	exit(0);
}

ERROR
{
	errs[arg4]++;
}

END
{
	printf("faults: %d out of scratch space, %d invalid address\n",
	    errs[5], errs[1]);
}
