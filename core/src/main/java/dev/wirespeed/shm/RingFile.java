package dev.wirespeed.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A ring's file mapped whole, of either {@link RingKind}: its arena, its mapping (header, then records)
 * and its capacity. Made whole under another name and linked to its own, or opened and checked against
 * the kind the caller expects.
 *
 * <p>Thread safety: immutable; the mapping is shared by the ring's ends.
 */
record RingFile(Arena arena, MemorySegment region, int capacity) {
    /** The fewest bytes a ring file of any kind has: the smallest header and the smallest capacity. */
    private static final long LEAST_SIZE = SharedRing.HEADER_BYTES + (long) SharedRing.MIN_CAPACITY;

    /**
     * Makes a new ring file of {@code kind} with {@code capacity} bytes of records, its header's capacity
     * and frame limit written, then {@code init}'s fields, then the magic, last.
     *
     * @throws IllegalArgumentException if {@code capacity} is out of range or not a power of two, naming it
     * @throws java.nio.file.FileAlreadyExistsException if the file exists
     * @throws IOException if the file cannot be made or mapped
     */
    static RingFile create(Path file, int capacity, RingKind kind, Consumer<MemorySegment> init) throws IOException {
        Objects.requireNonNull(file, "file");
        checkCapacity(capacity, "capacity=" + capacity);
        checkOrder();
        // Made whole under a name of its own, then linked to its name (which fails if a file is there), so
        // that a process that opens the ring never finds it half made.
        Path draft = file.resolveSibling(file.getFileName() + ".new-" + ProcessHandle.current().pid() + "-"
                + System.nanoTime());
        Arena arena = Arena.ofShared();
        try {
            MemorySegment region;
            try (FileChannel channel = FileChannel.open(draft, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                region = channel.map(FileChannel.MapMode.READ_WRITE, 0, kind.headerBytes + (long) capacity, arena);
            }
            region.set(ValueLayout.JAVA_INT, SharedRing.CAPACITY_OFFSET, capacity);
            region.set(ValueLayout.JAVA_INT, SharedRing.MAX_FRAME_OFFSET, SharedRing.maxFrameLength(capacity));
            init.accept(region);
            SharedRing.LONG.setRelease(region, SharedRing.MAGIC_OFFSET, kind.magic);
            Files.createLink(file, draft);
            return new RingFile(arena, region, capacity);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        } finally {
            Files.deleteIfExists(draft);
        }
    }

    /**
     * Maps a ring file of {@code kind} another process made.
     *
     * @throws IOException if the file cannot be mapped, holds a ring of another kind (naming it and what
     *     opens it), or is not a ring of this layout (its size, magic, capacity or frame limit off), naming
     *     what was found and what was expected
     */
    static RingFile open(Path file, RingKind kind) throws IOException {
        Objects.requireNonNull(file, "file");
        checkOrder();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size < LEAST_SIZE) {
                throw new IOException("not a shared ring: " + file + " has " + size + " bytes, less than a header of "
                        + SharedRing.HEADER_BYTES + " and the least capacity " + SharedRing.MIN_CAPACITY);
            }
            Arena arena = Arena.ofShared();
            try {
                MemorySegment region = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                long magic = (long) SharedRing.LONG.getAcquire(region, SharedRing.MAGIC_OFFSET);
                if (magic != kind.magic) {
                    RingKind other = RingKind.ofMagic(magic);
                    if (other != null) {
                        throw new IOException(file + " holds " + other.description + ", layout " + other.version
                                + ", not " + kind.description + ", layout " + kind.version + ": open it with "
                                + other.opener);
                    }
                    throw new IOException("not a shared ring of layout " + kind.version + ": " + file
                            + " begins with 0x" + Long.toHexString(magic) + ", not 0x" + Long.toHexString(kind.magic));
                }
                int capacity = region.get(ValueLayout.JAVA_INT, SharedRing.CAPACITY_OFFSET);
                checkCapacity(capacity, "a ring file's capacity=" + capacity + " (" + file + ")");
                if (size != kind.headerBytes + (long) capacity) {
                    throw new IOException("a broken shared ring: " + file + " has " + size + " bytes, not the header's "
                            + kind.headerBytes + " and its capacity " + capacity);
                }
                int maxFrame = region.get(ValueLayout.JAVA_INT, SharedRing.MAX_FRAME_OFFSET);
                if (maxFrame != SharedRing.maxFrameLength(capacity)) {
                    throw new IOException("a broken shared ring: " + file + " says maxFrameLength=" + maxFrame
                            + ", not " + SharedRing.maxFrameLength(capacity) + " for capacity=" + capacity);
                }
                return new RingFile(arena, region, capacity);
            } catch (IOException | RuntimeException e) {
                arena.close();
                throw e;
            }
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static void checkCapacity(int capacity, String what) {
        if (capacity < SharedRing.MIN_CAPACITY || capacity > SharedRing.MAX_CAPACITY
                || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException(what + ": must be a power of two from " + SharedRing.MIN_CAPACITY
                    + " to " + SharedRing.MAX_CAPACITY);
        }
    }

    private static void checkOrder() {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UnsupportedOperationException("a shared ring's counters are little-endian, this platform's "
                    + "native order is " + ByteOrder.nativeOrder());
        }
    }
}
