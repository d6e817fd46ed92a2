/* ARGS: -q */
/* The D library: constants of DTrace's system D files (signal.d, errno.d,
 * procfs.d, regs.d with dtrace-utils' x86_64 indices, the DTRACEFLT_
 * fault codes, the uint/uchar_t typedefs) known without a declaration,
 * and user inline definitions, typed as declared. */
inline int TWICE = 2 * 21;
inline string GREETING = "hi";
inline uchar_t SMALL = 300;

BEGIN
{
	printf("%d %d %d %d\n", SIGINT, SIGKILL, SIGUSR1, SIGCHLD);
	printf("%d %d %d\n", EPERM, ENOENT, EAGAIN);
	printf("%d %d %d\n", CLD_EXITED, CLD_KILLED, CLD_DUMPED);
	printf("%d %d %d %d %d\n", R_PC, R_SP, R_SS, R_GS, R_TRAPNO);
	printf("%d %d %d\n", DTRACEFLT_BADADDR, DTRACEFLT_DIVZERO,
	    DTRACEFLT_LIBRARY);
	printf("%d %s %d\n", TWICE + 1, GREETING, SMALL);
	printf("%u\n", (uint)-1);
	exit(0);
}
