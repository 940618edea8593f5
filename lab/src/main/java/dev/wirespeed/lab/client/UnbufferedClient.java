package dev.wirespeed.lab.client;

import static dev.wirespeed.lab.client.StreamReads.readBody;
import static dev.wirespeed.lab.client.StreamReads.readIntByteByByte;
import static dev.wirespeed.lab.client.StreamReads.readType;
import static dev.wirespeed.lab.client.StreamReads.toInt;

import dev.wirespeed.frame.FrameFormat;
import java.io.IOException;
import java.io.InputStream;

/**
 * The first article's starting point: the socket's own stream, no buffering, the length read by four
 * {@code read()} calls, new arrays for every type and body. Six system calls per message.
 */
final class UnbufferedClient implements Strategy {
    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        InputStream in = source.rawStream();
        long offset = 0;
        while (!receiver.done()) {
            byte[] type = new byte[4];
            if (!readType(in, type, offset)) {
                return;
            }
            int len = FrameFormat.checkLength(readIntByteByByte(in, offset), maxFrameLength, offset);
            byte[] msg = new byte[len];
            readBody(in, msg, len, offset);
            receiver.onFrame(toInt(type, 0), msg, 0, len);
            offset += 8L + len;
        }
    }
}
