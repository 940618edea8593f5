package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.TruncatedFrameException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * "Byte buffers vs byte arrays": compact-on-demand, and the body handed over as a re-pointed
 * duplicate of the buffer instead of a copy. The article's fastest client (2,147 MB/s on loopback).
 */
final class ZeroCopyClient implements Strategy {
    private ByteBuffer buf = ByteBuffer.allocateDirect(1024 * 512);
    private ByteBuffer msgBuf = buf.duplicate();
    private ReadableByteChannel chan;

    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        chan = source.channel();
        byte[] type = new byte[4];
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
            msgBuf.limit(buf.position() + len);
            msgBuf.position(buf.position());
            buf.position(buf.position() + len);
            receiver.onFrame(StreamReads.toInt(type, 0), msgBuf);
            offset += 8L + len;
        }
    }

    /** Makes {@code len} bytes available; false if the stream ends first. */
    private boolean ensure(int len) throws IOException {
        if (buf.remaining() < len) {
            if (len > buf.capacity()) {
                buf = ByteBuffer.allocateDirect(len).put(buf).flip();
                msgBuf = buf.duplicate();
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
}
