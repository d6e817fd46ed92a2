// SPDX-License-Identifier: GPL-2.0-only
/* crc32c — CRC-32C (Castagnoli, iSCSI's: reflected polynomial 0x82f63b78,
 * initial and final inversion; "123456789" checks to 0xe3069283), for
 * sonde's trace-file checksums. Prefix crc32c_. */
#ifndef SONDE_LIB_CRC32C_H
#define SONDE_LIB_CRC32C_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether this CPU computes it in hardware (SSE 4.2's crc32 on x86-64):
 * then it is the fastest checksum sonde has. */
bool crc32c_fast(void);
/* Extend crc (0 to start) over n bytes at p. */
uint32_t crc32c(uint32_t crc, const void *p, size_t n);
/* The same without the instruction (a table): what crc32c does on other
 * CPUs. */
uint32_t crc32c_table(uint32_t crc, const void *p, size_t n);
#endif
