/* STATUS: 1 */
BEGIN
{
	x = (1 + ;
}
