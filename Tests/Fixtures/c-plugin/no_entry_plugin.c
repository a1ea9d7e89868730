/* A shared library named like a plugin that exports no rowcast_plugin_entry. */
const void *rowcast_plugin_entry_typo(void) { return 0; }
