package dev.wirespeed.loop;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@link ConnectionHandler} that takes the frames of each read as one block, for a handler that
 * forwards or scans what arrives rather than answering frame by frame: an echo, a relay, a recorder.
 * The loop calls {@link #onFrames} where it would call {@link #onFrame} once per frame, and never calls
 * {@code onFrame}; everything else is as {@link ConnectionHandler} says.
 *
 * <p>A block is the whole frames one read brought (from a lending transport, up to about a chunk's
 * worth; a frame that arrived over several reads, alone): one or more, in stream order, each length
 * checked against the {@code maxFrameLength} before the block is handed over. A bad length closes the
 * connection after the block of the frames before it was handled, as with {@code onFrame}; if the
 * handler closes the connection, nothing after the block is read.
 *
 * <p>The block is a read-only view of the bytes where they were received, valid until {@code
 * onFrames} returns, as a body is: from its position to its limit, frames as on the wire, each an
 * 8-byte header (the type, then the length, big-endian; {@link dev.wirespeed.frame.FrameFormat}) and
 * its body. {@link Connection#writeFrames} writes a block, or a run of its frames, back to the
 * connection it came from without a copy, and to any other with one. Walking a block, allocating
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
 *
 * An echo: {@code FrameServer.builder((BlockHandler) (connection, frames) -> connection.writeFrames(frames))}.
 */
@FunctionalInterface
public interface BlockHandler extends ConnectionHandler {
    /**
     * Handles one block of whole frames.
     *
     * @param connection where they came from
     * @param frames the block: whole frames from its position to its limit; read-only; valid until this
     *     method returns
     * @throws IOException to close the connection abortively
     */
    void onFrames(Connection connection, ByteBuffer frames) throws IOException;

    /**
     * Not called by the loop, which hands a {@code BlockHandler} blocks.
     *
     * @throws UnsupportedOperationException always, unless overridden
     */
    @Override
    default void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
        throw new UnsupportedOperationException("a BlockHandler takes blocks of frames: onFrames, not onFrame, type="
                + type + " length=" + body.remaining() + " on " + connection);
    }
}
