/* STATUS: 2 */
BEGIN
{
	@a = count();
}

END
{
	@a = sum(1);
}
