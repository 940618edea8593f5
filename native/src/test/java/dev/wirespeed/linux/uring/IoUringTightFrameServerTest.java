package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.FrameServerContract;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The server's contract on the io_uring transport with every resource at its smallest: four receive
 * buffers of 64 bytes (receives run out of buffers and are re-armed, connections reach their cap),
 * send buffers of a page, the smallest a socket's own can be (writes take part of a large frame), and queues of 4 and 8 entries
 * (submissions wait for room, completions overflow into the kernel).
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
class IoUringTightFrameServerTest extends FrameServerContract {
    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create().receiveBuffers(4, 64).sendLimit(4096).rings(4, 8);
    }

    @Override
    protected Optional<String> whyTheLoopMayAllocate() {
        return NativeFeatures.callsMayAllocate();
    }
}
