#pragma D option quiet

BEGIN
{
	printf("[%d] [%5d] [%-5d] [%05d] [%+d] [% d]\n", 42, 42, 42, 42, 42, 42);
	printf("[%i] [%u] [%x] [%X] [%#x] [%o] [%#o]\n", -3, 3000000000u, 255,
	    255, 255, 8, 8);
	printf("[%c%c%c]\n", 'D', 0x54, 'r');
	printf("[%s] [%10s] [%-10s] [%.3s] [%10.2s]\n", "abc", "abc", "abc",
	    "abcdef", "abcdef");
	printf("[%*d] [%-*d] [%.*s]\n", 6, 7, 6, 7, 2, "xyz");
	printf("[%ld] [%lld] [%lu] [%hd]\n", 1, 2, 3, 4);
	printf("100%% sure\n");
	printf("[%p]\n", 4096);
	printf("%s %s\n", "tab\there", "quote\"");
	exit(0);
}
