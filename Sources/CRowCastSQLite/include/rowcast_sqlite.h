/*
 * rowcast_sqlite.h: the store's one process-wide SQLite setting, which Swift cannot call
 * directly (sqlite3_config is variadic).
 */
#ifndef ROWCAST_SQLITE_H
#define ROWCAST_SQLITE_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS = 0), so its allocations and
 * frees no longer take the global memory mutex to count bytes. Effective only before SQLite
 * initializes (the first connection opened in the process); afterwards it returns
 * SQLITE_MISUSE and changes nothing. Returns SQLite's result code (0, SQLITE_OK, when it took
 * effect).
 */
int rowcast_sqlite_disable_memory_statistics(void);

#ifdef __cplusplus
}
#endif

#endif
