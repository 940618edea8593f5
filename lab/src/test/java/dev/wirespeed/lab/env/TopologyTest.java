package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.lab.result.Placement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Placement naming against fixture copies of /sys/devices/system/cpu. */
class TopologyTest {
    @TempDir
    Path sys;

    /** Writes cpuN/topology/{physical_package_id,core_id} for each {id, package, core}. */
    private BitSet fixture(int[][] cpus) throws Exception {
        BitSet allowed = new BitSet();
        for (int[] cpu : cpus) {
            Path topology = Files.createDirectories(sys.resolve("cpu" + cpu[0]).resolve("topology"));
            Files.writeString(topology.resolve("physical_package_id"), cpu[1] + "\n");
            Files.writeString(topology.resolve("core_id"), cpu[2] + "\n");
            allowed.set(cpu[0]);
        }
        return allowed;
    }

    @Test
    void onePackageOfTwoCoresHasDifferentCoresAndSameCore() throws Exception {
        BitSet allowed = fixture(new int[][] {{0, 0, 0}, {1, 0, 1}});
        assertEquals(List.of(new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1), new Placement(Placement.Kind.SAME_CORE, 1, 1)),
                Topology.read(sys, allowed).placements());
    }

    @Test
    void twoPackagesOfEightCoresWithSmtHaveEveryPlacement() throws Exception {
        // The numbering of the second article's machine: even CPUs on package 0, odd on package 1,
        // and CPU n + 16 the SMT sibling of CPU n.
        int[][] cpus = new int[32][];
        for (int id = 0; id < 32; id++) {
            int base = id % 16;
            cpus[id] = new int[] {id, base % 2, base / 2};
        }
        BitSet allowed = fixture(cpus);
        assertEquals(List.of(new Placement(Placement.Kind.DIFFERENT_PACKAGES, 0, 1), new Placement(Placement.Kind.DIFFERENT_CORES, 0, 2),
                new Placement(Placement.Kind.SMT_SIBLINGS, 0, 16), new Placement(Placement.Kind.SAME_CORE, 31, 31)),
                Topology.read(sys, allowed).placements());
    }

    @Test
    void onlyTheAllowedCpusCount() throws Exception {
        BitSet allowed = fixture(new int[][] {{0, 0, 0}, {1, 0, 1}, {2, 1, 0}, {3, 1, 1}});
        allowed.clear(0);
        allowed.clear(2);
        assertEquals(List.of(new Placement(Placement.Kind.DIFFERENT_PACKAGES, 1, 3), new Placement(Placement.Kind.SAME_CORE, 3, 3)),
                Topology.read(sys, allowed).placements());
    }

    @Test
    void aCpuWithoutTopologyCountsAsItsOwnCore() {
        BitSet allowed = new BitSet();
        allowed.set(0, 2);
        assertEquals(List.of(new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1), new Placement(Placement.Kind.SAME_CORE, 1, 1)),
                Topology.read(sys.resolve("missing"), allowed).placements());
    }
}
