/* STATUS: 1 */
/* A variable that keeps alloca()'s memory keeps nothing else (but NULL):
 * DTrace reads it as an offset in that memory. Assigning it another
 * pointer in a later clause is D_ALLOCA_INCOMPAT, at that assignment. */
BEGIN
{
	a = (char *)alloca(1);
	a = NULL;
}
BEGIN
{
	b = (char *)arg0;
	a = b + 5;
	exit(0);
}
