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
 * and its capacity. Made whole under another name and linked to its own, or in an empty file a caller
 * opened; or opened and checked against the kind the caller expects.
 *
 * <p>Thread safety: immutable; the mapping is shared by the ring's ends.
 */
record RingFile(Arena arena, MemorySegment region, int capacity) {
    /** The fewest bytes a ring file of any kind has: the smallest header and the smallest capacity. */
    private static final long LEAST_SIZE = SharedRing.HEADER_BYTES + (long) SharedRing.MIN_CAPACITY;
    /** What messages call a ring made or opened in a channel, which has no name of its own. */
    static final String IN_CHANNEL = "the channel's file";

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
        try (FileChannel channel = FileChannel.open(draft, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            RingFile made = make(channel, capacity, kind, init);
            try {
                Files.createLink(file, draft);
            } catch (IOException | RuntimeException e) {
                made.arena.close();
                throw e;
            }
            return made;
        } finally {
            Files.deleteIfExists(draft);
        }
    }

    /**
     * Makes a new ring of {@code kind} in the empty file {@code channel} reads and writes, as {@link
     * #create(Path, int, RingKind, Consumer)} does in its draft.
     *
     * @throws IllegalArgumentException if {@code capacity} is out of range or not a power of two, naming it
     * @throws IOException if the file is not empty, naming its size, or cannot be grown or mapped
     */
    static RingFile create(FileChannel channel, int capacity, RingKind kind, Consumer<MemorySegment> init)
            throws IOException {
        Objects.requireNonNull(channel, "channel");
        checkCapacity(capacity, "capacity=" + capacity);
        checkOrder();
        long size = channel.size();
        if (size != 0) {
            throw new IOException("a ring is made in an empty file: " + IN_CHANNEL + " has " + size + " bytes");
        }
        return make(channel, capacity, kind, init);
    }

    /** Grows the empty file of {@code channel} to the ring's size, maps it and writes the header, the magic last. */
    private static RingFile make(FileChannel channel, int capacity, RingKind kind, Consumer<MemorySegment> init)
            throws IOException {
        Arena arena = Arena.ofShared();
        try {
            // Mapping past the file's end grows it (ftruncate) to the ring's size, zeros throughout.
            MemorySegment region = channel.map(FileChannel.MapMode.READ_WRITE, 0, kind.headerBytes + (long) capacity,
                    arena);
            region.set(ValueLayout.JAVA_INT, SharedRing.CAPACITY_OFFSET, capacity);
            region.set(ValueLayout.JAVA_INT, SharedRing.MAX_FRAME_OFFSET, SharedRing.maxFrameLength(capacity));
            init.accept(region);
            SharedRing.LONG.setRelease(region, SharedRing.MAGIC_OFFSET, kind.magic);
            return new RingFile(arena, region, capacity);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
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
            return map(channel, file.toString(), kind);
        }
    }

    /** Maps the ring of {@code kind} in the file {@code channel} reads and writes, as {@link #open(Path, RingKind)}. */
    static RingFile open(FileChannel channel, RingKind kind) throws IOException {
        Objects.requireNonNull(channel, "channel");
        checkOrder();
        return map(channel, IN_CHANNEL, kind);
    }

    /** Maps and checks the ring in {@code channel}'s file, which messages call {@code where}. */
    private static RingFile map(FileChannel channel, String where, RingKind kind) throws IOException {
        try {
            long size = channel.size();
            if (size < LEAST_SIZE) {
                throw new IOException("not a shared ring: " + where + " has " + size + " bytes, less than a header of "
                        + SharedRing.HEADER_BYTES + " and the least capacity " + SharedRing.MIN_CAPACITY);
            }
            Arena arena = Arena.ofShared();
            try {
                MemorySegment region = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                long magic = (long) SharedRing.LONG.getAcquire(region, SharedRing.MAGIC_OFFSET);
                if (magic != kind.magic) {
                    RingKind other = RingKind.ofMagic(magic);
                    if (other != null) {
                        throw new IOException(where + " holds " + other.description + ", layout " + other.version
                                + ", not " + kind.description + ", layout " + kind.version + ": open it with "
                                + other.opener);
                    }
                    throw new IOException("not a shared ring of layout " + kind.version + ": " + where
                            + " begins with 0x" + Long.toHexString(magic) + ", not 0x" + Long.toHexString(kind.magic));
                }
                int capacity = region.get(ValueLayout.JAVA_INT, SharedRing.CAPACITY_OFFSET);
                checkCapacity(capacity, "a ring file's capacity=" + capacity + " (" + where + ")");
                if (size != kind.headerBytes + (long) capacity) {
                    throw new IOException("a broken shared ring: " + where + " has " + size + " bytes, not the header's "
                            + kind.headerBytes + " and its capacity " + capacity);
                }
                int maxFrame = region.get(ValueLayout.JAVA_INT, SharedRing.MAX_FRAME_OFFSET);
                if (maxFrame != SharedRing.maxFrameLength(capacity)) {
                    throw new IOException("a broken shared ring: " + where + " says maxFrameLength=" + maxFrame
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

    /** {@return what messages call the ring of {@code file}, or of a channel where {@code file} is null} */
    static String where(Path file) {
        return file != null ? file.toString() : IN_CHANNEL;
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
