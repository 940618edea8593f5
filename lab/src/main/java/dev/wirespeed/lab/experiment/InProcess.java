package dev.wirespeed.lab.experiment;

import dev.wirespeed.linux.Affinity;
import dev.wirespeed.linux.NativeIoException;
import java.util.BitSet;

/** Placement of the experiments that run in the lab's own JVM: the measuring thread pinned to one CPU. */
final class InProcess {
    private InProcess() {
    }

    /**
     * Pins the calling thread to the last allowed CPU (the one of the "same core" placement) through
     * the native module, and {@return the placement's name}; where it cannot, says so in a note.
     */
    static String pin(LabRun lab) {
        try {
            BitSet allowed = Affinity.allowedCpus();
            int cpu = allowed.length() - 1;
            BitSet one = new BitSet();
            one.set(cpu);
            Affinity.pinCurrentThread(one);
            return "one core (cpu" + cpu + ")";
        } catch (NativeIoException | UnsupportedOperationException e) {
            lab.notes.add("the in-process experiments run unpinned: " + e.getMessage());
            return Placement.UNPINNED;
        }
    }

    /** {@return the CPUs the calling thread may run on now, or null where that cannot be read} */
    static BitSet current() {
        try {
            return Affinity.allowedCpus();
        } catch (NativeIoException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** Lets the calling thread run where it could before {@link #pin}: a lab run in a test leaves the test as it was. */
    static void restore(BitSet cpus) {
        if (cpus == null) {
            return;
        }
        try {
            Affinity.pinCurrentThread(cpus);
        } catch (NativeIoException | UnsupportedOperationException e) {
            // it stays pinned; only the rest of this JVM's work is affected
        }
    }
}
