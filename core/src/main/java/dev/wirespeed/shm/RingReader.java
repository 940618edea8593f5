package dev.wirespeed.shm;

import dev.wirespeed.frame.FrameHandler;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The one reader of a {@link SharedRing}: hands each frame the writer committed to a {@link
 * FrameHandler}, in order, its body a read-only view of the ring's memory, no copy. The bytes of the
 * frames a {@link #read} call handed over go back to the writer when it returns: a body is valid only
 * during its {@code onFrame}, as with {@link dev.wirespeed.frame.FrameReader}.
 *
 * <p>Every record is checked before it is handed over (its length within the frame limit and within
 * what the writer published, a padding record only where it may be): a writer that broke the layout
 * fails the read with a {@link CorruptRingException} naming the record's position, its length and the
 * limit; nothing from it on is handed over.
 *
 * <p>Allocates nothing per frame.
 *
 * <p>Thread safety: one thread at a time.
 */
public final class RingReader {
    /** Empty looks {@link #take} makes, calling again at once, before it sleeps. */
    static final int SPINS = 1_000;
    /** The longest sleep of {@link #take}: after it the reader looks whether its writer is still there. */
    static final long CHECK_MILLIS = 100;
    private final SharedRing ring;
    private final MemorySegment region;
    private final int capacity;
    private final int mask;
    private final int maxFrameLength;
    private final ByteBuffer data;
    /** The body view handed to the handler, re-pointed at each frame. */
    private final ByteBuffer view;
    private final MemorySegment sleepWord;
    /** Bytes read since the ring began: the next record's position. */
    private long head;
    /** The writer's tail as last read: the reader reads it again only once it has caught up. */
    private long tailSeen;
    private long frames;
    /** This reader's looks, for {@link #take}'s wait. */
    private final RingWait.Looks looks;

    RingReader(SharedRing ring, MemorySegment region, int capacity) {
        this.ring = ring;
        this.region = region;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxFrameLength = SharedRing.maxFrameLength(capacity);
        this.data = region.asSlice(SharedRing.HEADER_BYTES, capacity).asByteBuffer();
        this.view = data.asReadOnlyBuffer();
        this.sleepWord = region.asSlice(SharedRing.SLEEPING_OFFSET, 4);
        this.head = (long) SharedRing.LONG.getAcquire(region, SharedRing.HEAD_OFFSET);
        this.tailSeen = head;
        this.looks = new RingWait.Looks() {
            @Override
            public int read(FrameHandler handler, int limit) throws IOException {
                return RingReader.this.read(handler, limit);
            }

            @Override
            public boolean ended(boolean slept) throws PeerGoneException {
                return writerEnded(slept);
            }
        };
    }

    /**
     * Hands over the frames the writer has committed, {@code limit} at most, in order. The ring's bytes
     * of those frames go back to the writer when this returns, or when the handler throws (those before
     * the frame it threw on).
     *
     * @param handler given each frame
     * @param limit the most frames to hand over, at least 1
     * @return the frames handed over, 0 if none waited
     * @throws CorruptRingException if a record breaks the layout, naming it
     * @throws IOException what the handler threw, unchanged
     */
    public int read(FrameHandler handler, int limit) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit=" + limit + " must be at least 1");
        }
        int n = 0;
        long at = head;
        try {
            while (n < limit) {
                if (at == tailSeen) {
                    tailSeen = (long) SharedRing.LONG.getAcquire(region, SharedRing.TAIL_OFFSET);
                    if (at == tailSeen) {
                        break;
                    }
                }
                int offset = (int) (at & mask);
                int length = data.getInt(offset + 4);
                if (length == SharedRing.PADDING) {
                    at = checkPadding(at, offset);
                    continue;
                }
                int size = checkRecord(at, offset, length);
                int start = offset + SharedRing.RECORD_HEADER;
                view.limit(start + length).position(start);
                handler.onFrame(data.getInt(offset), view);
                at += size;
                n++;
            }
        } finally {
            if (at != head) {
                head = at;
                frames += n;
                SharedRing.LONG.setRelease(region, SharedRing.HEAD_OFFSET, at); // the bytes back to the writer
            }
        }
        return n;
    }

    /**
     * Hands over frames as {@link #read} does, waiting for one if none is there: first calling again,
     * {@value #SPINS} times, then telling the writer that it sleeps (the header's word set to 1, a full
     * fence), looking once more, and sleeping by {@code sleep} until the writer wakes it (a writer made
     * with {@link SharedRing#writer(RingSleep)}) or the sleep ends by itself; then it looks again, until
     * {@code timeout} has passed. A sleep lasts {@value #CHECK_MILLIS} ms at the most: after one that
     * brought nothing it looks whether the writer is still there.
     *
     * @param handler given each frame
     * @param limit the most frames to hand over, at least 1
     * @param sleep how to sleep: the kind the writer wakes
     * @param timeout the longest wait; zero or negative: one look
     * @return the frames handed over; 0 if none came within {@code timeout}; -1 at the end: the writer
     *     closed its end, and every frame it wrote was handed over
     * @throws PeerGoneException if the writer's process ended without closing its end, every frame it
     *     committed handed over: found within about {@value #CHECK_MILLIS} ms of waiting
     * @throws CorruptRingException if a record breaks the layout, naming it
     * @throws IOException what the handler threw, unchanged
     */
    public int take(FrameHandler handler, int limit, RingSleep sleep, Duration timeout) throws IOException {
        int n = read(handler, limit);
        if (n > 0) {
            return n;
        }
        if (timeout.isNegative() || timeout.isZero()) {
            return writerEnded(false) ? -1 : 0;
        }
        return RingWait.await(looks, handler, limit, region, sleepWord, sleep, System.nanoTime() + timeout.toNanos());
    }

    /**
     * {@return true where the writer closed its end and every frame is read}; asks the system whether a
     * writer's process still runs where {@code askSystem} (after a sleep that brought nothing)
     *
     * @throws PeerGoneException where its process ended without closing it, every frame read
     */
    private boolean writerEnded(boolean askSystem) throws PeerGoneException {
        long holder = Peer.holder(region, SharedRing.WRITER_OFFSET);
        if (holder == 0 || holder > 0 && (!askSystem || Peer.alive(region, SharedRing.WRITER_OFFSET, holder))) {
            return false; // no writer yet, or one that runs
        }
        // Closed, or gone: every frame it published is read first (it may have published more since the look).
        if ((long) SharedRing.LONG.getAcquire(region, SharedRing.TAIL_OFFSET) != head) {
            return false;
        }
        if (holder == Peer.CLOSED) {
            return true;
        }
        throw new PeerGoneException("the writer of " + ring.file() + ", process " + holder + ", ended without "
                + "closing it: every frame it committed was read, up to position=" + head + "; a frame it had "
                + "begun there, if any, is lost", holder, head);
    }

    /** {@return the frames handed over so far} */
    public long frameCount() {
        return frames;
    }

    /** {@return the ring position of the next record: bytes since the ring began} */
    public long position() {
        return head;
    }

    @Override
    public String toString() {
        return "RingReader[" + ring + " position=" + head + " frames=" + frames + "]";
    }

    /** {@return the position after the padding record at {@code at}}, which must run to the ring's end */
    private long checkPadding(long at, int offset) throws CorruptRingException {
        long next = at + (capacity - offset);
        if (next > tailSeen) {
            throw new CorruptRingException("a padding record at position=" + at + " (offset " + offset
                    + ") runs to " + next + ", past what the writer published, tail=" + tailSeen + ", in " + ring, at);
        }
        return next;
    }

    /** {@return the size of the record at {@code at}}, checked against the limit and the tail */
    private int checkRecord(long at, int offset, int length) throws CorruptRingException {
        if (length < 0 || length > maxFrameLength) {
            throw new CorruptRingException("a record at position=" + at + " (offset " + offset + ") has length="
                    + length + ": must be 0 to maxFrameLength=" + maxFrameLength + ", or -1 for padding, in " + ring,
                    at);
        }
        int size = RingWriter.size(length);
        if (offset + size > capacity || at + size > tailSeen) {
            throw new CorruptRingException("a record at position=" + at + " (offset " + offset + ") of length="
                    + length + " (" + size + " bytes) crosses " + (offset + size > capacity
                    ? "the ring's end, capacity=" + capacity : "what the writer published, tail=" + tailSeen)
                    + ", in " + ring, at);
        }
        return size;
    }
}
