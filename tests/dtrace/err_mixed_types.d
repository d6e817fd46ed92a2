/* STATUS: 1 */
BEGIN
{
	x = 1;
	x = "one";
}
