#ifndef ROWCAST_CPOSTGRESQL_SHIM_H
#define ROWCAST_CPOSTGRESQL_SHIM_H
#include <postgresql/libpq-fe.h>
#endif
