/* A plugin in plain C using ABI 1 revision 2 (handle_action): the profile screen.
 * Items of type "profile": {"data": {"name": "...", "email": "..."}} -> a ProfileCell row with
 * four actions: a tap ("select"), an edit of the email ("edit_email", value type email), a
 * toggle ("starred") and a swipe to delete ("delete").
 * handle_action: "edit_email" returns {"event":{"kind":"email_changed","email":V},
 * "update":{"email":V}}; "starred" sets "starred" to the value (or true); "delete" returns
 * {"event":{"kind":"deleted"},"delete":true}; "select" returns {"event":{"kind":"opened"}};
 * anything else is an item error with code unknown_action. */
#include "fixture_util.h"

/* Where the value of member `key` (quoted, e.g. "\"email\"") starts, past the colon and any
   spaces (publishers may write JSON with spaces), or NULL. */
static const char *find_value(const char *input, size_t length, const char *key) {
    const char *at = fixture_find(input, length, key);
    if (at == NULL) return NULL;
    const char *end = input + length;
    at += strlen(key);
    while (at < end && (*at == ' ' || *at == ':' || *at == '\t' || *at == '\n')) at++;
    return at < end ? at : NULL;
}

/* Copies the string value of member `key` (no escapes) to the sink, or "" when absent. */
static void put_string_field(rowcast_sink *sink, const char *input, size_t length, const char *key) {
    const char *start = find_value(input, length, key);
    sink->write(sink->opaque, "\"", 1);
    if (start != NULL && *start == '"') {
        start += 1;
        const char *end = input + length;
        const char *close = start;
        while (close < end && *close != '"') close++;
        sink->write(sink->opaque, start, (size_t)(close - start));
    }
    sink->write(sink->opaque, "\"", 1);
}

static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    const char *email = find_value(input, length, "\"email\"");
    if (email == NULL || *email != '"') {
        fixture_put(sink, "{\"message\":\"missing field \\\"email\\\"\",\"field\":\"email\",\"code\":\"missing_field\"}");
        return ROWCAST_ITEM_ERROR;
    }
    fixture_put(sink, "{\"cell\":\"ProfileCell\",\"height\":44,\"content\":{\"name\":");
    put_string_field(sink, input, length, "\"name\"");
    fixture_put(sink, ",\"email\":");
    put_string_field(sink, input, length, "\"email\"");
    fixture_put(sink, ",\"starred\":");
    const char *starred = find_value(input, length, "\"starred\"");
    fixture_put(sink, starred != NULL && (size_t)(input + length - starred) >= 4 && memcmp(starred, "true", 4) == 0 ? "true" : "false");
    fixture_put(sink, "},\"actions\":["
        "{\"name\":\"select\",\"kind\":\"open\",\"params\":{}},"
        "{\"name\":\"edit_email\",\"kind\":\"edit\",\"params\":{},\"role\":\"edit\",\"field\":\"email\",\"valueType\":\"email\"},"
        "{\"name\":\"starred\",\"kind\":\"toggle\",\"params\":{},\"role\":\"toggle\",\"field\":\"starred\"},"
        "{\"name\":\"delete\",\"kind\":\"swipe_delete\",\"params\":{},\"role\":\"delete\"}]}");
    return ROWCAST_OK;
}

/* The raw JSON of the request's "value": rowcastd writes it between "value": and ,"requester". */
static int value_span(const char *input, size_t length, const char **start, size_t *count) {
    const char *key = "\"value\":";
    const char *begin = fixture_find(input, length, key);
    if (begin == NULL) return 0;
    begin += strlen(key);
    const char *end = fixture_find(begin, length - (size_t)(begin - input), ",\"requester\":");
    if (end == NULL) return 0;
    *start = begin;
    *count = (size_t)(end - begin);
    return 1;
}

static int handle_action(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    const char *value = NULL;
    size_t value_length = 0;
    int has_value = value_span(input, length, &value, &value_length);
    if (fixture_find(input, length, "\"action\":\"edit_email\"")) {
        if (!has_value) {
            fixture_put(sink, "{\"message\":\"edit_email needs a value\",\"field\":\"value\",\"code\":\"invalid_value\"}");
            return ROWCAST_ITEM_ERROR;
        }
        fixture_put(sink, "{\"event\":{\"kind\":\"email_changed\",\"email\":");
        sink->write(sink->opaque, value, value_length);
        fixture_put(sink, "},\"update\":{\"email\":");
        sink->write(sink->opaque, value, value_length);
        fixture_put(sink, "}}");
    } else if (fixture_find(input, length, "\"action\":\"starred\"")) {
        fixture_put(sink, "{\"event\":null,\"update\":{\"starred\":");
        if (has_value) sink->write(sink->opaque, value, value_length); else fixture_put(sink, "true");
        fixture_put(sink, "}}");
    } else if (fixture_find(input, length, "\"action\":\"delete\"")) {
        fixture_put(sink, "{\"event\":{\"kind\":\"deleted\"},\"delete\":true}");
    } else if (fixture_find(input, length, "\"action\":\"select\"")) {
        fixture_put(sink, "{\"event\":{\"kind\":\"opened\"}}");
    } else {
        fixture_put(sink, "{\"message\":\"unknown action\",\"field\":\"action\",\"code\":\"unknown_action\"}");
        return ROWCAST_ITEM_ERROR;
    }
    return ROWCAST_OK;
}

static const char *const item_types[] = { "profile" };

static const rowcast_plugin descriptor = {
    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(rowcast_plugin),
    .name = "profile",
    .version = "1.0.0",
    .item_types = item_types,
    .item_type_count = 1,
    .render_item = render_item,
    .handle_action = handle_action,
};

const rowcast_plugin *rowcast_plugin_entry(void) { return &descriptor; }
