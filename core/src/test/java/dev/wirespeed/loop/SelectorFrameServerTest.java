package dev.wirespeed.loop;

/** The server's contract on the portable backend, the JDK's {@code Selector}. */
class SelectorFrameServerTest extends FrameServerContract {
    @Override
    protected FrameServer.Builder backend(FrameServer.Builder builder) {
        return builder;
    }
}
