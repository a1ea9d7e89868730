/*
 * rowcast_host_sys.h: the few Linux calls the plugin host machinery needs that Swift cannot
 * import (variadic prctl, memfd_create and sealing behind _GNU_SOURCE, eventfd, timerfd, posix_spawn with a
 * descriptor map). Each returns 0 or a descriptor on success, -1 with errno set on failure.
 */
#ifndef ROWCAST_HOST_SYS_H
#define ROWCAST_HOST_SYS_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An anonymous memory file (close-on-exec, sealable) named `name` in /proc/<pid>/fd. */
int rowcast_memfd_create(const char *name);

/* Seals a memory file against any further write, shrink or grow. */
int rowcast_memfd_seal(int fd);

/* The signal this process gets when its parent dies (prctl PR_SET_PDEATHSIG). */
int rowcast_set_parent_death_signal(int signal);

/* No exec of this process or its children can gain privileges (PR_SET_NO_NEW_PRIVS). */
int rowcast_set_no_new_privileges(void);

/* Whether /proc/self stays readable by this process after a uid change (PR_SET_DUMPABLE). */
int rowcast_set_dumpable(int dumpable);

/* A pipe whose both ends are close-on-exec. */
int rowcast_pipe_cloexec(int fds[2]);

/* An event counter descriptor (eventfd), non-blocking and close-on-exec. */
int rowcast_eventfd(void);

/* A monotonic timer descriptor (timerfd), non-blocking and close-on-exec. */
int rowcast_timerfd(void);

/* Arms `fd` to expire once, `nanoseconds` from now (at least 1 ns); 0 disarms it. */
int rowcast_timerfd_arm(int fd, long long nanoseconds);

/* Closes every descriptor from `first` up. */
void rowcast_close_from(int first);

/*
 * Starts `path` with `argv` and `envp`. The child gets descriptor `fds[i]` as its descriptor i
 * for i < fd_count, nothing else open, an empty signal mask and default signal handlers, and
 * a process group of its own (its pid), so that kill(-pid) reaches whatever it started.
 * Every fds[i] must be >= fd_count. On success *pid is the child's pid.
 */
int rowcast_spawn(const char *path, char *const argv[], char *const envp[], const int *fds, int fd_count, pid_t *pid);

/*
 * Limits the processes and threads of this process's real user to `count` (RLIMIT_NPROC,
 * soft and hard): a fork or a new thread past it fails with EAGAIN. Root is not bound by it.
 * (The resource is a macro over an enum Swift does not import by that name.)
 */
int rowcast_set_process_limit(unsigned long count);

/*
 * glibc's heap padding (mallopt M_TOP_PAD: what each heap grows by beyond an allocation's
 * need, and keeps when it shrinks); returns mallopt's 1 on success. malloc.h is not part of
 * Swift's Glibc module, hence this shim.
 */
int rowcast_heap_set_top_pad(int bytes);

/*
 * Installs the plugin host's seccomp filter on every thread of the process (needs
 * no_new_privs set first). Always denied with EPERM: setsid and setpgid (so that whatever the
 * host starts stays in its process group, which rowcastd kills). With `full`, also denied with
 * EPERM: new processes (fork, vfork, clone without CLONE_THREAD), execve and execveat, new
 * sockets (socket, socketpair) and socket set-up (connect, bind, listen, accept), ptrace,
 * process_vm_*, pidfd_* and tkill, signals to any process but this one (kill, tgkill,
 * rt_sigqueueinfo, rt_tgsigqueueinfo), io_uring, bpf, perf_event_open, userfaultfd,
 * namespaces, mounts, keyrings and kernel modules; clone3 fails with ENOSYS so that glibc
 * creates threads with clone. Any other architecture than the build's is killed.
 * Returns 0, or -1 with errno set (ENOSYS: no filter for this architecture).
 */
int rowcast_seccomp_install(int full);

/* The highest Landlock ABI version the kernel supports, or -1 with errno set (none). */
int rowcast_landlock_abi(void);

/*
 * Restricts this process (every thread created from now on inherits it; call it while the
 * process has one thread) with Landlock at the kernel's ABI version, best effort: the file
 * system is denied except reading and executing beneath the `count` paths in `readable`
 * (a path that does not exist is skipped); from ABI 4, TCP bind and connect are denied; from
 * ABI 6, abstract Unix sockets and signals to processes outside the sandbox are denied.
 * Returns the ABI version enforced, or -1 with errno set.
 */
int rowcast_landlock_restrict(const char *const *readable, int count);

/* Moves this process into a new, empty network namespace (unshare CLONE_NEWNET; needs root). */
int rowcast_unshare_network(void);

#ifdef __cplusplus
}
#endif

#endif
