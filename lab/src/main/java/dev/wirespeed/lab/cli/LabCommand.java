package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.env.Machine;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.LabRunner;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Outcome;
import dev.wirespeed.lab.experiments.Experiments;
import dev.wirespeed.lab.report.Console;
import dev.wirespeed.lab.report.LabReport;
import dev.wirespeed.lab.report.Provenance;
import dev.wirespeed.lab.report.ReportHtml;
import dev.wirespeed.lab.report.ReportMarkdown;
import dev.wirespeed.lab.report.ResultsFiles;
import dev.wirespeed.lab.result.Table;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** {@code wirespeed lab}: runs the registered experiments on this machine and reports beside the articles' figures. */
@Command(name = "lab", mixinStandardHelpOptions = true,
        description = {"Runs the articles' experiments on this machine: tables with the published figures beside "
                + "ours, the articles' findings and our targets judged, and index.html, results.json (with its "
                + "schema) and results.csv under --out."})
public final class LabCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "EXPERIMENT", completionCandidates = Names.class,
            description = "which to run: ${COMPLETION-CANDIDATES} (default: all but those marked *, which run when "
                    + "named or with --full)")
    List<String> experiments = new ArrayList<>();

    @Option(names = "--quick", description = "one short run per cell: a first look, not figures to quote")
    boolean quick;

    @Option(names = "--full", description = "longer: three stream clients of ten 200 ms rounds and five latency runs per "
            + "cell, and every experiment")
    boolean full;

    @Option(names = "--out", defaultValue = "lab-report", description = "report folder (default ${DEFAULT-VALUE})")
    Path out;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** A command whose options picocli sets. */
    public LabCommand() {
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        if (quick && full) {
            stderr.println("wirespeed lab: --quick and --full exclude each other");
            return ExitCode.USAGE;
        }
        Set<String> names = new LinkedHashSet<>(experiments.isEmpty() ? Experiments.names(full) : experiments);
        List<Experiment<?, ?>> chosen = new ArrayList<>();
        for (String name : names) {
            var experiment = Experiments.byName(name);
            if (experiment.isEmpty()) {
                stderr.println("wirespeed lab: unknown experiment '" + name + "'; known: "
                        + String.join(", ", Experiments.names()));
                return ExitCode.USAGE;
            }
            chosen.add(experiment.get());
        }
        // Report order is the registry's, whatever order the command line named them in.
        chosen.sort(java.util.Comparator.comparingInt(Experiments.ALL::indexOf));
        Mode mode = quick ? Mode.QUICK : full ? Mode.FULL : Mode.DEFAULT;
        Provenance provenance = Provenance.begin(spec.root().commandLine().getParseResult().originalArgs());
        Machine machine = Machine.current();
        stdout.println("wirespeed lab (" + mode.id() + "): " + machine);
        Path archives = Files.createTempDirectory("wirespeed-lab-cds-");
        List<Outcome> outcomes;
        LabContext lab;
        try {
            // Child JVMs run the command line this command belongs to (the root command's class).
            Jvm jvm = new Jvm(spec.root().userObject().getClass().getName(), archives);
            lab = new LabContext(mode, jvm, stderr, System.console() != null);
            outcomes = LabRunner.run(chosen, lab, outcome -> {
                for (Table table : outcome.tables()) {
                    Console.print(table, stdout);
                }
            });
        } finally {
            try (var files = Files.list(archives)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(archives);
        }
        LabReport report = LabReport.of(provenance.finished(Instant.now()), machine, mode, outcomes,
                lab.notes());
        Console.printFindings(report, stdout);
        ResultsFiles.write(report, out);
        Files.writeString(out.resolve("index.html"), ReportHtml.render(report), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("results.md"), ReportMarkdown.render(report, outcomes), StandardCharsets.UTF_8);
        stdout.println();
        stdout.println("wrote " + out.resolve("index.html") + ", " + out.resolve("results.json") + " (schema "
                + out.resolve(LabReport.SCHEMA) + "), " + out.resolve("results.csv") + " and " + out.resolve("results.md"));
        stdout.flush();
        return ExitCode.OK;
    }

    /** The registry's experiment names, for the help. */
    static final class Names implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Experiments.ALL.stream().map(e -> e.inDefaultRun() ? e.name() : e.name() + "*").iterator();
        }
    }
}
