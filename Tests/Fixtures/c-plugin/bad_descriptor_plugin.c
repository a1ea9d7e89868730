/* A descriptor with one defect, chosen with -DDEFECT=n:
 * 1 render_item NULL, 2 no item types, 3 name NULL, 4 struct_size too small,
 * 5 the entry returns NULL, 6 header types without render_header, 7 an item type listed twice. */
#include "fixture_util.h"

#ifndef DEFECT
#error "compile with -DDEFECT=n"
#endif

static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context; (void)input; (void)length;
    fixture_put(sink, "{\"cell\":\"X\",\"height\":1}");
    return ROWCAST_OK;
}

static const char *const item_types[] = { "defective", "defective" };
static const char *const header_types[] = { "defective-section" };

static const rowcast_plugin descriptor = {
    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
    .struct_size = DEFECT == 4 ? 16 : sizeof(rowcast_plugin),
    .name = DEFECT == 3 ? NULL : "defective",
    .version = "1.0.0",
    .item_types = item_types,
    .item_type_count = DEFECT == 2 ? 0 : (DEFECT == 7 ? 2 : 1),
    .header_types = header_types,
    .header_type_count = DEFECT == 6 ? 1 : 0,
    .render_item = DEFECT == 1 ? NULL : render_item,
};

const rowcast_plugin *rowcast_plugin_entry(void) { return DEFECT == 5 ? NULL : &descriptor; }
