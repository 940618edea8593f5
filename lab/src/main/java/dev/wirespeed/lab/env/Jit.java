package dev.wirespeed.lab.env;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

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
}
