/* STATUS: 2 */
BEGIN
{
	s = "text";
	printf("%d\n", s);
}
