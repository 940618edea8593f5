package dev.wirespeed.loop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What one loop has carried: frames and bytes read, bytes written, and the direct memory its pool
 * holds. {@code 0 <=} each, never decreasing.
 *
 * <p>Thread safety: written by the loop's thread only, with opaque stores (no fence on the loop's
 * path); read from any thread through the accessors, a value that may lag but is never torn.
 */
final class LoopStats {
    private static final VarHandle FRAMES_READ;
    private static final VarHandle BYTES_READ;
    private static final VarHandle BYTES_WRITTEN;
    private static final VarHandle POOLED_BYTES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            FRAMES_READ = lookup.findVarHandle(LoopStats.class, "framesRead", long.class);
            BYTES_READ = lookup.findVarHandle(LoopStats.class, "bytesRead", long.class);
            BYTES_WRITTEN = lookup.findVarHandle(LoopStats.class, "bytesWritten", long.class);
            POOLED_BYTES = lookup.findVarHandle(LoopStats.class, "pooledBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long framesRead;
    private long bytesRead;
    private long bytesWritten;
    private long pooledBytes;

    /** On the loop's thread: {@code n} more frames handed to the handler. */
    void framesRead(long n) {
        FRAMES_READ.setOpaque(this, framesRead + n);
    }

    /** On the loop's thread: {@code n} more bytes read. */
    void bytesRead(int n) {
        BYTES_READ.setOpaque(this, bytesRead + n);
    }

    /** On the loop's thread: {@code n} more bytes sent. */
    void bytesWritten(int n) {
        BYTES_WRITTEN.setOpaque(this, bytesWritten + n);
    }

    /** On the loop's thread: the pool now holds {@code bytes}. */
    void pooledBytes(long bytes) {
        POOLED_BYTES.setOpaque(this, bytes);
    }

    /** {@return the frames read so far}, from any thread */
    long framesRead() {
        return (long) FRAMES_READ.getOpaque(this);
    }

    /** {@return the bytes read so far}, from any thread */
    long bytesRead() {
        return (long) BYTES_READ.getOpaque(this);
    }

    /** {@return the bytes written so far}, from any thread */
    long bytesWritten() {
        return (long) BYTES_WRITTEN.getOpaque(this);
    }

    /** {@return the bytes the loop's pool has allocated}, from any thread */
    long pooledBytes() {
        return (long) POOLED_BYTES.getOpaque(this);
    }
}
