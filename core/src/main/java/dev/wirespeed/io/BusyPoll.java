package dev.wirespeed.io;

/**
 * What the readers and writers do between calls to a non-blocking channel that moved no bytes. They
 * busy-poll, but spinning alone would starve a peer that shares this CPU until the scheduler
 * preempts us (milliseconds), so every {@value #SPINS_PER_YIELD}th consecutive empty call yields the
 * CPU instead.
 *
 * <p>Why a small number: an empty call costs a system call, and a peer on the same CPU waits for the
 * spinner to give way, so yielding rarely makes a round trip on one CPU several times slower, while
 * yielding often costs a spinner on its own CPU nothing it would have used (the README's latency
 * section has the ping-pong figures behind the choice).
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
