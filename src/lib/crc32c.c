// SPDX-License-Identifier: GPL-2.0-only
/* crc32c — CRC-32C, with the x86-64 crc32 instruction when the CPU has it.
 * See crc32c.h.
 *
 * Why not zlib's crc32 alone: the trace writer checksums every byte it
 * writes (256 MB for a 1,000,000-byte dd under ktrace -t c), on the thread
 * that drains the ring buffer. Measured on this VM under load: zlib's
 * crc32 1.4 GB/s, the SSE 4.2 instruction 3.4 GB/s — the writer's CPU for
 * the checksum drops 2.4-fold, and with it the chance of falling behind
 * the ring. zlib has no CRC-32C; without the instruction the writer uses
 * zlib's CRC-32 (the file says which), and this table is only for reading
 * such a file elsewhere. */
#include "crc32c.h"

#include <string.h>

static uint32_t table[256];

static void table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		table[i] = c;
	}
}

static uint32_t soft(uint32_t c, const unsigned char *p, size_t n)
{
	if (!table[1])
		table_init();
	while (n--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t hard(uint32_t c, const unsigned char *p, size_t n)
{
	uint64_t c64 = c;

	while (n >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}

bool crc32c_fast(void)
{
	return __builtin_cpu_supports("sse4.2");
}
#else
bool crc32c_fast(void)
{
	return false;
}
#endif

uint32_t crc32c(uint32_t crc, const void *p, size_t n)
{
	uint32_t c = ~crc;

#if defined(__x86_64__)
	static int hw = -1;

	if (hw < 0)
		hw = crc32c_fast();
	if (hw)
		return ~hard(c, p, n);
#endif
	return ~soft(c, p, n);
}

uint32_t crc32c_table(uint32_t crc, const void *p, size_t n)
{
	return ~soft(~crc, p, n);
}
