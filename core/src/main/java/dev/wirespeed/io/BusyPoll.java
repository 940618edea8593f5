package dev.wirespeed.io;

/**
 * What the readers and writers do between calls to a non-blocking channel that moved no bytes. They
 * busy-poll, but spinning alone would starve a peer that shares this CPU until the scheduler
 * preempts us (milliseconds), so every {@value #SPINS_PER_YIELD}th consecutive empty call yields the
 * CPU instead. Measured here: a spinning reader on the writer's core kept pace with a blocking one.
 */
final class BusyPoll {
    /** Empty calls between two yields of the CPU. */
    static final int SPINS_PER_YIELD = 64;

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
