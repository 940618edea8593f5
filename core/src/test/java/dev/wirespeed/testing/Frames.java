package dev.wirespeed.testing;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** Builds streams of frames for tests, byte by byte, independently of the library's writer. */
public final class Frames {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** Appends a frame with the given header and body. */
    public Frames frame(int type, int length, byte[] body) {
        header(type, length);
        out.writeBytes(body);
        return this;
    }

    /** Appends a header only. */
    public Frames header(int type, int length) {
        out.writeBytes(ByteBuffer.allocate(8).putInt(type).putInt(length).array());
        return this;
    }

    /** Appends raw bytes. */
    public Frames raw(byte... bytes) {
        out.writeBytes(bytes);
        return this;
    }

    /** Appends frames {@code from} to {@code from + count - 1} of the sequence stream, each {@code size} long. */
    public Frames sequence(long from, int count, int size) {
        for (long i = from; i < from + count; i++) {
            byte[] body = new byte[size];
            for (int k = 0; k < size; k++) {
                body[k] = (byte) (i + k);
            }
            frame((int) i, size, body);
        }
        return this;
    }

    /** {@return the stream built so far} */
    public byte[] toByteArray() {
        return out.toByteArray();
    }
}
