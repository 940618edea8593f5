package dev.wirespeed.lab.experiment;

import dev.wirespeed.linux.Affinity;
import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * Where the server and the client run: pinned to CPUs with {@code taskset} (the whole JVM, JIT and GC
 * threads included), or unpinned.
 *
 * @param name as it appears in tables: one of the constants below
 * @param serverCpu the server's CPU, or -1 for unpinned
 * @param clientCpu the client's CPU, or -1 for unpinned
 */
public record Placement(String name, int serverCpu, int clientCpu) {
    /** Server and client on different CPU packages (sockets). */
    public static final String DIFFERENT_PACKAGES = "different packages";
    /** On different physical cores of one package. */
    public static final String DIFFERENT_CORES = "different cores";
    /** On the two hardware threads of one physical core. */
    public static final String SMT_SIBLINGS = "SMT siblings";
    /** Both on one logical CPU, taking turns. */
    public static final String SAME_CORE = "same core";
    /** Wherever the scheduler puts them. */
    public static final String UNPINNED = "unpinned";

    /** {@return true if the processes are pinned} */
    public boolean pinned() {
        return serverCpu >= 0;
    }

    /** {@return how the table names the CPUs} */
    public String cpus() {
        return pinned() ? "server cpu" + serverCpu + ", client cpu" + clientCpu : "unpinned";
    }

    /**
     * {@return the placements of this machine} (see {@link Topology#placements()}), or only
     * {@code unpinned} where pinning is impossible; the reason goes to {@code notes}
     *
     * @param notes receives why placements are missing
     */
    public static List<Placement> available(List<String> notes) {
        if (!Tools.has("taskset")) {
            notes.add("taskset not found: processes run unpinned (install util-linux to pin them)");
            return List.of(new Placement(UNPINNED, -1, -1));
        }
        BitSet allowed;
        try {
            allowed = Affinity.allowedCpus();
        } catch (IOException | UnsupportedOperationException e) {
            notes.add("CPU affinity unavailable (" + e.getMessage() + "): processes run unpinned");
            return List.of(new Placement(UNPINNED, -1, -1));
        }
        Topology topology = Topology.read(Path.of("/sys/devices/system/cpu"), allowed);
        List<Placement> placements = topology.placements();
        if (placements.size() == 1) {
            notes.add("only one CPU core allowed: server and client share it");
        }
        return placements;
    }
}
