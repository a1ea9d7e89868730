/* A plugin whose callbacks misbehave, selected by "mode" in the input:
 * default: truncated JSON; "nocell": a row without "cell"; "huge": 17 MiB of output;
 * "status": an unknown status code; "garbage-error": an item error whose output is not JSON.
 * Its select returns an array, which is not an event. */
#include <stdlib.h>
#include "fixture_util.h"

static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    if (fixture_find(input, length, "\"mode\":\"nocell\"")) {
        fixture_put(sink, "{\"height\":1,\"content\":{}}");
        return ROWCAST_OK;
    }
    if (fixture_find(input, length, "\"mode\":\"huge\"")) {
        size_t chunk = 1 << 20;
        char *spaces = malloc(chunk);
        memset(spaces, ' ', chunk);
        for (int i = 0; i < 17; i++) sink->write(sink->opaque, spaces, chunk);
        free(spaces);
        return ROWCAST_OK;
    }
    if (fixture_find(input, length, "\"mode\":\"status\"")) {
        return 7;
    }
    if (fixture_find(input, length, "\"mode\":\"garbage-error\"")) {
        fixture_put(sink, "not json at all");
        return ROWCAST_ITEM_ERROR;
    }
    fixture_put(sink, "{\"cell\":\"Broken\",\"height\":");
    return ROWCAST_OK;
}

static int select_action(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context; (void)input; (void)length;
    fixture_put(sink, "[1,2,3]");
    return ROWCAST_OK;
}

static const char *const item_types[] = { "broken" };

static const rowcast_plugin descriptor = {
    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(rowcast_plugin),
    .name = "broken",
    .version = "6.6.6",
    .item_types = item_types,
    .item_type_count = 1,
    .render_item = render_item,
    .select = select_action,
};

const rowcast_plugin *rowcast_plugin_entry(void) { return &descriptor; }
