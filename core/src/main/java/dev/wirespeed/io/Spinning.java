package dev.wirespeed.io;

/** {@link IdleStrategy#spinning(int)}. */
final class Spinning implements IdleStrategy {
    static final Spinning DEFAULT = new Spinning(8);

    final int spinsPerYield;

    Spinning(int spinsPerYield) {
        this.spinsPerYield = spinsPerYield;
    }

    @Override
    public void idle(int emptyCalls) {
        if (emptyCalls % spinsPerYield == 0) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    @Override
    public String toString() {
        return spinsPerYield == 1 ? "yielding" : "spinning(" + spinsPerYield + ")";
    }
}
