package dev.wirespeed.lab.client;

import java.io.IOException;

/**
 * One way of reading the frame stream: the articles' clients, in their order, then ours. Each reads
 * frames from its {@link Source} and hands them to the {@link Receiver} until the receiver is
 * {@link Receiver#done() done} or the stream ends cleanly at a frame boundary, and reports bad input
 * with the errors of the wire protocol (offsets included), exactly as the library's reader does.
 */
public interface Strategy {
    /**
     * Reads the stream.
     *
     * @param source where the bytes come from; the strategy opens what it needs
     * @param receiver where the frames go
     * @param maxFrameLength the largest body accepted
     * @throws IOException on bad input ({@code CorruptFrameException}, {@code FrameTooLongException},
     *     {@code TruncatedFrameException}), a failed verification, or an I/O failure
     */
    void read(Source source, Receiver receiver, int maxFrameLength) throws IOException;
}
