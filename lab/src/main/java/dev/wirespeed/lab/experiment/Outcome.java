package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Table;
import java.util.List;

/**
 * What one experiment yields in one lab run.
 *
 * @param experiment the experiment's name
 * @param description what it reproduces
 * @param measurements its rows of results.json
 * @param tables what the terminal shows
 * @param findings its claims and targets, judged
 * @param setAside the rows it does not trust, which judge none of its findings
 */
public record Outcome(String experiment, String description, List<Measurement> measurements, List<Table> tables,
        List<Finding> findings, List<SetAside> setAside) {
    /** Copies the lists. */
    public Outcome {
        measurements = List.copyOf(measurements);
        tables = List.copyOf(tables);
        findings = List.copyOf(findings);
        setAside = List.copyOf(setAside);
    }
}
