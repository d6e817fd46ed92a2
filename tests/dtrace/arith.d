/* ARGS: -q */
/* C's operators, precedence, promotions and D's integer types. */
BEGIN
{
	printf("%d %d %d\n", 2 + 3 * 4, (2 + 3) * 4, 20 - 6 - 4);
	printf("%d %d %d %d\n", 7 / 2, -7 / 2, 7 % 3, -7 % 3);
	printf("%d %d\n", 7 / -2, 7 % -3);
	printf("%d %d %d\n", 1 << 10, 1024 >> 3, -1024 >> 3);
	printf("%d %d %d %d\n", 6 & 3, 6 | 3, 6 ^ 3, ~6);
	printf("%d %d %d %d %d %d\n", 1 < 2, 2 < 1, 2 <= 2, 3 >= 4, 5 == 5,
	    5 != 5);
	printf("%d %d %d %d\n", !0, !7, 3 && 0, 0 || 4);
	printf("%d %d %d\n", 1 ^^ 0, 1 ^^ 1, 0 ^^ 0);
	printf("%d %d\n", 1 + 2 == 3 && 4 > 3, 1 | 2 ^ 3 & 4);
	printf("%d %d\n", -(-5), +5);
	printf("%u\n", (unsigned int)-1);
	printf("%d %d\n", (char)255, (unsigned char)255);
	printf("%d %d\n", (short)65537, (unsigned short)-1);
	printf("%d\n", (int)4294967297);
	printf("%lld\n", 2147483647 + 1ll);
	printf("%d\n", -1 < 0u);
	printf("%d\n", -1 < 0);
	printf("%x\n", 0xdeadbeef);
	printf("%d %d\n", 010, 0x10);
	printf("%d %d\n", sizeof(int), sizeof(long));
	printf("%d\n", 10 > 5 ? 100 : 200);
	printf("%d\n", 0 ? 1 : 0 ? 2 : 3);
	/* unsigned 64-bit division and remainder */
	printf("%u %u %u\n", (uint64_t)17 / 5, (uint64_t)17 % 5,
	    0xffffffffffffffff / 3);
	exit(0);
}
