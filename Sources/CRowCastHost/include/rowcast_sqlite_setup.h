/*
 * rowcast_sqlite_setup.h: process-wide SQLite settings that Swift cannot make itself, since
 * sqlite3_config is variadic. They take effect only before SQLite initializes (the first
 * connection opened in the process); afterwards they return SQLITE_MISUSE and change nothing.
 */
#ifndef ROWCAST_SQLITE_SETUP_H
#define ROWCAST_SQLITE_SETUP_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS = 0), so its allocations and
 * frees no longer take the global memory mutex to count bytes. Returns SQLite's result code
 * (0, SQLITE_OK, when it took effect).
 */
int rowcast_sqlite_disable_memory_statistics(void);

#ifdef __cplusplus
}
#endif

#endif
