/* A plugin that misbehaves on purpose, for the plugin isolation tests.
 * Items of type FAULT_TYPE render {"cell":"FaultCell","height":40,
 * "content":{"id-seen":true,"v":FAULT_VERSION}} (the version tells which build rendered a row),
 * except for these item ids:
 *   "segv"      writes through a NULL pointer (compiled out with -DFAULT_NO_SEGV: renders)
 *   "abort"     abort()
 *   "exit"      exit(3)
 *   "_exit"     _exit(4)
 *   "hang"      spins forever
 *   "oom"       allocates and touches 16 MiB blocks until malloc fails, then writes through NULL
 *   "stdout"    prints 200 lines to stdout and to stderr, then renders a normal row
 *   "garbage"   returns ROWCAST_OK with output that is not JSON
 *   "truncated" returns ROWCAST_OK with a row cut off in the middle
 *   "huge"      returns ROWCAST_OK with 20 MiB of '['
 *   "channel"   writes garbage into descriptor 3 (a plugin host's request channel), then
 *               renders a normal row: the host must be treated as broken, not trusted
 *   "gate"      waits until the file named by the item's data member "gate" exists (at most
 *               30 s), then renders a normal row: a render that lasts as long as a test wants
 * -DFAULT_NAME, -DFAULT_VERSION and -DFAULT_TYPE change the descriptor (reload tests);
 * -DFAULT_SLOW_START_MS=N makes every load of the plugin (each host start) take N ms;
 * -DFAULT_REFUSE_WHEN='"PATH"' makes every load, once PATH exists, send a forged refusal whose
 * reason holds U+0000 (see forge_refusal). */
#define _DEFAULT_SOURCE /* usleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fixture_util.h"

#ifndef FAULT_NAME
#define FAULT_NAME "fault"
#endif
#ifndef FAULT_VERSION
#define FAULT_VERSION "1"
#endif
#ifndef FAULT_TYPE
#define FAULT_TYPE "fault"
#endif

/* Keeps every block the "oom" fault allocated reachable, so no allocation can be optimised away. */
static void *volatile fault_blocks;

static int has_id(const char *input, size_t length, const char *id) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"id\":\"%s\"", id);
    return fixture_find(input, length, needle) != NULL;
}

/* Waits (at most 30 s) until the file named by `"gate":"<path>"` in the input exists. */
static void wait_for_gate(const char *input, size_t length) {
    const char *key = "\"gate\":\"";
    const char *start = fixture_find(input, length, key);
    if (start == NULL) return;
    start += strlen(key);
    char path[4096];
    size_t n = 0;
    while (start + n < input + length && start[n] != '"' && n + 1 < sizeof path) {
        path[n] = start[n];
        n++;
    }
    path[n] = 0;
    for (int tries = 0; tries < 3000 && access(path, F_OK) != 0; tries++) usleep(10000);
}

/* Both qualifiers matter: the store must happen, and the compiler must not see the NULL. */
static void crash_through_null(void) {
    volatile int *volatile pointer = NULL;
    *pointer = 42;
}

static void spin_forever(void) {
    volatile unsigned long spins = 0;
    for (;;) spins++;
}

static void exhaust_memory(void) {
    const size_t block = (size_t)16 << 20;
    for (;;) {
        void **next = malloc(block);
        if (next == NULL) {
            crash_through_null();
            return;
        }
        memset(next, 0x5a, block);
        next[0] = fault_blocks;
        fault_blocks = next;
    }
}

static void chatter(void) {
    for (int line = 0; line < 200; line++) {
        printf("fault plugin: stdout line %d of 200, which must not reach the render channel\n", line + 1);
        fprintf(stderr, "fault plugin: stderr line %d of 200\n", line + 1);
    }
    fflush(stdout);
    fflush(stderr);
}

static int write_huge(rowcast_sink *sink) {
    const size_t chunk = (size_t)1 << 20;
    char *brackets = malloc(chunk);
    if (brackets == NULL) {
        fixture_put(sink, "{\"message\":\"huge: out of memory\"}");
        return ROWCAST_PLUGIN_ERROR;
    }
    memset(brackets, '[', chunk);
    for (int i = 0; i < 20; i++) sink->write(sink->opaque, brackets, chunk);
    free(brackets);
    return ROWCAST_OK;
}

static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
#ifndef FAULT_NO_SEGV
    if (has_id(input, length, "segv")) crash_through_null();
#endif
    if (has_id(input, length, "abort")) abort();
    if (has_id(input, length, "exit")) exit(3);
    if (has_id(input, length, "_exit")) _exit(4);
    if (has_id(input, length, "hang")) spin_forever();
    if (has_id(input, length, "gate")) wait_for_gate(input, length);
    if (has_id(input, length, "oom")) exhaust_memory();
    if (has_id(input, length, "stdout")) chatter();
    if (has_id(input, length, "garbage")) {
        fixture_put(sink, "this is not json {{{");
        return ROWCAST_OK;
    }
    if (has_id(input, length, "truncated")) {
        fixture_put(sink, "{\"cell\":\"FaultCell\",\"hei");
        return ROWCAST_OK;
    }
    if (has_id(input, length, "huge")) return write_huge(sink);
    if (has_id(input, length, "channel")) {
        static const char junk[] = "\xff\xff\xff\x7f not a frame";
        ssize_t written = write(3, junk, sizeof junk - 1);
        (void)written;
    }
    fixture_put(sink, "{\"cell\":\"FaultCell\",\"height\":40,\"content\":{\"id-seen\":true,\"v\":\"" FAULT_VERSION "\"}}");
    return ROWCAST_OK;
}

static const char *const item_types[] = { FAULT_TYPE };

static const rowcast_plugin descriptor = {
    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(rowcast_plugin),
    .name = FAULT_NAME,
    .version = FAULT_VERSION,
    .item_types = item_types,
    .item_type_count = 1,
    .header_types = NULL,
    .header_type_count = 0,
    .context = NULL,
    .render_item = render_item,
    .render_header = NULL,
    .select = NULL,
};

#ifdef FAULT_REFUSE_WHEN
/* Sends, ahead of the host's hello, a refusal frame of its own on the host's channel
   (descriptor 3: a 4-byte little-endian length, the tag 'R', then JSON), whose reason holds
   U+0000: a plugin that lies to rowcastd, for the tests of what rowcastd stores. */
static void forge_refusal(void) {
    static const char frame_json[] =
        "R{\"code\":\"host_failed\",\"reason\":\"refused by the fault fixture:\\u0000after the NUL\"}";
    unsigned char header[4];
    size_t length = sizeof frame_json - 1;
    for (int i = 0; i < 4; i++) header[i] = (unsigned char)(length >> (8 * i));
    ssize_t written = write(3, header, sizeof header);
    written = write(3, frame_json, length);
    (void)written;
}
#endif

const rowcast_plugin *rowcast_plugin_entry(void) {
#ifdef FAULT_REFUSE_WHEN
    /* Once the file FAULT_REFUSE_WHEN exists, every new host refuses with that reason. */
    if (access(FAULT_REFUSE_WHEN, F_OK) == 0) forge_refusal();
#endif
#ifdef FAULT_SLOW_START_MS
    usleep((useconds_t)FAULT_SLOW_START_MS * 1000);
#endif
    return &descriptor;
}
