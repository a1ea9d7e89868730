/* Helpers shared by the C plugin fixtures. Input is NOT NUL-terminated: search with bounds. */
#ifndef ROWCAST_FIXTURE_UTIL_H
#define ROWCAST_FIXTURE_UTIL_H

#include <string.h>
#include "rowcast_plugin.h"

/* Where `needle` starts in input[0..length), or NULL. */
__attribute__((unused)) static const char *fixture_find(const char *input, size_t length, const char *needle) {
    size_t n = strlen(needle);
    if (input == NULL || n == 0 || n > length) return NULL;
    for (size_t i = 0; i + n <= length; i++) {
        if (memcmp(input + i, needle, n) == 0) return input + i;
    }
    return NULL;
}

/* Writes a NUL-terminated string to the sink. */
__attribute__((unused)) static void fixture_put(rowcast_sink *sink, const char *text) {
    sink->write(sink->opaque, text, strlen(text));
}

#endif
