package dev.wirespeed.frame;

import dev.wirespeed.io.ChannelReader;
import dev.wirespeed.io.ChannelWriter;
import dev.wirespeed.io.IdleStrategy;
import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.Objects;

/**
 * Writes frames ({@link FrameReader} draws the format) into one direct buffer and from it to a
 * channel in large writes.
 *
 * <p>A frame reaches the channel when the buffer fills (the buffer is then written whole, so a frame
 * may straddle two writes) or on {@link #flush()}. To write each frame on its own, call
 * {@link #flush()} after each. Partial writes are always finished (see {@link ChannelWriter}). A
 * direct body of at least the buffer's size is not copied: it leaves in a gathering write after the
 * frames before it. Frames already encoded, such as a block a {@link FrameBlockHandler} was handed,
 * go in one call and one copy: {@link #writeFrames(ByteBuffer)}.
 *
 * <h2>Frames written in place</h2>
 * {@link #claim(int, int)} writes a frame's header into the buffer (one 8-byte store) and returns a
 * view of the body's bytes to fill there, so the body is never copied; {@link #commit()} accepts the
 * frame and {@link #abort()} drops it. The claimed frame must fit the buffer. Between a claim and its
 * commit or abort every other method of the writer throws {@link IllegalStateException}.
 *
 * <p>Thread safety: not thread-safe; one thread writes a given writer.
 */
public final class FrameWriter implements Flushable, Closeable {
    private final ChannelWriter out;
    /** {@code 0 <= maxFrameLength <= FrameFormat.MAX_MAX_FRAME_LENGTH}. */
    private final int maxFrameLength;
    /** Frames accepted so far; {@code >= 0}. */
    private long frames;
    /** Bytes of the claimed frame, header included, or -1 when there is no claim. */
    private int claimed = -1;

    /**
     * A writer with a 512 KiB buffer and the default 16 MiB {@code maxFrameLength}.
     *
     * @param channel the channel to write
     */
    public FrameWriter(WritableByteChannel channel) {
        this(channel, ChannelWriter.DEFAULT_CAPACITY, FrameFormat.DEFAULT_MAX_FRAME_LENGTH, IdleStrategy.defaultStrategy());
    }

    private FrameWriter(WritableByteChannel channel, int bufferCapacity, int maxFrameLength, IdleStrategy idle) {
        this.maxFrameLength = maxFrameLength;
        this.out = new ChannelWriter(Objects.requireNonNull(channel, "channel"), bufferCapacity, idle);
    }

    /**
     * {@return a builder of a writer to {@code channel}}, with the defaults of {@link #FrameWriter(WritableByteChannel)}
     *
     * @param channel the channel to write
     */
    public static Builder builder(WritableByteChannel channel) {
        return new Builder(channel);
    }

    /**
     * Accepts a frame whose body is {@code body}'s bytes from its position to its limit; advances the
     * body's position to its limit.
     *
     * @param type the type field
     * @param body the body
     * @throws IllegalArgumentException if the body is longer than {@code maxFrameLength}; nothing is
     *     written
     * @throws IOException if a write it triggers fails
     */
    public void writeFrame(int type, ByteBuffer body) throws IOException {
        checkNoClaim();
        int length = checkLength(body.remaining());
        out.writeLong(FrameFormat.header(type, length));
        out.write(body);
        frames++;
    }

    /**
     * Accepts a frame whose body is {@code length} bytes of {@code body} from {@code offset}.
     *
     * @param type the type field
     * @param body the array
     * @param offset the body's first byte
     * @param length the body's length, at most {@code maxFrameLength}
     * @throws IllegalArgumentException if {@code length} exceeds {@code maxFrameLength}
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IOException if a write it triggers fails
     */
    public void writeFrame(int type, byte[] body, int offset, int length) throws IOException {
        checkNoClaim();
        checkLength(length);
        out.write(FrameFormat.header(type, length), body, offset, length);
        frames++;
    }

    /**
     * Accepts whole frames as they are, headers included, from the position of {@code frames} to its
     * limit: a block a {@link FrameBlockHandler} was handed, a run of its frames, or frames made
     * elsewhere; advances its position to its limit. Every frame is checked before any is accepted (see
     * {@link FrameFormat#checkWholeFrames}); then the bytes are copied as {@link ChannelWriter#write(ByteBuffer)}
     * copies them, in one piece, a direct block of at least the buffer's size written from where it lies.
     *
     * @param frames whole frames, each an 8-byte header (the type, then the length, big-endian) and its body
     * @return the number of frames accepted
     * @throws IllegalArgumentException if the bytes are not whole frames within the {@code maxFrameLength},
     *     naming the first that is not and where it lies; nothing is written
     * @throws IllegalStateException if a claim is outstanding
     * @throws IOException if a write it triggers fails; the position of {@code frames} then tells how many
     *     of its bytes were accepted, and {@link #frameCount()} counts none of its frames
     */
    public int writeFrames(ByteBuffer frames) throws IOException {
        checkNoClaim();
        int count = FrameFormat.checkWholeFrames(frames, maxFrameLength);
        writeChecked(frames, count);
        return count;
    }

    /**
     * Accepts {@code count} whole frames checked already against this writer's {@code maxFrameLength}
     * (by {@link #writeFrames}, or by the {@link FrameReader} that found them), where no claim is
     * outstanding.
     */
    void writeChecked(ByteBuffer frames, int count) throws IOException {
        out.write(frames);
        this.frames += count;
    }

    /** {@return the longest body this writer accepts} */
    int maxFrameLength() {
        return maxFrameLength;
    }

