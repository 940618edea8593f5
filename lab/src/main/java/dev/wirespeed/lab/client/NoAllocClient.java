package dev.wirespeed.lab.client;

import static dev.wirespeed.lab.client.StreamReads.readBody;
import static dev.wirespeed.lab.client.StreamReads.readIntAtOnce;
import static dev.wirespeed.lab.client.StreamReads.readType;
import static dev.wirespeed.lab.client.StreamReads.toInt;

import dev.wirespeed.frame.FrameFormat;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Both modifications with the arrays re-used: the type, the {@code readInt} scratch and the body
 * (grown, after the length was checked, when a longer body arrives). The article found it slower.
 */
final class NoAllocClient implements Strategy {
    private final byte[] type = new byte[4];
    private final byte[] tmpBuf = new byte[4];
    private byte[] msg = new byte[1024];

    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        InputStream in = new BufferedInputStream(source.stream());
        long offset = 0;
        while (!receiver.done()) {
            if (!readType(in, type, offset)) {
                return;
            }
            int len = FrameFormat.checkLength(readIntAtOnce(in, tmpBuf, offset), maxFrameLength, offset);
            if (len > msg.length) {
                msg = new byte[len];
            }
            readBody(in, msg, len, offset);
            receiver.onFrame(toInt(type, 0), msg, 0, len);
            offset += 8L + len;
        }
    }
}
