package dev.wirespeed.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Counts a byte (newlines, typically) in memory or in a file, eight bytes at a time, without a call
 * per byte: {@code wc -l} in Java.
 *
 * <p>A file is mapped read-only and scanned in place, any size (no 2 GiB limit), without copying it
 * into the Java heap; small files are read through a {@link ChannelReader} instead, where mapping
 * costs more than it saves. A file that changes while it is counted gives a count of some mix of its
 * old and new contents, as {@code wc} does.
 *
 * <p>Thread safety: stateless; safe from any thread.
 */
public final class ByteCounts {
    /** Below this size a file is read rather than mapped. */
    static final long MAP_THRESHOLD = 1 << 20;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private ByteCounts() {
    }

    /**
     * {@return how many bytes of {@code segment} equal {@code b}}
     *
     * @param segment the bytes, any size and alignment
     * @param b the byte to count
     */
    public static long count(MemorySegment segment, byte b) {
        long pattern = Swar.broadcast(b);
        long size = segment.byteSize();
        long count = 0;
        long i = 0;
        for (; i <= size - Long.BYTES; i += Long.BYTES) {
            count += Swar.count(segment.get(WORD, i), pattern);
        }
        for (; i < size; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, i) == b) {
                count++;
            }
        }
        return count;
    }

    /**
     * {@return how many bytes of the file equal {@code b}}
     *
     * @param file a regular file (or anything {@link FileChannel} can read to its end)
     * @param b the byte to count
     * @throws IOException if the file cannot be opened or read
     */
    public static long count(Path file, byte b) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < MAP_THRESHOLD) {
                return new ChannelReader(channel, 64 * 1024, 64 * 1024).countToEnd(b);
            }
            try (Arena arena = Arena.ofConfined()) {
                return count(channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena), b);
            }
        }
    }
}
