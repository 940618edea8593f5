package dev.wirespeed.lab.env;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** What this JVM's JIT compiler has done, as the lab's warm-ups ask it. */
public final class Jit {
    /** Looked up once: each lookup walks the platform's beans, work the JIT would then compile. */
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();
    private static final boolean MONITORED = COMPILER != null && COMPILER.isCompilationTimeMonitoringSupported();

    private Jit() {
    }

    /**
     * {@return the JIT's total compilation time so far, in milliseconds} Constant (0) where the JVM does
     * not monitor it, so that a warm-up waiting for the JIT to settle sees it settled at once.
     */
    public static long compileMillis() {
        return MONITORED ? COMPILER.getTotalCompilationTime() : 0;
    }

    /**
     * Waits until this JVM's JIT has compiled nothing for {@code quietMillis}, or {@code maxMillis} have
     * passed: a JVM just started compiles on every CPU for a few seconds, and a measurement beside it
     * measures that too.
     *
     * @param quietMillis how long the JIT must have been idle, at least 1
     * @param maxMillis the longest wait
     * @return whether the JIT went quiet (true at once where the JVM does not monitor it)
     * @throws InterruptedException if interrupted while waiting
     */
    public static boolean awaitQuiet(long quietMillis, long maxMillis) throws InterruptedException {
        return awaitQuiet(quietMillis, maxMillis, System::nanoTime, Jit::compileMillis, Thread::sleep);
    }

    /** What {@link #awaitQuiet(long, long)} does between looks: sleep. */
    @FunctionalInterface
    interface Pause {
        void pause(long millis) throws InterruptedException;
    }

    /**
     * As {@link #awaitQuiet(long, long)}, the time read from {@code nanoTime}, the JIT's total compilation
     * time from {@code compiled}, and {@code pause} between looks, so that a test can be the clock.
     */
    static boolean awaitQuiet(long quietMillis, long maxMillis, LongSupplier nanoTime, LongSupplier compiled,
            Pause pause) throws InterruptedException {
        if (quietMillis < 1 || maxMillis < 0) {
            throw new IllegalArgumentException("quietMillis=" + quietMillis + " min=1, maxMillis=" + maxMillis + " min=0");
        }
        long start = nanoTime.getAsLong();
        long quietSince = start;
        long last = compiled.getAsLong();
        while (true) {
            long now = nanoTime.getAsLong();
            long total = compiled.getAsLong();
            if (total != last) {
                last = total;
                quietSince = now;
            } else if (now - quietSince >= TimeUnit.MILLISECONDS.toNanos(quietMillis)) {
                return true;
            }
            if (now - start >= TimeUnit.MILLISECONDS.toNanos(maxMillis)) {
                return false;
            }
            pause.pause(Math.min(10, quietMillis));
        }
    }
}
