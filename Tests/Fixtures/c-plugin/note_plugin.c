/* A complete cell-controller plugin in plain C.
 * Items of type NOTE_TYPE: {"data": {"text": "..."}} -> {"cell":"NoteCell","height":44,...}.
 * A missing "text" is an item error; "fail":true in the input is a plugin error.
 * Section type "notes" gets a header row; select publishes {"kind":"noted"}, or null for the
 * action "silent". */
#include "fixture_util.h"

#ifndef NOTE_NAME
#define NOTE_NAME "note"
#endif
#ifndef NOTE_VERSION
#define NOTE_VERSION "0.1.0"
#endif
#ifndef NOTE_SECTION
#define NOTE_SECTION "notes"
#endif
#ifndef NOTE_TYPE
#define NOTE_TYPE "note"
#endif

static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    if (fixture_find(input, length, "\"fail\":true")) {
        fixture_put(sink, "{\"message\":\"disk on fire\"}");
        return ROWCAST_PLUGIN_ERROR;
    }
    const char *key = "\"text\":\"";
    const char *text = fixture_find(input, length, key);
    if (text == NULL) {
        fixture_put(sink, "{\"message\":\"missing field \\\"text\\\"\",\"field\":\"text\",\"code\":\"missing_field\"}");
        return ROWCAST_ITEM_ERROR;
    }
    text += strlen(key);
    const char *end = input + length;
    const char *close = text;
    while (close < end && *close != '"') close++;
    /* Several writes on purpose: the sink must append. */
    fixture_put(sink, "{\"cell\":\"NoteCell\",");
    fixture_put(sink, "\"height\":44,\"content\":{\"text\":\"");
    sink->write(sink->opaque, text, (size_t)(close - text));
    fixture_put(sink, "\"},\"actions\":[{\"name\":\"select\",\"kind\":\"noted\",\"params\":{}}]}");
    return ROWCAST_OK;
}

static int render_header(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context; (void)input; (void)length;
    fixture_put(sink, "{\"cell\":\"NoteHeader\",\"height\":28,\"content\":{}}");
    return ROWCAST_OK;
}

static int select_action(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    if (fixture_find(input, length, "\"action\":\"silent\"")) {
        fixture_put(sink, "null");
    } else {
        fixture_put(sink, "{\"kind\":\"noted\"}");
    }
    return ROWCAST_OK;
}

static const char *const item_types[] = { NOTE_TYPE };
static const char *const header_types[] = { NOTE_SECTION };

static const rowcast_plugin descriptor = {
    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(rowcast_plugin),
    .name = NOTE_NAME,
    .version = NOTE_VERSION,
    .item_types = item_types,
    .item_type_count = 1,
    .header_types = header_types,
    .header_type_count = 1,
    .context = NULL,
    .render_item = render_item,
    .render_header = render_header,
    .select = select_action,
};

const rowcast_plugin *rowcast_plugin_entry(void) { return &descriptor; }
