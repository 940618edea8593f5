package dev.wirespeed.linux;

import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.testing.FrameServerContract;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The server's contract on the Linux transport, {@code epoll} through FFM. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "epoll is Linux's")
class EpollFrameServerTest extends FrameServerContract {
    @Override
    protected FrameServer.Builder backend(FrameServer.Builder builder) {
        return builder.transport(EpollTransport.create());
    }

    /** A known defect, open: see the README's "Steady state allocates nothing per frame". */
    @Override
    protected String allocatesPerFrame() {
        return "in some compilations the JDK linker's per-call slice of the errno capture segment escapes on the "
                + "epoll loop's path (40 bytes per echo in some runs)";
    }
}
