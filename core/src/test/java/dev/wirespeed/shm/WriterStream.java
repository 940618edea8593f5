package dev.wirespeed.shm;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * Writer {@code id}'s numbered stream of frames, for the many-writer tests and their child processes:
 * frame {@code seq} has type {@code id << 24 | seq}, a length drawn from a random of the test's seed and
 * the writer's id (0 and the ring's frame limit among them), and body byte {@code j} is {@code id * 31 +
 * seq + j}. A reader keeps one per writer and draws the same lengths in the same order.
 */
final class WriterStream {
    private final int id;
    private final int maxFrameLength;
    private final SplittableRandom lengths;
    /** The next frame's number. */
    private int seq;

    WriterStream(int id, long seed, int maxFrameLength) {
        this.id = id;
        this.maxFrameLength = maxFrameLength;
        this.lengths = new SplittableRandom(seed * 1_000_003 + id);
    }

    /** {@return the next frame's number} */
    int seq() {
        return seq;
    }

    /** {@return the next frame's body length, and moves to the frame after it} */
    int nextLength() {
        seq++;
        int r = lengths.nextInt(32);
        return r == 0 ? 0
                : r == 1 ? maxFrameLength
                : r < 4 ? lengths.nextInt(maxFrameLength + 1)
                : lengths.nextInt(200);
    }

    /** {@return the type of frame {@code seq}} */
    int type(int seq) {
        return id << 24 | seq;
    }

    /** Puts frame {@code seq}'s body of {@code length} bytes at {@code b}'s position, moving it past them. */
    void fill(ByteBuffer b, int seq, int length) {
        for (int j = 0; j < length; j++) {
            b.put(at(seq, j));
        }
    }

    /** {@return byte {@code j} of frame {@code seq}'s body} */
    byte at(int seq, int j) {
        return (byte) (id * 31 + seq + j);
    }

    /**
     * Checks that {@code body} is this stream's next frame, of number {@code seq} as its type says, and moves
     * past it.
     *
     * @throws AssertionError naming the writer, the frame and what differs
     */
    void expect(int seq, ByteBuffer body) {
        int expectedSeq = this.seq;
        int length = nextLength();
        if (seq != expectedSeq || body.remaining() != length) {
            throw new AssertionError("writer " + id + ": frame " + seq + " of length=" + body.remaining()
                    + ", expected frame " + expectedSeq + " of length=" + length);
        }
        for (int j = 0; j < length; j++) {
            byte b = body.get(body.position() + j);
            if (b != at(seq, j)) {
                throw new AssertionError("writer " + id + ": frame " + seq + " byte " + j + " is " + b + ", expected "
                        + at(seq, j));
            }
        }
    }
}
