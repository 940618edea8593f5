package dev.wirespeed.lab.client;

import dev.wirespeed.lab.env.Jit;
import dev.wirespeed.testkit.SequenceMismatchException;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Where every strategy delivers its frames: verifies them (with {@code --verify}), counts them, and
 * prints the article's line at the end of each round, a number of frames or a duration (see
 * {@link Rounds}). Strategies read until {@link #done()} or a clean end of stream, then the command
 * calls {@link #finish(boolean)}.
 *
 * <p>The per-frame work is the same for every strategy (a counter and, when verifying, a vectorized
 * compare), so it does not bias the comparison.
 *
 * <p>Thread safety: used by the one reading thread.
 */
public final class Receiver {
    /** CPU time of the reading thread (user and system), read once per round. */
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Frames between two looks at the clock in timed rounds: a clock read costs far less than 256 frames. */
    static final int CHECK_EVERY = 256;

    /** Null when frames are only counted. */
    private final FrameCheck check;
    /** Frames per round, or 0 for timed rounds. */
    private final long messagesPerRound;
    private final long roundNanos;
    private final long warmupNanos;
    private final boolean settle;
    private final long rounds;
    private final LongSupplier clock;
    /** Total JIT compilation time so far, in milliseconds; constant where the JVM does not say. */
    private final LongSupplier compileMillis;
    private final boolean json;
    private final PrintWriter out;

    /** Frames and bytes (header included) received so far. */
    private long frames;
    private long bytes;
    private long roundFrames;
    private long roundBytes;
    private long roundStart;
    /** CPU time of the reading thread at the start of the round; taken at the first frame. */
    private long roundCpuStart;
    /** The thread that reads (the caller of {@code onFrame}; Netty's event loop for the peer). */
    private Thread reader;
    private long roundsDone;
    private boolean done;
    /** The value of {@code roundFrames} at which the round may end: its last frame, or the next look at the clock. */
    private long nextCheck;
    /** In a timed warm-up: the compilation time seen at the last look, and when to look again. */
    private long compileMark = -1;
    private long compileLookAt;

    /**
     * A receiver.
     *
     * @param verify whether to check every frame against the sequence stream
     * @param messagesPerRound frames per printed round, at least 1
     * @param rounds rounds before {@link #done()} turns true; 0 for no limit
     * @param json whether to print JSON lines instead of the article's text
     * @param out where the lines go
     */
    public Receiver(boolean verify, long messagesPerRound, long rounds, boolean json, PrintWriter out) {
        this(verify ? FrameCheck.sequence() : null, messagesPerRound, rounds, json, out);
    }

    /**
     * A receiver that checks every frame with {@code check}.
     *
     * @param check what every frame is checked against, or null to only count them
     * @param messagesPerRound frames per printed round, at least 1
     * @param rounds rounds before {@link #done()} turns true; 0 for no limit
     * @param json whether to print JSON lines instead of the article's text
     * @param out where the lines go
     */
    public Receiver(FrameCheck check, long messagesPerRound, long rounds, boolean json, PrintWriter out) {
        this(check, new Rounds.ByFrames(messagesPerRound, rounds), json, out, System::nanoTime, Jit::compileMillis);
    }

    /**
     * A receiver that checks every frame with {@code check} and cuts the run into {@code rounds}.
     *
     * @param check what every frame is checked against, or null to only count them
     * @param rounds how long each round lasts, and how many there are
     * @param json whether to print JSON lines instead of the article's text
     * @param out where the lines go
     */
    public Receiver(FrameCheck check, Rounds rounds, boolean json, PrintWriter out) {
        this(check, rounds, json, out, System::nanoTime, Jit::compileMillis);
    }

    /** A receiver with its clock and its view of the JIT given, so that tests decide when rounds end. */
    Receiver(FrameCheck check, Rounds rounds, boolean json, PrintWriter out, LongSupplier clock,
            LongSupplier compileMillis) {
        this.check = check;
        switch (rounds) {
            case Rounds.ByFrames frames -> {
                this.messagesPerRound = frames.frames();
                this.roundNanos = 0;
                this.warmupNanos = 0;
                this.settle = false;
            }
            case Rounds.ByTime time -> {
                this.messagesPerRound = 0;
                this.roundNanos = time.roundNanos();
                this.warmupNanos = time.warmupNanos();
                this.settle = time.settle();
            }
        }
        this.rounds = rounds.count();
        this.json = json;
        this.out = out;
        this.clock = clock;
        this.compileMillis = compileMillis;
        this.nextCheck = firstCheck();
        this.roundStart = clock.getAsLong();
    }

    private long firstCheck() {
        return messagesPerRound > 0 ? messagesPerRound : CHECK_EVERY;
    }

    /**
     * Receives a frame whose body is {@code length} bytes of {@code body} from {@code offset}.
     *
     * @param type the type field
     * @param body the array
     * @param offset the body's first byte
     * @param length the body's length
     * @throws SequenceMismatchException if checking and the frame is not the expected one
     */
    public void onFrame(int type, byte[] body, int offset, int length) throws SequenceMismatchException {
        if (check != null) {
            check.check(type, body, offset, length);
        }
        count(length);
    }

    /**
     * Receives a frame whose body is {@code body}'s bytes from position to limit (left unchanged).
     *
     * @param type the type field
     * @param body the body
     * @throws SequenceMismatchException if checking and the frame is not the expected one
     */
    public void onFrame(int type, ByteBuffer body) throws SequenceMismatchException {
        if (check != null) {
            check.check(type, body);
        }
        count(body.remaining());
    }

    /**
     * {@return how many frames may arrive before the receiver next looks at the clock or ends a round,
     * at least 1} A strategy that reads frames in batches asks for no more than this, so that rounds
     * end on the same frame as with one frame per call and no frame arrives after {@link #done()}.
     */
    public int framesToNextCheck() {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, nextCheck - roundFrames));
    }

    /** {@return true once the requested rounds are complete: the strategy stops reading} */
    public boolean done() {
        return done;
    }

    /** {@return frames received so far} */
    public long frames() {
        return frames;
    }

    /** {@return bytes received so far, headers included} */
    public long bytes() {
        return bytes;
    }

    /**
     * Prints the last, partial round (if any frames are in it) and the summary line.
     *
     * @param clean false if reading stopped on an error: the summary then never claims verification
     */
    public void finish(boolean clean) {
        if (roundFrames > 0) {
            endRound();
        }
        if (json) {
            out.println(ChildReports.line(new ChildReport.Summary(frames, bytes, clean && check != null)));
        } else {
            out.printf(Locale.ROOT, "Total: %d msg; %d bytes; %d rounds; %s%n", frames, bytes, roundsDone,
                    clean && check != null ? "every frame verified" : "not verified");
        }
        out.flush();
    }

    private void count(int length) {
        if (reader == null) {
            reader = Thread.currentThread();
            roundCpuStart = THREADS.getCurrentThreadCpuTime();
        }
        long frameBytes = length + 8L;
        bytes += frameBytes;
        roundBytes += frameBytes;
        frames++;
        if (++roundFrames == nextCheck) {
            if (messagesPerRound > 0) {
                endRound();
            } else {
                nextCheck += CHECK_EVERY;
                lookAtTheClock();
            }
        }
    }

    /** In timed rounds: ends the round when it has lasted long enough (the first, when the JIT has settled too). */
    private void lookAtTheClock() {
        long now = clock.getAsLong();
        long elapsed = now - roundStart;
        if (roundsDone > 0) {
            if (elapsed >= roundNanos) {
                endRound();
            }
            return;
        }
        if (!settle) {
            if (elapsed >= warmupNanos) {
                endRound();
            }
        } else if (elapsed >= warmupNanos * Rounds.ByTime.MAX_WARMUP_FACTOR && elapsed >= warmupNanos + roundNanos) {
            endRound(); // the JIT is still busy: the warm-up stops anyway, and its length says so
        } else if (elapsed >= warmupNanos && now >= compileLookAt) {
            long compiled = compileMillis.getAsLong();
            if (compiled == compileMark) {
                endRound(); // nothing compiled for a round's length
            } else {
                compileMark = compiled;
                compileLookAt = now + roundNanos;
            }
        }
    }

    private void endRound() {
        long now = clock.getAsLong();
        long nanos = Math.max(1, now - roundStart);
        // CPU time is per thread: a partial round closed by finish() on another thread has none.
        boolean onReader = Thread.currentThread() == reader;
        long cpuNow = onReader ? THREADS.getCurrentThreadCpuTime() : 0;
        double cpuNsPerMsg = onReader ? (double) (cpuNow - roundCpuStart) / roundFrames : Double.NaN;
        long millis = nanos / 1_000_000;
        long msgPerSec = (long) (roundFrames * 1e9 / nanos);
        double mbPerSec = roundBytes * 1e3 / nanos;
        roundsDone++;
        if (json) {
            out.println(ChildReports.line(new ChildReport.Round(roundsDone, roundFrames, roundBytes, millis, msgPerSec,
                    mbPerSec, Double.isNaN(cpuNsPerMsg) ? null : cpuNsPerMsg)));
        } else {
            out.printf(Locale.ROOT, "Time for %d msg: %d; speed: %d msg/s; %.1f MB/s%n", roundFrames, millis,
                    msgPerSec, mbPerSec);
        }
        out.flush();
        roundFrames = 0;
        roundBytes = 0;
        nextCheck = firstCheck();
        done = rounds > 0 && roundsDone >= rounds;
        roundStart = clock.getAsLong();
        roundCpuStart = cpuNow;
    }
}
