package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.FrameServerContract;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The server's contract on the io_uring transport with rings of no setup flags: completion work interrupts the loop. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
class IoUringInterruptFrameServerTest extends FrameServerContract {
    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create().setup();
    }

    @Override
    protected Optional<String> whyTheLoopMayAllocate() {
        return NativeFeatures.callsMayAllocate();
    }
}
