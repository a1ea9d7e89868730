/* The plugin's own definition of the probe symbol. */
const char *rowcast_fixture_probe(void) { return "plugin"; }
