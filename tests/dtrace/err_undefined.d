/* STATUS: 1 */
BEGIN
{
	trace(never_assigned + 1);
}
