package dev.wirespeed.io.spi;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A platform's way of reading a regular file straight into a Java array: one copy (the kernel's,
 * from its page cache into the array) where a {@code FileChannel} makes two (into a direct buffer,
 * then into the array). {@link dev.wirespeed.io.ReadAll#readAll(Path)} uses the first provider that
 * {@link java.util.ServiceLoader} finds and that says it is {@linkplain #usable() usable}; it keeps
 * the algorithm (one exact array, windows, the end found by a probe, growth and shrinking while
 * read) and asks the provider only to open, read and close.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>{@link #open} either opens the file for reading or returns {@code null} having changed
 *       nothing: for anything it will not read (not a regular file, an empty one, bytes that are not
 *       all in memory, a name it cannot pass to the platform) and for any failure to open. The caller
 *       then reads the file through the JDK, which reports any error as the JDK does.</li>
 *   <li>{@link OpenFile#read} may keep the calling thread from reaching a safepoint while it
 *       copies (a critical down-call), so a provider copies at most a bounded window per call and
 *       only bytes it has seen to be in memory, never waiting for a disk; past them it reads as any
 *       blocking read does.</li>
 * </ul>
 *
 * <p>Thread safety: a provider is used by any number of threads at once; an {@link OpenFile} by
 * one thread at a time.
 */
public interface FileReadProvider {
    /** {@return a short name for reports, such as {@code "linux read(2) into the array"}} */
    String name();

    /** {@return whether this provider can work in this JVM: its platform, its native access} */
    boolean usable();

    /**
     * {@return why {@link #usable()} is false, in words a user can act on, or the empty string where it
     * is true}: for reports. The default says only that it is not usable.
     */
    default String unusableReason() {
        return usable() ? "" : "not usable in this JVM";
    }

    /**
     * Opens {@code file} for reading from its start, or returns {@code null} where this provider
     * will not read it, having changed nothing.
     *
     * @param file a path of the default file system
     * @return the open file, or null
     * @throws IOException only where the file was opened and then could not be inspected or closed
     */
    OpenFile open(Path file) throws IOException;

    /** A file opened by a provider, read from its start to its end, then closed. */
    interface OpenFile extends Closeable {
        /** {@return the file's size when it was opened: at least 1} */
        long size();

        /**
         * Reads up to {@code length} bytes into {@code into[offset, offset + length)}, blocking
         * until at least one byte arrives or the file ends.
         *
         * @param into the array
         * @param offset where in it the bytes go
         * @param length the most bytes to read
         * @return the number of bytes read, at least 1 where {@code length} is positive, or -1 at
         *     the end of the file
         * @throws IOException if the platform's read fails; the message names the file and offset
         */
        int read(byte[] into, int offset, int length) throws IOException;

        /** Closes the file; a second call does nothing. */
        @Override
        void close() throws IOException;
    }
}
