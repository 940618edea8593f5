package dev.wirespeed.lab.experiment;

import dev.wirespeed.linux.Affinity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the server and the client run: pinned to CPUs with {@code taskset} (the whole JVM, JIT and GC
 * threads included), or unpinned.
 *
 * @param name as it appears in tables, e.g. {@code different cores}
 * @param serverCpu the server's CPU, or -1 for unpinned
 * @param clientCpu the client's CPU, or -1 for unpinned
 */
public record Placement(String name, int serverCpu, int clientCpu) {
    /** {@return true if the processes are pinned} */
    public boolean pinned() {
        return serverCpu >= 0;
    }

    /** {@return how the table names the CPUs} */
    public String cpus() {
        return pinned() ? "server cpu" + serverCpu + ", client cpu" + clientCpu : "unpinned";
    }

    /**
     * {@return the placements this machine has, for two processes}: different cores and the same core
     * where there are two cores; only unpinned where pinning is impossible. The reason, if any, goes
     * to {@code notes}.
     *
     * @param notes receives why a placement is missing
     */
    public static List<Placement> available(List<String> notes) {
        if (!Tools.has("taskset")) {
            notes.add("taskset not found: processes run unpinned (install util-linux to pin them)");
            return List.of(new Placement("unpinned", -1, -1));
        }
        BitSet allowed;
        try {
            allowed = Affinity.allowedCpus();
        } catch (IOException | UnsupportedOperationException e) {
            notes.add("CPU affinity unavailable (" + e.getMessage() + "): processes run unpinned");
            return List.of(new Placement("unpinned", -1, -1));
        }
        // One CPU per physical core (package, core id), in CPU order.
        Map<String, Integer> coreToCpu = new LinkedHashMap<>();
        for (int cpu = allowed.nextSetBit(0); cpu >= 0; cpu = allowed.nextSetBit(cpu + 1)) {
            coreToCpu.putIfAbsent(coreOf(cpu), cpu);
        }
        List<Integer> cores = new ArrayList<>(coreToCpu.values());
        if (cores.size() < 2) {
            notes.add("only one core allowed: no 'different cores' placement");
            int cpu = allowed.nextSetBit(0);
            return List.of(new Placement("same core", cpu, cpu));
        }
        int a = cores.get(0);
        int b = cores.get(1);
        return List.of(new Placement("different cores", a, b), new Placement("same core", b, b));
    }

    private static String coreOf(int cpu) {
        Path topology = Path.of("/sys/devices/system/cpu/cpu" + cpu + "/topology");
        try {
            return Files.readString(topology.resolve("physical_package_id")).strip() + ":"
                    + Files.readString(topology.resolve("core_id")).strip();
        } catch (IOException e) {
            return "cpu" + cpu;
        }
    }
}
