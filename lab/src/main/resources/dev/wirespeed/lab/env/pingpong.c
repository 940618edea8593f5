/*
 * wirespeed pingpong: the latency ceiling. The same round trip as 'wirespeed ping' against
 * 'wirespeed echo', in C over TCP with TCP_NODELAY, so that the lab can show how far Java is from
 * what the kernel allows on this machine.
 *
 *   pingpong echo BIND PORT MODE
 *       prints "listening on ADDRESS" on stderr, then echoes each connection, one after another:
 *       every whole frame read is sent back unchanged.
 *   pingpong ping HOST PORT MODE COUNT WARMUP SIZE [RATE]
 *       sends frame i of the sequence stream (type i, body bytes (i + k) mod 256), waits for its echo,
 *       checks it byte for byte, and after WARMUP unrecorded round trips records COUNT of them;
 *       prints {"p50":..,"p90":..,"p99":..,"p999":..,"p9999":..,"max":..,"unit":"us"} (nearest rank, as
 *       HdrHistogram reports a percentile). Without RATE (or 0) the loop is closed: the next frame
 *       leaves when the echo is back. With RATE frames a second it is open, as 'wirespeed ping --rate':
 *       frame i is due i/RATE seconds after the loop began, sent when due (busy-waiting for it),
 *       and its time counts from then, so a stall is charged to every frame due during it.
 *
 * MODE is "block" (blocking read(2)) or "poll" (non-blocking reads retried on EAGAIN, yielding the
 * CPU every 8 empty reads: the library's busy-poll policy). Exit codes: 0 ok, 2 usage, 4 an echo
 * was not the frame sent, 5 I/O failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUFFER (64 * 1024)

static void die(const char *what) {
    fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
    exit(5);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/* Reads until at least `need` bytes are buffered; returns 0 at a clean end of stream, 1 otherwise. */
static int fill(int fd, unsigned char *buf, size_t *have, size_t need, int poll) {
    int empty = 0;
    while (*have < need) {
        ssize_t n = poll ? recv(fd, buf + *have, BUFFER - *have, MSG_DONTWAIT) : read(fd, buf + *have, BUFFER - *have);
        if (n > 0) {
            *have += n;
            empty = 0;
        } else if (n == 0) {
            if (*have == 0) return 0;
            errno = EPIPE;
            die("end of stream inside a frame");
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (++empty % 8 == 0) sched_yield();
        } else if (errno != EINTR) {
            die("read");
        }
    }
    return 1;
}

static void send_all(int fd, const unsigned char *p, size_t n, int poll) {
    int empty = 0;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL | (poll ? MSG_DONTWAIT : 0));
        if (w > 0) {
            p += w;
            n -= w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (++empty % 8 == 0) sched_yield();
        } else if (w < 0 && errno != EINTR) {
            die("send");
        }
    }
}

static void no_delay(int fd) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) die("setsockopt TCP_NODELAY");
}

