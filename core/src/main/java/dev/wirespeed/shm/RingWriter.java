package dev.wirespeed.shm;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The one writer of a {@link SharedRing}: puts frames in, a copy of a body ({@link #offer}) or a body
 * filled in place ({@link #tryClaim} then {@link #commit()}), each handed to the reader as it is
 * committed. Where the ring has no room for a frame (the reader is behind by nearly the capacity), it
 * says so and writes nothing: the caller waits as it sees fit and tries again.
 *
 * <p>Allocates nothing per frame.
 *
 * <p>Thread safety: one thread at a time.
 */
public final class RingWriter {
    private final SharedRing ring;
    private final MemorySegment region;
    /** How to wake a reader that sleeps, or null for a writer that wakes none. */
    private final RingSleep wakes;
    private final MemorySegment sleepWord;
    private final int capacity;
    private final int mask;
    /** The records' bytes, for absolute puts; the view {@link #tryClaim} hands out. */
    private final ByteBuffer data;
    private final ByteBuffer claimView;
    /** Bytes written since the ring began: where the next record goes, once published. */
    private long tail;
    /** The reader's head as last read: the writer reads it again only when this leaves no room. */
    private long headSeen;
    /** The claimed record's ring position and size, or -1 with no claim. */
    private long claimAt = -1;
    private int claimSize;
    private long frames;

    RingWriter(SharedRing ring, MemorySegment region, int capacity, RingSleep wakes) {
        this.ring = ring;
        this.region = region;
        this.wakes = wakes;
        this.sleepWord = region.asSlice(SharedRing.SLEEPING_OFFSET, 4);
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.data = region.asSlice(SharedRing.HEADER_BYTES, capacity).asByteBuffer();
        this.claimView = data.duplicate();
        this.tail = (long) SharedRing.LONG.getAcquire(region, SharedRing.TAIL_OFFSET);
        this.headSeen = (long) SharedRing.LONG.getAcquire(region, SharedRing.HEAD_OFFSET);
    }

    /**
     * Writes a frame of {@code type} whose body is {@code body}'s remaining bytes, and hands it to the
     * reader; {@code body}'s position moves to its limit. Where the ring has no room for it now, writes
     * nothing and leaves {@code body} as it was.
     *
     * @param type the type field
     * @param body the body, from its position to its limit
     * @return true if written, false if the ring had no room
     * @throws IllegalArgumentException if the body is longer than {@link SharedRing#maxFrameLength()},
     *     naming both
     * @throws IllegalStateException if a claim is outstanding
     */
    public boolean offer(int type, ByteBuffer body) {
        checkNoClaim();
        int length = body.remaining();
        long at = reserve(length);
        if (at < 0) {
            return false;
        }
        int offset = (int) (at & mask);
        data.putInt(offset, type);
        data.putInt(offset + 4, length);
        data.put(offset + SharedRing.RECORD_HEADER, body, body.position(), length);
        body.position(body.limit());
        publish(at + size(length));
        return true;
    }

    /**
     * Claims room for a frame of {@code type} with a body of {@code length} bytes, to fill in place. Fill
     * the view with relative puts, or absolute ones from {@code view.position()}, then {@link #commit()}
     * (or {@link #abort()}); the reader sees nothing of it before.
     *
     * @param type the type field
     * @param length the body's length, 0 to {@link SharedRing#maxFrameLength()}
     * @return a view of the body, its position the first byte and its limit one past the last, re-used by
     *     every claim; or null if the ring has no room now
     * @throws IllegalArgumentException if {@code length} is out of range, naming it and the limit
     * @throws IllegalStateException if a claim is outstanding
     */
    public ByteBuffer tryClaim(int type, int length) {
        checkNoClaim();
        long at = reserve(length);
        if (at < 0) {
            return null;
        }
        int offset = (int) (at & mask);
        data.putInt(offset, type);
        data.putInt(offset + 4, length);
        claimAt = at;
        claimSize = size(length);
        int start = offset + SharedRing.RECORD_HEADER;
        return claimView.limit(start + length).position(start);
    }

    /**
     * Hands the claimed frame to the reader, whatever its body view holds.
     *
     * @throws IllegalStateException if there is no claim
     */
    public void commit() {
        if (claimAt < 0) {
            throw new IllegalStateException("commit without a claim: frame " + frames + " of " + ring);
        }
        long end = claimAt + claimSize;
        claimAt = -1;
        publish(end);
    }

    /**
     * Drops the claimed frame: the reader sees nothing of it. A padding record the claim needed stays,
     * unpublished until the next frame.
     *
     * @throws IllegalStateException if there is no claim
     */
    public void abort() {
        if (claimAt < 0) {
            throw new IllegalStateException("abort without a claim: frame " + frames + " of " + ring);
        }
        claimAt = -1;
    }

    /**
     * {@return whether the ring's reader is gone}: it closed its end, or its process ended without closing
     * it. A writer whose offers keep finding the ring full asks this; a reader not yet there is not gone.
     */
    public boolean readerGone() {
        long holder = Peer.holder(region, SharedRing.READER_OFFSET);
        return holder == Peer.CLOSED || holder > 0 && !Peer.alive(region, SharedRing.READER_OFFSET, holder);
    }

    /** {@return the frames written so far} */
    public long frameCount() {
        return frames;
    }

    /** {@return the ring position after the last frame written: bytes since the ring began} */
    public long position() {
        return tail;
    }

    @Override
    public String toString() {
        return "RingWriter[" + ring + " position=" + tail + " frames=" + frames + "]";
    }

    /**
     * Makes room for a record with a body of {@code length} bytes at the tail, a padding record first
     * where it would cross the ring's end, and {@return the ring position of the record, or -1 if the
     * reader has not left room}
     */
    private long reserve(int length) {
        int max = SharedRing.maxFrameLength(capacity);
        if (length < 0 || length > max) {
            throw new IllegalArgumentException("frame body length=" + length + " must be 0 to maxFrameLength=" + max
                    + " (half the capacity=" + capacity + " less the 8-byte header) for " + ring);
        }
        int size = size(length);
        int offset = (int) (tail & mask);
        int toEnd = capacity - offset;
        int padding = size > toEnd ? toEnd : 0;
        long needed = padding + (long) size;
        if (tail + needed - headSeen > capacity) {
            headSeen = (long) SharedRing.LONG.getAcquire(region, SharedRing.HEAD_OFFSET);
            if (tail + needed - headSeen > capacity) {
                return -1;
            }
        }
        if (padding > 0) { // the padding record, published with the frame after it
            data.putInt(offset, 0);
            data.putInt(offset + 4, SharedRing.PADDING);
            tail += padding;
        }
        return tail;
    }

    /**
     * Moves the tail to {@code end}, past the record written: the reader may take it now; a reader
     * asleep is woken. A writer that wakes stores the tail with a full fence after it, so that its look
     * at the reader's word comes after the store: either the reader, which sets its word before it looks
     * at the tail, sees the frame, or this sees the reader asleep.
     */
    private void publish(long end) {
        tail = end;
        frames++;
        if (wakes == null) {
            SharedRing.LONG.setRelease(region, SharedRing.TAIL_OFFSET, end);
            return;
        }
        SharedRing.LONG.setVolatile(region, SharedRing.TAIL_OFFSET, end);
        if ((int) SharedRing.INT.getVolatile(region, SharedRing.SLEEPING_OFFSET) != 0
                && SharedRing.INT.compareAndSet(region, SharedRing.SLEEPING_OFFSET, 1, 0)) {
            wakes.wake(sleepWord);
        }
    }

    private void checkNoClaim() {
        if (claimAt >= 0) {
            throw new IllegalStateException("a claim is outstanding: commit or abort it first; " + this);
        }
    }

    /** {@return a record's bytes for a body of {@code length}: header and body, padded to a multiple of 8} */
    static int size(int length) {
        return (SharedRing.RECORD_HEADER + length + SharedRing.ALIGNMENT - 1) & -SharedRing.ALIGNMENT;
    }
}
