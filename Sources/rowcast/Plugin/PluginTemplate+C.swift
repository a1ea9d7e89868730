extension PluginTemplate {
    /// NAME.c, `header` (the SDK's rowcast_plugin.h) beside it, its Makefile, item.json and README.md.
    static func cFiles(name: String, header: String) -> [(path: String, text: String)] {
        let cell = typeName(name) + "Cell"
        return [
            (
                "\(name).c",
                #"""
                /* The "\#(name)" cell-controller plugin for rowcastd, in C. Build: make
                   (rowcast_plugin.h, the plugin ABI, is the copy beside this file.) */
                #include <string.h>
                #include "rowcast_plugin.h"

                static void put(rowcast_sink *sink, const char *text) { sink->write(sink->opaque, text, strlen(text)); }

                /* A small scanner of the item's JSON, which rowcastd has checked is valid. Any
                   whitespace JSON allows is skipped; strings are never copied or unescaped. */
                static size_t skip_space(const char *s, size_t n, size_t i) {
                    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
                    return i;
                }

                /* The index just past the JSON value that starts at i. */
                static size_t skip_value(const char *s, size_t n, size_t i) {
                    if (i < n && s[i] == '"') {
                        for (i++; i < n; i++) {
                            if (s[i] == '\\') i++;
                            else if (s[i] == '"') return i + 1;
                        }
                        return n;
                    }
                    if (i < n && (s[i] == '{' || s[i] == '[')) {
                        int depth = 0;
                        for (; i < n; i++) {
                            if (s[i] == '"') { i = skip_value(s, n, i) - 1; continue; }
                            if (s[i] == '{' || s[i] == '[') depth++;
                            else if ((s[i] == '}' || s[i] == ']') && --depth == 0) return i + 1;
                        }
                        return n;
                    }
                    while (i < n && !strchr(",}] \t\n\r", s[i])) i++;
                    return i;
                }

                /* Finds member `key` (written without escapes) of the object at s[0..n): its value
                   in *value and *length. Returns 0 when it is absent. */
                static int member(const char *s, size_t n, const char *key, const char **value, size_t *length) {
                    size_t key_length = strlen(key);
                    size_t i = skip_space(s, n, 0);
                    if (i >= n || s[i] != '{') return 0;
                    for (i = skip_space(s, n, i + 1); i < n && s[i] == '"'; i = skip_space(s, n, i + 1)) {
                        size_t key_end = skip_value(s, n, i);
                        int match = key_end - i == key_length + 2 && memcmp(s + i + 1, key, key_length) == 0;
                        i = skip_space(s, n, key_end);
                        if (i >= n || s[i] != ':') return 0;
                        i = skip_space(s, n, i + 1);
                        size_t end = skip_value(s, n, i);
                        if (match) { *value = s + i; *length = end - i; return 1; }
                        i = skip_space(s, n, end);
                        if (i >= n || s[i] != ',') return 0;
                    }
                    return 0;
                }

                /* An item {"id","type","data":{"title":"..."}} -> a row; no title is an item error. */
                static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
                    (void)context;
                    const char *data, *title;
                    size_t data_length, title_length;
                    if (!member(input, length, "data", &data, &data_length)
                        || !member(data, data_length, "title", &title, &title_length)) {
                        put(sink, "{\"message\":\"missing field \\\"title\\\"\",\"field\":\"title\",\"code\":\"missing_field\"}");
                        return ROWCAST_ITEM_ERROR;
                    }
                    if (title[0] != '"') {
                        put(sink, "{\"message\":\"field \\\"title\\\" must be a string\",\"field\":\"title\",\"code\":\"invalid_field\"}");
                        return ROWCAST_ITEM_ERROR;
                    }
                    /* The string token as it came: still correctly escaped JSON. */
                    put(sink, "{\"cell\":\"\#(cell)\",\"height\":64,\"content\":{\"title\":");
                    sink->write(sink->opaque, title, title_length);
                    put(sink, "}}");
                    return ROWCAST_OK;
                }

                static const char *const item_types[] = {"\#(name)"};

                static const rowcast_plugin descriptor = {
                    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
                    .struct_size = sizeof(rowcast_plugin),
                    .name = "\#(name)",
                    .version = "0.1.0",
                    .item_types = item_types,
                    .item_type_count = 1,
                    .render_item = render_item,
                };

                const rowcast_plugin *rowcast_plugin_entry(void) { return &descriptor; }

                """#
            ),
            ("rowcast_plugin.h", header),
            (
                "Makefile",
                """
                # Builds librowcast-\(name).so; rowcast_plugin.h, the plugin ABI, is the copy beside \(name).c.
                CC     ?= cc
                CFLAGS ?= -O2 -Wall -Wextra

                librowcast-\(name).so: \(name).c rowcast_plugin.h
                \t$(CC) $(CFLAGS) -shared -fPIC -o $@ \(name).c

                clean:
                \trm -f librowcast-\(name).so

                .PHONY: clean

                """
            ),
            ("item.json", sampleItem(name)),
            (
                "README.md",
                """
                # The \(name) plugin for rowcastd, in C

                ```sh
                make                          # librowcast-\(name).so (cc -shared -fPIC -o librowcast-\(name).so \(name).c)
                rowcast plugin check librowcast-\(name).so
                rowcast plugin render librowcast-\(name).so --item item.json
                sudo install -m 0644 librowcast-\(name).so /usr/local/lib/rowcast/plugins/
                rowcast reload
                ```

                The install line is for an installed rowcastd. A rowcastd run from a RowCast checkout
                (`make run`) loads the plugins beside it: copy the file into that checkout's
                `.build/debug/`, then `rowcast reload`.

                `rowcast_plugin.h` is a copy of the plugin ABI's header from the SDK `rowcast plugin new`
                found; a plugin built with it loads in any rowcastd of the same ABI version
                (`ROWCAST_PLUGIN_ABI_VERSION` in the header; `rowcast plugin check` says when it does not).

                """
            ),
        ]
    }
}
