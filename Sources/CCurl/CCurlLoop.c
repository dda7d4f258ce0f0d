// The event loop of the libcurl engine: one multi handle driven through libcurl's socket
// interface, waiting on every transfer's sockets at once. See include/CCurl.h.
//
// Linux: epoll, an eventfd to be woken, and libcurl's timer kept as a deadline
// (CURLMOPT_SOCKETFUNCTION, CURLMOPT_TIMERFUNCTION, curl_multi_socket_action): the cost of a wait
// does not grow with the number of transfers. Elsewhere: curl_multi_poll and curl_multi_wakeup,
// which look at every transfer's sockets on each wait.

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "CCurlInternal.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

// libcurl's multi options and constants used here.
#define CURLMOPT_SOCKETFUNCTION 20001
#define CURLMOPT_SOCKETDATA 10002
#define CURLMOPT_TIMERFUNCTION 20004
#define CURLMOPT_TIMERDATA 10005
#define CURL_POLL_IN 1
#define CURL_POLL_OUT 2
#define CURL_POLL_REMOVE 4
#define CURL_CSELECT_IN 1
#define CURL_CSELECT_OUT 2
#define CURL_CSELECT_ERR 4
#define CURL_SOCKET_TIMEOUT (-1)

struct hp_loop {
    void *multi;
#if defined(__linux__)
    int epoll_fd;
    int wake_fd;
    /// When libcurl wants its timeout action (CLOCK_MONOTONIC nanoseconds), or -1 for never.
    int64_t deadline;
    /// How long the thread polls before it sleeps in epoll_wait (0: never; see spin_wait).
    int64_t spin_nanoseconds;
    /// How much the recent past says polling pays: > 0 to poll before the next wait.
    int spin_credit;
#endif
};

#if defined(__linux__)
static int64_t monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

// How long the I/O thread polls for an event before it sleeps. A request and its answer on a fast
// network (a reused connection, a server nearby) are tens of microseconds apart; falling asleep
// and being woken costs about as much again on each side, and it is most of a small request's
// latency. Polling a while first is what spin-then-park locks and busy-polling runtimes do. It is
// adaptive so that it costs nothing where it cannot pay: each poll that catches an event earns
// credit and each that catches nothing halves it; with none left the thread sleeps at once, until
// a sleep ends sooner than a poll would have lasted. Never on a machine with one processor, where
// the poll would hold back the very thread it waits for.
#define SPIN_NANOSECONDS 200000
#define SPIN_CREDIT_LIMIT 16

static int64_t spin_budget(void) {
    long processors = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__linux__)
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
        int usable = CPU_COUNT(&allowed);
        if (usable < processors) processors = usable;
    }
#endif
    return processors >= 2 ? SPIN_NANOSECONDS : 0;
}

// epoll_wait, polling first for up to the loop's spin budget while it has credit (see above).
static int spin_wait(struct hp_loop *loop, struct epoll_event *events, int capacity, int timeout_ms) {
    int count = 0;
    if (timeout_ms != 0 && loop->spin_credit > 0) {
        int64_t limit = loop->spin_nanoseconds;
        if (timeout_ms > 0 && (int64_t)timeout_ms * 1000000 < limit) limit = (int64_t)timeout_ms * 1000000;
        int64_t until = monotonic_nanoseconds() + limit;
        do {
            count = epoll_wait(loop->epoll_fd, events, capacity, 0);
        } while (count == 0 && monotonic_nanoseconds() < until);
        if (count > 0) {
            if (loop->spin_credit < SPIN_CREDIT_LIMIT) loop->spin_credit++;
            return count;
        }
        loop->spin_credit /= 2;
        if (count < 0) return count;
    }
    int64_t start = loop->spin_nanoseconds > 0 ? monotonic_nanoseconds() : 0;
    count = epoll_wait(loop->epoll_fd, events, capacity, timeout_ms);
    if (count > 0 && loop->spin_nanoseconds > 0 && loop->spin_credit == 0
        && monotonic_nanoseconds() - start < loop->spin_nanoseconds) {
        loop->spin_credit = 1;
    }
    return count;
}

// CURLMOPT_SOCKETFUNCTION: what libcurl wants to wait for on a socket, as epoll registrations.
static int loop_socket(void *easy, int socket, int what, void *userp, void *socketp) {
    (void)easy;
    (void)socketp;
    struct hp_loop *loop = userp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(loop->epoll_fd, EPOLL_CTL_DEL, socket, NULL);
        return 0;
    }
    struct epoll_event event = {0};
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = socket;
    if (epoll_ctl(loop->epoll_fd, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
        epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, socket, &event);
    }
    return 0;
}

