package dev.wirespeed.linux.uring;

import dev.wirespeed.loop.spi.LoopTransport;

/** Outbound connections on the io_uring transport with rings of no setup flags: completion work interrupts the loop. */
class IoUringInterruptConnectTest extends IoUringConnectTest {
    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create().setup();
    }
}
