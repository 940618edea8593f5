package dev.wirespeed.io;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Objects;

/**
 * A buffered reader of the bytes of a {@link ReadableByteChannel}: one direct buffer, refilled by
 * compact-on-demand, read through with absolute big-endian gets and zero-copy views.
 *
 * <h2>How it reads</h2>
 * The reader owns one direct, page-aligned buffer ({@value #DEFAULT_CAPACITY} bytes unless told
 * otherwise). Bytes move from the channel into the buffer only when a caller asks for more than is
 * buffered: the unread bytes are then moved to the front of the buffer and the rest of it is offered
 * to the channel in one {@code read} call, repeated only while fewer than the requested bytes have
 * arrived. Each {@code read} takes whatever the channel has, up to the free space, so a fast stream
 * costs one system call per buffer-full, never one per field. Re-using the front of the buffer
 * instead of appending until the end keeps the working set in the same few cache lines.
 *
 * <h2>Requested and required</h2>
 * {@link #request(int)} returns {@code false} when the stream ends before the bytes arrive;
 * {@link #require(int)} and the {@code read...} methods throw {@link EOFException} instead. Neither
 * consumes anything. When the stream ends, the bytes already buffered stay readable: a caller can
 * always learn how many there were with {@link #available()}.
 *
 * <h2>Partial reads, zero bytes and end of stream</h2>
 * A channel may return fewer bytes than offered, any number of times; the reader keeps reading. A
 * channel in non-blocking mode that returns zero bytes is read again after the reader's
 * {@link IdleStrategy} has idled ({@link IdleStrategy#defaultStrategy()} unless one is given: spin,
 * yielding the CPU every 8 empty reads so that a writer sharing the CPU can run). Once the channel
 * reports end of stream (-1) it is not read again.
 *
 * <h2>Growth</h2>
 * A request larger than the buffer grows it, doubling only as bytes actually arrive, up to
 * {@code maxCapacity}: a peer that announces a large message and sends little of it costs at most
 * twice what it sent. A grown buffer is kept for later reads, so a stream of large messages reaches a
 * steady state without garbage.
 *
 * <h2>Views</h2>
 * {@link #view(int)} consumes bytes and returns them as a read-only {@link ByteBuffer} over the
 * reader's own memory, without copying. The reader re-points one view object on every call, so a
 * view is valid only until the next call of any method of this reader; its position is the first
 * byte and its limit one past the last (use relative gets, or absolute gets counted from
 * {@code view.position()}). Copy what must outlive it. A caller that reads with absolute gets can
 * instead use {@link #buffer()}, a read-only view of the whole buffer whose position and limit the
 * reader never moves, at {@link #index()}, and consume what it read with {@link #skip(int)}: valid on
 * the same terms.
 *
 * <h2>Invariants</h2>
 * {@code 0 <= position <= limit <= capacity <= maxCapacity <= }{@value Buffers#MAX_CAPACITY}, where
 * the buffer's bytes {@code [position, limit)} are read from the channel and not yet consumed, and
 * the stream offset of buffer index 0 is {@code base >= 0}, so the next unread byte is at stream
 * offset {@code base + position}.
 *
 * <h2>Thread safety</h2>
 * Not thread-safe: one thread reads at a time, as with the channel it wraps. The reader does not
 * close the channel unless {@link #close()} is called.
 */
public final class ChannelReader implements Closeable {
    /** The default buffer capacity, 512 KiB: large enough that one read drains a socket buffer. */
    public static final int DEFAULT_CAPACITY = 512 * 1024;

    /** The largest {@code maxCapacity} a reader accepts. */
    public static final int MAX_CAPACITY = Buffers.MAX_CAPACITY;

