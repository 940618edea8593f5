package dev.wirespeed.lab.shm;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.testkit.SequenceStream;
import java.io.IOException;
import java.io.Serial;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The many-writer stream: writers {@code 0} to {@code n - 1} each send their own sequence of frames into one
 * direction, and the reader checks each writer's sequence apart, in order, whatever the interleaving.
 *
 * <pre>
 * frame i of writer w (i = 0, 1, 2, ...)
 * +---------------+------------------------+--------------------------------------+
 * | type: w       | i: 8 bytes, big-endian | byte k (k = 8 ..): (i + k) mod 256   |
 * +---------------+------------------------+--------------------------------------+
 * writer w's end: a frame of type w with an empty body, after its last
 * </pre>
 *
 * <p>A body is at least {@value #MIN_BODY} bytes (the index); past the index it is the sequence stream's body of
 * frame {@code i} ({@link SequenceStream}), so that a torn or misplaced record shows in its bytes.
 *
 * <p>Thread safety: static; a {@link Check} on one thread.
 */
public final class WriterStreams {
    /** The shortest body of a frame: its index. */
    public static final int MIN_BODY = 8;

    private WriterStreams() {
    }

    /**
     * Fills {@code body} from its position with frame {@code i}'s {@code length} bytes (a slice of {@code
     * pattern} past the index); its limit is then the frame's end, its position where it was.
     *
     * @param body a buffer of room for {@code length} bytes
     * @param pattern {@link SequenceStream#pattern} of at least {@code length}
     * @param i the frame's index in its writer's stream
     * @param length the body's bytes, at least {@value #MIN_BODY}
     */
    public static void fill(ByteBuffer body, byte[] pattern, long i, int length) {
        int start = body.position();
        body.limit(start + length);
        body.putLong(start, i);
        body.put(start + MIN_BODY, pattern, SequenceStream.patternOffset(i) + MIN_BODY, length - MIN_BODY);
    }

    /**
     * The reader's check of every writer's stream: each frame its writer's next, its bytes the stream's (or,
     * not verifying, only its writer one of those expected); each writer's end noted.
     */
    public static final class Check {
        private final int writers;
        private final boolean verify;
        private final long[] next;
        private final boolean[] ended;
        private int endedCount;
        private int startedCount;
        private final byte[] pattern = SequenceStream.pattern(4096);

        /**
         * A check expecting frame 0 of each of {@code writers} writers.
         *
         * @param writers how many, at least 1
         * @param verify whether to check each frame's index and bytes, not only its writer and the ends
         */
        public Check(int writers, boolean verify) {
            if (writers < 1) {
                throw new IllegalArgumentException("writers=" + writers + " must be at least 1");
            }
            this.writers = writers;
            this.verify = verify;
            this.next = new long[writers];
            this.ended = new boolean[writers];
        }

        /**
         * Checks a frame and hands it to {@code then} unless it is a writer's end.
         *
         * @param type the frame's type: its writer
         * @param body its body, position to limit, left as it was
         * @param then given every frame that is not an end
         * @throws MismatchException if the frame is not its writer's next, naming the writer, the frame
         *     and the byte
         * @throws IOException what {@code then} threw
         */
        public void onFrame(int type, ByteBuffer body, FrameHandler then) throws IOException {
            if (type < 0 || type >= writers) {
                throw new MismatchException("a frame of type=" + type + " after " + Arrays.toString(next)
                        + " frames of writers 0 to " + (writers - 1) + ": no such writer");
            }
            int length = body.remaining();
            if (ended[type]) {
                throw new MismatchException("writer " + type + " sent a frame of length=" + length
                        + " after its end, which followed its " + next[type]
                        + " frames");
            }
            if (length == 0) {
                ended[type] = true;
                endedCount++;
                return;
            }
            long i = next[type];
            if (!verify) {
                next[type] = i + 1;
                then.onFrame(type, body);
                return;
            }
            if (length < MIN_BODY || body.getLong(body.position()) != i) {
                throw new MismatchException("writer " + type + "'s frame " + i + " is not the one expected: "
                        + "length=" + length + (length < MIN_BODY ? " is under " + MIN_BODY
                        : " index=" + body.getLong(body.position())));
            }
            int start = SequenceStream.patternOffset(i) + MIN_BODY;
            int tail = length - MIN_BODY;
            if (start + tail > pattern.length) {
                throw new MismatchException("writer " + type + "'s frame " + i + " has length=" + length
                        + ", over the check's " + (pattern.length - SequenceStream.PERIOD));
            }
            int at = body.slice(body.position() + MIN_BODY, tail).mismatch(ByteBuffer.wrap(pattern, start, tail));
            if (at >= 0) {
                throw new MismatchException("writer " + type + "'s frame " + i + " byte " + (MIN_BODY + at)
                        + " is corrupt: actual=" + (body.get(body.position() + MIN_BODY + at) & 0xFF) + " expected="
                        + (SequenceStream.bodyByte(i, MIN_BODY + at) & 0xFF));
            }
            next[type] = i + 1;
            then.onFrame(type, body);
        }

        /** {@return whether a frame of every writer came} */
        public boolean allStarted() {
            if (startedCount < writers) {
                startedCount = 0;
                for (long n : next) {
                    startedCount += n > 0 ? 1 : 0;
                }
            }
            return startedCount == writers;
        }

        /** {@return whether every writer sent its end} */
        public boolean allEnded() {
            return endedCount == writers;
        }

        /**
         * {@return the frames of writer {@code w} handed on so far}
         *
         * @param w the writer, 0 to the writers less 1
         */
        public long frames(int w) {
            return next[w];
        }
    }

    /** A frame that is not its writer's next: lost, duplicated, reordered, torn, or of no such writer. */
    public static final class MismatchException extends IOException {
        @Serial
        private static final long serialVersionUID = 1L;

        MismatchException(String message) {
            super(message);
        }
    }
}
