/* STATUS: 2 */
BEGIN
{
	x = (1 + ;
}