static void echo(int fd, int poll) {
    unsigned char *buf;
    if (posix_memalign((void **) &buf, 4096, BUFFER)) die("posix_memalign");
    size_t have = 0;
    for (;;) {
        if (!fill(fd, buf, &have, 8, poll)) break;
        uint32_t length = get32(buf + 4);
        if (length > BUFFER - 8) {
            fprintf(stderr, "pingpong: frame length=%u over the %d-byte buffer\n", length, BUFFER - 8);
            exit(3);
        }
        fill(fd, buf, &have, 8 + length, poll);
        /* Send back every whole frame buffered, in one call, and keep the rest. */
        size_t whole = 0;
        while (have - whole >= 8 && have - whole >= 8 + (size_t) get32(buf + whole + 4)) {
            whole += 8 + get32(buf + whole + 4);
        }
        send_all(fd, buf, whole, poll);
        memmove(buf, buf + whole, have - whole);
        have -= whole;
    }
    free(buf);
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static double percentile(const uint64_t *sorted, long count, double p) {
    long rank = (long) (p / 100.0 * count + 0.999999999);
    if (rank < 1) rank = 1;
    return sorted[rank - 1] / 1000.0;
}

/* What a busy-wait does between two looks at the clock, as Thread.onSpinWait() does. */
#if defined(__x86_64__) || defined(__i386__)
#define SPIN_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define SPIN_PAUSE() __asm__ volatile("yield")
#else
#define SPIN_PAUSE() do { } while (0)
#endif

static int ping(int fd, int poll, long count, long warmup, int size, double rate) {
    unsigned char *out, *in;
    if (posix_memalign((void **) &out, 4096, BUFFER) || posix_memalign((void **) &in, 4096, BUFFER)) die("posix_memalign");
    uint64_t *times = malloc(sizeof(uint64_t) * count);
    if (times == NULL) die("malloc");
    double interval = rate > 0 ? 1e9 / rate : 0;
    uint64_t first = now_ns();
    for (long i = 0; i < warmup + count; i++) {
        put32(out, (uint32_t) i);
        put32(out + 4, (uint32_t) size);
        for (int k = 0; k < size; k++) out[8 + k] = (unsigned char) (i + k);
        uint64_t start;
        if (interval > 0) {
            start = first + (uint64_t) (i * interval); /* due: the time counts from here, sent or not */
            while (now_ns() < start) {
                SPIN_PAUSE();
            }
        } else {
            start = now_ns();
        }
        send_all(fd, out, 8 + size, poll);
        size_t have = 0;
        if (!fill(fd, in, &have, 8 + size, poll)) {
            errno = EPIPE;
            die("the echo closed the connection");
        }
        uint64_t elapsed = now_ns() - start;
        if (have != (size_t) 8 + size || memcmp(in, out, 8 + size) != 0) {
            fprintf(stderr, "pingpong: the echo of frame %ld is not the frame sent (%zu bytes)\n", i, have);
            return 4;
        }
        if (i >= warmup) times[i - warmup] = elapsed;
    }
    qsort(times, count, sizeof(uint64_t), compare);
    printf("{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"p9999\":%.3f,\"max\":%.3f,\"unit\":\"us\"}\n",
           percentile(times, count, 50), percentile(times, count, 90), percentile(times, count, 99),
           percentile(times, count, 99.9), percentile(times, count, 99.99), times[count - 1] / 1000.0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "echo") == 0) {
        int poll = strcmp(argv[4], "poll") == 0;
        int listener = socket(AF_INET, SOCK_STREAM, 0);
        if (listener < 0) die("socket");
        int one = 1;
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[3]))};
        if (inet_pton(AF_INET, argv[2], &address.sin_addr) != 1) die("inet_pton");
        if (bind(listener, (struct sockaddr *) &address, sizeof address) < 0) die("bind");
        if (listen(listener, 16) < 0) die("listen");
        socklen_t length = sizeof address;
        getsockname(listener, (struct sockaddr *) &address, &length);
        fprintf(stderr, "listening on %s:%d\n", argv[2], ntohs(address.sin_port));
        fflush(stderr);
        for (;;) {
            int fd = accept(listener, NULL, NULL);
            if (fd < 0) die("accept");
            no_delay(fd);
            echo(fd, poll);
            close(fd);
        }
    }
    if ((argc == 8 || argc == 9) && strcmp(argv[1], "ping") == 0) {
        int poll = strcmp(argv[4], "poll") == 0;
        long count = atol(argv[5]), warmup = atol(argv[6]);
        int size = atoi(argv[7]);
        double rate = argc == 9 ? atof(argv[8]) : 0;
        if (count < 1 || warmup < 0 || size < 0 || size > BUFFER - 8 || rate < 0) {
            fprintf(stderr, "pingpong: COUNT >= 1, WARMUP >= 0, 0 <= SIZE <= %d, RATE >= 0\n", BUFFER - 8);
            return 2;
        }
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) die("socket");
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[3]))};
        if (inet_pton(AF_INET, argv[2], &address.sin_addr) != 1) die("inet_pton");
        if (connect(fd, (struct sockaddr *) &address, sizeof address) < 0) die("connect");
        no_delay(fd);
        return ping(fd, poll, count, warmup, size, rate);
    }
    fprintf(stderr, "usage: pingpong echo BIND PORT block|poll\n"
                    "       pingpong ping HOST PORT block|poll COUNT WARMUP SIZE [RATE]\n");
    return 2;
}
