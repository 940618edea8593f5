/*
 * wirespeed many: many connections at once. The lab's load generator for echo servers of any kind,
 * and the C ceiling they are measured against.
 *
 *   many echo BIND PORT
 *       a single-threaded epoll echo server over TCP (TCP_NODELAY): prints "listening on ADDRESS" on
 *       stderr, then sends every whole frame it reads back to its sender; each ready connection is
 *       read once per epoll_wait, at most 64 KiB, into a buffer it holds only while bytes are
 *       pending; a connection whose echo the socket would not take is not read until it drains.
 *   many load ADDRESS PORT CONNECTIONS FRAMES WINDOW SIZE ROUNDS [SLOW]
 *       opens CONNECTIONS connections (ADDRESS a dotted IPv4 address, or a Unix socket path starting
 *       with '/' and PORT ignored), then, each round, sends FRAMES frames of SIZE body bytes on every
 *       connection, keeping WINDOW of them in flight per connection, and checks every echo byte for
 *       byte (frame i of connection c has type i and body bytes (31c + i + k) mod 256). SLOW more
 *       connections (default 0) are slow readers: they send frames as fast as the server takes them
 *       and never read an echo. Prints one line per round, of the CONNECTIONS others:
 *       {"round":r,"connections":..,"slow":..,"frames":..,"seconds":..,"framesPerSecond":..,
 *       "cpuShare":..,"p50":..,"p99":..,"p999":..,"max":..,"unit":"us"}: cpuShare is the generator's own
 *       CPU time (user and system) over the round's wall time, near 1 where the generator and not the
 *       server limits the rate; the percentiles are of each frame's time from its send to its echo's
 *       last byte (nearest rank).
 *   many hold ADDRESS PORT CONNECTIONS SIZE
 *       opens CONNECTIONS connections, one after another, each making one round trip of a SIZE-byte
 *       frame, then prints "held N" on stdout and keeps them open until its standard input ends.
 *
 * Exit codes: 0 ok, 2 usage, 4 an echo was not the frame sent, 5 I/O failure.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (64 * 1024)
#define EVENTS 1024

static void die(const char *what) {
    fprintf(stderr, "many: %s: %s\n", what, strerror(errno));
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

/* This process's CPU time so far, user and system, in nanoseconds. */
static uint64_t cpu_ns(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return ((uint64_t) u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000u
           + ((uint64_t) u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000u;
}

static void raise_fd_limit(void) {
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

static void non_blocking(int fd) {
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) die("fcntl O_NONBLOCK");
}

static void no_delay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* fails harmlessly on Unix sockets */
}

/* ---- the echo server ---- */

struct echo_conn {
    int fd;
    unsigned char *in;   /* CHUNK bytes while any are pending, else NULL */
    size_t have;         /* bytes in `in` */
    size_t sent;         /* of the whole frames at the front of `in`, bytes already echoed */
    size_t whole;        /* bytes of whole frames at the front of `in` being echoed */
};

static void echo_close(int ep, struct echo_conn *c) {
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->in);
    free(c);
}

/* Sends the rest of the whole frames; returns 1 when all are sent, 0 if the socket is full, -1 on error. */
static int echo_send(struct echo_conn *c) {
    while (c->sent < c->whole) {
        ssize_t w = send(c->fd, c->in + c->sent, c->whole - c->sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            c->sent += w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else if (w < 0 && errno != EINTR) {
            return -1;
        }
    }
    memmove(c->in, c->in + c->whole, c->have - c->whole);
    c->have -= c->whole;
    c->sent = c->whole = 0;
    if (c->have == 0) {
        free(c->in);
        c->in = NULL;
    }
    return 1;
}

static void interest(int ep, struct echo_conn *c, uint32_t events) {
    struct epoll_event e = {.events = events, .data.ptr = c};
    if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e) < 0) die("epoll_ctl MOD");
}

static void echo_readable(int ep, struct echo_conn *c) {
    if (c->in == NULL && (c->in = malloc(CHUNK)) == NULL) die("malloc");
    ssize_t n = recv(c->fd, c->in + c->have, CHUNK - c->have, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        echo_close(ep, c);
        return;
    }
    if (n > 0) c->have += n;
    size_t whole = 0;
    while (c->have - whole >= 8) {
        uint32_t length = get32(c->in + whole + 4);
        if (length > CHUNK - 8) {
            fprintf(stderr, "many: frame length=%u over the %d-byte buffer: connection closed\n", length, CHUNK - 8);
            echo_close(ep, c);
            return;
        }
        if (c->have - whole < 8 + (size_t) length) break;
        whole += 8 + length;
    }
    c->whole = whole;
    int r = echo_send(c);
    if (r < 0) {
        echo_close(ep, c);
    } else if (r == 0) {
        interest(ep, c, EPOLLOUT); /* backpressure: no reading until the echo drains */
    }
}

