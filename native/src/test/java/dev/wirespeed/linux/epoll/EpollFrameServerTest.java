package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.FrameServerContract;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The server's contract on the Linux transport, {@code epoll} through FFM. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "epoll is Linux's")
class EpollFrameServerTest extends FrameServerContract {
    @BeforeEach
    void needsEpoll() {
        NativeFeatures.assumeEpoll();
    }

    @Override
    protected LoopTransport transport() {
        return EpollTransport.create();
    }

    @Override
    protected Optional<String> whyTheLoopMayAllocate() {
        return NativeFeatures.callsMayAllocate();
    }
}
