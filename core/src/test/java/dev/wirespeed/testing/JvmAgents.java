package dev.wirespeed.testing;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;

/**
 * Whether a Java agent that rewrites classes runs in this JVM: a test that counts allocations or
 * compiled code must not measure classes an agent has instrumented.
 *
 * <p>Jazzer's agent is installed by the first fuzz test a JVM runs: it puts its runtime on the boot
 * class path and from then on adds coverage calls to every class loaded. The build therefore runs the
 * fuzz tests in a JVM of their own; {@link #instrumenting()} is how a test sees that it holds.
 */
public final class JvmAgents {
    /** A class of Jazzer's runtime that only its agent makes visible to the boot loader. */
    static final String JAZZER_RUNTIME = "com.code_intelligence.jazzer.runtime.CoverageMap";

    private JvmAgents() {
    }

    /** {@return the agents that instrument this JVM's classes, in words, or empty if there are none} */
    public static Optional<String> instrumenting() {
        StringBuilder found = new StringBuilder();
        try {
            Class.forName(JAZZER_RUNTIME, false, null);
            found.append("Jazzer's agent (its runtime ").append(JAZZER_RUNTIME).append(" is on the boot class path)");
        } catch (ClassNotFoundException e) {
            // No fuzz test ran in this JVM.
        }
        List<String> agents = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(argument -> argument.startsWith("-javaagent:")).toList();
        if (!agents.isEmpty()) {
            found.append(found.isEmpty() ? "" : "; ").append("agents on the command line ").append(agents);
        }
        return found.isEmpty() ? Optional.empty() : Optional.of(found.toString());
    }
}
