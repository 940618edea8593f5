package dev.wirespeed.lab.client;

import dev.wirespeed.testkit.SequenceMismatchException;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Where every strategy delivers its frames: verifies them (with {@code --verify}), counts them, and
 * prints the article's line at the end of each round of {@code messages} frames. Strategies read
 * until {@link #done()} or a clean end of stream, then the command calls {@link #finish(boolean)}.
 *
 * <p>The per-frame work is the same for every strategy (a counter and, when verifying, a vectorized
 * compare), so it does not bias the comparison.
 *
 * <p>Thread safety: used by the one reading thread.
 */
public final class Receiver {
    /** CPU time of the reading thread (user and system), read once per round. */
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Null when frames are only counted. */
    private final FrameCheck check;
    private final long messagesPerRound;
    private final long rounds;
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
        this.check = check;
        this.messagesPerRound = messagesPerRound;
        this.rounds = rounds;
        this.json = json;
        this.out = out;
        this.roundStart = System.nanoTime();
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
        if (++roundFrames == messagesPerRound) {
            endRound();
        }
    }

    private void endRound() {
        long now = System.nanoTime();
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
        done = rounds > 0 && roundsDone >= rounds;
        roundStart = System.nanoTime();
        roundCpuStart = cpuNow;
    }
}
