package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.TruncatedFrameException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * The first channel client: a 512 KiB direct buffer, an {@code ensure()} that appends to the unread
 * bytes until the buffer's end and only then compacts, and the body copied into a re-used array.
 * Fixed for end of stream (the original spun forever on -1) and for bodies larger than the buffer.
 */
final class ChannelClient implements Strategy {
    private ByteBuffer buf = ByteBuffer.allocateDirect(1024 * 512);
    private ReadableByteChannel chan;

    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        chan = source.channel();
        byte[] type = new byte[4];
        byte[] msg = new byte[1024];
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
            if (len > msg.length) {
                msg = new byte[len];
            }
            buf.get(msg, 0, len);
            receiver.onFrame(StreamReads.toInt(type, 0), msg, 0, len);
            offset += 8L + len;
        }
    }

    /** Makes {@code len} bytes available; false if the stream ends first. */
    private boolean ensure(int len) throws IOException {
        if (len > buf.capacity()) {
            buf = ByteBuffer.allocateDirect(len).put(buf).flip();
        }
        if (buf.position() > buf.capacity() - len) {
            buf.compact();
            buf.flip();
        }
        while (buf.remaining() < len) {
            int oldpos = buf.position();
            buf.position(buf.limit());
            buf.limit(buf.capacity());
            int n = chan.read(buf);
            buf.limit(buf.position());
            buf.position(oldpos);
            if (n < 0) {
                return false;
            }
        }
        return true;
    }
}
