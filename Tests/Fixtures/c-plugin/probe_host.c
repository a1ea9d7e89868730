/* Another definition of the probe symbol, as a host executable or an RTLD_GLOBAL library
 * exporting the same symbol (say, its own copy of RowCastKit) would have. */
const char *rowcast_fixture_probe(void) { return "host"; }
