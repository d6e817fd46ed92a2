/* trace(): integers right-aligned by size, strings left-aligned. */
BEGIN
{
	trace(1);
	trace("hi");
	trace(-5);
	trace((char)7);
	trace((short)-300);
	trace(1234567890123ll);
	exit(0);
}
