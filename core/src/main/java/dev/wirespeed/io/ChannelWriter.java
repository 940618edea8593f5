package dev.wirespeed.io;

import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.Objects;

/**
 * A buffered writer of bytes to a {@link WritableByteChannel}: writes gather in one direct buffer and
 * reach the channel only when the buffer is full or on {@link #flush()}.
 *
 * <h2>When bytes reach the channel</h2>
 * Writes are copied into the buffer ({@value #DEFAULT_CAPACITY} bytes unless told otherwise). When a
 * write does not fit, the buffer is filled to the last byte and written whole, so a long stream goes
 * out in writes of exactly the buffer's capacity, whatever the message boundaries. A direct source of
 * at least a buffer's size is not copied: it is written straight from the source, after what the
 * buffer holds, in gathering writes ({@code write(ByteBuffer[])}) where the channel is a
 * {@link GatheringByteChannel}. Nothing is written on a timer: call {@link #flush()} when the bytes
 * must leave.
 *
 * <h2>Writing in place</h2>
 * {@link #claim(int)} makes room for a number of bytes at the end of the buffer and returns a view of
 * it to fill in place, without a copy; {@link #commit(int)} accepts them. Between the two, call no
 * other method: they would write over the claimed bytes.
 *
 * <h2>Partial writes</h2>
 * Every write to the channel is finished: a channel that takes fewer bytes than offered is offered
 * the rest, and a non-blocking channel that takes none is offered them again after the writer's
 * {@link IdleStrategy} has idled ({@link IdleStrategy#defaultStrategy()} unless one is given: spin,
 * yielding the CPU every 8 empty writes so that a reader sharing the CPU can run). If the channel
 * throws, the bytes it had not taken stay buffered.
 *
 * <h2>Invariants</h2>
 * {@code 0 <= position <= capacity}, where the buffer's bytes {@code [0, position)} are accepted
 * and not yet written, and {@code written >= 0} bytes reached the channel before them, so
 * {@link #offset()} is {@code written + position}.
 *
 * <h2>Thread safety</h2>
 * Not thread-safe: one thread writes at a time.
 */
public final class ChannelWriter implements Flushable, Closeable {
    /** The default buffer capacity, 512 KiB. */
    public static final int DEFAULT_CAPACITY = 512 * 1024;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final WritableByteChannel channel;
    private final IdleStrategy idle;
    /** A writable duplicate of {@link #buffer}, re-pointed by {@link #claim(int)}. */
    private final ByteBuffer claimView;
    /** Bytes claimed and not yet committed, or -1 when there is no claim. */
    private int claimed = -1;
    /** The two sources of a gathering write: the buffer's pending bytes and a large direct source. */
    private final ByteBuffer[] gather = new ByteBuffer[2];
    /**
     * Direct and big-endian: {@code [0, position)} is pending. Its own position and limit mean nothing
     * between calls; they are set only to hand the pending bytes to the channel.
     */
    private final ByteBuffer buffer;
    /**
     * {@link #buffer}'s memory: headers, integers and array bodies are stored through it, after one
     * capacity check against {@link #position}; {@code ByteBuffer} sources go through {@link #buffer}.
     */
    private final MemorySegment memory;
    /** {@code buffer.capacity()}. */
    private final int capacity;
    /** Bytes accepted and not yet written: {@code [0, position)} of the buffer. */
    private int position;
    /** Bytes that reached the channel; {@code >= 0}. */
    private long written;

    /**
     * A writer with a {@value #DEFAULT_CAPACITY}-byte buffer.
     *
     * @param channel the channel to write, blocking or non-blocking
     */
    public ChannelWriter(WritableByteChannel channel) {
        this(channel, DEFAULT_CAPACITY);
    }

    /**
     * A writer with a {@code capacity}-byte buffer.
     *
     * @param channel the channel to write, blocking or non-blocking
     * @param capacity the buffer size, {@code 1 <= capacity <= ChannelReader.MAX_CAPACITY}
     */
    public ChannelWriter(WritableByteChannel channel, int capacity) {
        this(channel, capacity, IdleStrategy.defaultStrategy());
    }

