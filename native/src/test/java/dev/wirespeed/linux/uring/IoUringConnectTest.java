package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.internal.net.ConnectContract;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Outbound connections on the io_uring transport ({@code IORING_OP_CONNECT}), at the level of its poller
 * and connections; a subclass runs them again on rings set up otherwise.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
class IoUringConnectTest extends ConnectContract {
    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create();
    }

    /** The poller frees a connection's slot, and counts it out, once the kernel has completed its every operation. */
    @Override
    protected boolean holdsNothing(Poller poller) {
        return poller.toString().contains(" connections=0 ");
    }
}
