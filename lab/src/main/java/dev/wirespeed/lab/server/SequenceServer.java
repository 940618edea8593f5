package dev.wirespeed.lab.server;

import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.testkit.SequenceStream;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * Writes the sequence stream (frame 0, 1, 2, ...) to one channel: in large batched writes, or one
 * write per frame as a chatty server would.
 *
 * <p>Thread safety: one instance per connection, used by one thread.
 */
public final class SequenceServer {
    private final SizeRange sizes;
    private final long count;
    private final boolean writePerFrame;
    private final byte[] pattern;

    /**
     * A server of the sequence stream.
     *
     * @param sizes the body sizes
     * @param count frames to send, or {@code Long.MAX_VALUE} for an endless stream
     * @param writePerFrame true to write each frame with its own write call
     */
    public SequenceServer(SizeRange sizes, long count, boolean writePerFrame) {
        this.sizes = sizes;
        this.count = count;
        this.writePerFrame = writePerFrame;
        this.pattern = SequenceStream.pattern(sizes.max());
    }

    /**
     * Writes the stream from frame 0 until {@code count} frames were sent, then flushes.
     *
     * @param channel the destination, blocking
     * @return the frames sent
     * @throws IOException when the channel fails, typically because the reader went away
     */
    public long serve(WritableByteChannel channel) throws IOException {
        FrameWriter writer = new FrameWriter(channel);
        SizeRange.Sizes next = sizes.sizes();
        for (long i = 0; i < count; i++) {
            writer.writeFrame(SequenceStream.type(i), pattern, SequenceStream.patternOffset(i), next.next());
            if (writePerFrame) {
                writer.flush();
            }
        }
        writer.flush();
        return writer.frameCount();
    }
}
