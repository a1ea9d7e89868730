/*
 * rowcast_checksum.c: CRC32C for stored records. The table version is the reference; the
 * SSE 4.2 version computes the same polynomial eight bytes per instruction.
 */
#include "rowcast_checksum.h"

#include <pthread.h>
#include <string.h>

/* The reflected Castagnoli polynomial. */
#define CRC32C_POLYNOMIAL 0x82F63B78u

static uint32_t crc32c_table[256];
static pthread_once_t crc32c_table_once = PTHREAD_ONCE_INIT;

static void crc32c_fill_table(void) {
    for (uint32_t index = 0; index < 256; index++) {
        uint32_t value = index;
        for (int bit = 0; bit < 8; bit++) value = (value >> 1) ^ (CRC32C_POLYNOMIAL & (0u - (value & 1u)));
        crc32c_table[index] = value;
    }
}

static uint32_t crc32c_by_table(uint32_t state, const uint8_t *bytes, size_t length) {
    pthread_once(&crc32c_table_once, crc32c_fill_table);
    while (length--) state = (state >> 8) ^ crc32c_table[(state ^ *bytes++) & 0xFFu];
    return state;
}

static uint32_t crc32c_u64_by_table(uint32_t state, uint64_t value) {
    uint8_t little[8];
    for (int index = 0; index < 8; index++) little[index] = (uint8_t)(value >> (8 * index));
    return crc32c_by_table(state, little, 8);
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_by_instruction(
    uint32_t state, const uint8_t *bytes, size_t length) {
    uint64_t wide = state;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = __builtin_ia32_crc32di(wide, word);
        bytes += 8;
        length -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    if (length >= 4) {
        uint32_t word;
        memcpy(&word, bytes, 4);
        narrow = __builtin_ia32_crc32si(narrow, word);
        bytes += 4;
        length -= 4;
    }
    if (length >= 2) {
        uint16_t word;
        memcpy(&word, bytes, 2);
        narrow = __builtin_ia32_crc32hi(narrow, word);
        bytes += 2;
        length -= 2;
    }
    if (length) narrow = __builtin_ia32_crc32qi(narrow, *bytes);
    return narrow;
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_field_by_instruction(
    uint32_t state, const uint8_t *bytes, size_t length) {
    state = __builtin_ia32_crc32si(state, (uint32_t)length);
    return length ? crc32c_by_instruction(state, bytes, length) : state;
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_u64_by_instruction(uint32_t state, uint64_t value) {
    return (uint32_t)__builtin_ia32_crc32di(state, value);
}

/* Whether the CPU has SSE 4.2's crc32 (x86-64 is little-endian, as the fields are). */
static int crc32c_has_instruction(void) {
    /* -1 until the first call looks (any thread may look; they all find the same). */
    static int has_instruction = -1;
    int found = __atomic_load_n(&has_instruction, __ATOMIC_RELAXED);
    if (found < 0) {
        __builtin_cpu_init();
        found = __builtin_cpu_supports("sse4.2") ? 1 : 0;
        __atomic_store_n(&has_instruction, found, __ATOMIC_RELAXED);
    }
    return found;
}
#endif

uint32_t rowcast_crc32c_update(uint32_t state, const void *bytes, size_t length) {
#if defined(__x86_64__)
    if (crc32c_has_instruction()) return crc32c_by_instruction(state, (const uint8_t *)bytes, length);
#endif
    return crc32c_by_table(state, (const uint8_t *)bytes, length);
}

uint32_t rowcast_crc32c_field(uint32_t state, const void *bytes, size_t length) {
#if defined(__x86_64__)
    if (crc32c_has_instruction()) return crc32c_field_by_instruction(state, (const uint8_t *)bytes, length);
#endif
    uint32_t low = (uint32_t)length;
    uint8_t little[4] = {(uint8_t)low, (uint8_t)(low >> 8), (uint8_t)(low >> 16), (uint8_t)(low >> 24)};
    state = crc32c_by_table(state, little, 4);
    return crc32c_by_table(state, (const uint8_t *)bytes, length);
}

uint32_t rowcast_crc32c_u64(uint32_t state, uint64_t value) {
#if defined(__x86_64__)
    if (crc32c_has_instruction()) return crc32c_u64_by_instruction(state, value);
#endif
    return crc32c_u64_by_table(state, value);
}

uint32_t rowcast_crc32c_reference(uint32_t state, const void *bytes, size_t length) {
    return crc32c_by_table(state, (const uint8_t *)bytes, length);
}
