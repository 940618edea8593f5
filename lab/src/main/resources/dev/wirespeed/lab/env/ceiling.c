/*
 * wirespeed ceiling: the same job as the fastest Java client, in C, so that the lab can show how far
 * Java is from what the kernel allows on this machine.
 *
 *   ceiling write tcp BIND PORT | write unix PATH | write stdout        [SIZE]
 *       streams the sequence stream (frame i: type i, body bytes (i + k) mod 256) in ~1 MiB writes;
 *       tcp/unix print "listening on ADDRESS" on stderr and serve one connection after another.
 *   ceiling read tcp HOST PORT | read unix PATH | read stdin   MODE MESSAGES ROUNDS [WARMUP_MS]
 *       MODE is "block" (blocking read(2)) or "poll" (non-blocking reads retried on EAGAIN, yielding
 *       the CPU every 8 empty reads, as the library does); walks the headers in a page-aligned 512 KiB buffer, compacting
 *       on demand, and prints the client's JSON round lines. MESSAGES is frames per round, or a
 *       duration such as "100ms" for timed rounds, whose first round (the warm-up) lasts at least
 *       WARMUP_MS (default: one round): C has no JIT to wait for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define READ_BUFFER (512 * 1024)
#define WRITE_BUFFER (1024 * 1024)

static void die(const char *what) {
    fprintf(stderr, "ceiling: %s: %s\n", what, strerror(errno));
    exit(5);
}

static double now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* A big-endian 32-bit field in one load (memcpy allows any alignment) and one byte swap. */
static inline uint32_t get32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return __builtin_bswap32(v);
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

/* Writes the sequence stream to fd until a write fails (the reader went away). */
static void serve(int fd, int size) {
    unsigned char *buf;
    if (posix_memalign((void **) &buf, 4096, WRITE_BUFFER)) die("posix_memalign");
    unsigned char *pattern = malloc(256 + size);
    for (int j = 0; j < 256 + size; j++) pattern[j] = (unsigned char) j;
    uint64_t frame = 0;
    for (;;) {
        size_t used = 0;
        while (used + 8 + size <= WRITE_BUFFER) {
            put32(buf + used, (uint32_t) frame);
            put32(buf + used + 4, (uint32_t) size);
            memcpy(buf + used + 8, pattern + (frame & 255), size);
            used += 8 + size;
            frame++;
        }
        for (size_t done = 0; done < used;) {
            ssize_t n = write(fd, buf + done, used - done);
            if (n < 0) {
                if (errno == EINTR) continue;
                free(buf);
                free(pattern);
                return;
            }
            done += n;
        }
    }
}

static int listen_tcp(const char *bind_addr, int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, bind_addr, &a.sin_addr);
    if (bind(fd, (struct sockaddr *) &a, sizeof a) < 0) die("bind");
    if (listen(fd, 16) < 0) die("listen");
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *) &a, &len);
    fprintf(stderr, "listening on %s:%d\n", bind_addr, ntohs(a.sin_port));
    return fd;
}

static int listen_unix(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    unlink(path);
    if (bind(fd, (struct sockaddr *) &a, sizeof a) < 0) die("bind");
    if (listen(fd, 16) < 0) die("listen");
    fprintf(stderr, "listening on %s\n", path);
    return fd;
}

static int connect_tcp(const char *host, int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (connect(fd, (struct sockaddr *) &a, sizeof a) < 0) die("connect");
    return fd;
}

static int connect_unix(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (connect(fd, (struct sockaddr *) &a, sizeof a) < 0) die("connect");
    return fd;
}

/* Frames between two looks at the clock in timed rounds, as the Java client does. */
#define CHECK_EVERY 256

