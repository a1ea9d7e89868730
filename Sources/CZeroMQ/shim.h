#ifndef ROWCAST_CZEROMQ_SHIM_H
#define ROWCAST_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
