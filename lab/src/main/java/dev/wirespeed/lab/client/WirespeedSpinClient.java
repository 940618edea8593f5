package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import java.io.IOException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;

/**
 * The library's {@link FrameReader} over a socket in non-blocking mode: it busy-polls instead of
 * sleeping in {@code read}, trading a CPU for the wake-ups of a blocked reader (yielding the CPU every
 * 8 empty reads, so that a server on the same core still runs). Files and pipes stay blocking.
 */
final class WirespeedSpinClient implements Strategy {
    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        ReadableByteChannel channel = source.channel();
        if (channel instanceof SelectableChannel selectable) {
            selectable.configureBlocking(false);
        }
        FrameReader reader = FrameReader.builder(channel).maxFrameLength(maxFrameLength).build();
        FrameHandler handler = receiver::onFrame;
        while (!receiver.done() && reader.readFrame(handler)) {
            // one frame per call
        }
    }
}
