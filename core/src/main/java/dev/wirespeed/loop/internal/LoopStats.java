package dev.wirespeed.loop.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * 128 bytes before a loop's counters. An owner makes one {@link LoopStats} a loop, one after the other,
 * and each loop's thread writes its own at every read and send: without this padding and {@link
 * LoopStats}'s own after them, two loops' counters would share a cache line (or the pair of lines the
 * CPU fetches together), and every store of one loop would take the line from the other's core.
 * HotSpot lays out a superclass's fields before a subclass's, so the counters lie between the two.
 */
abstract class LoopStatsPadding {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The counters of {@link LoopStats}, between its two paddings. */
abstract class LoopStatsCounters extends LoopStatsPadding {
    long framesRead;
    long bytesRead;
    long bytesWritten;
    long pooledBytes;
}

/**
 * What one loop has carried: frames and bytes read, bytes written, and the direct memory its pool
 * holds. {@code 0 <=} each; all but the pooled bytes never decrease. Padded on both sides ({@link LoopStatsPadding}), so
 * that the loops of a group do not share the lines their counters lie on.
 *
 * <p>Thread safety: written by the loop's thread only, with opaque stores (no fence on the loop's
 * path); read from any thread through the accessors, a value that may lag but is never torn.
 *
 * <p>Not API: the module exports this package only to the library's native module.
 */
public final class LoopStats extends LoopStatsCounters {
    private static final VarHandle FRAMES_READ;
    private static final VarHandle BYTES_READ;
    private static final VarHandle BYTES_WRITTEN;
    private static final VarHandle POOLED_BYTES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            FRAMES_READ = lookup.findVarHandle(LoopStatsCounters.class, "framesRead", long.class);
            BYTES_READ = lookup.findVarHandle(LoopStatsCounters.class, "bytesRead", long.class);
            BYTES_WRITTEN = lookup.findVarHandle(LoopStatsCounters.class, "bytesWritten", long.class);
            POOLED_BYTES = lookup.findVarHandle(LoopStatsCounters.class, "pooledBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Counters at 0. */
    public LoopStats() {
    }

    /** 128 bytes after the counters: see {@link LoopStatsPadding}. */
    long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;

    /** On the loop's thread: {@code n} more frames handed to the handler. */
    public void framesRead(long n) {
        FRAMES_READ.setOpaque(this, framesRead + n);
    }

    /** On the loop's thread: {@code n} more bytes read. */
    public void bytesRead(int n) {
        BYTES_READ.setOpaque(this, bytesRead + n);
    }

    /** On the loop's thread: {@code n} more bytes sent. */
    public void bytesWritten(int n) {
        BYTES_WRITTEN.setOpaque(this, bytesWritten + n);
    }

    /** On the loop's thread: a pool counted here has {@code bytes} more (fewer, where negative). */
    public void pooled(long bytes) {
        POOLED_BYTES.setOpaque(this, pooledBytes + bytes);
    }

    /** {@return the frames read so far}, from any thread */
    public long framesRead() {
        return (long) FRAMES_READ.getOpaque(this);
    }

    /** {@return the bytes read so far}, from any thread */
    public long bytesRead() {
        return (long) BYTES_READ.getOpaque(this);
    }

    /** {@return the bytes written so far}, from any thread */
    public long bytesWritten() {
        return (long) BYTES_WRITTEN.getOpaque(this);
    }

    /** {@return the bytes the loop's pools hold}, from any thread */
    public long pooledBytes() {
        return (long) POOLED_BYTES.getOpaque(this);
    }
}
