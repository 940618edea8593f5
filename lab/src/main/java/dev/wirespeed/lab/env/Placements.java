package dev.wirespeed.lab.env;

import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.linux.Affinity;
import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;

/** The placements of server and client this machine offers, pinned with {@code taskset}. */
public final class Placements {
    private Placements() {
    }

    /**
     * {@return the placements of this machine} (see {@link Topology#placements()}), or only
     * {@link Placement#UNPINNED} where pinning is impossible
     *
     * @param notes receives why placements are missing
     */
    public static List<Placement> available(Consumer<String> notes) {
        if (!Tools.has("taskset")) {
            notes.accept("taskset not found: processes run unpinned (install util-linux to pin them)");
            return List.of(Placement.UNPINNED);
        }
        BitSet allowed;
        try {
            allowed = Affinity.allowedCpus();
        } catch (IOException | UnsupportedOperationException e) {
            notes.accept("CPU affinity unavailable (" + e.getMessage() + "): processes run unpinned");
            return List.of(Placement.UNPINNED);
        }
        List<Placement> placements = Topology.read(Path.of("/sys/devices/system/cpu"), allowed).placements();
        if (placements.size() == 1) {
            notes.accept("only one CPU core allowed: server and client share it");
        }
        return placements;
    }
}
