/*
 * rowcast_plugin.h: the C ABI between rowcastd and a cell-controller plugin.
 *
 * A plugin is a shared library that exports one function, ROWCAST_PLUGIN_ENTRY_SYMBOL, which
 * returns a pointer to a rowcast_plugin descriptor that stays valid while the library is
 * loaded. Everything that crosses the boundary is bytes (JSON, UTF-8) and plain C structs, so
 * a plugin can be written in any language that can export a C function.
 *
 * Versioning: abi_version is the first field and is read before anything else. rowcastd
 * refuses a plugin whose abi_version it does not speak, naming the file and both versions.
 * A later ABI that only appends fields keeps its number and grows struct_size: each such step
 * is a revision (ROWCAST_PLUGIN_ABI_REVISION), and rowcastd reads an appended field only when
 * the plugin's struct_size covers it, so a plugin built against an older revision loads
 * unchanged. Revision 1 ends with `select`; revision 2 appends `handle_action`.
 *
 * Threading: rowcastd calls a plugin's functions from one thread at a time, so a plugin
 * needs no locking of its own.
 */
#ifndef ROWCAST_PLUGIN_H
#define ROWCAST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. */
#define ROWCAST_PLUGIN_ABI_VERSION 1u

/* The revision of ABI 1 this header describes (see "Versioning" above). */
#define ROWCAST_PLUGIN_ABI_REVISION 2u

/* The name of the symbol every plugin exports (see rowcast_plugin_entry_fn). */
#define ROWCAST_PLUGIN_ENTRY_SYMBOL "rowcast_plugin_entry"

/* Return codes of the render and select callbacks. */
enum rowcast_status {
    /* Success: the sink holds the output JSON object. */
    ROWCAST_OK = 0,
    /* The input was rejected: the sink holds a JSON object
       {"message": "...", "field": "..." (optional), "code": "..." (optional)}. */
    ROWCAST_ITEM_ERROR = 1,
    /* The plugin failed for a reason of its own: the sink may hold a JSON error object as above. */
    ROWCAST_PLUGIN_ERROR = 2
};

/* Where a callback writes its output. The plugin calls write one or more times; the bytes are
   appended and copied by rowcastd before the callback returns, so the plugin keeps ownership of
   whatever it passed in. */
typedef struct rowcast_sink {
    void *opaque;
    void (*write)(void *opaque, const char *bytes, size_t length);
} rowcast_sink;

/*
 * Renders one item into a row.
 * input: the item as a JSON object, exactly as published: "id" and "type", plus "section",
 * "sort" and "data": {...} when the publisher gave them (types checked by rowcastd).
 * output on ROWCAST_OK: a JSON object {"cell": string, "height": number, "content": object,
 * "actions": array (optional)}. rowcastd adds "id" and "type".
 */
typedef int (*rowcast_render_fn)(void *context, const char *input, size_t input_length,
                                 rowcast_sink *sink);

/*
 * Handles a select request on a row.
 * input: {"feed", "id", "action", "item": <the item JSON as given to render>}.
 * output on ROWCAST_OK: a JSON object describing the event, published to subscribers, or the
 * JSON literal null when the action publishes no event.
 */
typedef int (*rowcast_select_fn)(void *context, const char *input, size_t input_length,
                                 rowcast_sink *sink);

/*
 * Handles an action on a row and says what it changes (ABI revision 2).
 * input: {"feed", "id", "action", "value" (only when the request carried one, already checked
 * against the action's declared value type), "requester" (the CURVE client's name, or the
 * request's "client", or null), "item": <the item JSON as given to render>}.
 * output on ROWCAST_OK: a JSON object with any of
 *   "event":  an object published to subscribers and kept for producers, or null for none;
 *   "update": an object of data fields to set on this item (the new values replace the old,
 *             a null value removes the field); the item is rendered again and committed;
 *   "delete": true to delete this item.
 * "update" and "delete" exclude each other; neither means the feed does not change.
 */
typedef int (*rowcast_action_fn)(void *context, const char *input, size_t input_length,
                                 rowcast_sink *sink);

/* The descriptor a plugin returns from its entry function. */
typedef struct rowcast_plugin {
    /* Must be ROWCAST_PLUGIN_ABI_VERSION. Read first, whatever the rest holds. */
    uint32_t abi_version;
    /* sizeof(rowcast_plugin) as the plugin was compiled. */
    uint32_t struct_size;
    /* Plugin name and version, UTF-8, NUL-terminated, e.g. "product", "1.0.0". */
    const char *name;
    const char *version;
    /* The item types this plugin renders (NUL-terminated strings). */
    const char *const *item_types;
    size_t item_type_count;
    /* The section types whose header rows this plugin renders (may be 0). */
    const char *const *header_types;
    size_t header_type_count;
    /* Passed back unchanged as the first argument of every callback. */
    void *context;
    /* Renders an item into a row. Required. */
    rowcast_render_fn render_item;
    /* Renders a section header: input is {"id", "type", "order", "header": {...}}, output a
       row as for render_item. NULL when header_type_count is 0. */
    rowcast_render_fn render_header;
    /* Handles a select action. NULL when the plugin's rows carry no actions it handles. */
    rowcast_select_fn select;
    /* Revision 2: handles an action and returns its event and the change it makes to the
       item. When set, rowcastd calls it instead of select. NULL when the plugin returns no
       changes. Read only when struct_size reaches past it. */
    rowcast_action_fn handle_action;
} rowcast_plugin;

/* The struct_size of a revision 1 descriptor (one that ends with select). */
#define ROWCAST_PLUGIN_STRUCT_SIZE_R1 (offsetof(rowcast_plugin, select) + sizeof(rowcast_select_fn))

/* The signature of the exported entry symbol. */
typedef const rowcast_plugin *(*rowcast_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* ROWCAST_PLUGIN_H */
