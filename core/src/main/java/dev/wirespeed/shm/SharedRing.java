package dev.wirespeed.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A ring of frames in a file mapped into memory by each process that opens it: one writes frames in
 * ({@link #writer()}), one reads them out ({@link #reader()}), in order, with no system call and no
 * lock per frame. The file lives in memory where it is under {@code /dev/shm}; or it has no name at all
 * ({@link #create(FileChannel, int)}): a memory file that only the processes it is handed to can map.
 *
 * <p>The layout ({@code docs/shared-ring.md} has it byte by byte): a header page, then {@link
 * #capacity()} bytes of records. A record is a frame of the wire protocol (a 4-byte type and a 4-byte
 * length, big-endian, then the body), padded to a multiple of 8 bytes; a frame never wraps around the
 * ring's end: where it would, a padding record (length -1) fills the bytes to the end and the frame
 * begins at the start. Two counters in the header, each on a cache line of its own, count bytes from
 * the ring's start, and only grow: the tail, which the writer alone moves, after the records it covers
 * are written (a release store); the head, which the reader alone moves, once it is done with the
 * records before it (a release store). Each reads the other's with an acquire load: what the writer
 * wrote before moving the tail is there for the reader that sees it moved, and the bytes the reader
 * is done with are the writer's again only once it moved the head past them. The counters are 64-bit
 * little-endian; the library runs only where that is the native order.
 *
 * <p>A reader with nothing to read may sleep ({@link RingReader#take}): it sets a word of the header
 * (at 384, a cache line of its own) to 1 and sleeps on it by its {@link RingSleep}; a writer made with
 * {@link #writer(RingSleep)} looks at the word after each frame it publishes, and where the reader
 * sleeps, sets it back to 0 and wakes it. Both sides put a full fence between their store and their
 * look at the other's, so that either the reader sees the frame or the writer sees the reader asleep.
 *
 * <p>One process writes and one reads ({@link ManyToOneRing} takes writers in any number of threads and
 * processes); this object hands out one writer and one reader, for one thread each. The header holds
 * each end's process (its id and start time): an end another live process holds is refused, one whose
 * process is gone is taken over (a new writer goes on from the last frame its predecessor committed).
 * Closing this object closes its ends: a reader then reads to the last frame and sees the end; a reader
 * whose writer died without closing is told so ({@link PeerGoneException}) once it has every frame the
 * writer committed, and a writer asks {@link RingWriter#readerGone()}. A frame's body is at most {@link
 * #maxFrameLength()}: half the capacity less its header, so that a frame always fits once the reader
 * has caught up, padding included.
 *
 * <p>Thread safety: {@link #writer()}, {@link #reader()} and {@link #close()} from any thread; the
 * writer and reader each confined to one thread at a time. Closing unmaps the file: neither may be used
 * after.
 */
public final class SharedRing implements AutoCloseable {
    /** The header's bytes, before the records: a page. */
    public static final int HEADER_BYTES = 4096;
    /** The smallest capacity: a page. */
    public static final int MIN_CAPACITY = 4096;
    /** The largest capacity: 1 GiB. */
    public static final int MAX_CAPACITY = 1 << 30;
    static final long MAGIC_OFFSET = 0;
    static final long CAPACITY_OFFSET = 8;
    static final long MAX_FRAME_OFFSET = 12;
    static final long TAIL_OFFSET = 128;
    static final long HEAD_OFFSET = 256;
    /** The reader's word: 1 while it sleeps, or is about to, waiting for the writer to wake it; else 0. */
    static final long SLEEPING_OFFSET = 384;
    /** The writer's slot: its process id (0 for none yet, -1 once closed), then its start time. */
    static final long WRITER_OFFSET = 512;
    /** The reader's slot, as the writer's. */
    static final long READER_OFFSET = 640;
    /** A record's start and size are multiples of this. */
    static final int ALIGNMENT = 8;
    /** A record's header: the frame's type and length. */
    static final int RECORD_HEADER = 8;
    /** The length of a padding record, which runs to the ring's end. */
    static final int PADDING = -1;

    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** The ring's file, or null for a ring made or opened in a channel. */
    private final Path file;
    /** What messages call the ring: its file, or the channel's. */
    private final String where;
    private final Arena arena;
    private final MemorySegment region;
    private final int capacity;
    private RingWriter writer;
    private RingReader reader;
    private boolean closed;

    private SharedRing(Path file, RingFile mapped) {
        this.file = file;
        this.where = RingFile.where(file);
        this.arena = mapped.arena();
        this.region = mapped.region();
        this.capacity = mapped.capacity();
    }

    /**
     * Makes a new ring file of {@code capacity} bytes of records and maps it.
     *
     * @param file where, a file that does not exist yet (under {@code /dev/shm} to stay in memory), on a file
     *     system with hard links: the ring is made whole under another name in the same directory, then
     *     linked to this one
     * @param capacity bytes of records: a power of two from {@value #MIN_CAPACITY} to {@value #MAX_CAPACITY}
     * @return the ring, empty
     * @throws IllegalArgumentException if {@code capacity} is out of range or not a power of two, naming it
     * @throws java.nio.file.FileAlreadyExistsException if the file exists: a ring another process may use
     * @throws IOException if the file cannot be made or mapped
     */
    public static SharedRing create(Path file, int capacity) throws IOException {
        return new SharedRing(file, RingFile.create(file, capacity, RingKind.ONE_TO_ONE, region -> { }));
    }

    /**
     * Makes a new ring of {@code capacity} bytes of records in the empty file {@code channel} reads and
     * writes, and maps it: for a file with no name another process could open, such as a memory file
     * ({@code memfd_create(2)}) handed to the other side over a Unix socket, which that side opens with
     * {@link #open(FileChannel)}. The file grows to {@value #HEADER_BYTES} bytes and the capacity; its
     * header's magic is written last, so that an open that comes before the end refuses the file as not a
     * ring. The ring has no {@link #file()}.
     *
     * <p>The channel stays the caller's: this method neither closes it nor keeps it, and the mapping outlives
     * it (closing the channel once this returns leaves the ring as it is; {@link #close()} unmaps it). The
     * caller keeps the file the size it is made for as long as any process maps it: a file cut shorter
     * under a mapping kills the processes that touch the bytes cut ({@code SIGBUS}), which a memory file
     * sealed against shrinking and growing rules out.
     *
     * @param channel a channel open for reading and writing on an empty file, which no other process uses
     *     until this returns
     * @param capacity bytes of records: a power of two from {@value #MIN_CAPACITY} to {@value #MAX_CAPACITY}
     * @return the ring, empty
     * @throws IllegalArgumentException if {@code capacity} is out of range or not a power of two, naming it
     * @throws java.nio.channels.NonReadableChannelException if {@code channel} was not opened for reading
     * @throws java.nio.channels.NonWritableChannelException if {@code channel} was not opened for writing
     * @throws IOException if the file is not empty (naming its size), or cannot be grown or mapped
     */
    public static SharedRing create(FileChannel channel, int capacity) throws IOException {
        return new SharedRing(null, RingFile.create(channel, capacity, RingKind.ONE_TO_ONE, region -> { }));
    }

    /**
     * Maps a ring file another process made with {@link #create}.
     *
     * @param file the ring's file
     * @return the ring
     * @throws IOException if the file cannot be mapped, holds a {@link ManyToOneRing} (naming it), or is not
     *     a ring of this layout (its size, magic, capacity or frame limit off), naming what was found and what
     *     was expected
     */
    public static SharedRing open(Path file) throws IOException {
        return new SharedRing(file, RingFile.open(file, RingKind.ONE_TO_ONE));
    }

    /**
     * Maps the ring in the file {@code channel} reads and writes, which another process made, with {@link
     * #create(FileChannel, int)} or {@link #create(Path, int)}, and checks it as {@link #open(Path)} does.
     * The ring has no {@link #file()}.
     *
     * <p>The channel stays the caller's, as for {@link #create(FileChannel, int)}: the mapping outlives it.
     * The ring's size is checked once, here: the file must keep it while mapped (a file cut shorter under
     * the mapping kills this process where it touches the bytes cut, {@code SIGBUS}), so a file from a
     * process that is not trusted should be one sealed against shrinking (a memory file whose seals were
     * checked, as the native module's {@code NativeSocket.receiveMemoryFile} does).
     *
     * @param channel a channel open for reading and writing on the ring's file
     * @return the ring
     * @throws java.nio.channels.NonReadableChannelException if {@code channel} was not opened for reading
     * @throws java.nio.channels.NonWritableChannelException if {@code channel} was not opened for writing
     * @throws IOException if the file cannot be mapped, holds a {@link ManyToOneRing} (naming it), or is not
     *     a ring of this layout (its size, magic, capacity or frame limit off), naming what was found and what
     *     was expected
     */
    public static SharedRing open(FileChannel channel) throws IOException {
        return new SharedRing(null, RingFile.open(channel, RingKind.ONE_TO_ONE));
    }

    /** {@return the ring's file, or null for a ring made or opened in a channel} */
    public Path file() {
        return file;
    }

    /** {@return what messages call the ring: its file, or the channel's where it has none} */
    String where() {
        return where;
    }

    /** {@return the bytes of records the ring holds at most} */
    public int capacity() {
        return capacity;
    }

    /** {@return the longest body a frame may have: half the capacity less its 8-byte header} */
    public int maxFrameLength() {
        return maxFrameLength(capacity);
    }

    /**
     * {@return the ring's writer}, which wakes no reader: for a reader that does not sleep, or sleeps by
     * {@link RingSleep#polling()}; one per ring object, for the one process that writes
     *
     * @throws IllegalStateException if it was taken already, or the ring is closed
     */
    public RingWriter writer() {
        return writer(null);
    }

    /**
     * {@return the ring's writer, which wakes a reader that sleeps ({@link RingReader#take}) with {@code
     * wakes}}: each frame's publication then orders itself before the look at the reader's word (a full
     * fence), which a reader that sleeps needs so that no frame is left unseen; one per ring object, for
     * the one process that writes
     *
     * @param wakes how to wake the reader: the reader's kind of sleep, for this thread
     * @throws IllegalStateException if it was taken already, the ring is closed, or another live process
     *     holds the ring's writer, naming it
     */
    public synchronized RingWriter writer(RingSleep wakes) {
        checkOpen();
        if (writer != null) {
            throw new IllegalStateException("the writer of " + where + " was taken already: one writer per ring");
        }
        Peer.take(region, WRITER_OFFSET, "writer", where);
        writer = new RingWriter(this, region, capacity, wakes);
        return writer;
    }

    /**
     * {@return the ring's reader}: one per ring object, for the one process that reads
     *
     * @throws IllegalStateException if it was taken already, the ring is closed, or another live process
     *     holds the ring's reader, naming it
     */
    public synchronized RingReader reader() {
        checkOpen();
        if (reader != null) {
            throw new IllegalStateException("the reader of " + where + " was taken already: one reader per ring");
        }
        Peer.take(region, READER_OFFSET, "reader", where);
        reader = new RingReader(this, region, capacity);
        return reader;
    }

    /**
     * Closes the ends this object handed out (the other side sees them closed: a reader reads to the last
     * frame, then the end) and unmaps the file; its writer and reader must not be used after. The file
     * stays, for the other side (a memory file lasts until the last process that has it open or mapped
     * closes it).
     */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            if (writer != null) {
                Peer.close(region, WRITER_OFFSET);
            }
            if (reader != null) {
                Peer.close(region, READER_OFFSET);
            }
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "SharedRing[" + where + " capacity=" + capacity + "]";
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the ring " + where + " is closed");
        }
    }

    static int maxFrameLength(int capacity) {
        return capacity / 2 - RECORD_HEADER;
    }
}
