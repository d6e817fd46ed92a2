/* ARGS: -q */
/* CMD: ufixture usdt 4 */
/* usdt provider: ufixture's STAP_PROBE sites (see ufixture.c). Round i
 * passes (long i, int -i, short 3i, char i) in registers of four sizes,
 * signed; guarded__round (written guarded-round) runs only while its
 * semaphore counts a tracer, so the fixture prints "4 guarded rounds"
 * only if the kernel raised it. */
ufix$target:a.out::round
{
	@round[probemod, probefunc, probename, arg0, arg1, arg2,
	    arg3] = count();
}

ufix$target:ufixture:main:guarded-round
{
	@guarded[arg0] = sum(arg0);
}
