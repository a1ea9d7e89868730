/* A plugin from the future: ABI version 99, with a layout rowcastd must not read. */
#include <stdint.h>

struct future_plugin {
    uint32_t abi_version;
    uint32_t something_else;
};

static const struct future_plugin descriptor = { 99, 12345 };

const void *rowcast_plugin_entry(void) { return &descriptor; }
