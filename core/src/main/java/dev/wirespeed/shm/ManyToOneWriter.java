package dev.wirespeed.shm;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One writer of a {@link ManyToOneRing}, among any number in any threads and processes: puts frames in,
 * a copy of a body ({@link #offer}) or a body filled in place ({@link #tryClaim} then {@link #commit()}),
 * each handed to the reader once it is committed and every frame claimed before it is. Where the ring has
 * no room for a frame (the reader is behind by nearly the capacity), it says so and writes nothing: the
 * caller waits as it sees fit and tries again. Another writer's claim may take the room between a refusal
 * and the next try.
 *
 * <p>A claim stops the reader at its record until it is committed or aborted: commit or abort it in a
 * {@code finally}. A claim left open by a process that ends is passed over by the reader and reported
 * ({@link PeerGoneException}); one left open by a thread that ends, in a process that runs on, stops the
 * reader for as long as the process runs.
 *
 * <p>Allocates nothing per frame. Holds one of the ring's {@value ManyToOneRing#MAX_WRITERS} writer slots
 * until {@link #close()}d.
 *
 * <p>Thread safety: one thread at a time.
 */
public final class ManyToOneWriter implements AutoCloseable {
    private final ManyToOneRing ring;
    private final MemorySegment region;
    /** The records: {@link #region} past the header, where a record's commit word is stored. */
    private final MemorySegment records;
    /** How to wake a reader that sleeps, or null for a writer that wakes none. */
    private final RingSleep wakes;
    private final MemorySegment sleepWord;
    private final int capacity;
    private final int mask;
    private final int maxFrameLength;
    /** The records' bytes, for absolute puts; the view {@link #tryClaim} hands out. */
    private final ByteBuffer data;
    private final ByteBuffer claimView;
    private final int slot;
    private final long slotOffset;
    /** The reader's head as last read: read again only when this leaves no room. */
    private long headSeen;
    /**
     * The open claim's ring position (its padding's, where it has one), or -1 with no claim; its padding's
     * bytes, 0 to {@code capacity - 8}; its body's length.
     */
    private long claimAt = -1;
    private int claimPadding;
    private int claimLength;
    private long frames;
    private boolean closed;

    ManyToOneWriter(ManyToOneRing ring, MemorySegment region, int capacity, int slot, RingSleep wakes) {
        this.ring = ring;
        this.region = region;
        this.records = region.asSlice(ManyToOneRing.HEADER_BYTES, capacity);
        this.wakes = wakes;
        this.sleepWord = region.asSlice(SharedRing.SLEEPING_OFFSET, 4);
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxFrameLength = SharedRing.maxFrameLength(capacity);
        this.data = records.asByteBuffer();
        this.claimView = data.duplicate();
        this.slot = slot;
        this.slotOffset = WriterSlots.offset(slot);
        this.headSeen = (long) SharedRing.LONG.getAcquire(region, SharedRing.HEAD_OFFSET);
    }

    /**
     * Writes a frame of {@code type} whose body is {@code body}'s remaining bytes, and commits it; {@code
     * body}'s position moves to its limit. Where the ring has no room for it now, writes nothing and leaves
     * {@code body} as it was.
     *
     * @param type the type field
     * @param body the body, from its position to its limit
     * @return true if written, false if the ring had no room
     * @throws IllegalArgumentException if the body is longer than {@link ManyToOneRing#maxFrameLength()},
     *     naming both
     * @throws IllegalStateException if a claim is outstanding, or the writer is closed
     */
    public boolean offer(int type, ByteBuffer body) {
        int length = body.remaining();
        long at = claim(length);
        if (at < 0) {
            return false;
        }
        int offset = (int) (at & mask);
        data.putInt(offset + 4, type);
        data.put(offset + SharedRing.RECORD_HEADER, body, body.position(), length);
        body.position(body.limit());
        commit();
        return true;
    }

    /**
     * Claims room for a frame of {@code type} with a body of {@code length} bytes, to fill in place. Fill
     * the view with relative puts, or absolute ones from {@code view.position()}, then {@link #commit()}
     * (or {@link #abort()}); the reader sees nothing of it before, and waits for it: frames other writers
     * claimed after it reach the reader only once it is committed or aborted.
     *
     * @param type the type field
     * @param length the body's length, 0 to {@link ManyToOneRing#maxFrameLength()}
     * @return a view of the body, its position the first byte and its limit one past the last, re-used by
     *     every claim; or null if the ring has no room now
     * @throws IllegalArgumentException if {@code length} is out of range, naming it and the limit
     * @throws IllegalStateException if a claim is outstanding, or the writer is closed
     */
    public ByteBuffer tryClaim(int type, int length) {
        long at = claim(length);
        if (at < 0) {
            return null;
        }
        int offset = (int) (at & mask);
        data.putInt(offset + 4, type);
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
            throw new IllegalStateException("commit without a claim: frame " + frames + " of " + this);
        }
        frames++;
        finish(SharedRing.RECORD_HEADER + claimLength);
    }

    /**
     * Drops the claimed frame: the reader steps over its bytes (a skip record) and sees nothing of it.
     *
     * @throws IllegalStateException if there is no claim
     */
    public void abort() {
        if (claimAt < 0) {
            throw new IllegalStateException("abort without a claim: frame " + frames + " of " + this);
        }
        finish(-RingWriter.size(claimLength));
    }

    /**
     * {@return whether the ring's reader is gone}: it closed its end, or its process ended without closing
     * it. A writer whose offers keep finding the ring full asks this; a reader not yet there is not gone.
     */
    public boolean readerGone() {
        long holder = Peer.holder(region, SharedRing.READER_OFFSET);
        return holder == Peer.CLOSED || holder > 0 && !Peer.alive(region, SharedRing.READER_OFFSET, holder);
    }

    /** {@return the frames this writer committed so far} */
    public long frameCount() {
        return frames;
    }

    /**
     * Aborts a claim still open, and gives the writer's slot back: another writer may take it. Closing again
     * does nothing; no other method may be called after.
     */
    @Override
    public void close() {
        if (!closed) {
            if (claimAt >= 0 && ring.isOpen()) {
                abort();
            }
            closed = true;
            ring.release(this);
        }
    }

    @Override
    public String toString() {
        return "ManyToOneWriter[" + ring + " slot=" + slot + " frames=" + frames + (closed ? " closed" : "") + "]";
    }

    /** {@return the index of this writer's slot in the header} */
    int slot() {
        return slot;
    }

    /**
     * Claims a record with a body of {@code length} bytes, a padding record first where it would cross the
     * ring's end, and {@return the ring position of the record, or -1 if the reader has not left room}
     */
    private long claim(int length) {
        if (closed) {
            throw new IllegalStateException("the writer is closed: " + this);
        }
        if (claimAt >= 0) {
            throw new IllegalStateException("a claim is outstanding: commit or abort it first; " + this);
        }
        if (length < 0 || length > maxFrameLength) {
            throw new IllegalArgumentException("frame body length=" + length + " must be 0 to maxFrameLength="
                    + maxFrameLength + " (half the capacity=" + capacity + " less the 8-byte header) for " + ring);
        }
        int size = RingWriter.size(length);
        boolean announced = false;
        while (true) {
            long tail = (long) SharedRing.LONG.getAcquire(region, SharedRing.TAIL_OFFSET);
            int offset = (int) (tail & mask);
            int toEnd = capacity - offset;
            int padding = size > toEnd ? toEnd : 0;
            int bytes = padding + size;
            if (tail + bytes - headSeen > capacity) {
                headSeen = (long) SharedRing.LONG.getAcquire(region, SharedRing.HEAD_OFFSET);
                if (tail + bytes - headSeen > capacity) {
                    if (announced) { // a claim another writer made: not this one's to be waited for
                        SharedRing.LONG.setRelease(region, slotOffset + ManyToOneRing.CLAIM_AT,
                                ManyToOneRing.NO_CLAIM);
                    }
                    return -1;
                }
            }
            // Announced before the claim is made: a reader that sees the claim sees who made it.
            SharedRing.INT.set(region, slotOffset + ManyToOneRing.CLAIM_BYTES, bytes);
            SharedRing.LONG.setRelease(region, slotOffset + ManyToOneRing.CLAIM_AT, tail);
            announced = true;
            if (SharedRing.LONG.compareAndSet(region, SharedRing.TAIL_OFFSET, tail, tail + bytes)) {
                claimAt = tail;
                claimPadding = padding;
                claimLength = length;
                return tail + padding;
            }
        }
    }

    /**
     * Commits the open claim's record with {@code word} (a frame's length or a skip's), then its padding's
     * word, the claim's first, which the reader waits at; where this writer wakes, a full fence, then the
     * look at the reader's word: either the reader, which sets its word before it looks at the claim's,
     * sees the commit, or this sees the reader asleep.
     */
    private void finish(int word) {
        long record = claimAt + claimPadding;
        SharedRing.INT.setRelease(records, record & mask, word);
        if (claimPadding > 0) {
            SharedRing.INT.setRelease(records, claimAt & mask, -claimPadding);
        }
        claimAt = -1;
        if (wakes != null) {
            VarHandle.fullFence();
            if ((int) SharedRing.INT.getVolatile(region, SharedRing.SLEEPING_OFFSET) != 0
                    && SharedRing.INT.compareAndSet(region, SharedRing.SLEEPING_OFFSET, 1, 0)) {
                wakes.wake(sleepWord);
            }
        }
    }
}
