package dev.wirespeed.lab.client;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The first channel client: an {@code ensure()} that appends to the unread bytes until the buffer's
 * end and only then compacts, and the body copied into a re-used array.
 */
final class ChannelClient extends ChannelLoop {
    @Override
    boolean ensure(int len) throws IOException {
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

    @Override
    void deliver(Receiver receiver, int type, int len) throws IOException {
        deliverCopy(receiver, type, len);
    }
}
