package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.linux.NativeSocket;
import java.io.IOException;

/**
 * The library's {@link FrameReader} over a {@link NativeSocket}: {@code read(2)} through the FFM API
 * instead of {@code SocketChannel.read}, what the fast-sockets article reached by reflection. Blocking,
 * or non-blocking and busy-polled, idling as its {@link IdleStrategy} says. TCP and Unix sockets.
 */
final class NativeClient implements Strategy {
    private final boolean spin;
    private final IdleStrategy idle;

    NativeClient(boolean spin, IdleStrategy idle) {
        this.spin = spin;
        this.idle = idle;
    }

    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        NativeSocket socket = source.nativeSocket();
        if (spin) {
            socket.configureBlocking(false);
        }
        FrameReader reader = FrameReader.builder(socket).maxFrameLength(maxFrameLength).idleStrategy(idle).build();
        FrameHandler handler = receiver::onFrame;
        while (!receiver.done() && reader.readFrames(handler, receiver.framesToNextCheck()) > 0) {
            // the frames buffered, up to the receiver's next look at the clock
        }
    }
}
