package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.FrameServerContract;

/** The server's contract on the portable transport, the JDK's {@code Selector}. */
class SelectorFrameServerTest extends FrameServerContract {
    @Override
    protected LoopTransport transport() {
        return SelectorTransport.INSTANCE;
    }
}
