package dev.wirespeed.lab.shm;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.lab.pingpong.Percentiles;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.testkit.SequenceMismatchException;
import dev.wirespeed.testkit.SequenceVerifier;
import dev.wirespeed.testkit.SequenceStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * The two ends of a ping-pong through shared memory, over any peer: the ping sends frame {@code i} of the
 * sequence stream, waits for it to come back (busy-polling, yielding every 8th empty look), checks it
 * byte for byte and records the round trip; the echo writes every frame it reads back unchanged.
 * Closed loop, or open loop at a rate: frame {@code i} due {@code i / rate} seconds after the start and
 * its round trip counted from then, so that a stall is charged to every frame due during it
 * (coordinated omission corrected, as {@code wirespeed ping --rate}).
 *
 * <p>Thread safety: static; each call on one thread.
 */
public final class PingPong {
    /** The direction from the ping to the echo. */
    public static final String PING = "ping";
    /** The direction from the echo back. */
    public static final String PONG = "pong";
    private static final Duration LOOK = Duration.ofSeconds(1);

    private PingPong() {
    }

    /**
     * Runs a ping: {@code warmup} round trips, then {@code count} recorded.
     *
     * @param out the ping's direction, to the echo
     * @param in the echo's direction, back
     * @param count round trips recorded, at least 1
     * @param warmup round trips before, not recorded
     * @param size body bytes of each frame
     * @param rate frames a second of an open loop, or 0 for a closed one
     * @return the recorded round trips' percentiles
     * @throws SequenceMismatchException if a frame that came back is not the one sent, naming it
     * @throws IOException if the echo ended before every frame came back
     */
    public static ChildReport.Latency ping(Outbound out, Inbound in, long count, long warmup, int size, int rate)
            throws IOException {
        if (count < 1 || warmup < 0 || size < 0 || rate < 0) {
            throw new IllegalArgumentException("count=" + count + " must be >= 1, warmup=" + warmup + " >= 0, size="
                    + size + " >= 0, rate=" + rate + " >= 0");
        }
        Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        ByteBuffer pattern = ByteBuffer.wrap(SequenceStream.pattern(size));
        Check check = new Check(size);
        long interval = rate == 0 ? 0 : 1_000_000_000L / rate;
        long first = System.nanoTime();
        for (long i = 0; i < warmup + count; i++) {
            long start;
            if (interval > 0) {
                start = first + i * interval; // due: the time counts from here, sent or not
                while (System.nanoTime() - start < 0) {
                    Thread.onSpinWait();
                }
            } else {
                start = System.nanoTime();
            }
            int offset = SequenceStream.patternOffset(i);
            pattern.limit(offset + size).position(offset);
            for (int spins = 0; !out.offer(SequenceStream.type(i), pattern); spins++) {
                idle(spins);
            }
            check.expect(i);
            for (int spins = 0; !check.back; spins++) {
                int n = in.poll(check, 1);
                if (n < 0) {
                    throw new IOException("the echo closed its end before frame " + i + " came back");
                }
                if (n == 0) {
                    idle(spins);
                }
            }
            long elapsed = System.nanoTime() - start;
            if (i >= warmup) {
                histogram.recordValue(elapsed);
            }
        }
        return Percentiles.of(histogram);
    }

    /**
     * Writes every frame of {@code in} back into {@code out}, unchanged, until the ping closes its end.
     *
     * @param in the ping's direction
     * @param out the direction back
     * @return the frames echoed
     * @throws IOException if a ring breaks
     */
    public static long echo(Inbound in, Outbound out) throws IOException {
        long[] frames = {0};
        FrameHandler back = (type, body) -> {
            for (int spins = 0; !out.offer(type, body); spins++) {
                idle(spins);
            }
            frames[0]++;
        };
        while (in.await(back, 64, LOOK) >= 0) {
            // until the ping closes its end
        }
        return frames[0];
    }

    /**
     * Between two empty looks (or two offers a full ring refused): a spin-wait hint, and the CPU given up
     * every 8th, as the C ring's ends do, so that two ends on one core take turns.
     *
     * @param spins the looks so far
     */
    public static void idle(long spins) {
        if ((spins & 7) == 7) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    /** The ping's check of the frame that came back: the sequence stream's next frame, of the size sent. */
    private static final class Check implements FrameHandler {
        private final int size;
        private final SequenceVerifier verifier = new SequenceVerifier();
        private long expected;
        boolean back;

        Check(int size) {
            this.size = size;
        }

        void expect(long frame) {
            expected = frame;
            back = false;
        }

        @Override
        public void onFrame(int type, ByteBuffer body) throws IOException {
            if (body.remaining() != size) {
                throw new IOException("the echo of frame " + expected + " has a body of " + body.remaining()
                        + " bytes, not the " + size + " sent");
            }
            verifier.verify(type, body);
            back = true;
        }
    }
}
