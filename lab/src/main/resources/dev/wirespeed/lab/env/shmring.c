/*
 * wirespeed shmring: the shared ring's ceiling. The layout of dev.wirespeed.shm.SharedRing
 * (docs/shared-ring.md, byte by byte) in C, so that the lab can show how far the Java ring is from
 * what the same layout does without a JVM, and so that a test can prove the two read each other.
 *
 *   shmring write PATH CAPACITY COUNT SIZE futex|none
 *       makes the ring PATH (whole under another name, then linked to PATH), prints "ring at PATH" on
 *       stderr, and writes the sequence stream (frame i: type i, body byte k (i + k) mod 256, SIZE
 *       bytes) into it, COUNT frames (0: until the reader goes away), waiting while it is full; then
 *       closes its end. futex: wakes a reader that sleeps on the futex (a full fence after each tail,
 *       as SharedRing.writer(RingSleep)); none: stores the tail with release semantics alone.
 *   shmring read PATH MESSAGES ROUNDS spin|futex
 *       maps PATH and reads its frames, checking each against the sequence stream, in rounds of
 *       MESSAGES frames, each printed as the client's JSON round line; ends after ROUNDS rounds (0:
 *       none is a limit) or once the writer closed its end and every frame is read; prints the
 *       client's summary line. spin: looks again at once, yielding the CPU every 8 empty looks (the
 *       library's busy-poll); futex: 1,000 empty looks, then sleeps on the header's word as the Java
 *       reader does.
 *   shmring echo PATH spin|futex
 *       makes the rings PATH.ping and PATH.pong, prints "listening on PATH" on stderr, and writes each
 *       frame of PATH.ping into PATH.pong unchanged, until the ping closes its end. The ping spins for
 *       its frames: the echo publishes them with the release store alone, as 'ring-echo' does.
 *   shmring ping PATH COUNT WARMUP SIZE [RATE [futex|none]]
 *       maps the echo's rings; sends frame i of the sequence stream into PATH.ping, waits (spinning)
 *       for it in PATH.pong, checks it byte for byte, and after WARMUP unrecorded round trips records
 *       COUNT; prints {"p50":..,"p90":..,"p99":..,"p999":..,"p9999":..,"max":..,"unit":"us"}. With
 *       RATE frames a second the loop is open: frame i is due i/RATE seconds after the start and its
 *       time counts from then (coordinated omission corrected), as 'pingpong ping'. none (the
 *       default) publishes each frame with the release store alone, as 'ring-ping' does, for an echo
 *       that spins; futex wakes an echo that sleeps on the futex, at the price of a full fence a frame.
 *   shmring write-idle PATH CAPACITY COUNT SIZE IDLE_MS BURST [WARM_WAKES]
 *       'ring-write --wake futex --idle-ms IDLE_MS --burst BURST --warm-wakes WARM_WAKES --count COUNT' in
 *       C: makes the ring PATH as write does, sends BURST frames at once, WARM_WAKES frames (default 0)
 *       each after 1 ms of idle, then COUNT frames each after IDLE_MS of idle. Frame i
 *       has type i and SIZE bodies (at least 8 bytes): the first 8 the send time, big-endian nanoseconds
 *       of CLOCK_MONOTONIC (System.nanoTime's clock), taken before the frame is written (0 in the
 *       burst's and the warm wake-ups' frames), the rest 0. Each frame is published with a full fence
 *       after the tail, and the reader woken if its word says it sleeps, as SharedRing.writer(Futex).
 *       Then closes its end.
 *   shmring read-wakes PATH
 *       'ring-read --wakes --sleep futex' in C: takes the frames as RingReader.take does, 60 s a take
 *       as the command waits, longer than any idle period (one look, 1,000 more, then the sleeping word
 *       set, a full fence, one more look and FUTEX_WAIT for 100 ms at most, the writer's process looked
 *       for after a sleep that brought nothing), checks each frame (type i, the stamps 0 and then rising, every byte past them 0), and
 *       takes the time once it holds a stamped frame, as the Java reader's handler does. Once the writer
 *       closed its end prints the wake-ups line of 'ring-read --wakes': {"wakes":..,"idleMs":..,
 *       "cpuShare":..,"p50":..,"max":..,"unit":"us"}, every stamped frame but the first counted, idleMs
 *       the median time between two, cpuShare this process's CPU time over that time.
 *   shmring futex COUNT IDLE_MS WAKER_CPU SLEEPER_CPU
 *       the kernel's futex wake-up, without a ring: a child process sleeps in FUTEX_WAIT on a word of
 *       a shared mapping; the parent, after IDLE_MS of idle, takes the time, sets the word and calls
 *       FUTEX_WAKE; the child takes the time once it runs. COUNT times; the first is not counted.
 *       Prints {"wakes":..,"idleMs":..,"cpuShare":..,"p50":..,"max":..,"unit":"us"}: the
 *       sleeper's CPU time over the idle periods' wall time, and the wake-ups in microseconds. A
 *       CPU of -1 leaves that side unpinned. The floor under write-idle and read-wakes: the kernel's
 *       part of their wake-up, without a ring, a spin or a frame.
 *
 *   shmring many-read PATH CAPACITY WRITERS MESSAGES ROUNDS
 *       makes the ring PATH of layout 2 (docs/shared-ring.md: many writers, one reader), as
 *       ManyToOneRing.create does, takes its reader's end, prints "ring at PATH" on stderr, and reads what
 *       writers 0 to WRITERS - 1 ('many-write', or 'ring-write --layout many-to-one') write into it, each
 *       writer's stream checked apart as 'ring-read --layout many-to-one --verify' checks it (frame i of
 *       writer w: type w, i as 8 big-endian bytes, then body byte k (i + k) mod 256; an empty body its end),
 *       spinning while nothing is committed (yielding the CPU every 8 empty looks); zeros over the records
 *       it is done with, 1,024 frames at most, before it gives them back. Prints a JSON round line each
 *       MESSAGES frames, counted from the first frame after every writer's first; ends after ROUNDS rounds
 *       (0: none is a limit) or once every writer sent its end; prints the summary line. A writer's claim
 *       left open stops it: the Java reader's rule for a writer that died is not in this ceiling.
 *   shmring many-write PATH WRITER COUNT SIZE
 *       waits for the ring PATH of layout 2, takes a writer slot as ManyToOneRing.writer() does, prints
 *       "writer WRITER on PATH" on stderr, and writes writer WRITER's stream of SIZE-byte bodies (SIZE >=
 *       8) into it: each frame claimed (announced in the slot, then a compare-and-set of the tail), written,
 *       and committed by a release store of its word, waking nobody; COUNT frames, then its end (0: until
 *       the reader goes away); then gives its slot back.
 *
 * Exit codes: 0 ok, 2 usage, 3 a broken ring, 4 a frame that is not the one expected, 5 I/O failure
 * (read-wakes: also a writer that ended without closing its end, or fewer than 2 stamped frames).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HEADER 4096
#define MAGIC 0x0001474E49525357ULL /* "WSRING", layout 1, little-endian */
#define OFF_CAPACITY 8
#define OFF_MAX_FRAME 12
#define OFF_TAIL 128
#define OFF_HEAD 256
#define OFF_SLEEPING 384
#define OFF_WRITER 512
#define OFF_READER 640
#define SPINS 1000
#define CHECK_NS 100000000LL /* the longest sleep: then the reader looks whether the writer is still there */
#define PADDING 0xFFFFFFFFu

