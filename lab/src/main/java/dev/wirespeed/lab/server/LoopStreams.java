package dev.wirespeed.lab.server;

import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.testkit.SequenceStream;
import java.nio.ByteBuffer;

/**
 * The sequence stream from a {@link dev.wirespeed.loop.FrameServer}'s loops: each connection gets the
 * stream from frame 0, written while its output is under the server's limit and resumed when it
 * drains ({@link ConnectionHandler#onWritable}); after {@code count} frames the connection is closed
 * gracefully. Frames a client sends are ignored.
 *
 * <p>Thread safety: one instance serves every loop; a connection's state is its attachment.
 */
public final class LoopStreams implements ConnectionHandler {
    private final SizeRange sizes;
    private final long count;
    private final byte[] pattern;

    /** Where one connection is in its stream, and its own view of the pattern (loops run at once). */
    private static final class Stream {
        final SizeRange.Sizes sizes;
        final ByteBuffer body;
        long next;

        Stream(SizeRange.Sizes sizes, byte[] pattern) {
            this.sizes = sizes;
            this.body = ByteBuffer.wrap(pattern);
        }
    }

    /**
     * A handler streaming to every connection.
     *
     * @param sizes the body sizes
     * @param count frames per connection, or {@code Long.MAX_VALUE} for an endless stream
     */
    public LoopStreams(SizeRange sizes, long count) {
        this.sizes = sizes;
        this.count = count;
        this.pattern = SequenceStream.pattern(sizes.max());
    }

    @Override
    public void onOpen(Connection connection) {
        Stream stream = new Stream(sizes.sizes(), pattern);
        connection.attach(stream);
        pump(connection, stream);
    }

    @Override
    public void onWritable(Connection connection) {
        pump(connection, (Stream) connection.attachment());
    }

    @Override
    public void onFrame(Connection connection, int type, ByteBuffer body) {
        // the stream's clients only read
    }

    /** Writes frames until the output is full or the stream is done. */
    private void pump(Connection connection, Stream stream) {
        ByteBuffer body = stream.body;
        while (stream.next < count && connection.isWritable()) {
            long i = stream.next++;
            int offset = SequenceStream.patternOffset(i);
            body.limit(offset + stream.sizes.next()).position(offset);
            connection.writeFrame(SequenceStream.type(i), body);
        }
        if (stream.next == count) {
            connection.close(); // what is queued is sent first
        }
    }
}
