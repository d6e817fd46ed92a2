/* STATUS: 1 */
BEGIN
{
	@a = count();
}

END
{
	@a = sum(1);
}
