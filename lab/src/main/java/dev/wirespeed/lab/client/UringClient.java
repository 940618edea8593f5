package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.linux.uring.IoUringSocket;
import java.io.IOException;

/**
 * The library's {@link FrameReader} over an {@link IoUringSocket}: each refill one io_uring {@code RECV}
 * on a ring of the connection's own, waited for in {@code io_uring_enter}, or, with an idle strategy,
 * submitted and then polled for on the completion queue. TCP and Unix sockets.
 */
final class UringClient implements Strategy {
    private final IdleStrategy idle;

    /** @param idle what to do between empty looks at the completion queue, or null to wait in the kernel */
    UringClient(IdleStrategy idle) {
        this.idle = idle;
    }

    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        try (IoUringSocket socket = IoUringSocket.open(source.nativeSocket(), idle)) {
            FrameReader reader = FrameReader.builder(socket).maxFrameLength(maxFrameLength).build();
            FrameHandler handler = receiver::onFrame;
            while (!receiver.done() && reader.readFrames(handler, receiver.framesToNextCheck()) > 0) {
                // the frames buffered, up to the receiver's next look at the clock
            }
        }
    }
}
