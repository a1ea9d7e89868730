/* A plugin that tries, in its render, to reach outside its plugin host, for the confinement
 * tests. Items of type "escape" render {"cell":"EscapeCell","height":40,"content":{...}}, the
 * content saying what the attempt named by the item's id did:
 *   "exec"       execve("/bin/true") in the host itself: {"outcome":"refused","errno":E}
 *                (had it worked, the host would have become /bin/true and exited)
 *   "fork-exec"  fork, and exec /bin/sh -c "exit 7" in the child:
 *                {"outcome":"refused","errno":E} or {"outcome":"ran","status":S}
 *   "detached"   fork a child that calls setsid and forks a grandchild sleeping at most 120 s,
 *                then exits: {"outcome":"refused",...} or {"outcome":"ran","pid":P,"setsid":0|E}
 *                where P is the grandchild, left running (it must die with the host)
 *   "children"   fork at most ESCAPE_CHILDREN (3) children that each allocate and touch 96 MiB,
 *                report, and wait; the render then kills and reaps them:
 *                {"outcome":"refused",...} or {"outcome":"ran","children":N,"allocated":A,
 *                "survivors":S} (A: how many of the N got their 96 MiB; S: how many were still
 *                alive after all had tried, so not killed by an out-of-memory killer)
 *   "connect"    a TCP connection to 127.0.0.1:<"port" of the item's data>:
 *                {"outcome":"refused","errno":E,"step":"socket"|"connect"} or {"outcome":"ran"}
 *   "write"      creates the file named by the item's data member "path":
 *                {"outcome":"refused","errno":E} or {"outcome":"ran"}
 *   "signal"     kill(<"pid" of the item's data>, 0), a probe of another process:
 *                {"outcome":"refused","errno":E} or {"outcome":"ran"}
 *   "crash"      writes through a NULL pointer: the host dies (with whatever it started)
 *   anything else renders {"outcome":"none"}.
 * Every attempt is bounded: at most 3 children, 96 MiB each, a grandchild that exits by itself. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fixture_util.h"

#ifndef ESCAPE_CHILDREN
#define ESCAPE_CHILDREN 3
#endif

static int has_id(const char *input, size_t length, const char *id) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"id\":\"%s\"", id);
    return fixture_find(input, length, needle) != NULL;
}

/* The text of `"key":"<text>"` in the input, into `out` (empty when missing). */
static void string_member(const char *input, size_t length, const char *key, char *out, size_t size) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\":\"", key);
    out[0] = 0;
    const char *start = fixture_find(input, length, needle);
    if (start == NULL) return;
    start += strlen(needle);
    size_t n = 0;
    while (start + n < input + length && start[n] != '"' && n + 1 < size) {
        out[n] = start[n];
        n++;
    }
    out[n] = 0;
}

static int put_row(rowcast_sink *sink, const char *content) {
    char row[512];
    snprintf(row, sizeof row, "{\"cell\":\"EscapeCell\",\"height\":40,\"content\":%s}", content);
    fixture_put(sink, row);
    return ROWCAST_OK;
}

static int refused(rowcast_sink *sink, int error, const char *step) {
    char content[256];
    snprintf(content, sizeof content, "{\"outcome\":\"refused\",\"errno\":\"%s\",\"step\":\"%s\"}", strerror(error),
             step);
    return put_row(sink, content);
}

static int try_exec(rowcast_sink *sink) {
    char *const argv[] = {"true", NULL};
    char *const envp[] = {NULL};
    execve("/bin/true", argv, envp);
    return refused(sink, errno, "execve");
}

