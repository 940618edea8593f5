package dev.wirespeed.lab.client;

import static dev.wirespeed.lab.client.StreamReads.readBody;
import static dev.wirespeed.lab.client.StreamReads.readIntAtOnce;
import static dev.wirespeed.lab.client.StreamReads.readIntByteByByte;
import static dev.wirespeed.lab.client.StreamReads.readType;
import static dev.wirespeed.lab.client.StreamReads.toInt;

import dev.wirespeed.frame.FrameFormat;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The first article's stream clients: one loop, and the three things the article changed one at a
 * time. The socket's own stream or a {@code BufferedInputStream} over it; the length field read by
 * four {@code read()} calls (the original {@code readInt}) or by one call into a four-byte array; a
 * new array for every type, length and body, or the same arrays re-used (the body grown, after its
 * length was checked, when a longer one arrives).
 */
final class StreamClient implements Strategy {
    private final boolean buffered;
    private final boolean intAtOnce;
    private final boolean reuseArrays;
    private final byte[] type = new byte[4];
    private final byte[] lengthBytes = new byte[4];
    private byte[] body = new byte[1024];

    /**
     * A client.
     *
     * @param buffered    whether the stream is wrapped in a {@code BufferedInputStream}
     * @param intAtOnce   whether the length field is read by one call instead of four
     * @param reuseArrays whether the arrays are re-used instead of allocated for every frame
     */
    StreamClient(boolean buffered, boolean intAtOnce, boolean reuseArrays) {
        this.buffered = buffered;
        this.intAtOnce = intAtOnce;
        this.reuseArrays = reuseArrays;
    }

    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        InputStream in = buffered ? new BufferedInputStream(source.stream()) : source.rawStream();
        long offset = 0;
        while (!receiver.done()) {
            byte[] typeBytes = reuseArrays ? type : new byte[4];
            if (!readType(in, typeBytes, offset)) {
                return;
            }
            int length = intAtOnce
                    ? readIntAtOnce(in, reuseArrays ? lengthBytes : new byte[4], offset)
                    : readIntByteByByte(in, offset);
            int len = FrameFormat.checkLength(length, maxFrameLength, offset);
            byte[] msg;
            if (!reuseArrays) {
                msg = new byte[len];
            } else {
                if (len > body.length) {
                    body = new byte[len];
                }
                msg = body;
            }
            readBody(in, msg, len, offset);
            receiver.onFrame(toInt(typeBytes, 0), msg, 0, len);
            offset += 8L + len;
        }
    }
}
