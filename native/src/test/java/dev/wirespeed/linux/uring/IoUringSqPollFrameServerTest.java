package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.FrameServerContract;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The server's contract on the io_uring transport with an {@code SQPOLL} thread per ring, unpinned, that
 * sleeps after 10 ms without submissions (so that the loop wakes it often), and small queues, so that a
 * full one waits for the thread to take entries.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
class IoUringSqPollFrameServerTest extends FrameServerContract {
    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create().sqPoll(-1, 10).rings(8, 16);
    }

    @Override
    protected Optional<String> whyTheLoopMayAllocate() {
        return NativeFeatures.callsMayAllocate();
    }
}
