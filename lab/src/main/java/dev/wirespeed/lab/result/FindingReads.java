package dev.wirespeed.lab.result;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The rows a finding being built has read that the lab sets aside: the finding is judged only where
 * there are none; else it is left out, and a note names each row and why. Once a finding is decided,
 * reading starts afresh for the next.
 *
 * <p>Thread safety: none; an experiment builds its findings on one thread.
 */
public final class FindingReads {
    /** Where a finding left out is told. */
    private final Consumer<String> notes;
    /** The rows read since the last finding was decided, each once, that are set aside. */
    private final Set<SetAside> setAside = new LinkedHashSet<>();

    /**
     * Reads for findings whose omissions {@code notes} is told of.
     *
     * @param notes told, for each finding left out, which rows it read were set aside and why
     */
    public FindingReads(Consumer<String> notes) {
        this.notes = notes;
    }

    /**
     * Counts a row as read by the finding being built.
     *
     * @param row the row where it is set aside; null for a row the lab trusts
     */
    public void read(SetAside row) {
        if (row != null) {
            setAside.add(row);
        }
    }

    /** Forgets what was read: the next finding starts afresh. */
    public void clear() {
        setAside.clear();
    }

    /**
     * Adds {@code finding} to {@code findings} unless a row it read is set aside: then the notes say
     * which and why. Either way, reading starts afresh.
     *
     * @param findings the findings so far
     * @param finding the finding, judged on the rows read since the last
     */
    public void decide(List<Finding> findings, Finding finding) {
        if (setAside.isEmpty()) {
            findings.add(finding);
        } else {
            notes.accept(SetAside.notJudged(finding, setAside));
        }
        setAside.clear();
    }
}
