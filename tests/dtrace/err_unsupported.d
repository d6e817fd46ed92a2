/* STATUS: 2 */
/* What this version does not do fails at compile time, clearly. */
BEGIN
{
	ftruncate();
}
