extension PluginTemplate {
    /// NAME.c, its Makefile, item.json and README.md.
    static func cFiles(name: String) -> [(path: String, text: String)] {
        let cell = typeName(name) + "Cell"
        return [
            (
                "\(name).c",
                #"""
                /* The "\#(name)" cell-controller plugin for rowcastd, in C. Build: make */
                #include <string.h>
                #include <rowcast_plugin.h>

                static void put(rowcast_sink *sink, const char *text) { sink->write(sink->opaque, text, strlen(text)); }

                /* Where the JSON string value of "key": starts in input (after the quote), or NULL.
                   A sketch: a real plugin should parse the item with a JSON library. */
                static const char *string_value(const char *input, size_t length, const char *key, const char **end) {
                    size_t key_length = strlen(key);
                    for (size_t i = 0; i + key_length < length; i++) {
                        if (memcmp(input + i, key, key_length) != 0) continue;
                        const char *value = input + i + key_length;
                        const char *stop = input + length;
                        for (*end = value; *end < stop && **end != '"'; (*end)++) {
                            if (**end == '\\' && *end + 1 < stop) (*end)++;
                        }
                        return *end < stop ? value : NULL;
                    }
                    return NULL;
                }

                /* An item {"id","type","data":{"title":"..."}} -> a row; no title is an item error. */
                static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
                    (void)context;
                    const char *end;
                    const char *title = string_value(input, length, "\"title\":\"", &end);
                    if (title == NULL) {
                        put(sink, "{\"message\":\"missing field \\\"title\\\"\",\"field\":\"title\",\"code\":\"missing_field\"}");
                        return ROWCAST_ITEM_ERROR;
                    }
                    put(sink, "{\"cell\":\"\#(cell)\",\"height\":64,\"content\":{\"title\":\"");
                    sink->write(sink->opaque, title, (size_t)(end - title));
                    put(sink, "\"}}");
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
            (
                "Makefile",
                """
                # Builds librowcast-\(name).so against the installed plugin header (pkg-config rowcast-plugin).
                CC     ?= cc
                CFLAGS ?= -O2 -Wall -Wextra

                librowcast-\(name).so: \(name).c
                \t$(CC) $(CFLAGS) -shared -fPIC $$(pkg-config --cflags rowcast-plugin) -o $@ \(name).c

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
                make                          # librowcast-\(name).so
                rowcast plugin check librowcast-\(name).so
                rowcast plugin render librowcast-\(name).so --item item.json
                sudo install -m 0644 librowcast-\(name).so /usr/local/lib/rowcast/plugins/
                rowcast reload
                ```

                """
            ),
        ]
    }
}