#if defined(__x86_64__) || defined(__i386__)
#define SPIN_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define SPIN_PAUSE() __asm__ volatile("yield")
#else
#define SPIN_PAUSE() do { } while (0)
#endif

/* One end of a mapped ring. */
struct ring {
    unsigned char *base;   /* the mapping: header, then records */
    unsigned char *data;   /* base + HEADER */
    uint32_t capacity;
    uint32_t max_frame;
    uint64_t position;     /* the writer's tail or the reader's head, as this end keeps it */
    uint64_t other_seen;   /* the other end's counter as last loaded */
};

static void die(const char *what) {
    fprintf(stderr, "shmring: %s: %s\n", what, strerror(errno));
    exit(5);
}

static uint64_t now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void put32(unsigned char *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }
static uint32_t get32(const unsigned char *p) {
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static uint64_t *word64(struct ring *r, int offset) { return (uint64_t *) (r->base + offset); }
static uint32_t *sleeping(struct ring *r) { return (uint32_t *) (r->base + OFF_SLEEPING); }

static long futex(uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    return syscall(SYS_futex, word, op, value, timeout, NULL, 0);
}

/* This process's start time in milliseconds since 1970, as the slot holds it; 0 where unknown. */
static int64_t start_millis(void) {
    FILE *f = fopen("/proc/self/stat", "r");
    if (f == NULL) return 0;
    char line[2048];
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    char *p = strrchr(line, ')'); /* the command may hold spaces: fields count from after it */
    unsigned long long ticks = 0;
    if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                            &ticks) != 1) return 0;
    f = fopen("/proc/stat", "r");
    if (f == NULL) return 0;
    unsigned long long btime = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "btime %llu", &btime) == 1) break;
    }
    fclose(f);
    return btime == 0 ? 0 : (int64_t) (btime * 1000 + ticks * 1000 / sysconf(_SC_CLK_TCK));
}

