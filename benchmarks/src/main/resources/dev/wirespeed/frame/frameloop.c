/*
 * The per-frame loop of the lab's C reader (ceiling.c, read_frames) over a buffer already filled:
 * no read(2) and no clock, so that only the work per frame is left. When fewer than a frame's bytes
 * remain, the loop starts again at the buffer's front, where ceiling.c would compact (moving nothing,
 * as the buffer holds whole frames) and read.
 *
 * frames: how many frames to parse; *bytes gets the bytes of those frames added (header included).
 * Returns the frames parsed, or -1 for a length the buffer cannot hold, as ceiling.c refuses one.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

/* As ceiling.c reads a length: one load (memcpy allows any alignment) and one byte swap. */
static inline uint32_t get32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return __builtin_bswap32(v);
}

int64_t frameloop_parse(const unsigned char *buf, int64_t have, int64_t frames, int64_t *bytes) {
    int64_t pos = 0, done = 0, sum = 0;
    while (done < frames) {
        if (have - pos < 8) {
            pos = 0;
            __asm__ volatile("" ::: "memory"); /* the buffer may have changed, as after a read */
            continue;
        }
        uint32_t len = get32(buf + pos + 4);
        if (len > (uint64_t) have - 8) return -1;
        if (have - pos < 8 + (int64_t) len) {
            pos = 0;
            __asm__ volatile("" ::: "memory");
            continue;
        }
        pos += 8 + len;
        done++;
        sum += 8 + len;
    }
    *bytes += sum;
    return done;
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

/*
 * The per-frame stores of the lab's C writer (ceiling.c, serve): the header's two fields and a copy
 * of the body from the pattern, into buf until it is full, then from its front again, where ceiling.c
 * would write the buffer out. Frame numbers continue from *next.
 *
 * Returns the bytes stored.
 */
int64_t frameloop_write(unsigned char *buf, int64_t cap, const unsigned char *pattern, int32_t size,
                        int64_t frames, int64_t *next) {
    int64_t used = 0, total = 0;
    uint64_t frame = (uint64_t) *next;
    for (int64_t i = 0; i < frames; i++) {
        if (used + 8 + size > cap) {
            total += used;
            used = 0;
            __asm__ volatile("" ::: "memory"); /* the buffer is written out here */
        }
        put32(buf + used, (uint32_t) frame);
        put32(buf + used + 4, (uint32_t) size);
        memcpy(buf + used + 8, pattern + (frame & 255), size);
        used += 8 + size;
        frame++;
    }
    *next = (int64_t) frame;
    return total + used;
}
