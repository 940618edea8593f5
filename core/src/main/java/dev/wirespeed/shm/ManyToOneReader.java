package dev.wirespeed.shm;

import dev.wirespeed.frame.FrameHandler;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The one reader of a {@link ManyToOneRing}: hands each committed frame to a {@link FrameHandler} in the
 * order its writers claimed room for them (each writer's frames in the order it wrote them), its body a
 * read-only view of the ring's memory, no copy. A claim not yet committed stops the reader at its record:
 * the frames claimed after it wait for it. The bytes of the frames a {@link #read} call handed over are
 * written over with zeros and go back to the writers when it returns: a body is valid only during its
 * {@code onFrame}, as with {@link dev.wirespeed.frame.FrameReader}.
 *
 * <p>Every record is checked before it is handed over (its commit word a frame's length within the frame
 * limit, or a skip's within the ring's end, and the record within what writers claimed): a record that
 * breaks the layout fails the read with a {@link CorruptRingException} naming its position, its word and
 * the limit; nothing from it on is handed over.
 *
 * <p>A claim whose writer is gone is passed over by the rule of {@link ManyToOneRing}: at most once every
 * {@value #CHECK_MILLIS} ms while a claim stops it, a call that hands nothing over looks at the slots that
 * announced the claim, and where none's writer runs, writes zeros over the claim's bytes, moves past them
 * and throws a {@link PeerGoneException} naming the process and the claim's position; the next call goes
 * on with the frames after it.
 *
 * <p>Allocates nothing per frame.
 *
 * <p>Thread safety: one thread at a time.
 */
public final class ManyToOneReader {
    /** Empty looks {@link #take} makes, calling again at once, before it sleeps. */
    static final int SPINS = RingReader.SPINS;
    /** The longest sleep of {@link #take}, and the least time between two looks at a stopping claim's writers. */
    static final long CHECK_MILLIS = RingReader.CHECK_MILLIS;
    private static final long CHECK_NANOS = CHECK_MILLIS * 1_000_000;
    /** Zeros, copied over the bytes given back; read by every reader, written by none. */
    private static final MemorySegment ZEROS = MemorySegment.ofArray(new byte[4096]);

    private final ManyToOneRing ring;
    private final MemorySegment region;
    /** The records: {@link #region} past the header, where a record's commit word is loaded. */
    private final MemorySegment records;
    private final int capacity;
    private final int mask;
    private final int maxFrameLength;
    private final ByteBuffer data;
    /** The body view handed to the handler, re-pointed at each frame. */
    private final ByteBuffer view;
    private final MemorySegment sleepWord;
    /** Bytes given back since the ring began: the next record's position. {@code head <= tailSeen}. */
    private long head;
    /** The claim counter as last read: read again only where a record seems to run past it. */
    private long tailSeen;
    private long frames;
    /** The position an uncommitted record stopped the reader at, -1 for none; when its claim was last looked at. */
    private long stoppedAt = -1;
    private long lookedAt;
    /** This reader's looks, for {@link #take}'s wait. */
    private final RingWait.Looks looks;

    ManyToOneReader(ManyToOneRing ring, MemorySegment region, int capacity) {
        this.ring = ring;
        this.region = region;
        this.records = region.asSlice(ManyToOneRing.HEADER_BYTES, capacity);
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxFrameLength = SharedRing.maxFrameLength(capacity);
        this.data = records.asByteBuffer();
        this.view = data.asReadOnlyBuffer();
        this.sleepWord = region.asSlice(SharedRing.SLEEPING_OFFSET, 4);
        this.head = (long) SharedRing.LONG.getAcquire(region, SharedRing.HEAD_OFFSET);
        this.tailSeen = head;
        this.looks = new RingWait.Looks() {
            @Override
            public int read(FrameHandler handler, int limit) throws IOException {
                return ManyToOneReader.this.read(handler, limit);
            }

            @Override
            public boolean ended(boolean slept) {
                return false; // the ring has no end: writers may come at any time
            }
        };
    }

    /**
     * Hands over the committed frames, {@code limit} at most, in claim order, up to the first claim not yet
     * committed. The ring's bytes of those frames go back to the writers when this returns, or when the
     * handler throws (those before the frame it threw on).
     *
     * @param handler given each frame
     * @param limit the most frames to hand over, at least 1
     * @return the frames handed over, 0 if none waited (or a claim not yet committed stops the reader)
     * @throws PeerGoneException if a claim that stopped the reader was lost (every writer that announced it
     *     is gone, looked at no more often than every {@value #CHECK_MILLIS} ms), naming it: the reader has
     *     passed it, and the next call goes on after it
     * @throws CorruptRingException if a record breaks the layout, naming it
     * @throws IOException what the handler threw, unchanged
     */
    public int read(FrameHandler handler, int limit) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit=" + limit + " must be at least 1");
        }
        int n = 0;
        long at = head;
        boolean stopped = false;
        try {
            // A capacity's bytes at the most: past them are this call's own records, zeroed as it returns.
            while (n < limit && at - head < capacity) {
                int offset = (int) (at & mask);
                int word = (int) SharedRing.INT.getAcquire(records, (long) offset);
                if (word == 0) {
                    stopped = true;
                    break;
                }
                if (word < 0) {
                    at += checkSkip(at, offset, word);
                    continue;
                }
                int size = checkFrame(at, offset, word);
                int start = offset + SharedRing.RECORD_HEADER;
                view.limit(start + word - SharedRing.RECORD_HEADER).position(start);
                handler.onFrame(data.getInt(offset + 4), view);
                at += size;
                n++;
            }
        } finally {
            if (at != head) {
                giveBack(at);
                frames += n;
            }
        }
        if (n == 0 && stopped) {
            lookAtStop();
        }
        return n;
    }

    /**
     * Hands over frames as {@link #read} does, waiting for one if none is there: first calling again,
     * {@value #SPINS} times, then telling the writers that it sleeps (the header's word set to 1, a full
     * fence), looking once more, and sleeping by {@code sleep} until a committing writer wakes it (one made
     * with {@link ManyToOneRing#writer(RingSleep)}) or the sleep ends by itself; then it looks again, until
     * {@code timeout} has passed. A sleep lasts {@value #CHECK_MILLIS} ms at the most.
     *
     * @param handler given each frame
     * @param limit the most frames to hand over, at least 1
     * @param sleep how to sleep: the kind the writers wake
     * @param timeout the longest wait; zero or negative: one look
     * @return the frames handed over; 0 if none came within {@code timeout} (the ring has no end: writers
     *     may come at any time)
     * @throws PeerGoneException if a claim that stopped the reader was lost, as {@link #read} says
     * @throws CorruptRingException if a record breaks the layout, naming it
     * @throws IOException what the handler threw, unchanged
     */
    public int take(FrameHandler handler, int limit, RingSleep sleep, Duration timeout) throws IOException {
        int n = read(handler, limit);
        if (n > 0 || timeout.isNegative() || timeout.isZero()) {
            return n;
        }
        return RingWait.await(looks, handler, limit, region, sleepWord, sleep, System.nanoTime() + timeout.toNanos());
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
        return "ManyToOneReader[" + ring + " position=" + head + " frames=" + frames + "]";
    }

    /** Writes zeros over the records before {@code at}, then gives them back: the head moves to {@code at}. */
    private void giveBack(long at) {
        zero(head, at);
        head = at;
        SharedRing.LONG.setRelease(region, SharedRing.HEAD_OFFSET, at); // the zeros, then the bytes to the writers
    }

    /** Writes zeros over ring positions {@code from} to {@code to}, across the ring's end where they are. */
    private void zero(long from, long to) {
        for (long p = from; p < to;) {
            int offset = (int) (p & mask);
            long n = Math.min(Math.min(to - p, capacity - offset), ZEROS.byteSize());
            MemorySegment.copy(ZEROS, 0, records, offset, n);
            p += n;
        }
    }

    /**
     * An uncommitted record stopped the reader at its head: at most once every {@value #CHECK_MILLIS} ms, if
     * writers claimed past it, looks at the claim's writers.
     */
    private void lookAtStop() throws IOException {
        long now = System.nanoTime();
        if (stoppedAt != head) {
            stoppedAt = head;
            lookedAt = now;
            return;
        }
        if (now - lookedAt < CHECK_NANOS) {
            return;
        }
        lookedAt = now;
        long tail = (long) SharedRing.LONG.getAcquire(region, SharedRing.TAIL_OFFSET);
        tailSeen = tail;
        if (tail != head) {
            passLostClaim(tail);
        }
    }

    /**
     * The claim at the head, below {@code tail}, is not committed: where a slot that announced it has a
     * writer that runs, waits for it; where every one is gone, writes zeros over the claim's bytes, moves
     * past them and throws.
     */
    private void passLostClaim(long tail) throws IOException {
        long at = head;
        int claimants = 0;
        long pid = 0;
        int bytes = 0;
        boolean agree = true;
        StringBuilder who = new StringBuilder();
        for (int i = 0; i < ManyToOneRing.MAX_WRITERS; i++) {
            long slot = WriterSlots.offset(i);
            if ((long) SharedRing.LONG.getAcquire(region, slot + ManyToOneRing.CLAIM_AT) != at) {
                continue;
            }
            int n = (int) SharedRing.INT.get(region, slot + ManyToOneRing.CLAIM_BYTES);
            long holder = Peer.holder(region, slot);
            if (holder > 0 && Peer.alive(region, slot, holder)) {
                return; // its writer runs: it may yet commit
            }
            if (holder < Peer.CLOSED) {
                continue; // being taken: a slot is taken only once its claim is resolved, so this is not it
            }
            if (claimants == 0) {
                pid = holder > 0 ? holder : Peer.CLOSED;
                bytes = n;
            } else if (n != bytes) {
                agree = false;
            }
            who.append(claimants == 0 ? "" : ", ").append("slot ").append(i).append(": process ").append(holder)
                    .append(" bytes=").append(n);
            claimants++;
        }
        int offset = (int) (at & mask);
        if ((int) SharedRing.INT.getAcquire(records, (long) offset) != 0) {
            return; // committed since the look: read it on the next call
        }
        if (claimants == 0) {
            throw new CorruptRingException("a claim at position=" + at + " (offset " + offset + ") of " + ring
                    + " is not committed and no writer slot announces it, under tail=" + tail
                    + ": the writers broke the layout", at);
        }
        if (!agree) {
            throw new CorruptRingException("a claim at position=" + at + " (offset " + offset + ") of " + ring
                    + " is not committed and the gone writers that announced it differ on its bytes (" + who
                    + "): which one made it cannot be told", at);
        }
        if (bytes < SharedRing.ALIGNMENT || bytes % SharedRing.ALIGNMENT != 0 || bytes > capacity
                || at + bytes > tail) {
            throw new CorruptRingException("a claim at position=" + at + " (offset " + offset + ") of " + ring
                    + " is not committed and its gone writer announced bytes=" + bytes + " (" + who + "): must be a"
                    + " multiple of 8 from 8 to capacity=" + capacity + ", within tail=" + tail, at);
        }
        giveBack(at + bytes);
        throw new PeerGoneException((pid > 0 ? "a writer of " + ring.file() + ", process " + pid + ", ended"
                : "a writer of " + ring.file() + " was closed") + " with its claim at position=" + at + " (offset "
                + offset + ") not committed: its " + bytes + " bytes are passed over and the frame in them lost; "
                + "every frame before it was handed over, and those after it come next", pid, at);
    }

    /** {@return the size of the frame record at {@code at}}, its word checked against the limit and the tail */
    private int checkFrame(long at, int offset, int word) throws CorruptRingException {
        int length = word - SharedRing.RECORD_HEADER;
        if (length < 0 || length > maxFrameLength) {
            throw new CorruptRingException("a record at position=" + at + " (offset " + offset + ") has commit word="
                    + word + ": a frame's must be 8 to maxFrameLength+8=" + (maxFrameLength + SharedRing.RECORD_HEADER)
                    + ", a skip's a multiple of 8 from -8 to -" + (capacity - offset) + ", in " + ring, at);
        }
        int size = RingWriter.size(length);
        checkWithin(at, offset, size, length);
        return size;
    }

    /** {@return the bytes of the skip record at {@code at}}, checked against the ring's end and the tail */
    private int checkSkip(long at, int offset, int word) throws CorruptRingException {
        int bytes = -word;
        if (bytes < SharedRing.ALIGNMENT || bytes % SharedRing.ALIGNMENT != 0) {
            throw new CorruptRingException("a record at position=" + at + " (offset " + offset + ") has commit word="
                    + word + ": a skip's must be a multiple of 8 from -8 to -" + (capacity - offset)
                    + ", a frame's 8 to maxFrameLength+8=" + (maxFrameLength + SharedRing.RECORD_HEADER) + ", in "
                    + ring, at);
        }
        checkWithin(at, offset, bytes, -1);
        return bytes;
    }

    /**
     * Checks that a record of {@code size} bytes at {@code at}, a frame's of body {@code length} or a skip
     * (-1), ends by the ring's end and by the tail.
     */
    private void checkWithin(long at, int offset, int size, int length) throws CorruptRingException {
        if (offset + size > capacity) {
            throw new CorruptRingException(record(at, offset, size, length) + " crosses the ring's end, capacity="
                    + capacity + ", in " + ring, at);
        }
        if (at + size > tailSeen) {
            tailSeen = (long) SharedRing.LONG.getAcquire(region, SharedRing.TAIL_OFFSET);
            if (at + size > tailSeen) {
                throw new CorruptRingException(record(at, offset, size, length) + " runs past what writers claimed, "
                        + "tail=" + tailSeen + ", in " + ring, at);
            }
        }
    }

    private static String record(long at, int offset, int size, int length) {
        return (length < 0 ? "a skip record" : "a frame record of length=" + length) + " at position=" + at
                + " (offset " + offset + ") of " + size + " bytes";
    }
}
