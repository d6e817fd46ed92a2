/* STATUS: 1 */
/* What this version does not do fails at compile time, clearly. */
BEGIN
{
	ddi_pathname(0, 0);
}
