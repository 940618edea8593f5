package dev.wirespeed.lab.pingpong;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.lab.env.Jit;
import dev.wirespeed.testkit.SequenceStream;
import dev.wirespeed.testkit.SequenceVerifier;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.ByteChannel;
import org.HdrHistogram.Histogram;

/**
 * Round trips over one connection to an echo: frame {@code i} of the sequence stream goes out, the
 * echo comes back and is verified, and the time is recorded in nanoseconds.
 *
 * <p>Closed loop (no rate): each frame is sent as soon as the previous echo arrived, and the time is
 * that of the round trip. Open loop ({@code rate > 0}): frame {@code i} is due at
 * {@code start + i / rate}; the sender busy-waits until then, and the time is counted from when the
 * frame was due, not from when it went out. A round trip that overruns delays the next send, and the
 * delay is charged to that next frame: the coordinated omission a closed loop hides (JLBH's
 * correction).
 *
 * <p>Steady state allocates nothing: one frame writer and reader, one handler, the histogram's fixed
 * counts.
 */
public final class PingLoop {
    private final FrameWriter writer;
    private final FrameReader reader;
    private final SequenceVerifier verifier = new SequenceVerifier();
    private final FrameHandler verify = verifier::verify;
    private final byte[] pattern;
    private final int size;
    private long frame;

    /**
     * A ping over {@code channel}.
     *
     * @param channel a connection to the echo
     * @param size body bytes per frame
     * @param idle what the reader and writer do between empty calls of a non-blocking channel
     */
    public PingLoop(ByteChannel channel, int size, IdleStrategy idle) {
        this.size = size;
        this.pattern = SequenceStream.pattern(size);
        this.writer = FrameWriter.builder(channel).bufferCapacity(Math.max(64 * 1024, size + 8)).maxFrameLength(size)
                .idleStrategy(idle).build();
        this.reader = FrameReader.builder(channel).maxFrameLength(size).idleStrategy(idle).build();
    }

    /** Round trips per call of the method that times them; see {@link #run}. */
    static final int BATCH = 16;

    /**
     * Makes round trips: a warm-up of at least {@code warmup} round trips that ends as
     * {@code warmupEnd} decides, then {@code count} more recorded into {@code histogram}, in
     * nanoseconds.
     *
     * <p>Round trips are made and timed {@value #BATCH} at a time by one method, so that the JIT
     * compiles that method whole once it has been called often enough, early in the warm-up. Had they
     * been made by one long loop, its compilation would wait for on-stack replacement, which the JVM
     * triggers only after tens of thousands of iterations, and so fall into the measured part. Warm-up
     * round trips are recorded into a histogram thrown away, so that the recording is compiled too;
     * which histogram records is chosen without a branch, since a branch the warm-up never took would
     * be compiled as a trap, and the first measured frame would deoptimize the method.
     *
     * @param warmup the least warm-up round trips
     * @param warmupEnd when the warm-up may end, not yet begun: it begins with the first round trip and
     *     is looked at between batches
     * @param count round trips measured, {@code >= 1}
     * @param rate frames per second for an open loop (frame {@code i} due at {@code i / rate} seconds
     *     from the start, its latency counted from then), or 0 for a closed loop
     * @param histogram records the measured round trips
     * @return the warm-up round trips made
     * @throws IOException if a round trip fails or an echo differs
     */
    public long run(long warmup, WarmupEnd warmupEnd, long count, double rate, Histogram histogram) throws IOException {
        Histogram[] targets = {new Histogram(histogram.getHighestTrackableValue(),
                histogram.getNumberOfSignificantValueDigits()), histogram};
        long first = System.nanoTime();
        warmupEnd.begin(first);
        double interval = rate > 0 ? 1e9 / rate : 0;
        long measured = 0;
        long i = 0;
        while (measured < count) {
            long end = warmupEnd.known() ? warmupEnd.look(0, 0)
                    : warmupEnd.look(System.nanoTime(), Jit.compileMillis());
            int n = (int) Math.min(BATCH, count - measured);
            measured += interval > 0 ? openBatch(i, n, warmup, end, first, interval, targets)
                    : closedBatch(i, n, warmup, end, targets);
            i += n;
        }
        return i - count;
    }

    /**
     * Round trips {@code i} to {@code i + n - 1}, each timed from its send; {@return how many were measured}.
     * Package-private for the test that holds each of its round trips to no allocation.
     */
    long closedBatch(long i, int n, long warmup, long warmupEnd, Histogram[] targets) throws IOException {
        long measured = 0;
        for (int k = 0; k < n; k++) {
            long start = System.nanoTime();
            roundTrip();
            long end = System.nanoTime();
            int target = measuring(warmup, i + k, warmupEnd, end);
            targets[target].recordValue(end - start);
            measured += target;
        }
        return measured;
    }

    /**
     * Round trips {@code i} to {@code i + n - 1}, each sent when due and timed from then; {@return how
     * many were measured}
     */
    private long openBatch(long i, int n, long warmup, long warmupEnd, long first, double interval, Histogram[] targets)
            throws IOException {
        long measured = 0;
        for (int k = 0; k < n; k++) {
            long due = first + (long) ((i + k) * interval);
            while (System.nanoTime() < due) {
                Thread.onSpinWait();
            }
            roundTrip();
            long end = System.nanoTime();
            int target = measuring(warmup, i + k, warmupEnd, end);
            targets[target].recordValue(end - due);
            measured += target;
        }
        return measured;
    }

    /**
     * {@return 1 once round trip {@code i}, ended at {@code end}, is past both the warm-up's count and
     * its end, else 0}: the sign bit of {@code (warmup - 1 - i) & (warmupEnd - 1 - end)}, set only when
     * both are negative
     */
    static int measuring(long warmup, long i, long warmupEnd, long end) {
        return (int) (((warmup - 1 - i) & (warmupEnd - 1 - end)) >>> 63);
    }

    /** {@return round trips completed and verified} */
    long roundTrips() {
        return verifier.framesVerified();
    }

    private void roundTrip() throws IOException {
        writer.writeFrame(SequenceStream.type(frame), pattern, SequenceStream.patternOffset(frame), size);
        writer.flush();
        frame++;
        if (!reader.readFrame(verify)) {
            throw new EOFException("the echo closed the connection after " + verifier.framesVerified()
                    + " round trips (offset=" + reader.offset() + ")");
        }
    }
}
