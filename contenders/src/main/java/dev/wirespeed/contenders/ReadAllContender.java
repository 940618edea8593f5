package dev.wirespeed.contenders;

import dev.wirespeed.io.ReadAll;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One way of reading everything: the JDK's and the library's, from a stream of unknown size or from a
 * file. The lab's {@code readall} experiment and the {@code ReadAllVsJdkReadAllBytes} benchmark both
 * measure these.
 *
 * <p>Thread safety: the constants are immutable; each call reads on its own.
 */
public enum ReadAllContender {
    /** {@code InputStream.readAllBytes()} on a stream that does not override it. */
    JDK_STREAM,
    /** {@code ReadAll.readAll(InputStream)}, same stream. */
    WIRESPEED_STREAM,
    /** {@code Files.readAllBytes(Path)}. */
    JDK_FILE,
    /** {@code ReadAll.readAll(Path)}, same file. */
    WIRESPEED_FILE;

    /** {@return true for the two that read a stream, false for the two that read a file} */
    public boolean readsStream() {
        return this == JDK_STREAM || this == WIRESPEED_STREAM;
    }

    /** {@return true for the library's, false for the JDK's} */
    public boolean library() {
        return this == WIRESPEED_STREAM || this == WIRESPEED_FILE;
    }

    /**
     * {@return every byte of {@code data}, through {@link #unknownSizeStream} over it, or of {@code file}}
     *
     * @param data what a stream contender reads
     * @param file what a file contender reads: the same bytes, where both are to be compared
     * @throws IOException if reading fails
     */
    public byte[] read(byte[] data, Path file) throws IOException {
        return switch (this) {
            case JDK_STREAM -> unknownSizeStream(data).readAllBytes();
            case WIRESPEED_STREAM -> ReadAll.readAll(unknownSizeStream(data));
            case JDK_FILE -> Files.readAllBytes(file);
            case WIRESPEED_FILE -> ReadAll.readAll(file);
        };
    }

    /**
     * {@return a stream over {@code data} that does not tell its size}: it overrides neither
     * {@code available} nor {@code readAllBytes}, as a socket's or a decompressor's stream would not
     *
     * @param data the bytes, not copied
     */
    public static InputStream unknownSizeStream(byte[] data) {
        return new InputStream() {
            private int at;

            @Override
            public int read() {
                return at < data.length ? data[at++] & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) {
                    return 0;
                }
                if (at == data.length) {
                    return -1;
                }
                int n = Math.min(len, data.length - at);
                System.arraycopy(data, at, b, off, n);
                at += n;
                return n;
            }
        };
    }
}
