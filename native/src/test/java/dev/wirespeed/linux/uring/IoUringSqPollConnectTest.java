package dev.wirespeed.linux.uring;

import dev.wirespeed.loop.spi.LoopTransport;

/**
 * Outbound connections on the io_uring transport with an {@code SQPOLL} thread per ring that sleeps after
 * 10 ms without submissions, and small queues.
 */
class IoUringSqPollConnectTest extends IoUringConnectTest {
    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create().sqPoll(-1, 10).rings(8, 16);
    }
}
