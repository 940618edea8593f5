package dev.wirespeed.lab.env;

import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.linux.Affinity;
import dev.wirespeed.linux.NativeIoException;
import java.util.BitSet;
import java.util.function.Consumer;

/**
 * The placement of experiments that run in the lab's own JVM: the measuring thread pinned to one CPU,
 * and let go again afterwards, so that a lab run inside a test leaves the test's thread as it was.
 */
public final class InProcess implements AutoCloseable {
    private final BitSet before;
    private final Placement placement;

    private InProcess(BitSet before, Placement placement) {
        this.before = before;
        this.placement = placement;
    }

    /**
     * Pins the calling thread to the last allowed CPU (the one of the "same core" placement) through
     * the native module; where it cannot, the thread stays as it is and {@code notes} says why.
     *
     * @param notes receives why the thread runs unpinned
     * @return the pinning, to be closed on the same thread
     */
    public static InProcess pin(Consumer<String> notes) {
        BitSet before;
        try {
            before = Affinity.allowedCpus();
            int cpu = before.length() - 1;
            BitSet one = new BitSet();
            one.set(cpu);
            Affinity.pinCurrentThread(one);
            return new InProcess(before, Placement.inProcess(cpu));
        } catch (NativeIoException | UnsupportedOperationException e) {
            notes.accept("the in-process experiments run unpinned: " + e.getMessage());
            return new InProcess(null, Placement.UNPINNED);
        }
    }

    /** {@return where the measuring thread runs} */
    public Placement placement() {
        return placement;
    }

    /** Lets the calling thread run where it could before {@link #pin}. */
    @Override
    public void close() {
        if (before == null) {
            return;
        }
        try {
            Affinity.pinCurrentThread(before);
        } catch (NativeIoException | UnsupportedOperationException e) {
            // it stays pinned; only the rest of this JVM's work on this thread is affected
        }
    }
}
