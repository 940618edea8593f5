package dev.wirespeed.frame;

import dev.wirespeed.io.ChannelReader;
import dev.wirespeed.io.IdleStrategy;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Objects;

/**
 * Reads frames from a channel and hands each to a {@link FrameHandler} as {@code (type, body view)},
 * allocating nothing per frame: one frame per {@link #readFrame} call, or all those already buffered
 * per {@link #readFrames(FrameHandler, int)} call; or hands all those buffered to a
 * {@link FrameBlockHandler} as one block of whole frames per {@link #readBlock} call; or writes such a
 * block to a {@link FrameWriter} as it is, its frames checked once, per {@link #relayBlock} call.
 *
 * <pre>
 * +--------+--------+----------------+   type    4 bytes, opaque
 * |  type  | length |      body      |   length  4 bytes, big-endian, signed,
 * | 4 B    | 4 B BE | length bytes   |           0 &lt;= length &lt;= maxFrameLength
 * +--------+--------+----------------+   body    length bytes
 * |&lt;---- header ---&gt;|
 * </pre>
 *
 * Frames follow one another with nothing in between; a stream ends cleanly only at a frame boundary,
 * and an empty stream is a clean stream of zero frames.
 *
 * <h2>Bad input</h2>
 * The length is checked before anything is sized by it. Problems are reported with the stream offset
 * of the first byte of the offending frame ({@code xxd -s OFFSET} shows it):
 * <ul>
 * <li>{@code length < 0}: {@link CorruptFrameException};
 * <li>{@code length > maxFrameLength}: {@link FrameTooLongException};
 * <li>end of stream inside a header or a body: {@link TruncatedFrameException}, which is an
 *     {@link java.io.EOFException} naming how many bytes were present.
 * </ul>
 * Frames complete before the problem have been delivered; nothing after it is, and a later call
 * reports the same problem again.
 *
 * <h2>Memory</h2>
 * One direct buffer ({@link ChannelReader#DEFAULT_CAPACITY} bytes unless told otherwise). A frame
 * larger than the buffer is still delivered whole: the buffer grows, doubling as the frame's bytes
 * arrive, to at most {@code maxFrameLength + 8} bytes, and stays grown.
 *
 * <h2>Views</h2>
 * The body passed to a {@link FrameHandler}, and the block passed to a {@link FrameBlockHandler}, is valid
 * until the handler returns (see each).
 *
 * <h2>Thread safety</h2>
 * Not thread-safe: one thread reads a given reader.
 */
public final class FrameReader implements Closeable {
    private final ChannelReader in;
    /** {@code 0 <= maxFrameLength <= FrameFormat.MAX_MAX_FRAME_LENGTH}. */
    private final int maxFrameLength;
    private final boolean checkedViews;
    /** What {@link #nextFrame()} returns at a clean end of stream. */
    private static final long END = -1L;
    /** Frames delivered so far; {@code >= 0}. */
    private long frames;
    /** The view {@link #readFrames(FrameHandler, int)} and {@link #readBlock} re-point, and the buffer it views. */
    private ByteBuffer batchView;
    private ByteBuffer batchViewOf;

    private FrameReader(Builder builder) {
        this.maxFrameLength = builder.maxFrameLength;
        this.checkedViews = builder.checkedViews;
        int capacity = builder.bufferCapacity;
        int maxCapacity = Math.max(capacity, maxFrameLength + FrameFormat.HEADER_LENGTH);
        this.in = new ChannelReader(builder.channel, capacity, maxCapacity, builder.idle);
    }

    /**
     * A reader with the defaults: 16 MiB {@code maxFrameLength}, a 512 KiB buffer.
     *
     * @param channel the channel to read, blocking or non-blocking (read again after the {@link IdleStrategy} idles)
     */
    public FrameReader(ReadableByteChannel channel) {
        this(builder(channel));
    }

    /**
     * A builder for a reader of {@code channel}.
     *
     * @param channel the channel to read, blocking or non-blocking (read again after the {@link IdleStrategy} idles)
     * @return a builder with the defaults set
     */
    public static Builder builder(ReadableByteChannel channel) {
        return new Builder(channel);
    }

