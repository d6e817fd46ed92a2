/* STATUS: 2 */
BEGIN
{
	trace(never_assigned + 1);
}
