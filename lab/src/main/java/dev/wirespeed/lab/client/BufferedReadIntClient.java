package dev.wirespeed.lab.client;

import static dev.wirespeed.lab.client.StreamReads.readBody;
import static dev.wirespeed.lab.client.StreamReads.readIntAtOnce;
import static dev.wirespeed.lab.client.StreamReads.readType;
import static dev.wirespeed.lab.client.StreamReads.toInt;

import dev.wirespeed.frame.FrameFormat;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Both modifications: {@code BufferedInputStream} and {@code readInt} reading four bytes at once (into a new array). */
final class BufferedReadIntClient implements Strategy {
    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        InputStream in = new BufferedInputStream(source.stream());
        long offset = 0;
        while (!receiver.done()) {
            byte[] type = new byte[4];
            if (!readType(in, type, offset)) {
                return;
            }
            int len = FrameFormat.checkLength(readIntAtOnce(in, new byte[4], offset), maxFrameLength, offset);
            byte[] msg = new byte[len];
            readBody(in, msg, len, offset);
            receiver.onFrame(toInt(type, 0), msg, 0, len);
            offset += 8L + len;
        }
    }
}
