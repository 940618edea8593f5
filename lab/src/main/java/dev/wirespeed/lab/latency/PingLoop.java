package dev.wirespeed.lab.latency;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.io.IdleStrategy;
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
final class PingLoop {
    private final FrameWriter writer;
    private final FrameReader reader;
    private final SequenceVerifier verifier = new SequenceVerifier();
    private final FrameHandler verify = verifier::verify;
    private final byte[] pattern;
    private final int size;
    private long frame;

    PingLoop(ByteChannel channel, int size, IdleStrategy idle) {
        this.size = size;
        this.pattern = SequenceStream.pattern(size);
        this.writer = FrameWriter.builder(channel).bufferCapacity(Math.max(64 * 1024, size + 8)).maxFrameLength(size)
                .idleStrategy(idle).build();
        this.reader = FrameReader.builder(channel).maxFrameLength(size).idleStrategy(idle).build();
    }

    /**
     * Makes {@code warmup + count} round trips in one loop and records the last {@code count} into
     * {@code histogram}, in nanoseconds. One loop, so that what the JIT compiled while warming is
     * what measures: entering a second, cold loop for the measured part leaves its first frames to the
     * interpreter and its compilation to the measured time, and in an open loop the delay they build up
     * is charged to every frame behind them. The warm-up round trips are recorded into a histogram
     * thrown away, so that the recording is compiled too; which histogram records is chosen without a
     * branch, since a branch the warm-up never took would be compiled as a trap, and the first
     * measured frame would deoptimize the loop.
     *
     * @param rate frames per second for an open loop (frame {@code i} due at {@code i / rate} seconds,
     *     its latency counted from then), or 0 for a closed loop
     */
    void run(long warmup, long count, double rate, Histogram histogram) throws IOException {
        // targets[0] while i < warmup, targets[1] from then: the index is the sign bit of warmup - 1 - i.
        Histogram[] targets = {new Histogram(histogram.getHighestTrackableValue(),
                histogram.getNumberOfSignificantValueDigits()), histogram};
        long total = warmup + count;
        if (rate <= 0) {
            for (long i = 0; i < total; i++) {
                long start = System.nanoTime();
                roundTrip();
                targets[(int) ((warmup - 1 - i) >>> 63)].recordValue(System.nanoTime() - start);
            }
            return;
        }
        double interval = 1e9 / rate;
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            long due = start + (long) (i * interval);
            while (System.nanoTime() < due) {
                Thread.onSpinWait();
            }
            roundTrip();
            targets[(int) ((warmup - 1 - i) >>> 63)].recordValue(System.nanoTime() - due);
        }
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
