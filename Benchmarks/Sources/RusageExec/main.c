// rusage-exec: runs a program and reports the resources the kernel counted for it.
//
//   rusage-exec [--threads] [--kill-after SECONDS] PROGRAM [ARGS...]
//
// The program's standard output passes through; then one line is printed:
//   RUSAGE status=<exit status> maxrss_kib=<peak resident KiB> cpu=<user+system seconds>
// and with --threads or --kill-after, also:
//   peak_threads=<most threads seen> killed=<1 if it was killed at the deadline, else 0>
//
// --threads samples the `Threads:` line of /proc/PID/status every 100 ms while the program runs
// (from outside it, so that the sampling adds no thread of its own). --kill-after sends SIGKILL
// to a program still running after that many seconds: a hard limit, whatever the program does.
//
// Why a separate, tiny C program: on Linux a child's ru_maxrss starts from the memory of the
// process it was forked from, so a large harness would inflate every child's peak. Forked from
// this small program, the child's peak is its own.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

/// The `Threads:` count of a running process, or -1.
static int thread_count(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *file = fopen(path, "re");
    if (!file) return -1;
    char line[256];
    int threads = -1;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "Threads:", 8) == 0) {
            threads = atoi(line + 8);
            break;
        }
    }
    fclose(file);
    return threads;
}

int main(int argc, char **argv) {
    int sample_threads = 0;
    double kill_after = 0;
    int first = 1;
    while (first < argc && strncmp(argv[first], "--", 2) == 0) {
        if (strcmp(argv[first], "--threads") == 0) {
            sample_threads = 1;
            first += 1;
        } else if (strcmp(argv[first], "--kill-after") == 0 && first + 1 < argc) {
            kill_after = atof(argv[first + 1]);
            first += 2;
        } else {
            break;
        }
    }
    if (first >= argc) {
        fprintf(stderr, "usage: rusage-exec [--threads] [--kill-after SECONDS] PROGRAM [ARGS...]\n");
        return 2;
    }
    int polling = sample_threads || kill_after > 0;
    fflush(stdout);
    double start = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[first], argv + first);
        perror("exec");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    int peak_threads = 0;
    int killed = 0;
    for (;;) {
        pid_t done = wait4(pid, &status, polling ? WNOHANG : 0, &usage);
        if (done == pid) break;
        if (done < 0) {
            if (errno == EINTR) continue;
            perror("wait4");
            return 2;
        }
        // Still running (WNOHANG): sample, enforce the deadline, sleep 100 ms.
        if (sample_threads) {
            int threads = thread_count(pid);
            if (threads > peak_threads) peak_threads = threads;
        }
        if (kill_after > 0 && !killed && now_seconds() - start > kill_after) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    printf("\nRUSAGE status=%d maxrss_kib=%ld cpu=%.6f", code, usage.ru_maxrss, cpu);
    if (polling) printf(" peak_threads=%d killed=%d", peak_threads, killed);
    printf("\n");
    return 0;
}
