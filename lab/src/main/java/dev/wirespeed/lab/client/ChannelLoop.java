package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.TruncatedFrameException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * The loop of the second article's channel clients: a 512 KiB direct buffer, the header read
 * through it, the body handed on. What the article varied, how {@link #ensure(int) ensure()} makes
 * bytes available and how the body is {@link #deliver(Receiver, int, int) delivered}, is each
 * client's. A child process loads one client, so the JIT inlines both into this loop.
 *
 * <p>Fixed, in every client, for end of stream (the originals spun for ever on -1) and for bodies
 * larger than the buffer.
 */
abstract class ChannelLoop implements Strategy {
    /** The read buffer: unread bytes between position and limit. */
    ByteBuffer buf = ByteBuffer.allocateDirect(1024 * 512);
    /** The channel read, set when reading starts. */
    ReadableByteChannel chan;
    private final byte[] type = new byte[4];
    private byte[] msg = new byte[1024];

    @Override
    public final void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        chan = source.channel();
        buf.limit(0);
        long offset = 0;
        while (!receiver.done()) {
            if (!ensure(4)) {
                if (buf.remaining() == 0) {
                    return;
                }
                throw TruncatedFrameException.inHeader(buf.remaining(), offset);
            }
            buf.get(type);
            if (!ensure(4)) {
                throw TruncatedFrameException.inHeader(4 + buf.remaining(), offset);
            }
            int len = FrameFormat.checkLength(buf.getInt(), maxFrameLength, offset);
            if (!ensure(len)) {
                throw TruncatedFrameException.inBody(buf.remaining(), len, offset);
            }
            deliver(receiver, StreamReads.toInt(type, 0), len);
            offset += 8L + len;
        }
    }

    /**
     * Makes {@code len} bytes available between the buffer's position and limit.
     *
     * @return false if the stream ends first
     */
    abstract boolean ensure(int len) throws IOException;

    /**
     * Hands the next {@code len} bytes of the buffer to {@code receiver} as the body of a frame, and consumes them.
     *
     * @throws IOException if the receiver refuses the frame (a failed verification)
     */
    abstract void deliver(Receiver receiver, int type, int len) throws IOException;

    /** Delivers the body as the first clients did: copied into a re-used array, grown when a longer body comes. */
    final void deliverCopy(Receiver receiver, int type, int len) throws IOException {
        if (len > msg.length) {
            msg = new byte[len];
        }
        buf.get(msg, 0, len);
        receiver.onFrame(type, msg, 0, len);
    }

    /**
     * The article's simpler {@code ensure()}: when short, moves the unread bytes to the front of the
     * buffer and reads after them, so the same few cache lines are re-used.
     */
    final boolean compactOnDemand(int len) throws IOException {
        if (buf.remaining() < len) {
            if (len > buf.capacity()) {
                buf = ByteBuffer.allocateDirect(len).put(buf).flip();
                grown();
            }
            buf.compact();
            buf.flip();
            do {
                buf.position(buf.limit());
                buf.limit(buf.capacity());
                int n = chan.read(buf);
                buf.flip();
                if (n < 0) {
                    return false;
                }
            } while (buf.remaining() < len);
        }
        return true;
    }

    /** Called when {@link #buf} was replaced by a larger buffer. */
    void grown() {
    }
}
