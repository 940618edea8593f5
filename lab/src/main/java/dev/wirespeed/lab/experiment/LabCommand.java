package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.ExitCode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code wirespeed lab}: runs the articles' experiments on this machine and reports beside their figures. */
@Command(name = "lab", mixinStandardHelpOptions = true,
        description = {"Runs the articles' experiments on this machine: tables with the published figures beside "
                + "ours, the articles' findings checked, and index.html, results.json and results.csv under --out.",
            "Experiments: tcp, unix, pipe, latency, files, readall."})
public final class LabCommand implements Callable<Integer> {
    /** Every experiment the lab knows, in report order. */
    static final List<String> KNOWN = List.of("tcp", "unix", "pipe", "latency", "files", "readall");

    @Parameters(arity = "0..*", paramLabel = "EXPERIMENT", description = "which to run (default: all built)")
    List<String> experiments = new ArrayList<>();

    @Option(names = "--quick", description = "one short run per cell (about a minute and a half; CI uses it)")
    boolean quick;

    @Option(names = "--full", description = "five longer runs per cell")
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
        Set<String> chosen = new LinkedHashSet<>(experiments.isEmpty() ? KNOWN : experiments);
        for (String name : chosen) {
            if (!KNOWN.contains(name)) {
                stderr.println("wirespeed lab: unknown experiment '" + name + "'; known: " + String.join(", ", KNOWN));
                return ExitCode.USAGE;
            }
        }
        LabRun.Mode mode = quick ? LabRun.Mode.QUICK : full ? LabRun.Mode.FULL : LabRun.Mode.DEFAULT;
        LabRun lab = new LabRun(mode, stdout, stderr, System.console() != null);
        stdout.println("wirespeed lab (" + mode.name().toLowerCase(Locale.ROOT) + "): " + Machine.jdk() + " on "
                + Machine.describe());
        List<StreamExperiment> streams = new ArrayList<>();
        FilesExperiment files = null;
        ReadAllExperiment readAll = null;
        LatencyExperiment latency = null;
        java.nio.file.Path ceiling = null;
        for (String name : chosen) {
            if (name.equals(LatencyExperiment.NAME)) {
                latency = new LatencyExperiment(lab, Ceiling.compile(lab, "pingpong"));
                lab.addSteps(latency.steps());
            } else if (name.equals(FilesExperiment.NAME)) {
                files = new FilesExperiment(lab);
                lab.addSteps(files.steps());
            } else if (name.equals(ReadAllExperiment.NAME)) {
                readAll = new ReadAllExperiment(lab);
                lab.addSteps(readAll.steps());
            } else {
                if (streams.isEmpty()) {
                    ceiling = Ceiling.compile(lab, "ceiling");
                }
                StreamExperiment stream = new StreamExperiment(lab,
                        StreamExperiment.Link.valueOf(name.toUpperCase(Locale.ROOT)), ceiling);
                lab.addSteps(stream.steps());
                streams.add(stream);
            }
        }
        for (StreamExperiment experiment : streams) {
            experiment.run();
        }
        if (latency != null) {
            latency.run();
        }
        // In the lab's own JVM, pinned to one CPU: after the process experiments, so they keep both CPUs.
        java.util.BitSet cpus = InProcess.current();
        try {
            if (files != null) {
                files.run();
            }
            if (readAll != null) {
                readAll.run();
            }
        } finally {
            InProcess.restore(cpus);
        }
        printFindings(lab);
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.json"), ResultsFiles.json(lab), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("results.csv"), ResultsFiles.csv(lab), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("index.html"), ReportHtml.render(lab), StandardCharsets.UTF_8);
        stdout.println();
        stdout.println("wrote " + out.resolve("index.html") + ", " + out.resolve("results.json") + " and "
                + out.resolve("results.csv"));
        stdout.flush();
        return ExitCode.OK;
    }

    private static void printFindings(LabRun lab) {
        PrintWriter out = lab.out;
        if (!lab.findings.isEmpty()) {
            out.println();
            out.println("findings:");
            for (var finding : lab.findings) {
                out.printf(Locale.ROOT, "  [%s] %s%n         %s%n", finding.holds() ? "holds" : "DOES NOT HOLD",
                        finding.finding(), finding.figures());
            }
        }
        for (String note : lab.notes) {
            out.println("note: " + note);
        }
        out.flush();
    }
}