    private final ReadableByteChannel channel;
    private final IdleStrategy idle;
    /** {@code capacity <= maxCapacity <= MAX_CAPACITY}. */
    private final int maxCapacity;
    /**
     * Direct, big-endian. Its own position and limit are used only while the channel fills it: the
     * unread bytes are {@code [position, limit)} of this reader's fields, so the hot paths touch no
     * {@link java.nio.Buffer} bookkeeping and the JIT keeps the two ints apart from any view's.
     */
    private ByteBuffer buffer;
    /** Buffer index of the next unread byte. */
    private int position;
    /** Buffer index one past the last byte read from the channel. */
    private int limit;
    /** Read-only duplicate of {@link #buffer}, re-pointed by {@link #view(int)}. */
    private ByteBuffer view;
    /** Read-only duplicate of {@link #buffer} that this reader never re-points: {@link #buffer()}. */
    private ByteBuffer whole;
    /** {@link #buffer} whole as a segment, for {@link #countToEnd}; made for {@link #segmentOf}. */
    private MemorySegment segment;
    private ByteBuffer segmentOf;
    /** Stream offset of buffer index 0; {@code >= 0}. */
    private long base;
    /** True once the channel returned -1; it is never read again. */
    private boolean endOfStream;

    /**
     * A reader with a {@value #DEFAULT_CAPACITY}-byte buffer that never grows.
     *
     * @param channel the channel to read; blocking or non-blocking
     */
    public ChannelReader(ReadableByteChannel channel) {
        this(channel, DEFAULT_CAPACITY, DEFAULT_CAPACITY);
    }

    /**
     * A reader with a {@code capacity}-byte buffer that may grow to {@code maxCapacity} bytes for
     * requests larger than {@code capacity}.
     *
     * @param channel the channel to read; blocking or non-blocking
     * @param capacity the initial buffer size, {@code 1 <= capacity <= maxCapacity}
     * @param maxCapacity the largest buffer the reader will allocate, at most {@link #MAX_CAPACITY}
     * @throws IllegalArgumentException if the sizes are out of range
     */
    public ChannelReader(ReadableByteChannel channel, int capacity, int maxCapacity) {
        this(channel, capacity, maxCapacity, IdleStrategy.defaultStrategy());
    }

