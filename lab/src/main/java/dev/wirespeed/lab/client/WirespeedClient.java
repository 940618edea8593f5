package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import java.io.IOException;

/** The library's {@link FrameReader}: page-aligned direct buffer, compact-on-demand, zero-copy views. */
final class WirespeedClient implements Strategy {
    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        FrameReader reader = FrameReader.builder(source.channel()).maxFrameLength(maxFrameLength).build();
        FrameHandler handler = receiver::onFrame;
        while (!receiver.done() && reader.readFrames(handler, receiver.framesToNextCheck()) > 0) {
            // the frames buffered, up to the receiver's next look at the clock
        }
    }
}
