// SPDX-License-Identifier: GPL-2.0-only
/* names — code whose names every sonde tool must agree on
 * (tests/e2e/test_symbols.py), one scenario per argv[1], each spinning
 * for argv[2] seconds of wall time:
 *
 *   cxx SECONDS        in ns::S<long>::spin(long), a C++ template's member
 *   vdso SECONDS FILE  in clock_gettime, which the vDSO serves; the vDSO's
 *                      image is written to FILE first, for nm
 *   jit SECONDS        in machine code written into anonymous memory and
 *                      named in /tmp/perf-PID.map, as JITs do
 *   dlopen SECONDS LIB in sonde_lib_spin(), from LIB loaded with dlopen
 *                      after the start
 *
 * "ready" goes to stdout (flushed) once the spinning starts. */
#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

namespace ns {
template <class T> struct S {
	static volatile T sink;
	__attribute__((noinline)) static T spin(T n)
	{
		T x = sink;

		for (T i = 0; i < n; i++)
			x = x * 6364136223846793005l + 1442695040888963407l;
		sink = x;
		return x;
	}
};
template <class T> volatile T S<T>::sink;
}

static void ready(void)
{
	puts("ready");
	fflush(stdout);
}

static int cxx(double secs)
{
	double end = now() + secs;

	ready();
	while (now() < end)
		ns::S<long>::spin(2000000);
	return 0;
}

static int vdso(double secs, const char *file)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	struct timespec ts;
	double end;
	FILE *f;

	if (!base || !(f = fopen(file, "w")))
		return 1;
	fwrite((const void *)base, 1,
	       eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize, f);
	fclose(f);
	end = now() + secs;
	ready();
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return 0;
}

static int jit(double secs)
{
	/* loop: dec %rdi; jnz loop; ret */
	static const unsigned char code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb,
					      0xc3 };
	char path[64];
	double end;
	void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*fn)(long);
	FILE *f;

	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx sonde_jit_spin\n", (unsigned long)mem,
		sizeof(code));
	fclose(f);
	fn = (void (*)(long))mem;
	end = now() + secs;
	ready();
	while (now() < end)
		fn(2000000);
	return 0;
}

static int dlopened(double secs, const char *lib)
{
	void *h;
	void (*fn)(long);
	double end;

	ready();	/* before the library is there */
	h = dlopen(lib, RTLD_NOW);
	if (!h || !(fn = (void (*)(long))dlsym(h, "sonde_lib_spin")))
		return 1;
	end = now() + secs;
	while (now() < end)
		fn(2000000);
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 1;

	if (argc > 2 && !strcmp(argv[1], "cxx"))
		return cxx(secs);
	if (argc > 3 && !strcmp(argv[1], "vdso"))
		return vdso(secs, argv[3]);
	if (argc > 2 && !strcmp(argv[1], "jit"))
		return jit(secs);
	if (argc > 3 && !strcmp(argv[1], "dlopen"))
		return dlopened(secs, argv[3]);
	fprintf(stderr, "usage: names cxx|vdso|jit|dlopen SECONDS [FILE]\n");
	return 2;
}