    /**
     * Reads one frame and hands it to {@code handler}.
     *
     * @param handler receives the frame
     * @return true if a frame was delivered; false at a clean end of stream (a frame boundary)
     * @throws TruncatedFrameException if the stream ends inside a frame
     * @throws CorruptFrameException if the length is negative
     * @throws FrameTooLongException if the length exceeds {@code maxFrameLength}
     * @throws IOException if the channel or the handler fails
     */
    public boolean readFrame(FrameHandler handler) throws IOException {
        long header = nextFrame();
        if (header == END) {
            return false;
        }
        int type = FrameFormat.type(header);
        int length = FrameFormat.length(header);
        ByteBuffer body = in.view(FrameFormat.HEADER_LENGTH, length);
        frames++;
        if (checkedViews) {
            deliverChecked(handler, type, body);
        } else {
            handler.onFrame(type, body);
        }
        return true;
    }

    /**
     * Makes the next frame's header and body available, consuming nothing, and returns its header: the
     * type in the high half, the checked length in the low. Returns {@link #END}, which no checked header
     * equals (its length half is -1), at a clean end of stream.
     */
    private long nextFrame() throws IOException {
        ChannelReader in = this.in;
        if (!in.request(FrameFormat.HEADER_LENGTH)) {
            if (in.available() == 0) {
                return END;
            }
            throw TruncatedFrameException.inHeader(in.available(), in.offset());
        }
        long header = in.peekLong(0); // the two big-endian fields in one load
        int length = FrameFormat.checkLength(FrameFormat.length(header), maxFrameLength, in.offset());
        if (!in.request(FrameFormat.HEADER_LENGTH + length)) {
            throw TruncatedFrameException.inBody(in.available() - FrameFormat.HEADER_LENGTH, length,
                    in.offset());
        }
        return header;
    }

    /** Hands the handler a view of its own, emptied when it returns so that later use fails. */
    private static void deliverChecked(FrameHandler handler, int type, ByteBuffer shared) throws IOException {
        ByteBuffer body = shared.duplicate();
        try {
            handler.onFrame(type, body);
        } finally {
            body.limit(0);
        }
    }

    /**
     * Reads frames until a clean end of stream.
     *
     * @param handler receives every frame
     * @return the number of frames this call delivered
     * @throws IOException as {@link #readFrame(FrameHandler)} does; frames before the problem were
     *     delivered
     */
    public long readFrames(FrameHandler handler) throws IOException {
        long before = frames;
        while (readFrames(handler, Integer.MAX_VALUE) > 0) {
            // each call delivers the frames buffered
        }
        return frames - before;
    }

    /**
     * Reads at least one and at most {@code maxFrames} frames, handing each to {@code handler}: the
     * first as {@link #readFrame(FrameHandler)} does, reading the channel if no whole frame is buffered,
     * then those already buffered, without reading again. A loop over this method costs less per frame
     * than one over {@code readFrame}, since the reader's position stays in a register between frames;
     * in exchange, {@link #offset()} and {@link #frameCount()} seen from inside the handler may lag
     * behind the frame it is handed. Frames are delivered, and problems reported, exactly as by
     * repeated {@code readFrame} calls.
     *
     * @param handler receives the frames; it must not call this reader's read methods
     * @param maxFrames the most frames to deliver, at least 1
     * @return the frames delivered, 0 only at a clean end of stream
     * @throws IllegalArgumentException if {@code maxFrames < 1}
     * @throws IOException as {@link #readFrame(FrameHandler)} does; the frames before the problem were
     *     delivered and are counted
     */
    public int readFrames(FrameHandler handler, int maxFrames) throws IOException {
        if (maxFrames < 1) {
            throw new IllegalArgumentException("maxFrames=" + maxFrames + " min=1");
        }
        if (!readFrame(handler)) {
            return 0;
        }
        if (checkedViews) {
            int delivered = 1;
            while (delivered < maxFrames && in.available() > 0 && readFrame(handler)) {
                delivered++;
            }
            return delivered;
        }
        ChannelReader in = this.in;
        ByteBuffer buf = in.buffer();
        ByteBuffer body = batchView(buf);
        int first = in.index();
        int pos = first;
        int end = pos + in.available();
        int max = maxFrameLength;
        int delivered = 1;
        try {
            while (delivered < maxFrames && end - pos >= FrameFormat.HEADER_LENGTH) {
                long header = buf.getLong(pos);
                int length = FrameFormat.length(header);
                if (length < 0 || length > max || length > end - pos - FrameFormat.HEADER_LENGTH) {
                    break; // a bad or partial frame: the next readFrame reports or completes it
                }
                int start = pos + FrameFormat.HEADER_LENGTH;
                pos = start + length;
                delivered++;
                handler.onFrame(FrameFormat.type(header), body.limit(pos).position(start));
            }
        } finally {
            in.skip(pos - first);
            frames += delivered - 1;
        }
        return delivered;
    }

