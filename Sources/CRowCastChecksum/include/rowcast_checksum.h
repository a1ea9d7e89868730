/*
 * rowcast_checksum.h: CRC32C (Castagnoli), the checksum every stored record carries.
 */
#ifndef ROWCAST_CHECKSUM_H
#define ROWCAST_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Continues a CRC32C over `length` bytes at `bytes` from the register value `state` (start
 * with 0xFFFFFFFF and invert the last value to get the standard checksum). Uses the CPU's
 * crc32 instruction where it has one (SSE 4.2 on x86-64), a table otherwise; both give the
 * same value.
 */
uint32_t rowcast_crc32c_update(uint32_t state, const void *bytes, size_t length);

/*
 * Continues a CRC32C over one field: its length as 4 bytes, little-endian (the low 32 bits of
 * `length`), then its `length` bytes. The same as two `rowcast_crc32c_update` calls.
 */
uint32_t rowcast_crc32c_field(uint32_t state, const void *bytes, size_t length);

/* Continues a CRC32C over `value` as 8 bytes, little-endian. */
uint32_t rowcast_crc32c_u64(uint32_t state, uint64_t value);

/* `rowcast_crc32c_update` by table whatever the CPU: the reference the tests compare with. */
uint32_t rowcast_crc32c_reference(uint32_t state, const void *bytes, size_t length);

#ifdef __cplusplus
}
#endif

#endif
