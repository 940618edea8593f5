package dev.wirespeed.io;

import java.util.concurrent.locks.LockSupport;

/** {@link IdleStrategy#backoff(int, int, long, long)}. */
final class Backoff implements IdleStrategy {
    private final int spins;
    private final int yields;
    private final long minParkNanos;
    private final long maxParkNanos;
    /** Parks after which the park time stops doubling: the first k with {@code min << k >= max}. */
    private final int doublings;

    Backoff(int spins, int yields, long minParkNanos, long maxParkNanos) {
        if (spins < 0 || yields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("spins=" + spins + " and yields=" + yields + " must be >= 0, minParkNanos="
                    + minParkNanos + " >= 1 and maxParkNanos=" + maxParkNanos + " >= minParkNanos");
        }
        this.spins = spins;
        this.yields = yields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        int k = 0;
        while (k < 62 && (minParkNanos << k) < maxParkNanos && (minParkNanos << k) > 0) {
            k++;
        }
        this.doublings = k;
    }

    @Override
    public void idle(int emptyCalls) {
        if (emptyCalls <= spins) {
            Thread.onSpinWait();
        } else if (emptyCalls - spins <= yields) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos(emptyCalls));
        }
    }

    /** {@return how long the {@code emptyCalls}th empty call parks, if it parks} */
    long parkNanos(int emptyCalls) {
        long parks = (long) emptyCalls - spins - yields; // 1 at the first park
        return parks > doublings ? maxParkNanos : Math.min(maxParkNanos, minParkNanos << (parks - 1));
    }

    @Override
    public String toString() {
        return "backoff(spins=" + spins + ", yields=" + yields + ", park=" + minParkNanos + ".." + maxParkNanos + "ns)";
    }
}