    /**
     * Reads at least one frame and hands {@code handler} every whole frame then buffered, headers
     * included, as one block (see {@link FrameBlockHandler}): the first frame as {@link
     * #readFrame(FrameHandler)} reads it, reading the channel if no whole frame is buffered, then those
     * after it already buffered, without reading again. The block ends before a partial frame or a bad
     * length, which the next call completes or reports. Frames are delivered, and problems reported,
     * exactly as by repeated {@code readFrame} calls, a block's frames counted at once: from inside the
     * handler, {@link #offset()} and {@link #frameCount()} are those before the block.
     *
     * @param handler receives the block; it must not call this reader's read methods
     * @return the frames in the block, 0 only at a clean end of stream
     * @throws IOException as {@link #readFrame(FrameHandler)} does, for the first frame; or as the
     *     handler throws, the block then counted as delivered
     */
    public int readBlock(FrameBlockHandler handler) throws IOException {
        int count = nextBlock();
        if (count == 0) {
            return 0;
        }
        ByteBuffer block = batchView;
        int length = block.remaining(); // the handler may move the view's position
        try {
            if (checkedViews) {
                deliverChecked(handler, block);
            } else {
                handler.onFrames(block);
            }
        } finally {
            in.skip(length);
            frames += count;
        }
        return count;
    }

    /**
     * Reads a block as {@link #readBlock} does and writes it to {@code out} as it is, as a handler that
     * gives each block to {@link FrameWriter#writeFrames} would, but without that method's walk over the
     * block's headers: each length was checked as this reader read it, against this reader's {@code
     * maxFrameLength}. Only where {@code out}'s {@code maxFrameLength} is the smaller are the frames
     * checked again, against it. The relay's loop:
     *
     * {@snippet :
     * while (reader.relayBlock(writer) > 0) {
     *     if (reader.available() == 0) {
     *         writer.flush(); // nothing more buffered: what was relayed goes before the next read waits
     *     }
     * }
     * writer.flush();
     * }
     *
     * @param out where the frames go
     * @return the frames relayed, 0 only at a clean end of stream
     * @throws IllegalStateException if {@code out} has a claim outstanding; nothing is read
     * @throws IllegalArgumentException where {@code out}'s {@code maxFrameLength} is below this reader's
     *     and a frame of the block is longer, naming its length, both limits, its stream offset and its
     *     number; nothing of the block is written, and it counts as read
     * @throws IOException as {@link #readBlock} does, for the first frame; or as {@code out}'s write fails,
     *     the block then counted as read here and as none of {@code out}'s frames
     */
    public int relayBlock(FrameWriter out) throws IOException {
        out.checkNoClaim();
        int count = nextBlock();
        if (count == 0) {
            return 0;
        }
        ByteBuffer block = batchView;
        int length = block.remaining();
        try {
            int limit = out.maxFrameLength();
            if (limit < maxFrameLength) {
                checkRelayed(block, limit);
            }
            out.writeChecked(block, count);
        } finally {
            in.skip(length);
            frames += count;
        }
        return count;
    }

    /** Checks each frame of {@code block}, not yet skipped, against a writer's {@code limit} below this reader's. */
    private void checkRelayed(ByteBuffer block, int limit) {
        int first = block.position();
        long frame = frames;
        for (int at = first; at < block.limit(); frame++) {
            int length = FrameFormat.length(block, at);
            if (length > limit) {
                throw new IllegalArgumentException("frame too long to relay: length=" + length
                        + " the writer's maxFrameLength=" + limit + " (the reader's " + maxFrameLength + ") offset="
                        + (in.offset() + at - first) + " frame=" + frame);
            }
            at += FrameFormat.HEADER_LENGTH + length;
        }
    }

    /**
     * Finds the next block: the first frame as {@link #readFrame(FrameHandler)} finds it, reading the
     * channel if no whole frame is buffered, then those after it already buffered, up to a partial
     * frame or a bad length, each length checked.
     *
     * @return the block's frames, the block left in {@link #batchView}, a view of the buffer from the
     *     first frame's header to the last frame's end; 0 at a clean end of stream
     */
    private int nextBlock() throws IOException {
        long header = nextFrame();
        if (header == END) {
            return 0;
        }
        ChannelReader in = this.in;
        ByteBuffer buf = in.buffer();
        int first = in.index();
        int end = first + in.available();
        int pos = first + FrameFormat.HEADER_LENGTH + FrameFormat.length(header);
        int max = maxFrameLength;
        int count = 1;
        while (end - pos >= FrameFormat.HEADER_LENGTH) {
            int length = FrameFormat.length(buf, pos);
            if (length < 0 || length > max || length > end - pos - FrameFormat.HEADER_LENGTH) {
                break; // a bad or partial frame: the next call reports or completes it
            }
            pos += FrameFormat.HEADER_LENGTH + length;
            count++;
        }
        batchView(buf).limit(pos).position(first);
        return count;
    }