/* messages > 0: rounds of that many frames; else rounds of round_ns, the first at least warmup_ns. */
static int read_frames(int fd, int poll, long messages, double round_ns, double warmup_ns, long rounds) {
    unsigned char *buf;
    if (posix_memalign((void **) &buf, 4096, READ_BUFFER)) die("posix_memalign");
    if (poll && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) die("fcntl");
    size_t have = 0, pos = 0;
    long frames = 0, round_frames = 0, round = 0;
    long long bytes = 0, round_bytes = 0;
    double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    int empty = 0;
    long next_check = messages > 0 ? messages : CHECK_EVERY;
    while (round < rounds) {
        while (have - pos >= 8) {
            uint32_t len = get32(buf + pos + 4);
            if (len > READ_BUFFER - 8) { fprintf(stderr, "ceiling: frame too long: length=%u\n", len); return 3; }
            if (have - pos < 8 + (size_t) len) break;
            pos += 8 + len;
            frames++;
            bytes += 8 + len;
            round_bytes += 8 + len;
            if (++round_frames == next_check) {
                double t1 = now_ns(CLOCK_MONOTONIC);
                double ns = t1 - t0;
                if (messages == 0) {
                    next_check += CHECK_EVERY;
                    if (ns < (round == 0 ? warmup_ns : round_ns)) continue;
                }
                double c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
                printf("{\"round\":%ld,\"messages\":%ld,\"bytes\":%lld,\"ms\":%lld,\"msgPerSec\":%lld,"
                       "\"mbPerSec\":%.1f,\"cpuNsPerMsg\":%.1f}\n", ++round, round_frames, round_bytes,
                       (long long) (ns / 1e6), (long long) (round_frames * 1e9 / ns), round_bytes * 1e3 / ns,
                       (c1 - c0) / round_frames);
                fflush(stdout);
                round_frames = 0;
                round_bytes = 0;
                next_check = messages > 0 ? messages : CHECK_EVERY;
                t0 = now_ns(CLOCK_MONOTONIC);
                c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
                if (round == rounds) break;
            }
        }
        if (round == rounds) break;
        memmove(buf, buf + pos, have - pos); /* compact on demand */
        have -= pos;
        pos = 0;
        ssize_t n = read(fd, buf + have, READ_BUFFER - have);
        if (n > 0) { have += n; empty = 0; continue; }
        if (n == 0) break;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (++empty % 8 == 0) sched_yield();
            continue;
        }
        if (errno != EINTR) die("read");
    }
    printf("{\"summary\":true,\"frames\":%ld,\"bytes\":%lld,\"verified\":false}\n", frames, bytes);
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    if (argc >= 3 && !strcmp(argv[1], "write")) {
        const char *t = argv[2];
        if (!strcmp(t, "stdout")) {
            if (getenv("CEILING_PIPE_SIZE")) fcntl(1, F_SETPIPE_SZ, atoi(getenv("CEILING_PIPE_SIZE")));
            serve(1, argc > 3 ? atoi(argv[3]) : 100);
            return 0;
        }
        int listener, size;
        if (!strcmp(t, "tcp") && argc >= 5) {
            listener = listen_tcp(argv[3], atoi(argv[4]));
            size = argc > 5 ? atoi(argv[5]) : 100;
        } else if (!strcmp(t, "unix") && argc >= 4) {
            listener = listen_unix(argv[3]);
            size = argc > 4 ? atoi(argv[4]) : 100;
        } else {
            goto usage;
        }
        for (;;) {
            int fd = accept(listener, NULL, NULL);
            if (fd < 0) { if (errno == EINTR) continue; die("accept"); }
            serve(fd, size);
            close(fd);
        }
    }
    if (argc >= 3 && !strcmp(argv[1], "read")) {
        const char *t = argv[2];
        int fd, rest;
        if (!strcmp(t, "stdin")) { fd = 0; rest = 3; }
        else if (!strcmp(t, "tcp") && argc >= 5) { fd = connect_tcp(argv[3], atoi(argv[4])); rest = 5; }
        else if (!strcmp(t, "unix") && argc >= 4) { fd = connect_unix(argv[3]); rest = 4; }
        else goto usage;
        if (argc < rest + 3) goto usage;
        int poll = !strcmp(argv[rest], "poll");
        const char *per_round = argv[rest + 1];
        size_t n = strlen(per_round);
        long rounds = atol(argv[rest + 2]);
        if (n > 2 && !strcmp(per_round + n - 2, "ms")) {
            double round_ms = atof(per_round);
            double warmup_ms = argc > rest + 3 ? atof(argv[rest + 3]) : round_ms;
            if (round_ms < 1 || warmup_ms < 0) goto usage;
            return read_frames(fd, poll, 0, round_ms * 1e6, warmup_ms * 1e6, rounds);
        }
        long messages = atol(per_round);
        if (messages < 1) goto usage;
        return read_frames(fd, poll, messages, 0, 0, rounds);
    }
usage:
    fprintf(stderr, "usage: ceiling write tcp BIND PORT [SIZE] | write unix PATH [SIZE] | write stdout [SIZE]\n"
                    "       ceiling read tcp HOST PORT|unix PATH|stdin block|poll MESSAGES|MSms ROUNDS [WARMUP_MS]\n");
    return 2;
}