/* Takes an end: from no holder, a closed one, or one whose process is gone (not one that runs). */
static void take(struct ring *r, int slot, const char *end) {
    int64_t *holder = (int64_t *) (r->base + slot);
    for (;;) {
        int64_t h = __atomic_load_n(holder, __ATOMIC_ACQUIRE);
        if (h > 0 && (h == getpid() || kill((pid_t) h, 0) == 0 || errno != ESRCH)) {
            fprintf(stderr, "shmring: the %s is held by process %lld, which runs: one %s per ring\n", end,
                    (long long) h, end);
            exit(5);
        }
        *(int64_t *) (r->base + slot + 8) = start_millis();
        if (__atomic_compare_exchange_n(holder, &h, (int64_t) getpid(), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
    }
}

static void close_end(struct ring *r, int slot) {
    int64_t me = getpid();
    __atomic_compare_exchange_n((int64_t *) (r->base + slot), &me, (int64_t) -1, 0, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
}

static void map_ring(struct ring *r, int fd, size_t size) {
    r->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r->base == MAP_FAILED) die("mmap");
    r->data = r->base + HEADER;
}

/* Makes a ring as SharedRing.create does: whole under a name of its own, then linked to `path`. */
static void create_ring(struct ring *r, const char *path, uint32_t capacity) {
    char draft[4096];
    snprintf(draft, sizeof draft, "%s.new-%d", path, getpid());
    int fd = open(draft, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) die(draft);
    if (ftruncate(fd, HEADER + (off_t) capacity) < 0) die("ftruncate");
    map_ring(r, fd, HEADER + (size_t) capacity);
    close(fd);
    r->capacity = capacity;
    r->max_frame = capacity / 2 - 8;
    memcpy(r->base + OFF_CAPACITY, &capacity, 4);
    memcpy(r->base + OFF_MAX_FRAME, &r->max_frame, 4);
    __atomic_store_n((uint64_t *) r->base, MAGIC, __ATOMIC_RELEASE);
    if (link(draft, path) < 0) { unlink(draft); die(path); }
    unlink(draft);
}

/*
 * Maps the file of a ring another process made, waiting up to 10 s for it, its records `header` bytes in;
 * refuses one too short for a header and the least capacity (`what` names the kind in the message).
 * Returns the file's size.
 */
static off_t map_file(struct ring *r, const char *path, size_t header, const char *what) {
    int fd = -1;
    for (int i = 0; i < 10000 && (fd = open(path, O_RDWR)) < 0 && errno == ENOENT; i++) usleep(1000);
    if (fd < 0) die(path);
    struct stat st;
    if (fstat(fd, &st) < 0) die("fstat");
    if (st.st_size < (off_t) header + 4096) {
        fprintf(stderr, "shmring: not a shared ring%s: %s has %lld bytes\n", what, path, (long long) st.st_size);
        exit(3);
    }
    r->base = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r->base == MAP_FAILED) die("mmap");
    r->data = r->base + header;
    close(fd);
    return st.st_size;
}

/* Maps a ring another process made, waiting up to 10 s for its file. */
static void open_ring(struct ring *r, const char *path) {
    off_t size = map_file(r, path, HEADER, "");
    uint64_t magic = __atomic_load_n((uint64_t *) r->base, __ATOMIC_ACQUIRE);
    memcpy(&r->capacity, r->base + OFF_CAPACITY, 4);
    memcpy(&r->max_frame, r->base + OFF_MAX_FRAME, 4);
    if (magic != MAGIC || (uint64_t) size != HEADER + (uint64_t) r->capacity
        || r->max_frame != r->capacity / 2 - 8) {
        fprintf(stderr, "shmring: not a shared ring of layout 1: %s magic=0x%llx capacity=%u maxFrameLength=%u "
                "size=%lld\n", path, (unsigned long long) magic, r->capacity, r->max_frame, (long long) size);
        exit(3);
    }
}

static void writer_init(struct ring *r) {
    take(r, OFF_WRITER, "writer");
    r->position = __atomic_load_n(word64(r, OFF_TAIL), __ATOMIC_ACQUIRE);
    r->other_seen = __atomic_load_n(word64(r, OFF_HEAD), __ATOMIC_ACQUIRE);
}

static void reader_init(struct ring *r) {
    take(r, OFF_READER, "reader");
    r->position = __atomic_load_n(word64(r, OFF_HEAD), __ATOMIC_ACQUIRE);
    r->other_seen = r->position;
}

static uint32_t record_size(uint32_t length) { return (8 + length + 7) & ~7u; }

/*
 * Claims room at the tail for a body of `length`, a padding record first where the record would cross
 * the ring's end; returns the record's bytes, or NULL while the reader has not left room.
 */
static unsigned char *claim(struct ring *r, uint32_t length) {
    uint32_t size = record_size(length);
    uint32_t offset = (uint32_t) (r->position & (r->capacity - 1));
    uint32_t to_end = r->capacity - offset;
    uint32_t padding = size > to_end ? to_end : 0;
    if (r->position + padding + size - r->other_seen > r->capacity) {
        r->other_seen = __atomic_load_n(word64(r, OFF_HEAD), __ATOMIC_ACQUIRE);
        if (r->position + padding + size - r->other_seen > r->capacity) return NULL;
    }
    if (padding > 0) {
        put32(r->data + offset, 0);
        put32(r->data + offset + 4, PADDING);
        r->position += padding;
        offset = 0;
    }
    return r->data + offset;
}

/* Publishes the record claimed: the tail stored with a full fence, then the reader woken if it sleeps. */
static void publish(struct ring *r, uint32_t length, int wakes) {
    r->position += record_size(length);
    if (!wakes) {
        __atomic_store_n(word64(r, OFF_TAIL), r->position, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(word64(r, OFF_TAIL), r->position, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint32_t one = 1;
    if (__atomic_load_n(sleeping(r), __ATOMIC_SEQ_CST) != 0
        && __atomic_compare_exchange_n(sleeping(r), &one, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        if (futex(sleeping(r), FUTEX_WAKE, 1, NULL) < 0) die("futex FUTEX_WAKE");
    }
}

/*
 * The next record's bytes at the head, checked as the Java reader checks them (padding skipped), or
 * NULL if the writer has published none. Exits 3 on a record that breaks the layout.
 */
static unsigned char *peek(struct ring *r) {
    for (;;) {
        if (r->position == r->other_seen) {
            r->other_seen = __atomic_load_n(word64(r, OFF_TAIL), __ATOMIC_ACQUIRE);
            if (r->position == r->other_seen) return NULL;
        }
        uint32_t offset = (uint32_t) (r->position & (r->capacity - 1));
        uint32_t length = get32(r->data + offset + 4);
        if (length == PADDING) {
            uint64_t next = r->position + (r->capacity - offset);
            if (next > r->other_seen) {
                fprintf(stderr, "shmring: a padding record at position=%llu runs to %llu, past tail=%llu\n",
                        (unsigned long long) r->position, (unsigned long long) next,
                        (unsigned long long) r->other_seen);
                exit(3);
            }
            r->position = next;
            continue;
        }
        if (length > r->max_frame || offset + record_size(length) > r->capacity
            || r->position + record_size(length) > r->other_seen) {
            fprintf(stderr, "shmring: a record at position=%llu has length=%u: maxFrameLength=%u capacity=%u "
                    "tail=%llu\n", (unsigned long long) r->position, length, r->max_frame, r->capacity,
                    (unsigned long long) r->other_seen);
            exit(3);
        }
        return r->data + offset;
    }
}

/* Gives the record peeked back to the writer: the head stored with release semantics. */
static void consume(struct ring *r, const unsigned char *record) {
    r->position += record_size(get32(record + 4));
    __atomic_store_n(word64(r, OFF_HEAD), r->position, __ATOMIC_RELEASE);
}

/* Whether the writer closed its end and every frame it wrote is read. */
static int writer_closed(struct ring *r) {
    return __atomic_load_n((int64_t *) (r->base + OFF_WRITER), __ATOMIC_ACQUIRE) == -1
        && __atomic_load_n(word64(r, OFF_TAIL), __ATOMIC_ACQUIRE) == r->position;
}

/* Waits for the next record as the Java reader's take does; NULL once the writer closed its end. */
static unsigned char *await(struct ring *r, int futex_sleep) {
    unsigned char *record;
    for (long empty = 0;; empty++) {
        if (!futex_sleep || empty < SPINS) {
            if ((record = peek(r)) != NULL) return record;
            if (writer_closed(r)) return NULL;
            if (!futex_sleep) {
                if (empty % 8 == 7) sched_yield();
            } else {
                SPIN_PAUSE();
            }
            continue;
        }
        __atomic_store_n(sleeping(r), 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the word set before the tail is looked at */
        if ((record = peek(r)) != NULL || writer_closed(r)) {
            __atomic_store_n(sleeping(r), 0, __ATOMIC_SEQ_CST);
            return record;
        }
        struct timespec timeout = {0, CHECK_NS};
        if (futex(sleeping(r), FUTEX_WAIT, 1, &timeout) < 0 && errno != EAGAIN && errno != EINTR
            && errno != ETIMEDOUT) die("futex FUTEX_WAIT");
    }
}

/* Makes the ring at PATH and takes its writer's end, for frames of SIZE body bytes; says "ring at PATH"
   once ready. Returns 0, having said why, where SIZE is longer than the ring's longest frame. */
static int open_writer(struct ring *r, const char *path, uint32_t capacity, uint32_t size) {
    create_ring(r, path, capacity);
    if (size > r->max_frame) {
        fprintf(stderr, "shmring: SIZE=%u is longer than maxFrameLength=%u\n", size, r->max_frame);
        return 0;
    }
    writer_init(r);
    fprintf(stderr, "ring at %s\n", path);
    fflush(stderr);
    return 1;
}

static int write_stream(const char *path, uint32_t capacity, long count, uint32_t size, int wakes) {
    struct ring r;
    if (!open_writer(&r, path, capacity, size)) return 2;
    for (long i = 0; count == 0 || i < count; i++) {
        unsigned char *record;
        for (long spins = 0; (record = claim(&r, size)) == NULL; spins++) {
            if ((spins & 0xFFFF) == 0xFFFF
                && __atomic_load_n((int64_t *) (r.base + OFF_READER), __ATOMIC_ACQUIRE) == -1) {
                close_end(&r, OFF_WRITER);
                return 0; /* the reader went away */
            }
            if (spins % 8 == 7) sched_yield();
        }
        put32(record, (uint32_t) i);
        put32(record + 4, size);
        for (uint32_t k = 0; k < size; k++) record[8 + k] = (unsigned char) (i + k);
        publish(&r, size, wakes);
    }
    close_end(&r, OFF_WRITER);
    return 0;
}

static int read_stream(const char *path, long messages, long rounds, int futex_sleep) {
    struct ring r;
    open_ring(&r, path);
    reader_init(&r);
    long frames = 0, round_frames = 0, round = 0;
    long long bytes = 0, round_bytes = 0;
    uint64_t t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    unsigned char *record;
    while ((rounds == 0 || round < rounds) && (record = await(&r, futex_sleep)) != NULL) {
        uint32_t type = get32(record), length = get32(record + 4);
        if (type != (uint32_t) frames) {
            fprintf(stderr, "shmring: frame %ld has type %u\n", frames, type);
            return 4;
        }
        for (uint32_t k = 0; k < length; k++) {
            if (record[8 + k] != (unsigned char) (frames + k)) {
                fprintf(stderr, "shmring: frame %ld byte %u is %u, not %u\n", frames, k, record[8 + k],
                        (unsigned char) (frames + k));
                return 4;
            }
        }
        consume(&r, record);
        frames++;
        bytes += 8 + length;
        round_bytes += 8 + length;
        if (++round_frames == messages) {
            uint64_t t1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
            double ns = (double) (t1 - t0);
            printf("{\"round\":%ld,\"messages\":%ld,\"bytes\":%lld,\"ms\":%lld,\"msgPerSec\":%lld,"
                   "\"mbPerSec\":%.1f,\"cpuNsPerMsg\":%.1f}\n", ++round, round_frames, round_bytes,
                   (long long) (ns / 1e6), (long long) (round_frames * 1e9 / ns), round_bytes * 1e3 / ns,
                   (double) (c1 - c0) / round_frames);
            fflush(stdout);
            round_frames = 0;
            round_bytes = 0;
            t0 = now_ns(CLOCK_MONOTONIC);
            c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        }
    }
    close_end(&r, OFF_READER);
    printf("{\"summary\":true,\"frames\":%ld,\"bytes\":%lld,\"verified\":true}\n", frames, bytes);
    return 0;
}

static void names(char *in, char *out, size_t n, const char *path) {
    snprintf(in, n, "%s.ping", path);
    snprintf(out, n, "%s.pong", path);
}

static int echo(const char *path, int futex_sleep) {
    char in_path[4096], out_path[4096];
    names(in_path, out_path, sizeof in_path, path);
    struct ring in, out;
    create_ring(&in, in_path, 1 << 16);
    create_ring(&out, out_path, 1 << 16);
    reader_init(&in);
    writer_init(&out);
    fprintf(stderr, "listening on %s\n", path);
    fflush(stderr);
    unsigned char *record;
    while ((record = await(&in, futex_sleep)) != NULL) {
        uint32_t length = get32(record + 4);
        unsigned char *copy;
        for (long spins = 0; (copy = claim(&out, length)) == NULL; spins++) {
            if (spins % 8 == 7) sched_yield();
        }
        memcpy(copy, record, 8 + length);
        consume(&in, record);
        publish(&out, length, 0); /* the ping spins: no fence, no wake, as ring-echo's writer */
    }
    close_end(&in, OFF_READER);
    close_end(&out, OFF_WRITER);
    return 0;
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

static int ping(const char *path, long count, long warmup, uint32_t size, double rate, int futex_echo) {
    char out_path[4096], in_path[4096];
    names(out_path, in_path, sizeof out_path, path);
    struct ring out, in;
    open_ring(&out, out_path);
    open_ring(&in, in_path);
    if (size > out.max_frame) {
        fprintf(stderr, "shmring: SIZE=%u is longer than maxFrameLength=%u\n", size, out.max_frame);
        return 2;
    }
    writer_init(&out);
    reader_init(&in);
    uint64_t *times = malloc(sizeof(uint64_t) * count);
    if (times == NULL) die("malloc");
    double interval = rate > 0 ? 1e9 / rate : 0;
    uint64_t first = now_ns(CLOCK_MONOTONIC);
    for (long i = 0; i < warmup + count; i++) {
        uint64_t start;
        if (interval > 0) {
            start = first + (uint64_t) (i * interval); /* due: the time counts from here, sent or not */
            while (now_ns(CLOCK_MONOTONIC) < start) SPIN_PAUSE();
        } else {
            start = now_ns(CLOCK_MONOTONIC);
        }
        unsigned char *record;
        while ((record = claim(&out, size)) == NULL) sched_yield();
        put32(record, (uint32_t) i);
        put32(record + 4, size);
        for (uint32_t k = 0; k < size; k++) record[8 + k] = (unsigned char) (i + k);
        publish(&out, size, futex_echo);
        unsigned char *back = await(&in, 0);
        if (back == NULL) {
            fprintf(stderr, "shmring: the echo closed its end before frame %ld came back\n", i);
            return 5;
        }
        uint64_t elapsed = now_ns(CLOCK_MONOTONIC) - start;
        int same = get32(back) == (uint32_t) i && get32(back + 4) == size;
        for (uint32_t k = 0; same && k < size; k++) same = back[8 + k] == (unsigned char) (i + k);
        if (!same) {
            fprintf(stderr, "shmring: the echo of frame %ld is not the frame sent\n", i);
            return 4;
        }
        consume(&in, back);
        if (i >= warmup) times[i - warmup] = elapsed;
    }
    close_end(&out, OFF_WRITER);
    close_end(&in, OFF_READER);
    qsort(times, count, sizeof(uint64_t), compare);
    printf("{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"p9999\":%.3f,\"max\":%.3f,\"unit\":\"us\"}\n",
           percentile(times, count, 50), percentile(times, count, 90), percentile(times, count, 99),
           percentile(times, count, 99.9), percentile(times, count, 99.99), times[count - 1] / 1000.0);
    return 0;
}

static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t) (v >> 32)); put32(p + 4, (uint32_t) v); }
static uint64_t get64(const unsigned char *p) { return (uint64_t) get32(p) << 32 | get32(p + 4); }

/*
 * RingReader.writerEnded: whether the writer closed its end and every frame is read; after a sleep that
 * brought nothing (`ask_system`) also whether a writer's process still runs: exits 5 where it ended
 * without closing its end, every frame it published read.
 */
static int writer_ended(struct ring *r, int ask_system) {
    int64_t holder = __atomic_load_n((int64_t *) (r->base + OFF_WRITER), __ATOMIC_ACQUIRE);
    if (holder == 0 || (holder > 0 && (!ask_system || kill((pid_t) holder, 0) == 0 || errno != ESRCH))) {
        return 0; /* no writer yet, or one that runs */
    }
    if (__atomic_load_n(word64(r, OFF_TAIL), __ATOMIC_ACQUIRE) != r->position) return 0;
    if (holder == -1) return 1;
    fprintf(stderr, "shmring: the writer, process %lld, ended without closing its end: every frame it published "
            "was read, up to position=%llu\n", (long long) holder, (unsigned long long) r->position);
    exit(5);
}

/*
 * RingReader.take, step for step: one look; SPINS more, a pause before each; then the sleeping word set
 * to 1, a full fence, one more look, and FUTEX_WAIT on the word for CHECK_NS at most, the writer looked
 * for between, until `timeout_ns` has passed. Returns the next record, or NULL with *ended set to 1 at the
 * end (the writer closed its end, every frame read) or 0 once the timeout passed.
 */
static unsigned char *take_record(struct ring *r, int64_t timeout_ns, int *ended) {
    unsigned char *record;
    *ended = 0;
    if ((record = peek(r)) != NULL) return record;
    uint64_t deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t) timeout_ns;
    for (int i = 0; i < SPINS; i++) {
        SPIN_PAUSE();
        if ((record = peek(r)) != NULL) return record;
    }
    int slept = 0;
    for (;;) {
        __atomic_store_n(sleeping(r), 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the word set before the tail is looked at */
        record = peek(r);
        int64_t left = (int64_t) (deadline - now_ns(CLOCK_MONOTONIC));
        *ended = record == NULL && left > 0 && writer_ended(r, slept);
        if (record != NULL || left <= 0 || *ended) {
            __atomic_store_n(sleeping(r), 0, __ATOMIC_SEQ_CST);
            return record;
        }
        int64_t ns = left < CHECK_NS ? left : CHECK_NS;
        struct timespec timeout = {ns / 1000000000, ns % 1000000000};
        if (futex(sleeping(r), FUTEX_WAIT, 1, &timeout) < 0 && errno != EAGAIN && errno != EINTR
            && errno != ETIMEDOUT) die("futex FUTEX_WAIT");
        slept = 1;
    }
}

static int write_idle(const char *path, uint32_t capacity, long count, uint32_t size, long idle_ms, long burst,
                      long warm_wakes) {
    struct ring r;
    if (!open_writer(&r, path, capacity, size)) return 2;
    struct timespec idle = {idle_ms / 1000, (idle_ms % 1000) * 1000000}, warm = {0, 1000000};
    long counted = burst + warm_wakes;
    for (long i = 0; i < counted + count; i++) {
        /* the idle period itself, not a wait for something */
        if (i >= burst) nanosleep(i < counted ? &warm : &idle, NULL);
        unsigned char *record;
        uint64_t stamp;
        for (long spins = 0;; spins++) {
            stamp = i >= counted ? now_ns(CLOCK_MONOTONIC) : 0;
            if ((record = claim(&r, size)) != NULL) break;
            if ((spins & 0xFFFF) == 0xFFFF
                && __atomic_load_n((int64_t *) (r.base + OFF_READER), __ATOMIC_ACQUIRE) == -1) {
                close_end(&r, OFF_WRITER);
                return 0; /* the reader went away */
            }
            if (spins % 8 == 7) sched_yield(); else SPIN_PAUSE();
        }
        put32(record, (uint32_t) i);
        put32(record + 4, size);
        put64(record + 8, stamp);
        memset(record + 16, 0, size - 8);
        publish(&r, size, 1);
    }
    close_end(&r, OFF_WRITER);
    return 0;
}

static int read_wakes(const char *path) {
    struct ring r;
    open_ring(&r, path);
    reader_init(&r);
    long frames = 0, stamped = 0, room = 16;
    uint64_t *latencies = malloc(sizeof(uint64_t) * room), *gaps = malloc(sizeof(uint64_t) * room);
    if (latencies == NULL || gaps == NULL) die("malloc");
    uint64_t last_stamp = 0, last_wall = 0, last_cpu = 0, idle_wall = 0, idle_cpu = 0;
    for (;;) {
        int ended;
        unsigned char *record = take_record(&r, 60000000000LL, &ended); /* as ring-read --wakes waits */
        if (record == NULL) {
            if (ended) break;
            continue; /* the take's time passed: take again, as ring-read does */
        }
        uint64_t now = now_ns(CLOCK_MONOTONIC);
        uint32_t type = get32(record), length = get32(record + 4);
        if (type != (uint32_t) frames || length < 8) {
            fprintf(stderr, "shmring: frame %ld has type %u and length=%u: type %ld and at least 8 bytes expected\n",
                    frames, type, length, frames);
            return 4;
        }
        uint64_t stamp = get64(record + 8);
        if (stamp == 0 ? last_stamp != 0 : stamp <= last_stamp) {
            fprintf(stderr, "shmring: frame %ld has stamp=%llu after stamp=%llu: 0s, then rising stamps expected\n",
                    frames, (unsigned long long) stamp, (unsigned long long) last_stamp);
            return 4;
        }
        for (uint32_t k = 16; k < 8 + length; k++) {
            if (record[k] != 0) {
                fprintf(stderr, "shmring: frame %ld byte %u is %u, not 0\n", frames, k - 8, record[k]);
                return 4;
            }
        }
        if (stamp != 0) {
            uint64_t cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
            if (stamped > 0) {
                if (stamped - 1 == room) {
                    room *= 2;
                    latencies = realloc(latencies, sizeof(uint64_t) * room);
                    gaps = realloc(gaps, sizeof(uint64_t) * room);
                    if (latencies == NULL || gaps == NULL) die("realloc");
                }
                latencies[stamped - 1] = now - stamp;
                gaps[stamped - 1] = now - last_wall;
                idle_wall += now - last_wall;
                idle_cpu += cpu - last_cpu;
            }
            stamped++;
            last_stamp = stamp;
            last_wall = now_ns(CLOCK_MONOTONIC);
            last_cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
        }
        consume(&r, record);
        frames++;
    }
    close_end(&r, OFF_READER);
    long n = stamped - 1;
    if (n < 1) {
        fprintf(stderr, "shmring: stamped frames=%ld: a wake-up needs at least 2 (the first is not counted), "
                "after %ld frames\n", stamped, frames);
        return 5;
    }
    qsort(latencies, n, sizeof(uint64_t), compare);
    qsort(gaps, n, sizeof(uint64_t), compare);
    printf("{\"wakes\":%ld,\"idleMs\":%lld,\"cpuShare\":%.6f,\"p50\":%.3f,\"max\":%.3f,\"unit\":\"us\"}\n", n,
           (long long) ((gaps[(n - 1) / 2] + 500000) / 1000000), idle_wall == 0 ? 0.0 : (double) idle_cpu / idle_wall,
           latencies[(n - 1) / 2] / 1000.0, latencies[n - 1] / 1000.0);
    return 0;
}

static void pin(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) die("sched_setaffinity");
}

/* The futex probe's shared page: the word slept on, the waker's time, the sleeper's figures. */
struct probe {
    uint32_t word;
    uint32_t ready;       /* 1 while the sleeper is about to sleep on the word */
    uint64_t woken_at;    /* the waker's clock as it set the word */
    uint64_t latency[1];  /* one per wake, COUNT of them */
};

static int futex_probe(long count, long idle_ms, int waker_cpu, int sleeper_cpu) {
    size_t size = sizeof(struct probe) + sizeof(uint64_t) * count + sizeof(uint64_t) * 2;
    struct probe *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) die("mmap");
    uint64_t *cpu = (uint64_t *) ((unsigned char *) p + sizeof(struct probe) + sizeof(uint64_t) * count);
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        pin(sleeper_cpu);
        uint64_t cpu_idle = 0, wall_idle = 0;
        for (long i = 0; i < count; i++) {
            __atomic_store_n(&p->word, 1, __ATOMIC_SEQ_CST);
            uint64_t w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
            __atomic_store_n(&p->ready, 1, __ATOMIC_SEQ_CST);
            while (__atomic_load_n(&p->word, __ATOMIC_SEQ_CST) == 1) {
                if (futex(&p->word, FUTEX_WAIT, 1, NULL) < 0 && errno != EAGAIN && errno != EINTR) {
                    die("futex FUTEX_WAIT");
                }
            }
            uint64_t t = now_ns(CLOCK_MONOTONIC);
            p->latency[i] = t - __atomic_load_n(&p->woken_at, __ATOMIC_SEQ_CST);
            if (i > 0) {
                cpu_idle += now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
                wall_idle += t - w0;
            }
        }
        cpu[0] = cpu_idle;
        cpu[1] = wall_idle;
        _exit(0);
    }
    pin(waker_cpu);
    for (long i = 0; i < count; i++) {
        while (__atomic_load_n(&p->ready, __ATOMIC_SEQ_CST) == 0) usleep(100);
        __atomic_store_n(&p->ready, 0, __ATOMIC_SEQ_CST);
        struct timespec idle = {idle_ms / 1000, (idle_ms % 1000) * 1000000};
        nanosleep(&idle, NULL);
        __atomic_store_n(&p->woken_at, now_ns(CLOCK_MONOTONIC), __ATOMIC_SEQ_CST);
        __atomic_store_n(&p->word, 0, __ATOMIC_SEQ_CST);
        if (futex(&p->word, FUTEX_WAKE, 1, NULL) < 0) die("futex FUTEX_WAKE");
    }
    int status;
    if (waitpid(child, &status, 0) < 0) die("waitpid");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "shmring: the sleeper failed (status %d)\n", status);
        return 5;
    }
    long wakes = count - 1;
    qsort(p->latency + 1, wakes, sizeof(uint64_t), compare);
    printf("{\"wakes\":%ld,\"idleMs\":%ld,\"cpuShare\":%.6f,\"p50\":%.3f,\"max\":%.3f,\"unit\":\"us\"}\n", wakes,
           idle_ms, cpu[1] == 0 ? 0.0 : (double) cpu[0] / cpu[1], percentile(p->latency + 1, wakes, 50),
           p->latency[count - 1] / 1000.0);
    return 0;
}

