package dev.wirespeed.lab.experiments.tails;

import dev.wirespeed.lab.CliName;
import java.util.List;

/**
 * The JVM options a tail row gives both its ping and its echo JVM: the launcher's own (Parallel GC),
 * another collector, a pre-touched heap, or no periodic safepoints. Every other flag is the launcher's.
 */
public enum TailVariant {
    /** The launcher's options, what {@code ./wirespeed} runs: the Parallel collector. */
    LAUNCHER("parallel (launcher)", List.of()),
    /** G1, the JVM's own default collector. */
    G1("g1", List.of("-XX:+UseG1GC")),
    /** ZGC: concurrent, with sub-millisecond pauses. */
    ZGC("zgc", List.of("-XX:+UseZGC")),
    /** Epsilon: no collection at all, which a loop allocating nothing in steady state can afford. */
    EPSILON("epsilon", List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC")),
    /** The launcher's, with the heap's pages touched at start, so no page fault lands in the loop. */
    PRE_TOUCH("parallel, pre-touched heap", List.of("-XX:+AlwaysPreTouch")),
    /** The launcher's, without the safepoint the JVM otherwise may bring every second for cleanup. */
    NO_PERIODIC_SAFEPOINT("parallel, no periodic safepoint",
            List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:GuaranteedSafepointInterval=0"));

    private final String label;
    private final List<String> options;

    TailVariant(String label, List<String> options) {
        this.label = label;
        this.options = options;
    }

    /** {@return the row's name in tables and results} */
    public String label() {
        return label;
    }

    /** {@return the JVM options both ends get, after the launcher's} */
    public List<String> options() {
        return options;
    }

    /** {@return a short id for archive names: JVMs of different options do not share class-data archives} */
    String id() {
        return CliName.of(this);
    }
}
