/* The C plugin ABI target: the header in include/ is its substance. This constant lets
   rowcastd report the ABI version it was built against. */
#include "rowcast_plugin.h"

const uint32_t rowcast_host_abi_version = ROWCAST_PLUGIN_ABI_VERSION;