/* Layout 2: many writers, one reader (docs/shared-ring.md). */
#define HEADER2 12288
#define MAGIC2 0x0002474E49525357ULL /* "WSRING", layout 2, little-endian */
#define OFF_WRITERS 16
#define OFF_SLOTS 4096
#define SLOT_BYTES 128
#define MAX_WRITERS 64
#define SLOT_CLAIM 16
#define SLOT_CLAIM_BYTES 24
#define READ_BATCH 1024

static int64_t *slot64(struct ring *r, int slot, int field) {
    return (int64_t *) (r->base + OFF_SLOTS + slot * SLOT_BYTES + field);
}

/* The commit word at ring position `at`: little-endian, the platforms' own order. */
static int32_t *commit_word(struct ring *r, uint64_t at) {
    return (int32_t *) (r->data + (at & (r->capacity - 1)));
}

static void create_ring2(struct ring *r, const char *path, uint32_t capacity) {
    char draft[4096];
    snprintf(draft, sizeof draft, "%s.new-%d", path, getpid());
    int fd = open(draft, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) die(draft);
    if (ftruncate(fd, HEADER2 + (off_t) capacity) < 0) die("ftruncate");
    r->base = mmap(NULL, HEADER2 + (size_t) capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r->base == MAP_FAILED) die("mmap");
    close(fd);
    r->data = r->base + HEADER2;
    r->capacity = capacity;
    r->max_frame = capacity / 2 - 8;
    uint32_t writers = MAX_WRITERS;
    memcpy(r->base + OFF_CAPACITY, &capacity, 4);
    memcpy(r->base + OFF_MAX_FRAME, &r->max_frame, 4);
    memcpy(r->base + OFF_WRITERS, &writers, 4);
    for (int i = 0; i < MAX_WRITERS; i++) *slot64(r, i, SLOT_CLAIM) = -1;
    __atomic_store_n((uint64_t *) r->base, MAGIC2, __ATOMIC_RELEASE);
    if (link(draft, path) < 0) { unlink(draft); die(path); }
    unlink(draft);
}

