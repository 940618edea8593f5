package dev.wirespeed.linux.uring;

import dev.wirespeed.loop.spi.LoopTransport;

/**
 * Outbound connections on the io_uring transport with every resource at its smallest: four receive buffers
 * of 64 bytes, send buffers of a page, and queues of 4 and 8 entries.
 */
class IoUringTightConnectTest extends IoUringConnectTest {
    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create().receiveBuffers(4, 64).sendLimit(4096).rings(4, 8);
    }
}
