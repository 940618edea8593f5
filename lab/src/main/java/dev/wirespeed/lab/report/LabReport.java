package dev.wirespeed.lab.report;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.wirespeed.lab.env.Machine;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Outcome;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.SetAside;
import java.util.List;

/**
 * Everything one lab run found, as {@code results.json} holds it (described by
 * {@code results.schema.json}, which the lab writes beside it).
 *
 * @param schema the schema's file name, for tools that validate
 * @param provenance the command that made the run, the commit it ran, when and for how long
 * @param machine what the lab ran on
 * @param mode how long it measured
 * @param experiments the experiments that ran, in report order
 * @param measurements every measured cell
 * @param findings every claim and target, judged
 * @param setAside every row the lab measured but does not trust, with why: no finding is judged on one
 * @param notes what the reader should know: skipped rows, missing tools, findings not judged
 */
public record LabReport(@JsonProperty("$schema") String schema, Provenance provenance, Machine machine, Mode mode,
        List<Experiment> experiments, List<Measurement> measurements, List<Finding> findings, List<SetAside> setAside,
        List<String> notes) {
    /** The schema's file name. */
    public static final String SCHEMA = "results.schema.json";

    /**
     * An experiment that ran.
     *
     * @param name its name on the command line
     * @param description what it reproduces
     */
    public record Experiment(String name, String description) {
    }

    /** Copies the lists. */
    public LabReport {
        experiments = List.copyOf(experiments);
        measurements = List.copyOf(measurements);
        findings = List.copyOf(findings);
        setAside = List.copyOf(setAside);
        notes = List.copyOf(notes);
    }

    /**
     * {@return the report of a run}
     *
     * @param provenance the run's command, commit, start and duration
     * @param machine what it ran on
     * @param mode how long it measured
     * @param outcomes the experiments' outcomes, in report order
     * @param notes the run's notes
     */
    public static LabReport of(Provenance provenance, Machine machine, Mode mode, List<Outcome> outcomes,
            List<String> notes) {
        return new LabReport(SCHEMA, provenance, machine, mode,
                outcomes.stream().map(o -> new Experiment(o.experiment(), o.description())).toList(),
                outcomes.stream().flatMap(o -> o.measurements().stream()).toList(),
                outcomes.stream().flatMap(o -> o.findings().stream()).toList(),
                outcomes.stream().flatMap(o -> o.setAside().stream()).toList(), notes);
    }
}
