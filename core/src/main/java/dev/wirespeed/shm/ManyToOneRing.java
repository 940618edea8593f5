package dev.wirespeed.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A ring of frames in a file mapped into memory by each process that opens it, as {@link SharedRing},
 * but with writers in any number of threads and processes ({@link #writer()}, one per thread, up to
 * {@value #MAX_WRITERS} at a time) and one reader ({@link #reader()}), which hands the frames over in the
 * order their writers claimed room for them, with no system call and no lock per frame.
 *
 * <p>The layout ({@code docs/shared-ring.md} has it byte by byte) is the shared ring's layout 2: its own
 * magic, so that neither kind of ring is ever read as the other ({@link SharedRing#open} refuses this
 * kind's file and {@link #open} the other's, naming what the file holds). A header of {@value
 * #HEADER_BYTES} bytes (the one-to-one header's page, then two pages of {@value #MAX_WRITERS} writer
 * slots of {@value #SLOT_BYTES} bytes), then {@link #capacity()} bytes of records:
 *
 * <pre>
 * a record, at a multiple of 8, taking a multiple of 8 bytes; never across the ring's end
 * +----------------+----------------+---------------------+----------------+
 * | commit word    | type           | body                | 0-7 bytes      |
 * | 4, little-end. | 4, big-endian  | (word - 8) bytes    | to a multiple  |
 * +----------------+----------------+---------------------+----------------+
 * commit word:  0            not committed: free, or claimed and not yet written
 *               8 .. max + 8 a frame: the record's bytes, its 8-byte header and the body
 *               -8, -16, ..  a skip of that many bytes: padding to the ring's end, or an aborted claim
 * </pre>
 *
 * <p>A writer claims room by a compare-and-set of the header's claim counter (the tail: bytes claimed
 * since the ring began), from the value it read to that value plus the record's size (and the padding to
 * the ring's end before it, where the record would cross it), once it found the room free ({@code tail +
 * bytes - head <= capacity}, the head read with acquire semantics). Before the compare-and-set it
 * announces the claim in its slot: the position and the bytes. It writes the record in place, then
 * commits it by a release store of the commit word, and the padding's after it: a claim's first word is
 * always the last the writer stores. The reader loads the commit word at its head with acquire
 * semantics: 0 stops it there, however many committed records follow; a frame it hands over, a skip it
 * steps over. Once done with them it writes zeros over the records' bytes, then gives them back with a
 * release store of the head: every byte of the ring past the head is zero until a writer claims it, so
 * an uncommitted record is one whose word is still 0. A full ring pushes back: the writer says so and
 * writes nothing.
 *
 * <p>A writer that dies between its claim and its commit would stop the reader at that record for good.
 * The rule: a claim that stops the reader for 100 ms is looked at, and again every 100 ms while it
 * stops it, by the slots that announced it: while one
 * of their writers' processes runs (and its end is open), the reader waits, however long; once every
 * one is gone (its process ended, as {@link Peer} tells it, or its end was closed with the claim open)
 * the claim is lost: the reader writes zeros over its announced bytes, moves past them, and reports it
 * as a {@link PeerGoneException} naming the process and the claim's position; the frames after it come
 * on the next call. So a writer killed mid-frame costs that frame, never the ring; a thread that claims
 * and never commits nor aborts, in a process that runs on, holds the reader for as long as it runs.
 *
 * <p>A reader with nothing to read may sleep on the header's word ({@link ManyToOneReader#take}); a
 * writer made with {@link #writer(RingSleep)} puts a full fence after each commit and wakes a reader that
 * sleeps, as the one-to-one ring's writer does after each tail.
 *
 * <p>A frame's body is at most {@link #maxFrameLength()}: half the capacity less its header. A ring ends
 * only as its file does: its writers come and go, and the reader is never told that no more will come.
 *
 * <p>Thread safety: {@link #writer()}, {@link #reader()} and {@link #close()} from any thread; each
 * writer and the reader confined to one thread at a time. Closing unmaps the file: no writer nor the
 * reader may be used after.
 */
public final class ManyToOneRing implements AutoCloseable {
    /** The header's bytes, before the records: the one-to-one header's page and two pages of writer slots. */
    public static final int HEADER_BYTES = 12_288;
    /** The writers a ring holds at a time: its writer slots. */
    public static final int MAX_WRITERS = 64;
    /** The header's count of writer slots, {@value #MAX_WRITERS}. */
    static final long WRITERS_OFFSET = 16;
    /** The first writer slot. */
    static final long SLOTS_OFFSET = 4096;
    /** A writer slot's bytes: its fields, then reserved bytes to keep each on a cache line and the next of its own. */
    static final int SLOT_BYTES = 128;
    /** A slot's announced claim: the ring position it claims at, or {@link #NO_CLAIM}. */
    static final long CLAIM_AT = 16;
    /** A slot's announced claim's bytes: the record's, and the padding's before it. */
    static final long CLAIM_BYTES = 24;
    /** A slot's claim position for none. */
    static final long NO_CLAIM = -1;

    /** The ring's file, or null for a ring made or opened in a channel. */
    private final Path file;
    /** What messages call the ring: its file, or the channel's. */
    private final String where;
    private final Arena arena;
    private final MemorySegment region;
    private final int capacity;
    private final List<ManyToOneWriter> writers = new ArrayList<>();
    private ManyToOneReader reader;
    private boolean closed;

    private ManyToOneRing(Path file, RingFile mapped) {
        this.file = file;
        this.where = RingFile.where(file);
        this.arena = mapped.arena();
        this.region = mapped.region();
        this.capacity = mapped.capacity();
    }

    /**
     * Makes a new many-to-one ring file of {@code capacity} bytes of records and maps it.
     *
     * @param file where, a file that does not exist yet (under {@code /dev/shm} to stay in memory), on a file
     *     system with hard links: the ring is made whole under another name in the same directory, then
     *     linked to this one
     * @param capacity bytes of records: a power of two from {@value SharedRing#MIN_CAPACITY} to {@value
     *     SharedRing#MAX_CAPACITY}
     * @return the ring, empty
     * @throws IllegalArgumentException if {@code capacity} is out of range or not a power of two, naming it
     * @throws java.nio.file.FileAlreadyExistsException if the file exists: a ring another process may use
     * @throws IOException if the file cannot be made or mapped
     */
    public static ManyToOneRing create(Path file, int capacity) throws IOException {
        return new ManyToOneRing(file, RingFile.create(file, capacity, RingKind.MANY_TO_ONE, ManyToOneRing::init));
    }

    /**
     * Makes a new many-to-one ring of {@code capacity} bytes of records in the empty file {@code channel}
     * reads and writes, and maps it, as {@link SharedRing#create(FileChannel, int)} makes a one-to-one ring
     * (its contract, the channel's and the file's, is this method's): for a memory file handed to the other
     * processes over a Unix socket, which they open with {@link #open(FileChannel)}. The ring has no {@link
     * #file()}.
     *
     * @param channel a channel open for reading and writing on an empty file, which no other process uses
     *     until this returns
     * @param capacity bytes of records: a power of two from {@value SharedRing#MIN_CAPACITY} to {@value
     *     SharedRing#MAX_CAPACITY}
     * @return the ring, empty
     * @throws IllegalArgumentException if {@code capacity} is out of range or not a power of two, naming it
     * @throws java.nio.channels.NonReadableChannelException if {@code channel} was not opened for reading
     * @throws java.nio.channels.NonWritableChannelException if {@code channel} was not opened for writing
     * @throws IOException if the file is not empty (naming its size), or cannot be grown or mapped
     */
    public static ManyToOneRing create(FileChannel channel, int capacity) throws IOException {
        return new ManyToOneRing(null, RingFile.create(channel, capacity, RingKind.MANY_TO_ONE, ManyToOneRing::init));
    }

    /** Writes the writer slots' count, and no claim in each, into a new ring's header. */
    private static void init(MemorySegment region) {
        region.set(ValueLayout.JAVA_INT, WRITERS_OFFSET, MAX_WRITERS);
        for (int i = 0; i < MAX_WRITERS; i++) {
            region.set(ValueLayout.JAVA_LONG, WriterSlots.offset(i) + CLAIM_AT, NO_CLAIM);
        }
    }

    /**
     * Maps a many-to-one ring file another process made with {@link #create}.
     *
     * @param file the ring's file
     * @return the ring
     * @throws IOException if the file cannot be mapped, holds a {@link SharedRing} (naming it), or is not a
     *     ring of this layout (its size, magic, capacity, frame limit or count of writer slots off), naming
     *     what was found and what was expected
     */
    public static ManyToOneRing open(Path file) throws IOException {
        return new ManyToOneRing(file, checkSlots(RingFile.open(file, RingKind.MANY_TO_ONE), file));
    }

    /**
     * Maps the many-to-one ring in the file {@code channel} reads and writes, which another process made,
     * and checks it as {@link #open(Path)} does; the contract of {@link SharedRing#open(FileChannel)}, the
     * channel's and the file's, is this method's. The ring has no {@link #file()}.
     *
     * @param channel a channel open for reading and writing on the ring's file
     * @return the ring
     * @throws java.nio.channels.NonReadableChannelException if {@code channel} was not opened for reading
     * @throws java.nio.channels.NonWritableChannelException if {@code channel} was not opened for writing
     * @throws IOException if the file cannot be mapped, holds a {@link SharedRing} (naming it), or is not a
     *     ring of this layout (its size, magic, capacity, frame limit or count of writer slots off), naming
     *     what was found and what was expected
     */
    public static ManyToOneRing open(FileChannel channel) throws IOException {
        return new ManyToOneRing(null, checkSlots(RingFile.open(channel, RingKind.MANY_TO_ONE), null));
    }

    /** {@return {@code mapped}, whose count of writer slots is checked; unmapped where it is refused} */
    private static RingFile checkSlots(RingFile mapped, Path file) throws IOException {
        int slots = mapped.region().get(ValueLayout.JAVA_INT, WRITERS_OFFSET);
        if (slots != MAX_WRITERS) {
            mapped.arena().close();
            throw new IOException("a broken shared ring: " + RingFile.where(file) + " says writers=" + slots
                    + ", not the layout's " + MAX_WRITERS);
        }
        return mapped;
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
        return SharedRing.maxFrameLength(capacity);
    }

    /**
     * {@return a new writer, which wakes no reader}: for a reader that does not sleep, or sleeps by {@link
     * RingSleep#polling()}; for one thread at a time, holding a writer slot until closed
     *
     * @throws IllegalStateException if the ring is closed, or every writer slot is taken, naming how
     */
    public ManyToOneWriter writer() {
        return writer(null);
    }

    /**
     * {@return a new writer, which wakes a reader that sleeps ({@link ManyToOneReader#take}) with {@code
     * wakes}}: each commit then orders itself before the look at the reader's word (a full fence); for one
     * thread at a time, holding a writer slot until closed
     *
     * @param wakes how to wake the reader: the reader's kind of sleep, for this writer's thread
     * @throws IllegalStateException if the ring is closed, or every writer slot is taken (held by live
     *     processes, or keeping a claim the reader has not passed), naming how
     */
    public synchronized ManyToOneWriter writer(RingSleep wakes) {
        checkOpen();
        int slot = WriterSlots.take(region, where);
        ManyToOneWriter writer = new ManyToOneWriter(this, region, capacity, slot, wakes);
        writers.add(writer);
        return writer;
    }

    /**
     * {@return the ring's reader}: one per ring object, for the one process that reads
     *
     * @throws IllegalStateException if it was taken already, the ring is closed, or another live process
     *     holds the ring's reader, naming it
     */
    public synchronized ManyToOneReader reader() {
        checkOpen();
        if (reader != null) {
            throw new IllegalStateException("the reader of " + where + " was taken already: one reader per ring");
        }
        Peer.take(region, SharedRing.READER_OFFSET, "reader", where);
        reader = new ManyToOneReader(this, region, capacity);
        return reader;
    }

    /**
     * Closes the writers and the reader this object handed out and unmaps the file; none of them may be
     * used after. A writer with a claim open loses it: the reader passes it as a gone writer's. The file
     * stays, for the other processes (a memory file lasts until the last process that has it open or mapped
     * closes it).
     */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            for (ManyToOneWriter w : writers) {
                WriterSlots.close(region, w.slot(), false); // its claim, if one is open, is the reader's to pass
            }
            writers.clear();
            if (reader != null) {
                Peer.close(region, SharedRing.READER_OFFSET);
            }
            arena.close();
        }
    }

    /** {@return whether this object is open: its mapping still there} */
    synchronized boolean isOpen() {
        return !closed;
    }

    /** Takes back the slot of {@code writer}, closed with no claim open. */
    synchronized void release(ManyToOneWriter writer) {
        if (!closed && writers.remove(writer)) {
            WriterSlots.close(region, writer.slot(), true);
        }
    }

    @Override
    public String toString() {
        return "ManyToOneRing[" + where + " capacity=" + capacity + "]";
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the ring " + where + " is closed");
        }
    }
}
