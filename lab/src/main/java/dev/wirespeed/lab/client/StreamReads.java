package dev.wirespeed.lab.client;

import dev.wirespeed.frame.TruncatedFrameException;
import java.io.IOException;
import java.io.InputStream;

/**
 * The reads the articles' stream clients share, fixed for end of stream: they return how many bytes
 * arrived instead of looping forever or throwing a bare {@code EOFException}.
 */
final class StreamReads {
    private StreamReads() {
    }

    /** Reads {@code length} bytes into {@code b} from {@code offset}; returns how many arrived before the end. */
    static int readFully(InputStream in, byte[] b, int offset, int length) throws IOException {
        int total = 0;
        while (total < length) {
            int n = in.read(b, offset + total, length - total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    /**
     * The first article's original {@code readInt}: four {@code read()} calls, the length field of a
     * header whose 4 type bytes were read.
     */
    static int readIntByteByByte(InputStream in, long frameOffset) throws IOException {
        int ch1 = in.read();
        int ch2 = in.read();
        int ch3 = in.read();
        int ch4 = in.read();
        if ((ch1 | ch2 | ch3 | ch4) < 0) {
            int present = ch1 < 0 ? 0 : ch2 < 0 ? 1 : ch3 < 0 ? 2 : 3;
            throw TruncatedFrameException.inHeader(4 + present, frameOffset);
        }
        return (ch1 << 24) + (ch2 << 16) + (ch3 << 8) + ch4;
    }

    /** A big-endian int from four bytes of an array. */
    static int toInt(byte[] b, int offset) {
        return ((b[offset] & 0xFF) << 24) + ((b[offset + 1] & 0xFF) << 16) + ((b[offset + 2] & 0xFF) << 8)
                + (b[offset + 3] & 0xFF);
    }

    /**
     * Reads the 4 type bytes of the next header.
     *
     * @return false at a clean end of stream (no byte of the header arrived)
     * @throws TruncatedFrameException if some but not all arrived
     */
    static boolean readType(InputStream in, byte[] type, long frameOffset) throws IOException {
        int got = readFully(in, type, 0, 4);
        if (got == 4) {
            return true;
        }
        if (got == 0) {
            return false;
        }
        throw TruncatedFrameException.inHeader(got, frameOffset);
    }

    /** Reads the body; throws if the stream ends inside it. */
    static void readBody(InputStream in, byte[] body, int length, long frameOffset) throws IOException {
        int got = readFully(in, body, 0, length);
        if (got < length) {
            throw TruncatedFrameException.inBody(got, length, frameOffset);
        }
    }

    /** The four-bytes-at-once {@code readInt} into {@code scratch}: the length field of a header. */
    static int readIntAtOnce(InputStream in, byte[] scratch, long frameOffset) throws IOException {
        int got = readFully(in, scratch, 0, 4);
        if (got < 4) {
            throw TruncatedFrameException.inHeader(4 + got, frameOffset);
        }
        return toInt(scratch, 0);
    }
}
