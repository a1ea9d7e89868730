/* Renders {"content":{"bound":<rowcast_fixture_probe()>}}. rowcast_fixture_probe is defined
 * in probe_impl.c, linked into this same library, so the call goes through the PLT and ELF
 * would let a definition in the global scope (probe_host.c loaded RTLD_GLOBAL) interpose on it
 * unless the plugin is opened with RTLD_DEEPBIND. */
#include <stdio.h>
#include "fixture_util.h"

const char *rowcast_fixture_probe(void);

static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context; (void)input; (void)length;
    char row[128];
    snprintf(row, sizeof row, "{\"cell\":\"Probe\",\"height\":1,\"content\":{\"bound\":\"%s\"}}", rowcast_fixture_probe());
    fixture_put(sink, row);
    return ROWCAST_OK;
}

static const char *const item_types[] = { "probe" };

static const rowcast_plugin descriptor = {
    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(rowcast_plugin),
    .name = "probe",
    .version = "1.0.0",
    .item_types = item_types,
    .item_type_count = 1,
    .render_item = render_item,
};

const rowcast_plugin *rowcast_plugin_entry(void) { return &descriptor; }
