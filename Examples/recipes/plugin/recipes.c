/*
 * librowcast-recipes.so: the recipes example's cell controller, in plain C.
 *
 * Renders `recipe` items into RecipeCell rows (title, "25 min · serves 4", image; an `open`
 * action) and the headers of `cookbook` sections into CookbookHeaderCell rows. It reads the
 * input JSON with a small scanner that never copies or unescapes strings: a string member is
 * passed to the output as the JSON token it was, so it stays correctly escaped.
 *
 * Build (in Examples/recipes; make run builds it too):
 *   cc -std=c11 -O2 -shared -fPIC -I ../../SDK/Sources/CRowCastPlugin/include \
 *      -o librowcast-recipes.so plugin/recipes.c
 * With the SDK installed, $(pkg-config --cflags rowcast-plugin) in place of the -I option.
 */
#include <rowcast_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A slice of the input. */
typedef struct { const char *start; size_t length; } span;

static size_t skip_space(const char *s, size_t n, size_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* The index just past the JSON value that starts at i (n when it runs off the end). */
static size_t skip_value(const char *s, size_t n, size_t i) {
    if (i >= n) return n;
    if (s[i] == '"') {
        for (i++; i < n; i++) {
            if (s[i] == '\\') i++;
            else if (s[i] == '"') return i + 1;
        }
        return n;
    }
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        for (; i < n; i++) {
            if (s[i] == '"') { i = skip_value(s, n, i) - 1; continue; }
            if (s[i] == '{' || s[i] == '[') depth++;
            else if ((s[i] == '}' || s[i] == ']') && --depth == 0) return i + 1;
        }
        return n;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n') i++;
    return i;
}

/* The value of member `key` of the object `object`; 0 when absent. Keys are compared as
   written (the keys this plugin reads contain no escapes). */
static int member(span object, const char *key, span *out) {
    const char *s = object.start;
    size_t n = object.length, key_length = strlen(key);
    size_t i = skip_space(s, n, 0);
    if (i >= n || s[i] != '{') return 0;
    i++;
    while (1) {
        i = skip_space(s, n, i);
        if (i >= n || s[i] != '"') return 0;
        size_t key_end = skip_value(s, n, i);
        int match = key_end - i == key_length + 2 && memcmp(s + i + 1, key, key_length) == 0;
        i = skip_space(s, n, key_end);
        if (i >= n || s[i] != ':') return 0;
        i = skip_space(s, n, i + 1);
        size_t value_end = skip_value(s, n, i);
        if (match) { out->start = s + i; out->length = value_end - i; return 1; }
        i = skip_space(s, n, value_end);
        if (i >= n || s[i] != ',') return 0;
        i++;
    }
}

static int is_string(span value) { return value.length >= 2 && value.start[0] == '"'; }

/* A number member as a double; 0 when it is absent or not a number. */
static int number(span value, double *out) {
    char buffer[64];
    if (value.length == 0 || value.length >= sizeof buffer) return 0;
    if (value.start[0] != '-' && (value.start[0] < '0' || value.start[0] > '9')) return 0;
    memcpy(buffer, value.start, value.length);
    buffer[value.length] = 0;
    char *end;
    *out = strtod(buffer, &end);
    return *end == 0;
}

static void put(rowcast_sink *sink, const char *text) { sink->write(sink->opaque, text, strlen(text)); }
static void put_span(rowcast_sink *sink, span value) { sink->write(sink->opaque, value.start, value.length); }

/* ROWCAST_ITEM_ERROR naming `field`. */
static int reject(rowcast_sink *sink, const char *code, const char *field, const char *message) {
    char buffer[256];
    snprintf(buffer, sizeof buffer, "{\"code\":\"%s\",\"field\":\"%s\",\"message\":\"%s\"}", code, field, message);
    put(sink, buffer);
    return ROWCAST_ITEM_ERROR;
}

/* Reads a required string member of `object` into `out`, or rejects. */
#define REQUIRE_STRING(object, name, out)                                                         \
    do {                                                                                          \
        if (!member(object, name, &(out))) return reject(sink, "missing_field", name, "missing field \\\"" name "\\\"");    \
        if (!is_string(out)) return reject(sink, "invalid_field", name, "field \\\"" name "\\\" must be a string"); \
    } while (0)

static int render_recipe(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    span item = {input, length}, data, title, image, url, minutes_value, servings_value;
    if (!member(item, "data", &data)) return reject(sink, "missing_field", "data", "missing field \\\"data\\\"");
    REQUIRE_STRING(data, "title", title);
    REQUIRE_STRING(data, "image", image);
    REQUIRE_STRING(data, "url", url);
    double minutes, servings = 0;
    if (!member(data, "minutes", &minutes_value)) return reject(sink, "missing_field", "minutes", "missing field \\\"minutes\\\"");
    if (!number(minutes_value, &minutes) || minutes < 0 || minutes > 100000)
        return reject(sink, "invalid_field", "minutes", "field \\\"minutes\\\" must be a number of minutes");
    int has_servings = member(data, "servings", &servings_value);
    if (has_servings && (!number(servings_value, &servings) || servings < 1 || servings > 1000))
        return reject(sink, "invalid_field", "servings", "field \\\"servings\\\" must be a number from 1 to 1000");

    char subtitle[96];
    if (minutes >= 60)
        snprintf(subtitle, sizeof subtitle, "%d h %02d min", (int)minutes / 60, (int)minutes % 60);
    else
        snprintf(subtitle, sizeof subtitle, "%d min", (int)minutes);
    if (has_servings) snprintf(subtitle + strlen(subtitle), sizeof subtitle - strlen(subtitle), " \xC2\xB7 serves %d", (int)servings);

    put(sink, "{\"cell\":\"RecipeCell\",\"height\":88,\"content\":{\"title\":");
    put_span(sink, title);
    put(sink, ",\"subtitle\":\"");
    put(sink, subtitle);
    put(sink, "\",\"image\":");
    put_span(sink, image);
    put(sink, "},\"actions\":[{\"name\":\"open\",\"kind\":\"open_url\",\"params\":{\"url\":");
    put_span(sink, url);
    put(sink, "}}]}");
    return ROWCAST_OK;
}

static int render_cookbook(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    span section = {input, length}, header, title, subtitle;
    if (!member(section, "header", &header)) return reject(sink, "missing_field", "header", "missing field \\\"header\\\"");
    REQUIRE_STRING(header, "title", title);
    put(sink, "{\"cell\":\"CookbookHeaderCell\",\"height\":160,\"content\":{\"title\":");
    put_span(sink, title);
    if (member(header, "subtitle", &subtitle)) {
        if (!is_string(subtitle)) return reject(sink, "invalid_field", "subtitle", "field \\\"subtitle\\\" must be a string");
        put(sink, ",\"subtitle\":");
        put_span(sink, subtitle);
    }
    put(sink, "},\"actions\":[]}");
    return ROWCAST_OK;
}

/* `open` publishes {"kind":"open_url","url":...} for the producer and the app. */
static int select_recipe(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    span request = {input, length}, action, item, data, url;
    if (!member(request, "action", &action) || !member(request, "item", &item) || !member(item, "data", &data) || !member(data, "url", &url))
        return reject(sink, "invalid_input", "action", "a select request needs action and item.data.url");
    if (!(action.length == 6 && memcmp(action.start, "\"open\"", 6) == 0))
        return reject(sink, "unknown_action", "action", "unknown action (recipes offer \\\"open\\\")");
    put(sink, "{\"kind\":\"open_url\",\"url\":");
    put_span(sink, url);
    put(sink, "}");
    return ROWCAST_OK;
}

static const char *const item_types[] = {"recipe"};
static const char *const header_types[] = {"cookbook"};

static const rowcast_plugin descriptor = {
    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(rowcast_plugin),
    .name = "recipes",
    .version = "1.0.0",
    .item_types = item_types,
    .item_type_count = 1,
    .header_types = header_types,
    .header_type_count = 1,
    .render_item = render_recipe,
    .render_header = render_cookbook,
    .select = select_recipe,
};

const rowcast_plugin *rowcast_plugin_entry(void) { return &descriptor; }
