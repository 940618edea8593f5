package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.io.IdleStrategy;
import java.io.IOException;
import java.nio.channels.ReadableByteChannel;

/**
 * The library's {@link FrameReader} over a socket, or (on Linux) standard input, in non-blocking mode:
 * it busy-polls instead of sleeping in {@code read}, trading a CPU for the wake-ups of a blocked
 * reader, idling between empty reads as its {@link IdleStrategy} says. Files cannot wait, so they are
 * read as they are.
 */
final class WirespeedSpinClient implements Strategy {
    private final IdleStrategy idle;

    WirespeedSpinClient(IdleStrategy idle) {
        this.idle = idle;
    }

    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        ReadableByteChannel channel = source.nonBlockingChannel();
        FrameReader reader = FrameReader.builder(channel).maxFrameLength(maxFrameLength).idleStrategy(idle).build();
        FrameHandler handler = receiver::onFrame;
        while (!receiver.done() && reader.readFrames(handler, receiver.framesToNextCheck()) > 0) {
            // the frames buffered, up to the receiver's next look at the clock
        }
    }
}
