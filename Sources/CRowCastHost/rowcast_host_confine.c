/*
 * rowcast_host_confine.c: the kernel confinement of a plugin host (seccomp, Landlock, a
 * network namespace). See rowcast_host_sys.h for what each call does; docs/PLUGINS.md for what
 * a plugin can and cannot do under each.
 */
#define _GNU_SOURCE
#include "rowcast_host_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- seccomp ---------------------------------------------------------------------------- */

#if defined(__x86_64__)
#define ROWCAST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ROWCAST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

/* The system calls a plugin host never needs once its plugin is loaded. */
static const long rowcast_denied_calls[] = {
#ifdef SYS_fork
    SYS_fork,
#endif
#ifdef SYS_vfork
    SYS_vfork,
#endif
    SYS_execve, SYS_execveat,
    SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4,
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev,
#ifdef SYS_pidfd_getfd
    SYS_pidfd_open, SYS_pidfd_send_signal, SYS_pidfd_getfd,
#endif
    SYS_tkill,
    SYS_kcmp,
#ifdef SYS_io_uring_setup
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#endif
    SYS_bpf, SYS_perf_event_open, SYS_userfaultfd,
    SYS_unshare, SYS_setns, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot,
#ifdef SYS_open_tree
    SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
#endif
#ifdef SYS_mount_setattr
    SYS_mount_setattr,
#endif
    SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_kexec_load,
#ifdef SYS_kexec_file_load
    SYS_kexec_file_load,
#endif
};

#define ROWCAST_DENIED_COUNT (sizeof rowcast_denied_calls / sizeof rowcast_denied_calls[0])

/* Calls whose first argument is a process: allowed for the host itself (and, for kill, 0: its
 * own process group, which holds only the host), refused for any other process. */
static const long rowcast_self_calls[] = {SYS_kill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo};

#define ROWCAST_SELF_COUNT (sizeof rowcast_self_calls / sizeof rowcast_self_calls[0])

/* What a host must not do even when relaxed: leave its process group, where rowcastd kills it. */
static const long rowcast_group_calls[] = {SYS_setsid, SYS_setpgid};

#define ROWCAST_GROUP_COUNT (sizeof rowcast_group_calls / sizeof rowcast_group_calls[0])

int rowcast_seccomp_install(int full) {
#ifndef ROWCAST_AUDIT_ARCH
    errno = ENOSYS;
    return -1;
#else
    struct sock_filter program[16 + 2 * (ROWCAST_DENIED_COUNT + ROWCAST_GROUP_COUNT) + 6 * ROWCAST_SELF_COUNT];
    const uint32_t self = (uint32_t)getpid();
    size_t n = 0;
#define EMIT(code, k, jt, jf) (program[n++] = (struct sock_filter)BPF_JUMP((code), (k), (jt), (jf)))
#define RETURN(value) (program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (value)))
    const uint32_t deny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
    /* Another architecture's calls have other numbers: refuse them all. */
    EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, ROWCAST_AUDIT_ARCH, 1, 0);
    RETURN(SECCOMP_RET_KILL_PROCESS);
    EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
#if defined(__x86_64__)
    /* The x32 ABI shares the architecture with its own numbers (bit 30): refuse it. */
    EMIT(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1);
    RETURN(deny);
#endif
    for (size_t i = 0; i < ROWCAST_GROUP_COUNT; i++) {
        EMIT(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)rowcast_group_calls[i], 0, 1);
        RETURN(deny);
    }
    if (!full) {
        RETURN(SECCOMP_RET_ALLOW);
        goto install;
    }
    for (size_t i = 0; i < ROWCAST_DENIED_COUNT; i++) {
        EMIT(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)rowcast_denied_calls[i], 0, 1);
        RETURN(deny);
    }
    /* Signals to itself only (a matching call returns in all cases, so nr stays loaded). */
    for (size_t i = 0; i < ROWCAST_SELF_COUNT; i++) {
        EMIT(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)rowcast_self_calls[i], 0, 5);
        EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]), 0, 0);
        EMIT(BPF_JMP | BPF_JEQ | BPF_K, self, 1, 0);
        EMIT(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
        RETURN(SECCOMP_RET_ALLOW);
        RETURN(deny);
    }
    /* clone3 passes its flags in memory a filter cannot read: ENOSYS makes glibc use clone. */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
    RETURN(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
    /* clone makes a thread (allowed) with CLONE_THREAD, a process (refused) without. */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3);
    EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]), 0, 0);
    EMIT(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0);
    RETURN(deny);
    RETURN(SECCOMP_RET_ALLOW);
