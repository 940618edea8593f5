package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Where the two ends of a measurement ran: the server (or writer, or echo) and the client (or
 * reader, or ping), each pinned to one CPU, or unpinned ({@code -1}).
 *
 * @param kind how the two CPUs relate
 * @param serverCpu the server's CPU, or -1 when unpinned; for {@link Kind#IN_PROCESS}, the lab's CPU
 * @param clientCpu the client's CPU, or -1 when unpinned; for {@link Kind#IN_PROCESS}, the lab's CPU
 */
public record Placement(Kind kind, int serverCpu, int clientCpu) {
    /** How the two ends' CPUs relate, from farthest to nearest. */
    public enum Kind {
        /** On different CPU packages (sockets). */
        DIFFERENT_PACKAGES("different packages"),
        /** On different physical cores of one package. */
        DIFFERENT_CORES("different cores"),
        /** On the two hardware threads of one physical core. */
        SMT_SIBLINGS("SMT siblings"),
        /** Both on one logical CPU, taking turns. */
        SAME_CORE("same core"),
        /** In the lab's own JVM, its measuring thread pinned to one CPU. */
        IN_PROCESS("one core"),
        /** Wherever the scheduler puts them. */
        UNPINNED("unpinned");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** {@return how tables name it, e.g. {@code different cores}} */
        @JsonValue
        public String label() {
            return label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** The placement of processes the scheduler places. */
    public static final Placement UNPINNED = new Placement(Kind.UNPINNED, -1, -1);

    /**
     * Checks the CPUs against the kind.
     *
     * @throws IllegalArgumentException if an unpinned placement names a CPU or a pinned one lacks one
     */
    public Placement {
        boolean pinned = kind != Kind.UNPINNED;
        if (pinned != (serverCpu >= 0) || pinned != (clientCpu >= 0)) {
            throw new IllegalArgumentException("placement " + kind + " with serverCpu=" + serverCpu + " clientCpu="
                    + clientCpu);
        }
    }

    /**
     * {@return the placement of an experiment in the lab's JVM, pinned to {@code cpu}}
     *
     * @param cpu the CPU of the measuring thread
     */
    public static Placement inProcess(int cpu) {
        return new Placement(Kind.IN_PROCESS, cpu, cpu);
    }

    /** {@return how a table names the CPUs: {@code server cpu0, client cpu1}, {@code cpu1} or {@code unpinned}} */
    public String cpus() {
        return switch (kind) {
            case UNPINNED -> "unpinned";
            case IN_PROCESS -> "cpu" + clientCpu;
            default -> "server cpu" + serverCpu + ", client cpu" + clientCpu;
        };
    }

    @Override
    public String toString() {
        return kind == Kind.IN_PROCESS ? kind + " (" + cpus() + ")" : kind.toString();
    }
}
