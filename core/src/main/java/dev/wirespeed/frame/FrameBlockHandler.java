package dev.wirespeed.frame;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Receives the frames of a {@link FrameReader} a block at a time: all the whole frames one
 * {@link FrameReader#readBlock} call found buffered, in stream order, as they are on the wire. For a
 * reader that forwards or scans what arrives rather than handling it frame by frame: a relay, a
 * recorder, a filter.
 *
 * <p>The block holds one or more frames, each an 8-byte header (the type, then the length, big-endian;
 * see {@link FrameFormat}) and its body, every length checked against the reader's
 * {@code maxFrameLength}. It is a read-only view of the reader's buffer, not a copy, valid only until
 * this call returns, as a {@link FrameHandler}'s body is. {@link FrameWriter#writeFrames} writes a
 * block, or a run of its frames, as it is (checking each frame again; a relay that forwards every
 * block whole calls {@link FrameReader#relayBlock} instead, which does not). Walking one, allocating
 * nothing:
 *
 * {@snippet :
 * for (int at = frames.position(); at < frames.limit(); ) {
 *     long header = frames.getLong(at);
 *     int length = FrameFormat.length(header);
 *     handle(FrameFormat.type(header), frames, at + FrameFormat.HEADER_LENGTH, length); // the body: index, length
 *     at += FrameFormat.HEADER_LENGTH + length;
 * }
 * }
 */
@FunctionalInterface
public interface FrameBlockHandler {
    /**
     * Handles one block of whole frames.
     *
     * @param frames the block: whole frames from its position to its limit; big-endian; read-only;
     *     valid until this method returns
     * @throws IOException to stop reading; the reader passes it on unchanged
     */
    void onFrames(ByteBuffer frames) throws IOException;
}
