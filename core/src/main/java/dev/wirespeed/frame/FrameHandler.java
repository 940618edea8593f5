package dev.wirespeed.frame;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Receives the frames of a {@link FrameReader}, one call per frame, in stream order.
 *
 * <p>The {@code body} is a read-only view of the reader's buffer, not a copy. It is valid only until
 * this call returns: the reader re-points the same object at the next frame, so a body kept past
 * the call shows another frame's bytes. Copy
 * what must outlive the call. A reader built with {@link FrameReader.Builder#checkedViews(boolean)}
 * gives each call its own view and empties it on return, so that any late use fails loudly.
 */
@FunctionalInterface
public interface FrameHandler {
    /**
     * Handles one frame.
     *
     * @param type the type field, opaque (see {@link FrameFormat#unsignedType(int)})
     * @param body the body, from its position (first byte) to its limit; big-endian; read-only;
     *     valid until this method returns
     * @throws IOException to stop reading; the reader passes it on unchanged
     */
    void onFrame(int type, ByteBuffer body) throws IOException;
}
