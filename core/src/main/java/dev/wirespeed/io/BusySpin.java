package dev.wirespeed.io;

/** {@link IdleStrategy#busySpin()}. */
final class BusySpin implements IdleStrategy {
    static final BusySpin INSTANCE = new BusySpin();

    private BusySpin() {
    }

    @Override
    public void idle(int emptyCalls) {
        Thread.onSpinWait();
    }

    @Override
    public String toString() {
        return "busySpin";
    }
}