    /**
     * Claims room for a frame of {@code length} body bytes in the buffer (writing out what the buffer
     * holds first if the frame does not fit), writes its header, and returns a view of its body to fill
     * in place. The view's position is the body's first byte and its limit one past the last: fill it
     * with relative puts, or absolute ones counted from {@code view.position()}. It is valid until
     * {@link #commit()} or {@link #abort()}, which the caller must call next.
     *
     * @param type the type field
     * @param length the body's length, at most {@code maxFrameLength} and at most the buffer's capacity
     *     less the 8 header bytes
     * @return the body view, re-used by every claim
     * @throws IllegalArgumentException if {@code length} is negative, exceeds {@code maxFrameLength}, or
     *     with its header exceeds the buffer, naming the value and the limit; nothing is claimed
     * @throws IllegalStateException if a claim is outstanding
     * @throws IOException if making room fails
     */
    public ByteBuffer claim(int type, int length) throws IOException {
        checkNoClaim();
        if (length < 0) {
            throw new IllegalArgumentException("claim length=" + length + " min=0");
        }
        checkLength(length);
        if (length > out.capacity() - FrameFormat.HEADER_LENGTH) {
            throw new IllegalArgumentException("frame too long to claim: length=" + length + " bufferCapacity="
                    + out.capacity() + " (header " + FrameFormat.HEADER_LENGTH + " bytes); write it with writeFrame");
        }
        ByteBuffer view = out.claim(FrameFormat.HEADER_LENGTH + length);
        int start = view.position();
        view.putLong(start, FrameFormat.header(type, length));
        claimed = FrameFormat.HEADER_LENGTH + length;
        return view.position(start + FrameFormat.HEADER_LENGTH);
    }

    /**
     * Accepts the claimed frame, whatever its body view holds.
     *
     * @throws IllegalStateException if there is no claim
     */
    public void commit() {
        if (claimed < 0) {
            throw new IllegalStateException("commit without a claim: frame=" + frames);
        }
        out.commit(claimed);
        claimed = -1;
        frames++;
    }

    /**
     * Drops the claimed frame: nothing of it is written.
     *
     * @throws IllegalStateException if there is no claim
     */
    public void abort() {
        if (claimed < 0) {
            throw new IllegalStateException("abort without a claim: frame=" + frames);
        }
        out.commit(0);
        claimed = -1;
    }

    /**
     * Writes every accepted frame to the channel.
     *
     * @throws IllegalStateException if a claim is outstanding
     * @throws IOException if the channel fails
     */
    @Override
    public void flush() throws IOException {
        checkNoClaim();
        out.flush();
    }

    /** {@return frames accepted so far} */
    public long frameCount() {
        return frames;
    }

    /** {@return bytes accepted so far, headers included} */
    public long offset() {
        return out.offset();
    }

    /**
     * Flushes the accepted frames and closes the channel; a claimed frame not committed is dropped.
     *
     * @throws IOException if flushing or closing fails
     */
    @Override
    public void close() throws IOException {
        if (claimed >= 0) {
            out.commit(0); // a claim not committed is dropped, never sent half-filled
            claimed = -1;
        }
        out.close();
    }

    @Override
    public String toString() {
        return "FrameWriter[frames=" + frames + " offset=" + out.offset() + " maxFrameLength="
                + maxFrameLength + "]";
    }

    void checkNoClaim() {
        if (claimed >= 0) {
            throw new IllegalStateException("a claimed frame of " + claimed + " bytes is not committed or aborted: "
                    + "frame=" + frames);
        }
    }

    private int checkLength(int length) {
        if (length > maxFrameLength) {
            throw new IllegalArgumentException("frame too long to write: length=" + length
                    + " maxFrameLength=" + maxFrameLength + " frame=" + frames);
        }
        return length;
    }

    /**
     * Settings for a {@link FrameWriter}, checked as they are set.
     *
     * <p>Thread safety: not thread-safe; build on one thread.
     */
    public static final class Builder {
        private final WritableByteChannel channel;
        private int maxFrameLength = FrameFormat.DEFAULT_MAX_FRAME_LENGTH;
        private int bufferCapacity = ChannelWriter.DEFAULT_CAPACITY;
        private IdleStrategy idle = IdleStrategy.defaultStrategy();

        private Builder(WritableByteChannel channel) {
            this.channel = Objects.requireNonNull(channel, "channel");
        }

        /**
         * The largest body accepted; a frame of exactly this length is valid.
         *
         * @param maxFrameLength {@code 0 <= maxFrameLength <= FrameFormat.MAX_MAX_FRAME_LENGTH};
         *     default 16 MiB
         * @return this builder
         * @throws IllegalArgumentException if it is out of range, naming the value and the limit
         */
        public Builder maxFrameLength(int maxFrameLength) {
            this.maxFrameLength = FrameFormat.checkMaxFrameLength(maxFrameLength);
            return this;
        }

        /**
         * The buffer's size: frames gather in it and leave in writes of this size.
         *
         * @param bufferCapacity {@code 1 <= bufferCapacity <= ChannelReader.MAX_CAPACITY}; default 512 KiB
         * @return this builder
         * @throws IllegalArgumentException if it is out of range, naming the value and the limits
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
         * What the writer does when a non-blocking channel takes no bytes.
         *
         * @param idle default {@link IdleStrategy#defaultStrategy()}
         * @return this builder
         */
        public Builder idleStrategy(IdleStrategy idle) {
            this.idle = Objects.requireNonNull(idle, "idle");
            return this;
        }

        /** {@return a new writer with these settings} */
        public FrameWriter build() {
            return new FrameWriter(channel, bufferCapacity, maxFrameLength, idle);
        }
    }
}
