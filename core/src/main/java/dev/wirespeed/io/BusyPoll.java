package dev.wirespeed.io;

/**
 * What the readers and writers do between calls to a non-blocking channel that moved no bytes. They
 * busy-poll, but spinning alone would starve a peer that shares this CPU until the scheduler
 * preempts us (milliseconds), so every {@value #SPINS_PER_YIELD}th consecutive empty call yields the
 * CPU instead.
 *
 * <p>Why 8 (measured on the project's 2-vCPU VM, 2026-11-22, ping-pong of 100-byte frames over TCP
 * loopback through {@code NativeSocket}, both ends busy-polling, three runs each): with both ends on
 * one CPU a round trip took a median 33.4 us yielding every 64 empty calls and 9.1 us yielding every
 * 8, since an empty call costs a system call and the peer waits for the spinner to give way; on two
 * CPUs 5.9-6.4 us and 5.7 us. Streaming throughput did not move (3.0-4.6 GB/s between cores, 1.4-2.1
 * GB/s on one, either way).
 */
final class BusyPoll {
    /** Empty calls between two yields of the CPU. */
    static final int SPINS_PER_YIELD = 8;

    private BusyPoll() {
    }

    /**
     * Waits a moment after an empty call.
     *
     * @param emptyCalls consecutive calls that moved no bytes, this one included, from 1
     */
    static void idle(int emptyCalls) {
        if (emptyCalls % SPINS_PER_YIELD == 0) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }
}
