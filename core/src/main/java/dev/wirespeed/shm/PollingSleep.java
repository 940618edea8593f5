package dev.wirespeed.shm;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/** {@link RingSleep#polling()}: sleeps in steps, wakes by itself. Stateless; safe from any thread. */
final class PollingSleep implements RingSleep {
    static final PollingSleep INSTANCE = new PollingSleep();
    private static final long STEP_NANOS = 50_000;

    private PollingSleep() {
    }

    @Override
    public void sleep(MemorySegment word, int expected, long nanos) {
        LockSupport.parkNanos(Math.min(nanos, STEP_NANOS));
    }

    @Override
    public void wake(MemorySegment word) {
        // the sleeper wakes by itself within a step
    }
}