install:;
#undef EMIT
#undef RETURN
    struct sock_fprog filter = {.len = (unsigned short)n, .filter = program};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter) == 0) return 0;
    /* An old kernel, or a filter above that refuses seccomp(2) (systemd's SystemCallFilter=
     * without @sandbox): prctl installs it on this thread, the only one a host has here. */
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0);
#endif
}

/* ---- Landlock --------------------------------------------------------------------------- */

/* The ruleset attribute as of ABI 6 (older kernels get a shorter prefix of it). */
struct rowcast_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

/* The rule for a path, as the kernel reads it (packed, as in <linux/landlock.h>). */
struct rowcast_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#define ROWCAST_LANDLOCK_PATH_BENEATH 1
#define ROWCAST_FS_EXECUTE (1ULL << 0)
#define ROWCAST_FS_READ_FILE (1ULL << 2)
#define ROWCAST_FS_READ_DIR (1ULL << 3)
#define ROWCAST_NET_BIND_TCP (1ULL << 0)
#define ROWCAST_NET_CONNECT_TCP (1ULL << 1)
#define ROWCAST_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define ROWCAST_SCOPE_SIGNAL (1ULL << 1)

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

int rowcast_landlock_abi(void) {
    return (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
}

int rowcast_landlock_restrict(const char *const *readable, int count) {
    int abi = rowcast_landlock_abi();
    if (abi < 1) return -1;
    struct rowcast_ruleset_attr ruleset = {0};
    size_t size = sizeof ruleset.handled_access_fs;
    /* Every file system right the kernel knows: 13 at ABI 1, REFER at 2, TRUNCATE at 3,
     * IOCTL_DEV at 5. */
    int fs_rights = abi >= 5 ? 16 : abi >= 3 ? 15 : abi >= 2 ? 14 : 13;
    ruleset.handled_access_fs = (1ULL << fs_rights) - 1;
    if (abi >= 4) {
        ruleset.handled_access_net = ROWCAST_NET_BIND_TCP | ROWCAST_NET_CONNECT_TCP;
        size = offsetof(struct rowcast_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        ruleset.scoped = ROWCAST_SCOPE_ABSTRACT_UNIX_SOCKET | ROWCAST_SCOPE_SIGNAL;
        size = sizeof ruleset;
    }
    int ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &ruleset, size, 0);
    if (ruleset_fd < 0) return -1;
    for (int i = 0; i < count; i++) {
        int fd = open(readable[i], O_PATH | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat info;
        struct rowcast_path_beneath_attr rule = {.allowed_access = ROWCAST_FS_EXECUTE | ROWCAST_FS_READ_FILE,
                                                 .parent_fd = fd};
        if (fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) rule.allowed_access |= ROWCAST_FS_READ_DIR;
        /* Best effort: a path the kernel takes no rule for stays unreadable. */
        (void)syscall(SYS_landlock_add_rule, ruleset_fd, ROWCAST_LANDLOCK_PATH_BENEATH, &rule, 0);
        close(fd);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0) {
        int saved = errno;
        close(ruleset_fd);
        errno = saved;
        return -1;
    }
    close(ruleset_fd);
    return abi;
}

/* ---- network namespace ------------------------------------------------------------------ */

int rowcast_unshare_network(void) { return unshare(CLONE_NEWNET); }
