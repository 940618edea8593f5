package dev.wirespeed.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Counts a byte (newlines, typically) in memory or in a file, eight bytes at a time, without a call
 * per byte: {@code wc -l} in Java.
 *
 * <p>Started with {@code --add-modules jdk.incubator.vector}, the JVM lets it count a vector at a
 * time instead (32 bytes with AVX2; JMH {@code NewlineCountSwarVsVector} asks how much that gains).
 * The Vector API is still incubating in JDK 25, and a JVM using it
 * prints a warning at start-up, so that path is the user's choice, not the default; the system
 * property {@code wirespeed.vector=false} turns it off again.
 *
 * <p>A file of at least 1 MiB is mapped and counted in place; a smaller one is read through a
 * {@link ChannelReader} (one page-aligned native buffer, freed before the count returns), since
 * mapping and unmapping cost more than a small file's read. Bytes appended after the count began (past the
 * mapped size) are read and counted too. A file truncated while mapped is an {@link IOException}
 * rather than a crash; other concurrent changes give a count of some mix of old and new contents, as
 * {@code wc} does.
 *
 * <p>Thread safety: stateless; safe from any thread.
 */
public final class ByteCounts {
    /** Files at least this large are mapped; smaller ones are read (mapping and unmapping cost more there). */
    static final long MAP_THRESHOLD = 1 << 20;

    private ByteCounts() {
    }

    /**
     * {@return how many bytes of {@code segment} equal {@code b}}
     *
     * @param segment the bytes, any size and alignment
     * @param b the byte to count
     */
    public static long count(MemorySegment segment, byte b) {
        return SegmentCounts.count(segment, b);
    }

    /**
     * {@return how many bytes of the file equal {@code b}}
     *
     * @param file a regular file (or anything {@link FileChannel} can read to its end)
     * @param b the byte to count
     * @throws IOException if the file cannot be opened or read, or (mapped) was truncated while counted
     */
    public static long count(Path file, byte b) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                Arena arena = Arena.ofConfined()) {
            long size = channel.size();
            if (size >= MAP_THRESHOLD) {
                MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
                try {
                    return count(mapped, b) + countRest(channel, size, b, arena);
                } catch (InternalError e) {
                    // What an access to a mapping past the end of a file that shrank raises (SIGBUS).
                    throw new IOException("file shrank while counted (mapped " + size + " bytes): " + file, e);
                }
            }
            return countRest(channel, 0, b, arena);
        }
    }

    /** Counts from {@code position} to the end through a reader whose buffer is freed with {@code arena}. */
    private static long countRest(FileChannel channel, long position, byte b, Arena arena) throws IOException {
        channel.position(position);
        // The buffer is freed on return, not left to the collector: a direct ByteBuffer per call waits
        // for a collection to be freed, and a burst of small counts then pays for reserving memory.
        long capacity = Math.max(4096, Math.min(ChannelReader.DEFAULT_CAPACITY, channel.size() - position));
        ByteBuffer buffer = arena.allocate(capacity, Buffers.PAGE_SIZE).asByteBuffer();
        return new ChannelReader(channel, buffer).countToEnd(b);
    }
}
