/* ARGS: -q */
/* CMD: ufixture calls 3 */
/* pid provider: entry probes see the arguments (registers, then the
 * stack past the sixth), return probes the return value in arg1 and -1 in
 * arg0; a.out and the executable's name are the same module. Round i of
 * the fixture calls uf_add(i, 2i) = 3i and uf_eight(1, ..., 8) = 36. */
pid$target:a.out:uf_add:entry
{
	printf("%s:%s:%s %d %d\n", probemod, probefunc, probename, arg0, arg1);
}

pid$target:ufixture:uf_add:return
{
	printf("%s %d %d\n", probename, arg0, arg1);
}

pid$target:a.out:uf_eight:entry
/arg0 == 1 && arg5 == 6 && arg6 == 7 && arg7 == 8/
{
	eight++;
}

pid$target:a.out:uf_eight:return
/arg1 == 36/
{
	ret36++;
}

END
{
	printf("uf_eight: %d entries with 1..8, %d returned 36\n", eight,
	    ret36);
}