    /**
     * A writer with a {@code capacity}-byte buffer, idling with {@code idle} when a non-blocking
     * channel takes no bytes.
     *
     * @param channel the channel to write, blocking or non-blocking
     * @param capacity the buffer size, {@code 1 <= capacity <= ChannelReader.MAX_CAPACITY}
     * @param idle what to do between empty writes to a non-blocking channel
     */
    public ChannelWriter(WritableByteChannel channel, int capacity, IdleStrategy idle) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.idle = Objects.requireNonNull(idle, "idle");
        this.buffer = Buffers.allocate(capacity);
        this.memory = MemorySegment.ofBuffer(buffer);
        this.capacity = capacity;
        this.claimView = buffer.duplicate().order(ByteOrder.BIG_ENDIAN);
    }

    /** {@return the stream offset of the next byte written: all bytes accepted so far} */
    public long offset() {
        return written + position;
    }

    /** {@return the number of bytes accepted and not yet written to the channel} */
    public int buffered() {
        return position;
    }

    /** {@return the buffer's capacity} */
    public int capacity() {
        return capacity;
    }

    /**
     * Accepts one byte.
     *
     * @param b the byte
     * @throws IOException if a write it triggers fails
     */
    public void writeByte(byte b) throws IOException {
        if (position == capacity) {
            drain();
        }
        memory.set(ValueLayout.JAVA_BYTE, position, b);
        position++;
    }

    /**
     * Accepts a big-endian 32-bit integer.
     *
     * @param value the integer
     * @throws IOException if a write it triggers fails
     */
    public void writeInt(int value) throws IOException {
        int p = position;
        if (capacity - p < Integer.BYTES) {
            writeSlow(value, Integer.BYTES);
            return;
        }
        memory.set(INT, p, value);
        position = p + Integer.BYTES;
    }

    /**
     * Accepts a big-endian 64-bit integer.
     *
     * @param value the integer
     * @throws IOException if a write it triggers fails
     */
    public void writeLong(long value) throws IOException {
        int p = position;
        if (capacity - p < Long.BYTES) {
            writeSlow(value, Long.BYTES);
            return;
        }
        memory.set(LONG, p, value);
        position = p + Long.BYTES;
    }

    /**
     * Accepts the bytes of {@code src} from its position to its limit, and advances its position to
     * its limit.
     *
     * @param src the bytes
     * @throws IOException if a write it triggers fails; {@code src}'s position then tells how many
     *     bytes were accepted
     */
    public void write(ByteBuffer src) throws IOException {
        int from = src.position();
        int length = src.limit() - from;
        if (length <= capacity - position) {
            buffer.put(position, src, from, length);
            position += length;
            src.position(from + length);
            return;
        }
        if (src.isDirect() && length >= capacity) {
            writeAround(src);
            return;
        }
        while (src.hasRemaining()) {
            if (position == capacity) {
                drain();
            }
            int n = Math.min(src.remaining(), capacity - position);
            buffer.put(position, src, src.position(), n);
            position += n;
            src.position(src.position() + n);
        }
    }

    /**
     * Accepts {@code length} bytes of {@code src} from {@code offset}.
     *
     * @param src the array
     * @param offset the first byte
     * @param length how many
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IOException if a write it triggers fails
     */
    public void write(byte[] src, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, src.length);
        int done = 0;
        while (done < length) {
            if (position == capacity) {
                drain();
            }
            int n = Math.min(length - done, capacity - position);
            MemorySegment.copy(src, offset + done, memory, ValueLayout.JAVA_BYTE, position, n);
            position += n;
            done += n;
        }
    }

    /**
     * Accepts a big-endian 64-bit {@code prefix} followed by {@code length} bytes of {@code src} from
     * {@code offset}: a length-prefixed record in one call. Where the record fits in the buffer it is
     * copied after one capacity check, where {@link #writeLong} then {@link #write(byte[], int, int)} make
     * one each; otherwise it behaves exactly as those two calls.
     *
     * @param prefix the 8 bytes before the body, e.g. a frame's type and length
     * @param src the array
     * @param offset the first byte of the body
     * @param length how many bytes
     * @throws IndexOutOfBoundsException if the range is outside the array; nothing is accepted
     * @throws IOException if a write it triggers fails
     */
    public void write(long prefix, byte[] src, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, src.length);
        int p = position;
        if (capacity - p >= Long.BYTES + length) {
            memory.set(LONG, p, prefix);
            MemorySegment.copy(src, offset, memory, ValueLayout.JAVA_BYTE, p + Long.BYTES, length);
            position = p + Long.BYTES + length;
            return;
        }
        writeLong(prefix);
        write(src, offset, length);
    }

    /**
     * Makes room for {@code length} bytes at the end of the buffer, writing what it holds to the
     * channel first if they do not fit, and returns a view of them to fill in place. The view's
     * position is the first claimed byte and its limit one past the last (fill it with relative puts,
     * or absolute ones counted from {@code view.position()}); big-endian. It is valid until the next
     * call of any method of this writer. The bytes count only once {@link #commit(int) committed}.
     *
     * @param length bytes to claim, {@code 0 <= length <= capacity()}
     * @return the view, re-used by every claim
     * @throws IllegalArgumentException if {@code length} is out of range, naming it and the capacity
     * @throws IOException if making room fails
     */
    public ByteBuffer claim(int length) throws IOException {
        if (length < 0 || length > capacity) {
            throw new IllegalArgumentException("claim length=" + length + " min=0 capacity=" + capacity);
        }
        if (capacity - position < length) {
            drain();
        }
        claimed = length;
        return claimView.limit(position + length).position(position);
    }

    /**
     * Accepts the first {@code length} bytes of the last {@link #claim(int) claim}, as filled; the
     * claim ends.
     *
     * @param length at most the length claimed; 0 drops the claim
     * @throws IllegalStateException if there is no claim, or {@code length} exceeds it, naming both
     */
    public void commit(int length) {
        if (claimed < 0 || length < 0 || length > claimed) {
            throw new IllegalStateException("commit length=" + length + (claimed < 0 ? " without a claim"
                    : " claimed=" + claimed));
        }
        position += length;
        claimed = -1;
    }

    /**
     * Writes every accepted byte to the channel, finishing partial writes.
     *
     * @throws IOException if the channel fails; unwritten bytes stay buffered
     */
    @Override
    public void flush() throws IOException {
        if (position > 0) {
            drain();
        }
    }

    /**
     * Flushes, then closes the channel (even if the flush fails).
     *
     * @throws IOException if flushing or closing fails
     */
    @Override
    public void close() throws IOException {
        try {
            flush();
        } finally {
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "ChannelWriter[offset=" + offset() + " buffered=" + buffered() + " capacity=" + capacity()
                + "]";
    }

    private void writeSlow(long value, int size) throws IOException {
        for (int shift = (size - 1) * Byte.SIZE; shift >= 0; shift -= Byte.SIZE) {
            writeByte((byte) (value >>> shift));
        }
    }

    /** Writes the whole buffer, keeping what the channel did not take if it throws. */
    private void drain() throws IOException {
        buffer.limit(position).position(0);
        try {
            writeFully(buffer);
        } finally {
            keepUnwritten();
        }
    }

    /** After the buffer was handed to the channel: moves what it did not take to the front. */
    private void keepUnwritten() {
        buffer.compact();
        position = buffer.position();
    }

    /**
     * Writes the buffer's pending bytes and then {@code src}, without copying {@code src}: in one
     * gathering call per attempt where the channel gathers, else one after the other.
     */
    private void writeAround(ByteBuffer src) throws IOException {
        if (position == 0) {
            writeFully(src);
            return;
        }
        if (!(channel instanceof GatheringByteChannel gathering)) {
            drain();
            writeFully(src);
            return;
        }
        buffer.limit(position).position(0);
        gather[0] = buffer;
        gather[1] = src;
        try {
            int emptyWrites = 0;
            while (src.hasRemaining()) {
                long n = gathering.write(gather);
                written += n;
                if (n == 0) {
                    idle.idle(++emptyWrites);
                } else {
                    emptyWrites = 0;
                }
            }
        } finally {
            gather[1] = null;
            keepUnwritten();
        }
    }

    private void writeFully(ByteBuffer src) throws IOException {
        int emptyWrites = 0;
        while (src.hasRemaining()) {
            int n = channel.write(src);
            written += n;
            if (n == 0) {
                idle.idle(++emptyWrites);
            } else {
                emptyWrites = 0;
            }
        }
    }
}