// CURLMOPT_TIMERFUNCTION: when libcurl next wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT).
static int loop_timer(void *multi, long timeout_ms, void *userp) {
    (void)multi;
    struct hp_loop *loop = userp;
    loop->deadline = timeout_ms < 0 ? -1 : monotonic_nanoseconds() + (int64_t)timeout_ms * 1000000;
    return 0;
}
#endif

hp_loop *hp_loop_create(void) {
    if (!hp_curl_multi_available()) return NULL;
    struct hp_loop *loop = calloc(1, sizeof *loop);
    if (loop == NULL) return NULL;
    loop->multi = hp_curl_multi_init();
    if (loop->multi == NULL) {
        free(loop);
        return NULL;
    }
#if defined(__linux__)
    loop->deadline = -1;
    loop->spin_nanoseconds = spin_budget();
    loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    loop->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = loop->wake_fd;
    if (loop->epoll_fd < 0 || loop->wake_fd < 0 || epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, loop->wake_fd, &event) != 0) {
        hp_loop_destroy(loop);
        return NULL;
    }
    curl.multi_setopt(loop->multi, CURLMOPT_SOCKETFUNCTION, loop_socket);
    curl.multi_setopt(loop->multi, CURLMOPT_SOCKETDATA, loop);
    curl.multi_setopt(loop->multi, CURLMOPT_TIMERFUNCTION, loop_timer);
    curl.multi_setopt(loop->multi, CURLMOPT_TIMERDATA, loop);
#endif
    return loop;
}

hp_curlm *hp_loop_multi(hp_loop *loop) { return loop->multi; }

void hp_loop_wake(hp_loop *loop) {
#if defined(__linux__)
    uint64_t one = 1;
    ssize_t written;
    do {
        written = write(loop->wake_fd, &one, sizeof one);
    } while (written < 0 && errno == EINTR);
#else
    curl.multi_wakeup(loop->multi);
#endif
}

int hp_loop_run_once(hp_loop *loop, int timeout_ms) {
#if defined(__linux__)
    int wait = timeout_ms;
    if (loop->deadline >= 0) {
        int64_t remaining = loop->deadline - monotonic_nanoseconds();
        int64_t milliseconds = remaining <= 0 ? 0 : (remaining + 999999) / 1000000;
        if (wait < 0 || milliseconds < wait) wait = (int)milliseconds;
    }
    struct epoll_event events[256];
    int count = spin_wait(loop, events, 256, wait);
    if (count < 0 && errno != EINTR) return -1;
    int handled = count > 0 ? count : 0;
    int running = 0;
    for (int i = 0; i < count; i++) {
        int fd = events[i].data.fd;
        if (fd == loop->wake_fd) {
            // One read takes the whole count and resets it: a second would only fail (EAGAIN).
            uint64_t value;
            ssize_t got;
            do {
                got = read(loop->wake_fd, &value, sizeof value);
            } while (got < 0 && errno == EINTR);
            continue;
        }
        uint32_t what = events[i].events;
        int mask = 0;
        if (what & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) mask |= CURL_CSELECT_IN;
        if (what & EPOLLOUT) mask |= CURL_CSELECT_OUT;
        if (what & EPOLLERR) mask |= CURL_CSELECT_ERR;
        curl.multi_socket_action(loop->multi, fd, mask, &running);
    }
    if (loop->deadline >= 0 && monotonic_nanoseconds() >= loop->deadline) {
        loop->deadline = -1;
        curl.multi_socket_action(loop->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        handled++;
    }
    return handled;
#else
    int running = 0;
    curl.multi_poll(loop->multi, NULL, 0, timeout_ms < 0 ? 1000 : timeout_ms, NULL);
    curl.multi_perform(loop->multi, &running);
    // curl_multi_poll does not say whether anything happened: as if something did.
    return 1;
#endif
}

void hp_loop_destroy(hp_loop *loop) {
    if (loop == NULL) return;
    if (loop->multi != NULL) curl.multi_cleanup(loop->multi);
#if defined(__linux__)
    if (loop->epoll_fd >= 0) close(loop->epoll_fd);
    if (loop->wake_fd >= 0) close(loop->wake_fd);
#endif
    free(loop);
}

void hp_name_current_thread(const char *name) {
#if defined(__APPLE__)
    pthread_setname_np(name);
#elif defined(__linux__)
    pthread_setname_np(pthread_self(), name);
#else
    (void)name;
#endif
}