static void open_ring2(struct ring *r, const char *path) {
    off_t size = map_file(r, path, HEADER2, " of layout 2");
    uint64_t magic = __atomic_load_n((uint64_t *) r->base, __ATOMIC_ACQUIRE);
    uint32_t writers;
    memcpy(&r->capacity, r->base + OFF_CAPACITY, 4);
    memcpy(&r->max_frame, r->base + OFF_MAX_FRAME, 4);
    memcpy(&writers, r->base + OFF_WRITERS, 4);
    if (magic != MAGIC2 || (uint64_t) size != HEADER2 + (uint64_t) r->capacity
        || r->max_frame != r->capacity / 2 - 8 || writers != MAX_WRITERS) {
        fprintf(stderr, "shmring: not a shared ring of layout 2: %s magic=0x%llx capacity=%u maxFrameLength=%u "
                "writers=%u size=%lld\n", path, (unsigned long long) magic, r->capacity, r->max_frame, writers,
                (long long) size);
        exit(3);
    }
}

/* Whether process `pid` is gone (no such process: the start time is not compared in this ceiling). */
static int gone(int64_t pid) { return pid > 0 && kill((pid_t) pid, 0) < 0 && errno == ESRCH; }

/* Takes the first free writer slot as WriterSlots.take does; returns its index. */
static int take_slot(struct ring *r) {
    int64_t me = getpid();
    for (int i = 0; i < MAX_WRITERS; i++) {
        int64_t *holder = slot64(r, i, 0);
        int64_t h = __atomic_load_n(holder, __ATOMIC_ACQUIRE);
        int free = h == 0 || h == -1 || (h > 0 && gone(h)) || (h <= -2 && gone(-2 - h));
        int64_t claim = __atomic_load_n(slot64(r, i, SLOT_CLAIM), __ATOMIC_ACQUIRE);
        if (!free || (claim != -1 && (uint64_t) claim >= __atomic_load_n(word64(r, OFF_HEAD), __ATOMIC_ACQUIRE))) {
            continue;
        }
        if (!__atomic_compare_exchange_n(holder, &h, -2 - me, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) continue;
        *slot64(r, i, 8) = start_millis();
        __atomic_store_n(slot64(r, i, SLOT_CLAIM), -1, __ATOMIC_RELEASE);
        __atomic_store_n(holder, me, __ATOMIC_RELEASE);
        return i;
    }
    fprintf(stderr, "shmring: every one of the %d writer slots is taken\n", MAX_WRITERS);
    exit(5);
}

/*
 * Claims room for a body of `length` as ManyToOneWriter.claim does: the tail loaded, the room checked
 * against the head, the claim announced in the slot, then the tail's compare-and-set. Returns the record's
 * ring position and sets *claim_at and *padding, or returns -1 (no room) with the announcement withdrawn.
 */
static int64_t claim2(struct ring *r, int slot, uint32_t length, uint64_t *claim_at, uint32_t *padding) {
    uint32_t size = record_size(length);
    int announced = 0;
    for (;;) {
        uint64_t tail = __atomic_load_n(word64(r, OFF_TAIL), __ATOMIC_ACQUIRE);
        uint32_t to_end = r->capacity - (uint32_t) (tail & (r->capacity - 1));
        uint32_t pad = size > to_end ? to_end : 0;
        uint32_t bytes = pad + size;
        if (tail + bytes - r->other_seen > r->capacity) {
            r->other_seen = __atomic_load_n(word64(r, OFF_HEAD), __ATOMIC_ACQUIRE);
            if (tail + bytes - r->other_seen > r->capacity) {
                if (announced) __atomic_store_n(slot64(r, slot, SLOT_CLAIM), -1, __ATOMIC_RELEASE);
                return -1;
            }
        }
        *(int32_t *) slot64(r, slot, SLOT_CLAIM_BYTES) = (int32_t) bytes;
        __atomic_store_n(slot64(r, slot, SLOT_CLAIM), (int64_t) tail, __ATOMIC_RELEASE);
        announced = 1;
        if (__atomic_compare_exchange_n(word64(r, OFF_TAIL), &tail, tail + bytes, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
            *claim_at = tail;
            *padding = pad;
            return (int64_t) (tail + pad);
        }
    }
}

static int reader_gone(struct ring *r) {
    int64_t holder = __atomic_load_n((int64_t *) (r->base + OFF_READER), __ATOMIC_ACQUIRE);
    return holder == -1 || gone(holder);
}

static int many_write(const char *path, int writer, long count, uint32_t size) {
    struct ring r;
    open_ring2(&r, path);
    if (size > r.max_frame) {
        fprintf(stderr, "shmring: SIZE=%u is longer than maxFrameLength=%u\n", size, r.max_frame);
        return 2;
    }
    r.other_seen = __atomic_load_n(word64(&r, OFF_HEAD), __ATOMIC_ACQUIRE);
    int slot = take_slot(&r);
    fprintf(stderr, "writer %d on %s\n", writer, path);
    fflush(stderr);
    int reader_there = 1;
    for (long i = 0; reader_there && (count == 0 || i <= count); i++) {
        uint32_t length = count > 0 && i == count ? 0 : size; /* after COUNT frames, the end */
        uint64_t claim_at;
        uint32_t padding;
        int64_t at;
        for (long spins = 0; (at = claim2(&r, slot, length, &claim_at, &padding)) < 0; spins++) {
            if ((spins & 0xFFFF) == 0xFFFF && !(reader_there = !reader_gone(&r))) break;
            if (spins % 8 == 7) sched_yield(); else SPIN_PAUSE();
        }
        if (at < 0) break; /* the reader went away */
        unsigned char *record = r.data + ((uint64_t) at & (r.capacity - 1));
        put32(record + 4, (uint32_t) writer);
        if (length > 0) {
            put64(record + 8, (uint64_t) i);
            for (uint32_t k = 8; k < length; k++) record[8 + k] = (unsigned char) (i + k);
        }
        __atomic_store_n(commit_word(&r, (uint64_t) at), (int32_t) (8 + length), __ATOMIC_RELEASE);
        if (padding > 0) __atomic_store_n(commit_word(&r, claim_at), -(int32_t) padding, __ATOMIC_RELEASE);
    }
    __atomic_store_n(slot64(&r, slot, SLOT_CLAIM), -1, __ATOMIC_RELEASE);
    __atomic_store_n(slot64(&r, slot, 0), -1, __ATOMIC_RELEASE);
    return 0;
}

/* Writes zeros over ring positions `from` to `to`, then gives them back: the head stored with release semantics. */
static void give_back(struct ring *r, uint64_t from, uint64_t to) {
    uint32_t mask = r->capacity - 1;
    while (from < to) {
        uint32_t offset = (uint32_t) (from & mask);
        uint64_t n = to - from < (uint64_t) (r->capacity - offset) ? to - from : r->capacity - offset;
        memset(r->data + offset, 0, n);
        from += n;
    }
    __atomic_store_n(word64(r, OFF_HEAD), to, __ATOMIC_RELEASE);
}

static void corrupt2(struct ring *r, uint64_t at, int32_t word) {
    fprintf(stderr, "shmring: a record at position=%llu has word=%d: maxFrameLength=%u capacity=%u tail=%llu\n",
            (unsigned long long) at, word, r->max_frame, r->capacity,
            (unsigned long long) __atomic_load_n(word64(r, OFF_TAIL), __ATOMIC_ACQUIRE));
    exit(3);
}

static int many_read(const char *path, uint32_t capacity, int writers, long messages, long rounds) {
    struct ring r;
    create_ring2(&r, path, capacity);
    take(&r, OFF_READER, "reader");
    fprintf(stderr, "ring at %s\n", path);
    fflush(stderr);
    uint64_t head = 0, tail_seen = 0;
    uint64_t *next = calloc(writers, sizeof(uint64_t));
    char *ended = calloc(writers, 1);
    if (next == NULL || ended == NULL) die("calloc");
    int started = 0, ends = 0, counting = 0;
    long frames = 0, round_frames = 0, round = 0;
    long long bytes = 0, round_bytes = 0;
    uint64_t t0 = 0, c0 = 0;
    long empty = 0;
    while ((rounds == 0 || round < rounds) && ends < writers) {
        uint64_t at = head;
        int n = 0;
        while (n < READ_BATCH && at - head < capacity && (rounds == 0 || round < rounds)) {
            int32_t word = __atomic_load_n(commit_word(&r, at), __ATOMIC_ACQUIRE);
            if (word == 0) break;
            uint32_t offset = (uint32_t) (at & (capacity - 1));
            uint32_t size = word < 0 ? (uint32_t) -word : record_size((uint32_t) word - 8);
            if ((word < 0 ? (-word & 7) != 0 : (word < 8 || (uint32_t) word > r.max_frame + 8))
                || offset + size > capacity) corrupt2(&r, at, word);
            if (at + size > tail_seen) {
                tail_seen = __atomic_load_n(word64(&r, OFF_TAIL), __ATOMIC_ACQUIRE);
                if (at + size > tail_seen) corrupt2(&r, at, word);
            }
            if (word > 0) {
                unsigned char *record = r.data + offset;
                uint32_t w = get32(record + 4), length = (uint32_t) word - 8;
                if (w >= (uint32_t) writers || ended[w]) {
                    fprintf(stderr, "shmring: a frame of writer %u at position=%llu: writers 0 to %d, ended %d\n", w,
                            (unsigned long long) at, writers - 1, w < (uint32_t) writers ? ended[w] : 0);
                    return 4;
                }
                if (length == 0) {
                    ended[w] = 1;
                    ends++;
                } else {
                    uint64_t i = next[w];
                    int same = length >= 8 && get64(record + 8) == i;
                    for (uint32_t k = 8; same && k < length; k++) same = record[8 + k] == (unsigned char) (i + k);
                    if (!same) {
                        fprintf(stderr, "shmring: writer %u's frame %llu is not the one expected (length=%u)\n", w,
                                (unsigned long long) i, length);
                        return 4;
                    }
                    if (next[w]++ == 0) started++;
                    if (counting) {
                        frames++;
                        bytes += 8 + length;
                        round_bytes += 8 + length;
                        if (++round_frames == messages) {
                            uint64_t t1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
                            double ns = (double) (t1 - t0);
                            printf("{\"round\":%ld,\"messages\":%ld,\"bytes\":%lld,\"ms\":%lld,\"msgPerSec\":%lld,"
                                   "\"mbPerSec\":%.1f,\"cpuNsPerMsg\":%.1f}\n", ++round, round_frames, round_bytes,
                                   (long long) (ns / 1e6), (long long) (round_frames * 1e9 / ns),
                                   round_bytes * 1e3 / ns, (double) (c1 - c0) / round_frames);
                            fflush(stdout);
                            round_frames = 0;
                            round_bytes = 0;
                            t0 = now_ns(CLOCK_MONOTONIC);
                            c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
                        }
                    } else if (started == writers) {
                        counting = 1; /* the rounds count from the next frame */
                        t0 = now_ns(CLOCK_MONOTONIC);
                        c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
                    }
                }
                n++;
            }
            at += size;
        }
        if (at != head) {
            give_back(&r, head, at);
            head = at;
            empty = 0;
        } else if (++empty % 8 == 0) {
            sched_yield();
        } else {
            SPIN_PAUSE();
        }
    }
    close_end(&r, OFF_READER);
    printf("{\"summary\":true,\"frames\":%ld,\"bytes\":%lld,\"verified\":true}\n", frames, bytes);
    return 0;
}

static int usage(void) {
    fprintf(stderr, "usage: shmring write PATH CAPACITY COUNT SIZE futex|none\n"
                    "       shmring read PATH MESSAGES ROUNDS spin|futex\n"
                    "       shmring echo PATH spin|futex\n"
                    "       shmring ping PATH COUNT WARMUP SIZE [RATE [futex|none]]\n"
                    "       shmring write-idle PATH CAPACITY COUNT SIZE IDLE_MS BURST [WARM_WAKES]\n"
                    "       shmring read-wakes PATH\n"
                    "       shmring futex COUNT IDLE_MS WAKER_CPU SLEEPER_CPU\n"
                    "       shmring many-read PATH CAPACITY WRITERS MESSAGES ROUNDS\n"
                    "       shmring many-write PATH WRITER COUNT SIZE\n");
    return 2;
}

static int sleep_mode(const char *mode) {
    if (!strcmp(mode, "futex")) return 1;
    if (!strcmp(mode, "spin")) return 0;
    return -1;
}

int main(int argc, char **argv) {
    if (argc == 7 && !strcmp(argv[1], "write") && (!strcmp(argv[6], "futex") || !strcmp(argv[6], "none"))) {
        long capacity = atol(argv[3]), count = atol(argv[4]), size = atol(argv[5]);
        if (capacity < 4096 || capacity > (1L << 30) || (capacity & (capacity - 1)) != 0 || count < 0 || size < 0) {
            fprintf(stderr, "shmring: CAPACITY=%ld must be a power of two from 4096 to 1073741824, COUNT=%ld >= 0, "
                    "SIZE=%ld >= 0\n", capacity, count, size);
            return 2;
        }
        return write_stream(argv[2], (uint32_t) capacity, count, (uint32_t) size, !strcmp(argv[6], "futex"));
    }
    if (argc == 6 && !strcmp(argv[1], "read") && sleep_mode(argv[5]) >= 0) {
        long messages = atol(argv[3]), rounds = atol(argv[4]);
        if (messages < 1 || rounds < 0) {
            fprintf(stderr, "shmring: MESSAGES=%ld must be >= 1, ROUNDS=%ld >= 0\n", messages, rounds);
            return 2;
        }
        return read_stream(argv[2], messages, rounds, sleep_mode(argv[5]));
    }
    if (argc == 4 && !strcmp(argv[1], "echo") && sleep_mode(argv[3]) >= 0) {
        return echo(argv[2], sleep_mode(argv[3]));
    }
    if ((argc >= 6 && argc <= 8) && !strcmp(argv[1], "ping")
        && (argc < 8 || !strcmp(argv[7], "futex") || !strcmp(argv[7], "none"))) {
        long count = atol(argv[3]), warmup = atol(argv[4]), size = atol(argv[5]);
        double rate = argc >= 7 ? atof(argv[6]) : 0;
        if (count < 1 || warmup < 0 || size < 0 || rate < 0) {
            fprintf(stderr, "shmring: COUNT=%ld >= 1, WARMUP=%ld >= 0, SIZE=%ld >= 0, RATE=%g >= 0\n", count, warmup,
                    size, rate);
            return 2;
        }
        return ping(argv[2], count, warmup, (uint32_t) size, rate, argc == 8 && !strcmp(argv[7], "futex"));
    }
    if ((argc == 8 || argc == 9) && !strcmp(argv[1], "write-idle")) {
        long capacity = atol(argv[3]), count = atol(argv[4]), size = atol(argv[5]), idle_ms = atol(argv[6]),
             burst = atol(argv[7]), warm_wakes = argc == 9 ? atol(argv[8]) : 0;
        if (capacity < 4096 || capacity > (1L << 30) || (capacity & (capacity - 1)) != 0 || count < 0 || size < 8
            || idle_ms < 0 || burst < 0 || warm_wakes < 0) {
            fprintf(stderr, "shmring: CAPACITY=%ld must be a power of two from 4096 to 1073741824, COUNT=%ld >= 0, "
                    "SIZE=%ld >= 8 (the stamp), IDLE_MS=%ld >= 0, BURST=%ld >= 0, WARM_WAKES=%ld >= 0\n", capacity,
                    count, size, idle_ms, burst, warm_wakes);
            return 2;
        }
        return write_idle(argv[2], (uint32_t) capacity, count, (uint32_t) size, idle_ms, burst, warm_wakes);
    }
    if (argc == 3 && !strcmp(argv[1], "read-wakes")) {
        return read_wakes(argv[2]);
    }
    if (argc == 6 && !strcmp(argv[1], "futex")) {
        long count = atol(argv[2]), idle_ms = atol(argv[3]);
        if (count < 2 || idle_ms < 0) {
            fprintf(stderr, "shmring: COUNT=%ld must be >= 2 (the first wake is not counted), IDLE_MS=%ld >= 0\n",
                    count, idle_ms);
            return 2;
        }
        return futex_probe(count, idle_ms, atoi(argv[4]), atoi(argv[5]));
    }
    if (argc == 7 && !strcmp(argv[1], "many-read")) {
        long capacity = atol(argv[3]), writers = atol(argv[4]), messages = atol(argv[5]), rounds = atol(argv[6]);
        if (capacity < 4096 || capacity > (1L << 30) || (capacity & (capacity - 1)) != 0 || writers < 1
            || writers > MAX_WRITERS || messages < 1 || rounds < 0) {
            fprintf(stderr, "shmring: CAPACITY=%ld must be a power of two from 4096 to 1073741824, WRITERS=%ld 1 to "
                    "%d, MESSAGES=%ld >= 1, ROUNDS=%ld >= 0\n", capacity, writers, MAX_WRITERS, messages, rounds);
            return 2;
        }
        return many_read(argv[2], (uint32_t) capacity, (int) writers, messages, rounds);
    }
    if (argc == 6 && !strcmp(argv[1], "many-write")) {
        long writer = atol(argv[3]), count = atol(argv[4]), size = atol(argv[5]);
        if (writer < 0 || writer >= MAX_WRITERS || count < 0 || size < 8) {
            fprintf(stderr, "shmring: WRITER=%ld must be 0 to %d, COUNT=%ld >= 0, SIZE=%ld >= 8 (the index)\n", writer,
                    MAX_WRITERS - 1, count, size);
            return 2;
        }
        return many_write(argv[2], (int) writer, count, (uint32_t) size);
    }
    return usage();
}
