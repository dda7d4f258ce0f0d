// rusage-exec: runs a program and reports the resources the kernel counted for it.
//
//   rusage-exec PROGRAM [ARGS...]
//
// The program's standard output passes through; then one line is printed:
//   RUSAGE status=<exit status> maxrss_kib=<peak resident KiB> cpu=<user+system seconds>
//
// Why a separate, tiny C program: on Linux a child's ru_maxrss starts from the memory of the
// process it was forked from, so a large harness would inflate every child's peak. Forked from
// this small program, the child's peak is its own.
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: rusage-exec PROGRAM [ARGS...]\n");
        return 2;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("exec");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("wait4");
            return 2;
        }
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    printf("\nRUSAGE status=%d maxrss_kib=%ld cpu=%.6f\n", code, usage.ru_maxrss, cpu);
    return 0;
}