static _Noreturn void echo_server(const char *bind_address, int port) {
    raise_fd_limit();
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0) die("socket");
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    if (inet_pton(AF_INET, bind_address, &address.sin_addr) != 1) die("inet_pton");
    if (bind(listener, (struct sockaddr *) &address, sizeof address) < 0) die("bind");
    if (listen(listener, 4096) < 0) die("listen");
    socklen_t length = sizeof address;
    getsockname(listener, (struct sockaddr *) &address, &length);
    non_blocking(listener);
    int ep = epoll_create1(0);
    if (ep < 0) die("epoll_create1");
    struct epoll_event le = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, listener, &le) < 0) die("epoll_ctl ADD listener");
    fprintf(stderr, "listening on %s:%d\n", bind_address, ntohs(address.sin_port));
    fflush(stderr);
    struct epoll_event events[EVENTS];
    for (;;) {
        int ready = epoll_wait(ep, events, EVENTS, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int i = 0; i < ready; i++) {
            struct echo_conn *c = events[i].data.ptr;
            if (c == NULL) {
                int fd;
                while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    no_delay(fd);
                    struct echo_conn *n = calloc(1, sizeof *n);
                    if (n == NULL) die("calloc");
                    n->fd = fd;
                    struct epoll_event e = {.events = EPOLLIN, .data.ptr = n};
                    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0) die("epoll_ctl ADD");
                }
                continue;
            }
            if (events[i].events & EPOLLOUT) {
                int r = echo_send(c);
                if (r < 0) {
                    echo_close(ep, c);
                } else if (r > 0) {
                    interest(ep, c, EPOLLIN);
                }
            } else if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
                echo_readable(ep, c);
            }
        }
    }
}

/* ---- the clients ---- */

static int connect_to(const char *address, int port) {
    int fd;
    if (address[0] == '/') {
        struct sockaddr_un un = {.sun_family = AF_UNIX};
        if (strlen(address) >= sizeof un.sun_path) {
            errno = ENAMETOOLONG;
            die("socket path");
        }
        strcpy(un.sun_path, address);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0) die("socket");
        if (connect(fd, (struct sockaddr *) &un, sizeof un) < 0) die("connect");
    } else {
        struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(port)};
        if (inet_pton(AF_INET, address, &in.sin_addr) != 1) die("inet_pton");
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) die("socket");
        if (connect(fd, (struct sockaddr *) &in, sizeof in) < 0) die("connect");
        no_delay(fd);
    }
    return fd;
}

static void frame(unsigned char *p, long connection, uint32_t i, int size) {
    put32(p, i);
    put32(p + 4, (uint32_t) size);
    unsigned char b = (unsigned char) (31 * connection + i);
    for (int k = 0; k < size; k++) p[8 + k] = b++;
}

static int check(const unsigned char *p, long connection, uint32_t i, int size) {
    if (get32(p) != i || get32(p + 4) != (uint32_t) size) return 0;
    unsigned char b = (unsigned char) (31 * connection + i);
    for (int k = 0; k < size; k++) {
        if (p[8 + k] != b++) return 0;
    }
    return 1;
}

struct load_conn {
    int fd;
    long index;
    uint32_t next_send;      /* sequence number of the next frame to send */
    uint32_t next_echo;      /* sequence number of the next echo expected */
    uint32_t round_end;      /* this round sends frames up to here, exclusive */
    unsigned char *in;       /* CHUNK bytes */
    size_t have;
    unsigned char *out;      /* WINDOW frames */
    size_t out_start, out_end;
    uint64_t *sent_at;       /* WINDOW send times, by sequence number mod WINDOW */
    int waiting_out;         /* registered for EPOLLOUT */
    int slow;                /* never reads: sends frames whenever the socket takes them */
};

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static double percentile(const uint64_t *sorted, long count, double p) {
    long rank = (long) (p / 100.0 * count + 0.999999999);
    if (rank < 1) rank = 1;
    return sorted[rank - 1] / 1000.0;
}

