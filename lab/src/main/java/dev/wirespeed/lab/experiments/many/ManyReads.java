package dev.wirespeed.lab.experiments.many;

import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.FindingReads;
import dev.wirespeed.lab.result.Placement;
import java.util.List;
import java.util.function.Consumer;

/**
 * The rows one target of the many experiment reads: the target is judged only where none is set aside
 * ({@link ManyExperiment#setAside(ManyCase, ManyResult, Placement)}); else it is left out, and the notes
 * say which row and why.
 *
 * <p>Thread safety: none; the findings are built on one thread.
 */
final class ManyReads {
    private final Results<ManyCase, ManyResult> results;
    private final Placement placement;
    private final FindingReads reads;

    /**
     * Reads for one target.
     *
     * @param results every case's result
     * @param placement where the server and the load ran
     * @param notes told, if the target is left out, which rows it read were set aside and why
     */
    ManyReads(Results<ManyCase, ManyResult> results, Placement placement, Consumer<String> notes) {
        this.results = results;
        this.placement = placement;
        this.reads = new FindingReads(notes);
    }

    /** {@return the result of {@code kase}}, its row counted as read by the target */
    ManyResult read(ManyCase kase) {
        ManyResult result = results.get(kase);
        reads.read(ManyExperiment.setAside(kase, result, placement));
        return result;
    }

    /** Adds {@code finding} to {@code findings} unless a row it read is set aside: then the notes say which. */
    void decide(List<Finding> findings, Finding finding) {
        reads.decide(findings, finding);
    }
}
