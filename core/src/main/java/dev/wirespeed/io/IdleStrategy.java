package dev.wirespeed.io;

/**
 * What a reader or writer does after a call to a non-blocking channel moved no bytes, before it calls
 * again. A blocking channel never needs one: its calls wait in the kernel.
 *
 * <h2>The choices</h2>
 * <ul>
 *   <li>{@link #busySpin()}: calls again at once, after {@link Thread#onSpinWait()}. The lowest
 *       latency, and a whole CPU; a peer that shares the CPU waits for the scheduler to preempt the
 *       spinner, which can take milliseconds.
 *   <li>{@link #spinning(int)}: calls again at once, and every {@code n}th consecutive empty call
 *       yields the CPU ({@link Thread#yield()}) so that a peer on the same CPU can run; no spin-wait
 *       hint between calls, each of which is a system call. {@link #defaultStrategy()} is
 *       {@code spinning(8)}: the readers' and writers' strategy when none is given.
 *   <li>{@link #yielding()}: yields after every empty call.
 *   <li>{@link #backoff(int, int, long, long)}: spins, then yields, then parks
 *       ({@link java.util.concurrent.locks.LockSupport#parkNanos(long)}) for a time that doubles from a least to a most, so an
 *       idle stream costs little CPU and a busy one is still read at once.
 * </ul>
 *
 * <h2>Contract</h2>
 * The caller counts its consecutive empty calls and passes the count: 1 after the first empty call,
 * and it starts again at 1 after any call that moved bytes. Strategies keep no state, so one instance
 * serves any number of readers and writers on any threads. {@link #idle(int)} returns normally; a
 * parking strategy may return early (at an interrupt, say) and leaves the interrupt status set.
 */
@FunctionalInterface
public interface IdleStrategy {
    /**
     * Waits, or not, before the next call.
     *
     * @param emptyCalls consecutive calls that moved no bytes, this one included, at least 1
     */
    void idle(int emptyCalls);

    /** {@return the strategy of readers and writers given none: {@code spinning(8)}} */
    static IdleStrategy defaultStrategy() {
        return Spinning.DEFAULT;
    }

    /** {@return a strategy that never gives up the CPU: {@link Thread#onSpinWait()} after every empty call} */
    static IdleStrategy busySpin() {
        return BusySpin.INSTANCE;
    }

    /**
     * {@return a strategy that calls again at once and yields the CPU every {@code spinsPerYield}th
     * consecutive empty call}
     *
     * @param spinsPerYield at least 1; 1 yields every time
     * @throws IllegalArgumentException if {@code spinsPerYield < 1}, naming it
     */
    static IdleStrategy spinning(int spinsPerYield) {
        if (spinsPerYield < 1) {
            throw new IllegalArgumentException("spinsPerYield=" + spinsPerYield + " min=1");
        }
        return spinsPerYield == Spinning.DEFAULT.spinsPerYield ? Spinning.DEFAULT : new Spinning(spinsPerYield);
    }

    /** {@return a strategy that yields the CPU after every empty call} */
    static IdleStrategy yielding() {
        return spinning(1);
    }

    /**
     * {@return a strategy that spins for {@code spins} empty calls, yields for the next {@code yields},
     * then parks: {@code minParkNanos} at first, doubling at every further empty call up to
     * {@code maxParkNanos}}
     *
     * @param spins empty calls answered by {@link Thread#onSpinWait()}, at least 0
     * @param yields empty calls after those answered by {@link Thread#yield()}, at least 0
     * @param minParkNanos the first park, at least 1
     * @param maxParkNanos the longest park, at least {@code minParkNanos}: the most a reader
     *     can sleep past the arrival of bytes
     * @throws IllegalArgumentException if a value is out of range, naming every value
     */
    static IdleStrategy backoff(int spins, int yields, long minParkNanos, long maxParkNanos) {
        return new Backoff(spins, yields, minParkNanos, maxParkNanos);
    }
}