/* Queues frames up to the window and sends what the socket takes; 0 all sent, 1 some left, -1 on error. */
static int load_send(struct load_conn *c, int window, int size) {
    size_t frame_bytes = 8 + (size_t) size;
    if (c->out_start == c->out_end) c->out_start = c->out_end = 0;
    uint64_t t = 0;
    while (c->next_send < c->round_end && c->next_send - c->next_echo < (uint32_t) window
           && c->out_end + frame_bytes <= (size_t) window * frame_bytes) {
        frame(c->out + c->out_end, c->index, c->next_send, size);
        if (t == 0) t = now_ns();
        c->sent_at[c->next_send % window] = t; /* queued now: a full socket counts against the server */
        c->out_end += frame_bytes;
        c->next_send++;
    }
    while (c->out_start < c->out_end) {
        ssize_t w = send(c->fd, c->out + c->out_start, c->out_end - c->out_start, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            c->out_start += w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 1;
        } else if (w < 0 && errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

/* A slow reader's turn: fills its buffer with frames and sends what the socket takes; -1 on error. */
static int slow_send(struct load_conn *c, int window, int size) {
    size_t frame_bytes = 8 + (size_t) size;
    if (c->out_start == c->out_end) c->out_start = c->out_end = 0;
    while (c->out_end + frame_bytes <= (size_t) window * frame_bytes) {
        frame(c->out + c->out_end, c->index, c->next_send++, size);
        c->out_end += frame_bytes;
    }
    while (c->out_start < c->out_end) {
        ssize_t w = send(c->fd, c->out + c->out_start, c->out_end - c->out_start, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            c->out_start += w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else if (w < 0 && errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

/* Sends, and waits for writability only while something is left to send. */
static void load_flush(int ep, struct load_conn *l, int window, int size) {
    int left = load_send(l, window, size);
    if (left < 0) die("send");
    if (left != l->waiting_out) {
        struct epoll_event e = {.events = EPOLLIN | (left ? EPOLLOUT : 0), .data.ptr = l};
        if (epoll_ctl(ep, EPOLL_CTL_MOD, l->fd, &e) < 0) die("epoll_ctl MOD");
        l->waiting_out = left;
    }
}

static int load(const char *address, int port, long connections, long frames, int window, int size, int rounds,
                long slow) {
    raise_fd_limit();
    struct load_conn *conns = calloc(connections + slow, sizeof *conns);
    uint64_t *latencies = malloc(sizeof(uint64_t) * connections * frames);
    if (conns == NULL || latencies == NULL) die("calloc");
    int ep = epoll_create1(0);
    if (ep < 0) die("epoll_create1");
    for (long c = 0; c < connections + slow; c++) {
        struct load_conn *l = &conns[c];
        l->fd = connect_to(address, port);
        non_blocking(l->fd);
        l->index = c;
        l->slow = c >= connections;
        l->in = malloc(CHUNK);
        l->out = malloc((size_t) window * (8 + size));
        l->sent_at = malloc(sizeof(uint64_t) * window);
        if (l->in == NULL || l->out == NULL || l->sent_at == NULL) die("malloc");
        struct epoll_event e = {.events = l->slow ? EPOLLOUT : EPOLLIN, .data.ptr = l};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &e) < 0) die("epoll_ctl ADD");
    }
    struct epoll_event events[EVENTS];
    size_t frame_bytes = 8 + (size_t) size;
    for (int round = 1; round <= rounds; round++) {
        long recorded = 0, done = 0;
        uint64_t start = now_ns(), cpu_start = cpu_ns();
        for (long c = 0; c < connections; c++) {
            conns[c].round_end = conns[c].next_send + (uint32_t) frames;
            load_flush(ep, &conns[c], window, size);
        }
        while (done < connections) {
            int ready = epoll_wait(ep, events, EVENTS, 10000);
            if (ready == 0) {
                fprintf(stderr, "many: no echo for 10 s: %ld of %ld connections done in round %d\n", done, connections, round);
                return 5;
            }
            if (ready < 0) {
                if (errno == EINTR) continue;
                die("epoll_wait");
            }
            for (int i = 0; i < ready; i++) {
                struct load_conn *l = events[i].data.ptr;
                if (l->slow) {
                    if (slow_send(l, window, size) < 0) die("send (slow reader)");
                    continue;
                }
                if (events[i].events & EPOLLIN) {
                    ssize_t n = recv(l->fd, l->in + l->have, CHUNK - l->have, MSG_DONTWAIT);
                    if (n == 0) {
                        fprintf(stderr, "many: connection %ld closed by the server after %u echoes\n", l->index, l->next_echo);
                        return 5;
                    }
                    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) die("recv");
                    if (n > 0) {
                        l->have += n;
                        uint64_t t = now_ns();
                        size_t at = 0;
                        while (l->have - at >= frame_bytes) {
                            if (l->next_echo == l->round_end || !check(l->in + at, l->index, l->next_echo, size)) {
                                fprintf(stderr, "many: connection %ld: echo %u is not the frame sent\n", l->index, l->next_echo);
                                return 4;
                            }
                            latencies[recorded++] = t - l->sent_at[l->next_echo % window];
                            l->next_echo++;
                            at += frame_bytes;
                        }
                        memmove(l->in, l->in + at, l->have - at);
                        l->have -= at;
                        if (l->next_echo == l->round_end) done++;
                    }
                }
                load_flush(ep, l, window, size);
            }
        }
        uint64_t wall = now_ns() - start;
        double seconds = wall / 1e9, cpu_share = (double) (cpu_ns() - cpu_start) / wall;
        qsort(latencies, recorded, sizeof(uint64_t), compare);
        printf("{\"round\":%d,\"connections\":%ld,\"slow\":%ld,\"frames\":%ld,\"seconds\":%.6f,\"framesPerSecond\":%.1f,"
               "\"cpuShare\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f,\"unit\":\"us\"}\n",
               round, connections, slow, recorded, seconds, recorded / seconds, cpu_share, percentile(latencies, recorded, 50),
               percentile(latencies, recorded, 99), percentile(latencies, recorded, 99.9),
               latencies[recorded - 1] / 1000.0);
        fflush(stdout);
    }
    return 0;
}

static int hold(const char *address, int port, long connections, int size) {
    raise_fd_limit();
    unsigned char *out = malloc(8 + size), *in = malloc(8 + size);
    if (out == NULL || in == NULL) die("malloc");
    for (long c = 0; c < connections; c++) {
        int fd = connect_to(address, port);
        frame(out, c, 0, size);
        for (size_t at = 0; at < 8 + (size_t) size; ) {
            ssize_t w = send(fd, out + at, 8 + size - at, MSG_NOSIGNAL);
            if (w < 0 && errno != EINTR) die("send");
            if (w > 0) at += w;
        }
        for (size_t have = 0; have < 8 + (size_t) size; ) {
            ssize_t n = recv(fd, in + have, 8 + size - have, 0);
            if (n == 0) {
                fprintf(stderr, "many: connection %ld closed by the server before its echo\n", c);
                return 5;
            }
            if (n < 0 && errno != EINTR) die("recv");
            if (n > 0) have += n;
        }
        if (!check(in, c, 0, size)) {
            fprintf(stderr, "many: connection %ld: the echo is not the frame sent\n", c);
            return 4;
        }
    }
    printf("held %ld\n", connections);
    fflush(stdout);
    char b[64];
    while (read(0, b, sizeof b) > 0) {
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "echo") == 0) {
        echo_server(argv[2], atoi(argv[3]));
    }
    if ((argc == 9 || argc == 10) && strcmp(argv[1], "load") == 0) {
        long connections = atol(argv[4]), frames = atol(argv[5]), slow = argc == 10 ? atol(argv[9]) : 0;
        int window = atoi(argv[6]), size = atoi(argv[7]), rounds = atoi(argv[8]);
        if (connections < 1 || frames < 1 || window < 1 || size < 0 || 8 + size > CHUNK || rounds < 1 || slow < 0
            || (size_t) window * (8 + size) > (size_t) 1 << 30) {
            fprintf(stderr, "many: CONNECTIONS >= 1, FRAMES >= 1, WINDOW >= 1, 0 <= SIZE <= %d, ROUNDS >= 1, SLOW >= 0\n",
                    CHUNK - 8);
            return 2;
        }
        return load(argv[2], atoi(argv[3]), connections, frames, window, size, rounds, slow);
    }
    if (argc == 6 && strcmp(argv[1], "hold") == 0) {
        long connections = atol(argv[4]);
        int size = atoi(argv[5]);
        if (connections < 1 || size < 0 || 8 + size > CHUNK) {
            fprintf(stderr, "many: CONNECTIONS >= 1, 0 <= SIZE <= %d\n", CHUNK - 8);
            return 2;
        }
        return hold(argv[2], atoi(argv[3]), connections, size);
    }
    fprintf(stderr, "usage: many echo BIND PORT\n"
                    "       many load ADDRESS PORT CONNECTIONS FRAMES WINDOW SIZE ROUNDS [SLOW]\n"
                    "       many hold ADDRESS PORT CONNECTIONS SIZE\n");
    return 2;
}
