package dev.wirespeed.lab.env;

import dev.wirespeed.lab.result.Placement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * The CPUs this process may use, with their package and physical core, as Linux shows them under
 * {@code /sys/devices/system/cpu/cpuN/topology/}.
 *
 * @param cpus the allowed CPUs in ascending order
 */
public record Topology(List<Cpu> cpus) {
    /**
     * One logical CPU.
     *
     * @param id the kernel's CPU number
     * @param pkg {@code physical_package_id}
     * @param core {@code core_id}, unique within the package
     */
    public record Cpu(int id, int pkg, int core) {
    }

    /**
     * {@return the topology of the {@code allowed} CPUs below {@code root}}; a CPU it cannot read counts
     * as its own core of package 0
     *
     * @param root {@code /sys/devices/system/cpu} or a copy of it
     * @param allowed the CPUs to describe
     */
    public static Topology read(Path root, BitSet allowed) {
        List<Cpu> cpus = new ArrayList<>();
        for (int id = allowed.nextSetBit(0); id >= 0; id = allowed.nextSetBit(id + 1)) {
            Path topology = root.resolve("cpu" + id).resolve("topology");
            int pkg = readInt(topology.resolve("physical_package_id")).orElse(0);
            int core = readInt(topology.resolve("core_id")).orElse(-1 - id);
            cpus.add(new Cpu(id, pkg, core));
        }
        return new Topology(List.copyOf(cpus));
    }

    /**
     * {@return the placements this machine has for a server and a client}, each with the first pair of
     * CPUs (in CPU order) that fits it: different packages, different cores of one package, the two
     * SMT siblings of one core, and always the same core (both on the last CPU, which on a small
     * machine serves fewer interrupts than CPU 0)
     */
    public List<Placement> placements() {
        List<Placement> placements = new ArrayList<>();
        pair((a, b) -> a.pkg() != b.pkg())
                .ifPresent(p -> placements.add(new Placement(Placement.Kind.DIFFERENT_PACKAGES, p[0], p[1])));
        pair((a, b) -> a.pkg() == b.pkg() && a.core() != b.core())
                .ifPresent(p -> placements.add(new Placement(Placement.Kind.DIFFERENT_CORES, p[0], p[1])));
        pair((a, b) -> a.pkg() == b.pkg() && a.core() == b.core())
                .ifPresent(p -> placements.add(new Placement(Placement.Kind.SMT_SIBLINGS, p[0], p[1])));
        if (!cpus.isEmpty()) {
            int last = cpus.get(cpus.size() - 1).id();
            placements.add(new Placement(Placement.Kind.SAME_CORE, last, last));
        }
        return placements;
    }

    private Optional<int[]> pair(BiPredicate<Cpu, Cpu> fits) {
        for (int i = 0; i < cpus.size(); i++) {
            for (int j = i + 1; j < cpus.size(); j++) {
                if (fits.test(cpus.get(i), cpus.get(j))) {
                    return Optional.of(new int[] {cpus.get(i).id(), cpus.get(j).id()});
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Integer> readInt(Path file) {
        try {
            return Optional.of(Integer.parseInt(Files.readString(file).strip()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
