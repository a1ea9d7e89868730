#define _GNU_SOURCE
#include "rowcast_host_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <unistd.h>

int rowcast_memfd_create(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int rowcast_memfd_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
}

int rowcast_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0);
}

int rowcast_set_no_new_privileges(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

int rowcast_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0, 0, 0);
}

int rowcast_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int rowcast_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int rowcast_timerfd(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

int rowcast_timerfd_arm(int fd, long long nanoseconds) {
    struct itimerspec spec = {0};
    if (nanoseconds > 0) {
        spec.it_value.tv_sec = nanoseconds / 1000000000LL;
        spec.it_value.tv_nsec = nanoseconds % 1000000000LL;
    }
    return timerfd_settime(fd, 0, &spec, NULL);
}

void rowcast_close_from(int first) {
#ifdef __GLIBC__
    closefrom(first);
#else
    for (int fd = first; fd < 65536; fd++) close(fd);
#endif
}

int rowcast_spawn(const char *path, char *const argv[], char *const envp[], const int *fds, int fd_count, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) { errno = result; return -1; }
    result = posix_spawnattr_init(&attributes);
    if (result != 0) { posix_spawn_file_actions_destroy(&actions); errno = result; return -1; }
    for (int i = 0; i < fd_count && result == 0; i++) {
        if (fds[i] < fd_count) { result = EINVAL; break; }
        result = posix_spawn_file_actions_adddup2(&actions, fds[i], i);
    }
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, fd_count);
    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &empty);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0)
        result = posix_spawnattr_setflags(
            &attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) { errno = result; return -1; }
    return 0;
}

int rowcast_set_process_limit(unsigned long count) {
    struct rlimit limit = {.rlim_cur = count, .rlim_max = count};
    return setrlimit(RLIMIT_NPROC, &limit);
}

int rowcast_heap_set_top_pad(int bytes) {
    return mallopt(M_TOP_PAD, bytes);
}