    /**
     * A reader with a {@code capacity}-byte buffer that may grow to {@code maxCapacity} bytes, idling
     * with {@code idle} when a non-blocking channel has no bytes.
     *
     * @param channel the channel to read; blocking or non-blocking
     * @param capacity the initial buffer size, {@code 1 <= capacity <= maxCapacity}
     * @param maxCapacity the largest buffer the reader will allocate, at most {@link #MAX_CAPACITY}
     * @param idle what to do between empty reads of a non-blocking channel
     * @throws IllegalArgumentException if the sizes are out of range
     */
    public ChannelReader(ReadableByteChannel channel, int capacity, int maxCapacity, IdleStrategy idle) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.idle = Objects.requireNonNull(idle, "idle");
        if (capacity < 1 || capacity > maxCapacity || maxCapacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "capacity=" + capacity + " maxCapacity=" + maxCapacity + " limit=" + MAX_CAPACITY);
        }
        this.maxCapacity = maxCapacity;
        setBuffer(Buffers.allocate(capacity));
    }

    /**
     * A reader over a buffer the caller owns and frees (a segment of a confined arena, say), which
     * never grows: for short-lived readers, whose direct buffers would otherwise wait for the
     * collector to be freed.
     */
    ChannelReader(ReadableByteChannel channel, ByteBuffer ownBuffer) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.idle = IdleStrategy.defaultStrategy();
        this.maxCapacity = ownBuffer.capacity();
        setBuffer(ownBuffer.clear().order(java.nio.ByteOrder.BIG_ENDIAN));
    }

    /** {@return the number of bytes buffered and not yet consumed} No I/O. */
    public int available() {
        return limit - position;
    }

    /**
     * {@return the index in {@link #buffer()} of the next unread byte} The {@link #available()} bytes
     * from there are buffered; a caller that reads them with absolute gets consumes them with
     * {@link #skip(int)}.
     */
    public int index() {
        return position;
    }

    /** {@return the stream offset of the next unread byte} It is the number of bytes consumed so far. */
    public long offset() {
        return base + position;
    }

    /** {@return the current buffer capacity} It grows only as the class documentation says. */
    public int capacity() {
        return buffer.capacity();
    }

    /** {@return true once the channel has reported end of stream} Buffered bytes may remain. */
    public boolean isEndOfStream() {
        return endOfStream;
    }

    /**
     * Makes at least {@code byteCount} bytes available, reading from the channel only if fewer are
     * buffered. Consumes nothing.
     *
     * @param byteCount how many bytes the caller wants, {@code 0 <= byteCount <= maxCapacity}
     * @return true if {@code byteCount} bytes are available; false if the stream ended first, in
     *     which case {@link #available()} tells how many are
     * @throws IllegalArgumentException if {@code byteCount} is negative or above {@code maxCapacity}
     * @throws IOException if the channel fails
     */
    public boolean request(int byteCount) throws IOException {
        // Buffered bytes never exceed maxCapacity, so a count they cover needs only its sign checked.
        if (byteCount >= 0 && limit - position >= byteCount) {
            return true;
        }
        checkByteCount(byteCount);
        return fill(byteCount);
    }

    /**
     * Makes at least {@code byteCount} bytes available or throws. Consumes nothing.
     *
     * @param byteCount how many bytes the caller needs, {@code 0 <= byteCount <= maxCapacity}
     * @throws EOFException if the stream ends first; its message names both counts and the offset
     * @throws IllegalArgumentException if {@code byteCount} is negative or above {@code maxCapacity}
     * @throws IOException if the channel fails
     */
    public void require(int byteCount) throws IOException {
        checkByteCount(byteCount);
        ensure(byteCount);
    }

    /** {@link #require} for a count already known to be in range. */
    private void ensure(int byteCount) throws IOException {
        if (limit - position < byteCount && !fill(byteCount)) {
            throw endOfStream(byteCount);
        }
    }

    /**
     * Reads one byte.
     *
     * @return the byte
     * @throws EOFException at end of stream
     * @throws IOException if the channel fails
     */
    public byte readByte() throws IOException {
        ensure(Byte.BYTES);
        return buffer.get(position++);
    }

    /**
     * Reads a big-endian 32-bit integer.
     *
     * @return the integer
     * @throws EOFException if fewer than 4 bytes remain in the stream; none are consumed
     * @throws IOException if the channel fails
     */
    public int readInt() throws IOException {
        ensure(Integer.BYTES);
        int value = buffer.getInt(position);
        position += Integer.BYTES;
        return value;
    }

    /**
     * Reads a big-endian 64-bit integer.
     *
     * @return the integer
     * @throws EOFException if fewer than 8 bytes remain in the stream; none are consumed
     * @throws IOException if the channel fails
     */
    public long readLong() throws IOException {
        ensure(Long.BYTES);
        long value = buffer.getLong(position);
        position += Long.BYTES;
        return value;
    }

    /**
     * Returns the big-endian 32-bit integer {@code index} bytes past the next unread byte, without
     * consuming anything and without I/O: call {@link #request} or {@link #require} first.
     *
     * @param index the distance from the next unread byte, {@code 0 <= index <= available() - 4}
     * @return the integer
     * @throws IndexOutOfBoundsException if the four bytes are not all buffered
     */
    public int peekInt(int index) {
        checkPeek(index, Integer.BYTES);
        return buffer.getInt(position + index);
    }

    /**
     * Returns the big-endian 64-bit integer {@code index} bytes past the next unread byte, without
     * consuming anything and without I/O: call {@link #request} or {@link #require} first. A frame's
     * 8-byte header is one such read.
     *
     * @param index the distance from the next unread byte, {@code 0 <= index <= available() - 8}
     * @return the integer
     * @throws IndexOutOfBoundsException if the eight bytes are not all buffered
     */
    public long peekLong(int index) {
        checkPeek(index, Long.BYTES);
        return buffer.getLong(position + index);
    }

    private void checkPeek(int index, int size) {
        if (index < 0 || index > limit - position - size) {
            throw new IndexOutOfBoundsException("index=" + index + " size=" + size + " available=" + available());
        }
    }

    /**
     * Consumes {@code byteCount} bytes, reading them first if they are not buffered.
     *
     * @param byteCount how many bytes to skip, {@code 0 <= byteCount <= maxCapacity}
     * @throws EOFException if the stream ends first; nothing is consumed
     * @throws IllegalArgumentException if {@code byteCount} is negative or above {@code maxCapacity}
     * @throws IOException if the channel fails
     */
    public void skip(int byteCount) throws IOException {
        checkByteCount(byteCount);
        ensure(byteCount);
        position += byteCount;
    }

    /**
     * Consumes {@code byteCount} bytes and returns them as a read-only view of the reader's buffer,
     * without copying. The view's position is the first byte, its limit one past the last, its order
     * big-endian. It is valid until the next call of any method of this reader (see the class
     * documentation); the same object is returned again, re-pointed, by the next call.
     *
     * @param byteCount the view's length, {@code 0 <= byteCount <= maxCapacity}
     * @return the view
     * @throws EOFException if the stream ends first; nothing is consumed
     * @throws IllegalArgumentException if {@code byteCount} is negative or above {@code maxCapacity}
     * @throws IOException if the channel fails
     */
    public ByteBuffer view(int byteCount) throws IOException {
        checkByteCount(byteCount);
        ensure(byteCount);
        int start = position;
        int end = start + byteCount;
        position = end;
        // Limit before position: whatever the view held before, both calls are then legal.
        return view.limit(end).position(start);
    }

    /**
     * Consumes {@code skip + byteCount} bytes and returns the last {@code byteCount} of them as a view,
     * exactly as {@link #skip(int) skip(skip)} then {@link #view(int) view(byteCount)} would, with one
     * capacity check: for a header followed by a body.
     *
     * @param skip bytes to pass over first, {@code skip >= 0}
     * @param byteCount the view's length, {@code 0 <= skip + byteCount <= maxCapacity}
     * @return the view, valid until the next call of any method of this reader
     * @throws EOFException if the stream ends first; nothing is consumed
     * @throws IllegalArgumentException if {@code skip} or {@code byteCount} is negative, or their sum is
     *     above {@code maxCapacity}
     * @throws IOException if the channel fails
     */
    public ByteBuffer view(int skip, int byteCount) throws IOException {
        // Buffered bytes never exceed maxCapacity: when they cover the request, only signs need checking.
        long total = (long) skip + byteCount;
        if (skip < 0 || byteCount < 0 || total > limit - position) {
            if (skip < 0 || byteCount < 0 || total > maxCapacity) {
                throw new IllegalArgumentException("skip=" + skip + " byteCount=" + byteCount
                        + " min=0 maxCapacity=" + maxCapacity);
            }
            ensure((int) total);
        }
        int start = position + skip;
        int end = start + byteCount;
        position = end;
        return view.limit(end).position(start);
    }

    /**
     * {@return the reader's whole buffer as a read-only, big-endian view, for absolute gets from
     * {@link #index()}} The reader never moves this view's position or limit; the same object is
     * returned until the buffer grows, and its bytes change at the next call that reads from the
     * channel.
     */
    public ByteBuffer buffer() {
        return whole;
    }

    /**
     * Returns the offset, counted from the next unread byte, of the first {@code b} among the next
     * {@code maxBytes} bytes of the stream, reading as needed; consumes nothing. Scans eight bytes at a
     * time; bytes already scanned are not scanned again after a refill.
     *
     * @param b the byte to find
     * @param maxBytes how far to look, {@code 0 <= maxBytes <= maxCapacity}
     * @return the offset, or -1 if {@code b} is not among the bytes looked at: either {@code maxBytes}
     *     were scanned, or the stream ended first ({@link #available()} then tells how many bytes
     *     there were)
     * @throws IllegalArgumentException if {@code maxBytes} is negative or above {@code maxCapacity}
     * @throws IOException if the channel fails
     */
    public int indexOf(byte b, int maxBytes) throws IOException {
        checkByteCount(maxBytes);
        int scanned = 0;
        while (true) {
            int end = Math.min(limit - position, maxBytes);
            int found = scan(buffer, position + scanned, position + end, b);
            if (found >= 0) {
                return found - position;
            }
            scanned = end;
            if (scanned == maxBytes || !fill(scanned + 1)) {
                return -1;
            }
        }
    }

    /**
     * Consumes the rest of the stream, counting the bytes equal to {@code b} (for example the
     * newlines of a text file), eight bytes at a time ({@link ByteCounts#count(MemorySegment, byte)}:
     * a vector at a time where the JVM has the Vector API).
     *
     * @param b the byte to count
     * @return how many of the consumed bytes were {@code b}
     * @throws IOException if the channel fails
     */
    public long countToEnd(byte b) throws IOException {
        long count = 0;
        do {
            count += SegmentCounts.count(bufferSegment().asSlice(position, limit - position), b);
            position = limit;
        } while (fill(1));
        return count;
    }

    /** {@return the whole of {@link #buffer} as a segment, made again only when the buffer is replaced} */
    private MemorySegment bufferSegment() {
        if (segmentOf != buffer) {
            segment = MemorySegment.ofBuffer(buffer.duplicate().clear());
            segmentOf = buffer;
        }
        return segment;
    }

    /**
     * Closes the channel. Buffered bytes stay readable; further reads past them fail as the closed
     * channel does.
     *
     * @throws IOException if closing the channel fails
     */
    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public String toString() {
        return "ChannelReader[offset=" + offset() + " available=" + available() + " capacity="
                + capacity() + " maxCapacity=" + maxCapacity + " endOfStream=" + endOfStream + "]";
    }

    /** The index of the first {@code b} in {@code buf[from, to)}, or -1: eight bytes a word, then byte by byte. */
    private static int scan(ByteBuffer buf, int from, int to, byte b) {
        long pattern = Swar.broadcast(b);
        int i = from;
        for (; i <= to - Long.BYTES; i += Long.BYTES) {
            int at = Swar.firstBigEndian(buf.getLong(i), pattern); // the buffer is big-endian: byte i is the top byte
            if (at < Long.BYTES) {
                return i + at;
            }
        }
        for (; i < to; i++) {
            if (buf.get(i) == b) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The slow path of {@link #request}: compacts, then reads until {@code byteCount} bytes are
     * buffered or the stream ends.
     */
    private boolean fill(int byteCount) throws IOException {
        checkByteCount(byteCount); // the read methods' fixed sizes may exceed a tiny maxCapacity
        if (endOfStream) {
            return limit - position >= byteCount;
        }
        ByteBuffer buf = buffer.limit(limit).position(position);
        base += position;
        buf.compact();
        int emptyReads = 0;
        try {
            while (buf.position() < byteCount) {
                if (!buf.hasRemaining()) {
                    buf = grow(buf, byteCount);
                }
                int n = channel.read(buf);
                if (n < 0) {
                    endOfStream = true;
                    return false;
                }
                if (n == 0) {
                    idle.idle(++emptyReads);
                } else {
                    emptyReads = 0;
                }
            }
            return true;
        } finally {
            position = 0;
            limit = buf.position();
        }
    }

    /** Replaces a full buffer (in write mode) with one twice as large, at most {@code maxCapacity}. */
    private ByteBuffer grow(ByteBuffer full, int byteCount) {
        int capacity = (int) Math.min(maxCapacity, 2L * full.capacity());
        if (capacity < byteCount && capacity == full.capacity()) {
            throw new IllegalStateException("cannot grow: byteCount=" + byteCount + " capacity="
                    + full.capacity() + " maxCapacity=" + maxCapacity);
        }
        ByteBuffer larger = Buffers.allocate(capacity);
        larger.put(full.flip());
        setBuffer(larger);
        return larger;
    }

    private void setBuffer(ByteBuffer newBuffer) {
        buffer = newBuffer;
        position = 0;
        limit = newBuffer.position();
        view = newBuffer.asReadOnlyBuffer().order(newBuffer.order()).clear();
        whole = newBuffer.asReadOnlyBuffer().order(newBuffer.order()).clear();
    }

    private void checkByteCount(int byteCount) {
        if (byteCount < 0 || byteCount > maxCapacity) {
            throw new IllegalArgumentException(
                    "byteCount=" + byteCount + " min=0 maxCapacity=" + maxCapacity);
        }
    }

    private EOFException endOfStream(int byteCount) {
        return new EOFException("end of stream: required=" + byteCount + " available="
                + available() + " offset=" + offset());
    }
}
