/* STATUS: 1 */
BEGIN
{
	s = "text";
	printf("%d\n", s);
}