    /** Hands the handler a block view of its own, emptied when it returns so that later use fails. */
    private static void deliverChecked(FrameBlockHandler handler, ByteBuffer shared) throws IOException {
        ByteBuffer block = shared.duplicate();
        try {
            handler.onFrames(block);
        } finally {
            block.limit(0);
        }
    }

    /** {@return a read-only view of {@code whole} for {@link #readFrames(FrameHandler, int)} and {@link #readBlock}, made again only when the buffer grows} */
    private ByteBuffer batchView(ByteBuffer whole) {
        if (batchViewOf != whole) {
            batchView = whole.duplicate();
            batchViewOf = whole;
        }
        return batchView;
    }

    /** {@return the number of frames this reader has delivered} */
    public long frameCount() {
        return frames;
    }

    /** {@return the stream offset of the next frame: the bytes of the frames delivered} */
    public long offset() {
        return in.offset();
    }

    /**
     * {@return the bytes read from the channel and not yet delivered: 0 means the next
     * {@link #readFrame} will read the channel} An echo or relay flushes its output when this is
     * 0, before it may block, and batches otherwise.
     */
    public int available() {
        return in.available();
    }

    /** {@return the largest body this reader accepts} */
    public int maxFrameLength() {
        return maxFrameLength;
    }

    /**
     * Closes the channel.
     *
     * @throws IOException if closing fails
     */
    @Override
    public void close() throws IOException {
        in.close();
    }

    @Override
    public String toString() {
        return "FrameReader[frames=" + frames + " offset=" + in.offset() + " maxFrameLength="
                + maxFrameLength + "]";
    }

    /**
     * Settings of a {@link FrameReader}.
     *
     * <p>Thread safety: not thread-safe; build on one thread.
     */
    public static final class Builder {
        private final ReadableByteChannel channel;
        private int maxFrameLength = FrameFormat.DEFAULT_MAX_FRAME_LENGTH;
        private int bufferCapacity = ChannelReader.DEFAULT_CAPACITY;
        private boolean checkedViews;
        private IdleStrategy idle = IdleStrategy.defaultStrategy();

        private Builder(ReadableByteChannel channel) {
            this.channel = Objects.requireNonNull(channel, "channel");
        }

        /**
         * The largest body accepted; a frame of exactly this length is valid.
         *
         * @param maxFrameLength {@code 0 <= maxFrameLength <= FrameFormat.MAX_MAX_FRAME_LENGTH};
         *     default 16 MiB
         * @return this builder
         */
        public Builder maxFrameLength(int maxFrameLength) {
            this.maxFrameLength = FrameFormat.checkMaxFrameLength(maxFrameLength);
            return this;
        }

        /**
         * The initial buffer size; frames larger than it grow the buffer.
         *
         * @param bufferCapacity at least 1; default 512 KiB
         * @return this builder
         */
        public Builder bufferCapacity(int bufferCapacity) {
            if (bufferCapacity < 1 || bufferCapacity > ChannelReader.MAX_CAPACITY) {
                throw new IllegalArgumentException("bufferCapacity=" + bufferCapacity + " min=1 max="
                        + ChannelReader.MAX_CAPACITY);
            }
            this.bufferCapacity = bufferCapacity;
            return this;
        }

        /**
         * Whether each frame gets its own body view, emptied when the handler returns, so that a
         * view used after its handler returned always fails ({@link java.nio.BufferUnderflowException}
         * or {@link IndexOutOfBoundsException}) instead of showing another frame. Costs one small
         * allocation per frame: for tests and debugging, not for production.
         *
         * @param checkedViews default false
         * @return this builder
         */
        public Builder checkedViews(boolean checkedViews) {
            this.checkedViews = checkedViews;
            return this;
        }

        /**
         * What the reader does when a non-blocking channel has no bytes.
         *
         * @param idle default {@link IdleStrategy#defaultStrategy()}
         * @return this builder
         */
        public Builder idleStrategy(IdleStrategy idle) {
            this.idle = Objects.requireNonNull(idle, "idle");
            return this;
        }

        /** {@return a new reader with these settings} */
        public FrameReader build() {
            return new FrameReader(this);
        }
    }
}
