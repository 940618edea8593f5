package dev.wirespeed.io;

/** {@link IdleStrategy#spinning(int)}. */
final class Spinning implements IdleStrategy {
    static final Spinning DEFAULT = new Spinning(8);

    final int spinsPerYield;

    Spinning(int spinsPerYield) {
        this.spinsPerYield = spinsPerYield;
    }

    /**
     * Yields every {@code spinsPerYield}th empty call; between those, returns at once. No
     * {@link Thread#onSpinWait()}: each empty call is a system call, far longer than a spin-wait hint
     * saves, and a pause only delays the next look and, on a shared CPU, the next yield.
     */
    @Override
    public void idle(int emptyCalls) {
        if (emptyCalls % spinsPerYield == 0) {
            Thread.yield();
        }
    }

    @Override
    public String toString() {
        return spinsPerYield == 1 ? "yielding" : "spinning(" + spinsPerYield + ")";
    }
}
