/* mdwe_exec: runs a program under the seccomp filter systemd installs for
 * MemoryDenyWriteExecute=yes (src/shared/seccomp-util.c): mmap with PROT_WRITE|PROT_EXEC,
 * mprotect or pkey_mprotect adding PROT_EXEC, and shmat with SHM_EXEC fail with EPERM.
 * Usage: mdwe_exec --self-check            exit 0 when the filter refuses a W+X mapping
 *        mdwe_exec PROGRAM [ARGS...]       exec PROGRAM under the filter */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64))
#define DENY (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

static int install(void) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PROT_WRITE | PROT_EXEC),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_WRITE | PROT_EXEC, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, DENY),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PROT_EXEC),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_EXEC, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, DENY),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_shmat, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, SHM_EXEC),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SHM_EXEC, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, DENY),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { perror("mdwe_exec: PR_SET_NO_NEW_PRIVS"); return -1; }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) { perror("mdwe_exec: PR_SET_SECCOMP"); return -1; }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: mdwe_exec --self-check | PROGRAM [ARGS...]\n"); return 64; }
    if (install() != 0) return 70;
    if (strcmp(argv[1], "--self-check") == 0) {
        void *writable_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (writable_code != MAP_FAILED || errno != EPERM) { fprintf(stderr, "mdwe_exec: a W+X mapping was allowed\n"); return 1; }
        void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED) { perror("mdwe_exec: mmap"); return 1; }
        if (mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0 || errno != EPERM) { fprintf(stderr, "mdwe_exec: mprotect adding PROT_EXEC was allowed\n"); return 1; }
        return 0;
    }
    execv(argv[1], argv + 1);
    perror("mdwe_exec: execv");
    return 127;
}