static int try_fork_exec(rowcast_sink *sink) {
    pid_t child = fork();
    if (child < 0) return refused(sink, errno, "fork");
    if (child == 0) {
        char *const argv[] = {"sh", "-c", "exit 7", NULL};
        char *const envp[] = {NULL};
        execve("/bin/sh", argv, envp);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    char content[128];
    snprintf(content, sizeof content, "{\"outcome\":\"ran\",\"status\":%d}",
             WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return put_row(sink, content);
}

static int try_detached(rowcast_sink *sink) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return refused(sink, errno, "pipe");
    pid_t child = fork();
    if (child < 0) {
        int error = errno;
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return refused(sink, error, "fork");
    }
    if (child == 0) {
        int report[2] = {0, 0};
        report[1] = setsid() < 0 ? errno : 0;
        pid_t grandchild = fork();
        if (grandchild == 0) {
            report[0] = (int)getpid();
            ssize_t written = write(pipe_fds[1], report, sizeof report);
            (void)written;
            close(pipe_fds[1]);
            for (int i = 0; i < 1200; i++) usleep(100000); /* at most 120 s */
            _exit(0);
        }
        _exit(grandchild < 0 ? 1 : 0);
    }
    close(pipe_fds[1]);
    waitpid(child, NULL, 0);
    int report[2] = {0, 0};
    ssize_t got = read(pipe_fds[0], report, sizeof report);
    close(pipe_fds[0]);
    char content[160];
    snprintf(content, sizeof content, "{\"outcome\":\"ran\",\"pid\":%d,\"setsid\":\"%s\"}",
             got == (ssize_t)sizeof report ? report[0] : 0, report[1] == 0 ? "ok" : strerror(report[1]));
    return put_row(sink, content);
}

static int try_children(rowcast_sink *sink) {
    const size_t size = (size_t)96 << 20;
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return refused(sink, errno, "pipe");
    pid_t children[ESCAPE_CHILDREN];
    int count = 0;
    int first_error = 0;
    for (int i = 0; i < ESCAPE_CHILDREN; i++) {
        pid_t child = fork();
        if (child < 0) {
            first_error = errno;
            break;
        }
        if (child == 0) {
            char *block = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            char ok = block != MAP_FAILED;
            if (ok) memset(block, 0x5a, size);
            ssize_t written = write(pipe_fds[1], &ok, 1);
            (void)written;
            close(pipe_fds[1]); /* the render reads until every child wrote or died */
            for (int t = 0; t < 300; t++) usleep(100000); /* at most 30 s, until killed */
            _exit(0);
        }
        children[count++] = child;
    }
    close(pipe_fds[1]);
    int allocated = 0;
    char ok = 0;
    while (read(pipe_fds[0], &ok, 1) == 1) allocated += ok; /* EOF: all wrote, or died (an OOM kill) */
    close(pipe_fds[0]);
    usleep(100000); /* a child the kernel kills for memory is gone by now */
    int survivors = 0;
    for (int i = 0; i < count; i++) {
        if (waitpid(children[i], NULL, WNOHANG) == 0) survivors++;
        kill(children[i], SIGKILL);
        waitpid(children[i], NULL, 0);
    }
    if (count == 0) return refused(sink, first_error, "fork");
    char content[160];
    snprintf(content, sizeof content, "{\"outcome\":\"ran\",\"children\":%d,\"allocated\":%d,\"survivors\":%d}", count,
             allocated, survivors);
    return put_row(sink, content);
}

static int try_connect(const char *input, size_t length, rowcast_sink *sink) {
    char port[16];
    string_member(input, length, "port", port, sizeof port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return refused(sink, errno, "socket");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int result = connect(fd, (struct sockaddr *)&address, sizeof address);
    int error = errno;
    close(fd);
    if (result != 0) return refused(sink, error, "connect");
    return put_row(sink, "{\"outcome\":\"ran\"}");
}

static int try_write(const char *input, size_t length, rowcast_sink *sink) {
    char path[1024];
    string_member(input, length, "path", path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return refused(sink, errno, "open");
    ssize_t written = write(fd, "escaped\n", 8);
    (void)written;
    close(fd);
    return put_row(sink, "{\"outcome\":\"ran\"}");
}

static int try_signal(const char *input, size_t length, rowcast_sink *sink) {
    char pid[16];
    string_member(input, length, "pid", pid, sizeof pid);
    if (kill((pid_t)atoi(pid), 0) != 0) return refused(sink, errno, "kill");
    return put_row(sink, "{\"outcome\":\"ran\"}");
}

static int render_item(void *context, const char *input, size_t length, rowcast_sink *sink) {
    (void)context;
    if (has_id(input, length, "crash")) {
        volatile int *volatile pointer = NULL;
        *pointer = 42;
    }
    if (has_id(input, length, "exec")) return try_exec(sink);
    if (has_id(input, length, "fork-exec")) return try_fork_exec(sink);
    if (has_id(input, length, "detached")) return try_detached(sink);
    if (has_id(input, length, "children")) return try_children(sink);
    if (has_id(input, length, "connect")) return try_connect(input, length, sink);
    if (has_id(input, length, "write")) return try_write(input, length, sink);
    if (has_id(input, length, "signal")) return try_signal(input, length, sink);
    return put_row(sink, "{\"outcome\":\"none\"}");
}

static const char *const item_types[] = {"escape"};

static const rowcast_plugin descriptor = {
    .abi_version = ROWCAST_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(rowcast_plugin),
    .name = "escape",
    .version = "1",
    .item_types = item_types,
    .item_type_count = 1,
    .header_types = NULL,
    .header_type_count = 0,
    .context = NULL,
    .render_item = render_item,
    .render_header = NULL,
    .select = NULL,
};

const rowcast_plugin *rowcast_plugin_entry(void) { return &descriptor; }
