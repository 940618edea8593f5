package dev.wirespeed.lab.experiments.tails;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.PingCommand;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.FindingReads;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.linux.NativeSocket;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.Map;

/**
 * What moves a Java tail here: the ping-pong of the latency experiment (TCP loopback, 100-byte bodies,
 * closed loop) with the same JVM options given to both ping and echo, one {@link TailVariant} a row:
 * the launcher's (Parallel GC), G1, ZGC, Epsilon, a pre-touched heap, no periodic safepoint. Two paths:
 * the JDK's blocking {@code SocketChannel}, what most users run, and the library's busy-polling
 * {@code NativeSocket}. Each run is a fresh echo and ping of the row's options, and the lab takes every
 * row's first run before any row's second (see {@link TailCell}); a row is the median over its runs of
 * each percentile. A row whose runs spread wider than their median at a percentile the targets judge is
 * set aside ({@link #setAside}), and a target that reads it is left out. Too long for the default run: it
 * runs when named, or with {@code --full}.
 */
public final class TailsExperiment implements Experiment<TailCell, ChildReport.Latency> {
    /** Body bytes per frame. */
    static final int SIZE = 100;
    /** The p99.9 a variant must beat the launcher's by, before the launcher should adopt it. */
    static final double P999_MARGIN = 1.1;
    /** The same for p99.99, decided by ten times fewer round trips. */
    static final double P9999_MARGIN = 1.25;
    /** The percentiles its targets judge. */
    static final Set<Percentile> JUDGED = EnumSet.of(Percentile.P999, Percentile.P9999);
    /** The table note saying which cells are set aside. */
    static final String SPREAD_NOTE = SetAside.spreadNote("a p99.9 or p99.99, the percentiles the targets judge,");

    /** An experiment. */
    public TailsExperiment() {
    }

    @Override
    public String name() {
        return "tails";
    }

    @Override
    public String description() {
        return "what moves a Java tail: ping-pong percentiles with the collector (Parallel, G1, ZGC, Epsilon), a "
                + "pre-touched heap or no periodic safepoint, for the JDK's blocking path and the library's busy-polling one";
    }

    @Override
    public boolean inDefaultRun() {
        return false;
    }

    /** {@return the paths measured: the JDK's blocking one, and the native busy-polling one where it exists} */
    static List<Impl> paths() {
        return NativeSocket.isSupported() ? List.of(Impl.JDK, Impl.NATIVE_SPIN) : List.of(Impl.JDK);
    }

    @Override
    public List<TailCell> cases(LabContext lab) {
        if (!NativeSocket.isSupported()) {
            lab.note("tails: the native path needs Linux on a 64-bit JVM: only the JDK's path is measured");
        }
        List<TailCell> cells = new ArrayList<>();
        for (int run = 1; run <= lab.mode().runs(); run++) {
            for (Placement placement : lab.placements()) {
                for (Impl path : paths()) {
                    for (TailVariant variant : TailVariant.values()) {
                        cells.add(new TailCell(new TailCell.Row(placement, path, variant), run));
                    }
                }
            }
        }
        return cells;
    }

    /** {@return round trips measured per run} */
    static long count(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> 2_000;
            case DEFAULT -> 20_000;
            case FULL -> 100_000;
        };
    }

    /** {@return round trips before measuring: enough for C2 to compile the loop outside quick mode} */
    static long warmup(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> 1_000;
            case DEFAULT -> 10_000;
            case FULL -> 20_000;
        };
    }

    @Override
    public CaseRunner<TailCell, ChildReport.Latency> open(LabContext lab) {
        return new CaseRunner<>() {
            @Override
            public ChildReport.Latency run(TailCell cell) throws IOException, InterruptedException {
                lab.progress("tails " + cell.row().placement() + ": " + cell.row().name() + " run " + cell.run() + "/"
                        + lab.mode().runs());
                ChildReport.Latency one = pingPong(cell.row(), lab);
                lab.stepDone();
                return one;
            }

            @Override
            public void close() {
                // every run stops its own echo
            }
        };
    }

    private static ChildReport.Latency pingPong(TailCell.Row cell, LabContext lab) throws IOException, InterruptedException {
        Impl path = cell.path();
        Args echoArgs = lab.mode().pingWarmup().onEcho(path.echo().on(Args.of(EchoCommand.OPTIONS)
                .with(EchoCommand.TRANSPORT, Transport.TCP).with(ListenOptions.PORT, 0)));
        List<String> options = cell.variant().options();
        Process echo = new ProcessBuilder(lab.jvm().command(cell.placement().serverCpu(),
                "echo-tails-" + path.cliName() + "-" + cell.variant().id(), options, echoArgs.toArgs())).start();
        try {
            String port = Children.awaitListening(echo, null);
            Args pingArgs = lab.mode().pingWarmup().onPing(Args.of(PingCommand.OPTIONS)
                    .with(PingCommand.TRANSPORT, Transport.TCP).with(ConnectOptions.PORT, Integer.valueOf(port))
                    .with(PingCommand.IMPL, path).with(PingCommand.COUNT, count(lab)).with(PingCommand.WARMUP, warmup(lab))
                    .with(PingCommand.SIZE, SIZE).with(PingCommand.JSON));
            Process ping = new ProcessBuilder(lab.jvm().command(cell.placement().clientCpu(),
                    "ping-tails-" + cell.variant().id(), options, pingArgs.toArgs())).start();
            return Children.latency(ping, "tails ping " + cell.name());
        } finally {
            Children.stop(echo);
        }
    }

    /** {@return each row's runs as one distribution, rows in table order} */
    static Map<TailCell.Row, Distribution> rows(Results<TailCell, ChildReport.Latency> results) {
        Map<TailCell.Row, List<ChildReport.Latency>> runs = new LinkedHashMap<>();
        for (TailCell cell : results.cases()) {
            runs.computeIfAbsent(cell.row(), r -> new ArrayList<>()).add(results.get(cell));
        }
        Map<TailCell.Row, Distribution> rows = new LinkedHashMap<>();
        runs.forEach((row, pings) -> rows.put(row, Distribution.of(pings)));
        return rows;
    }

    @Override
    public List<Measurement> measurements(Results<TailCell, ChildReport.Latency> results, LabContext lab) {
        List<Measurement> measurements = new ArrayList<>();
        rows(results).forEach((row, d) -> {
            Series series = new Series(name(), row.name(), row.path().library() ? Role.LIBRARY : Role.JDK,
                    Medium.TCP, SIZE);
            for (Percentile p : Percentile.values()) {
                measurements.add(series.at(row.placement(), Unit.MICROSECONDS, d.get(p)).percentile(p));
            }
        });
        return measurements;
    }

    @Override
    public List<Table> tables(Results<TailCell, ChildReport.Latency> results, LabContext lab) {
        Map<TailCell.Row, Distribution> rows = rows(results);
        List<Table> tables = new ArrayList<>();
        for (Placement placement : rows.keySet().stream().map(TailCell.Row::placement).distinct().toList()) {
            List<String> header = new ArrayList<>(List.of("path, JVM options"));
            for (Percentile p : Percentile.values()) {
                header.add(p.label() + (p == Percentile.P50 ? " [min-max]" : ""));
            }
            List<List<String>> lines = new ArrayList<>();
            List<SetAside> setAside = new ArrayList<>();
            for (TailCell.Row row : rows.keySet().stream().filter(r -> r.placement().equals(placement)).toList()) {
                Distribution d = rows.get(row);
                List<String> line = new ArrayList<>(List.of(row.name()));
                for (Percentile p : Percentile.values()) {
                    Stats s = d.get(p);
                    SetAside distrusted = setAside(row, d, p, lab);
                    if (distrusted != null) {
                        setAside.add(distrusted);
                    }
                    line.add(SetAside.marked(p == Percentile.P50 ? String.format(Locale.ROOT, "%,.1f [%,.1f-%,.1f]",
                            s.median(), s.min(), s.max()) : String.format(Locale.ROOT, "%,.1f", s.median()),
                            distrusted != null));
                }
                lines.add(line);
            }
            List<String> notes = new ArrayList<>(List.of(Percentile.tailNote(count(lab)),
                    "both ping and echo get the row's options; everything else is the launcher's"));
            for (TailVariant variant : TailVariant.values()) {
                if (!variant.options().isEmpty()) {
                    notes.add(variant.label() + ": " + String.join(" ", variant.options()));
                }
            }
            notes.add(SPREAD_NOTE);
            setAside.forEach(row -> notes.add(row.note()));
            tables.add(new Table(String.format(Locale.ROOT, "tails: TCP loopback round trips by JVM options, %d-byte "
                    + "bodies, %,d measured after %,d warm-up (%s), microseconds, median of %d run(s), every row's "
                    + "first run before any row's second; %s (%s)", SIZE, count(lab), warmup(lab),
                    lab.mode().pingWarmup().describe(), lab.mode().runs(), placement, placement.cpus()), header, lines,
                    notes));
        }
        return tables;
    }

    @Override
    public List<Finding> findings(Results<TailCell, ChildReport.Latency> results, LabContext lab) {
        Map<TailCell.Row, Distribution> rows = rows(results);
        List<Check> p999 = new ArrayList<>();
        List<Check> p9999 = new ArrayList<>();
        FindingReads p999Reads = new FindingReads(lab::note);
        FindingReads p9999Reads = new FindingReads(lab::note);
        for (Placement placement : rows.keySet().stream().map(TailCell.Row::placement).distinct().toList()) {
            for (Impl path : paths()) {
                TailCell.Row launcher = new TailCell.Row(placement, path, TailVariant.LAUNCHER);
                List<TailCell.Row> others = rows.keySet().stream().filter(r -> r.placement().equals(placement)
                        && r.path() == path && r.variant() != TailVariant.LAUNCHER).toList();
                if (!rows.containsKey(launcher) || others.isEmpty()) {
                    continue;
                }
                String where = placement + ", " + path.cliName();
                p999.add(againstBest(where, launcher, others, Percentile.P999, rows));
                p9999.add(againstBest(where, launcher, others, Percentile.P9999, rows));
                // Finding the best of the others reads every one of them, as it reads the launcher.
                for (TailCell.Row row : rows.keySet()) {
                    if (row.placement().equals(placement) && row.path() == path) {
                        p999Reads.read(setAside(row, rows.get(row), Percentile.P999, lab));
                        p9999Reads.read(setAside(row, rows.get(row), Percentile.P9999, lab));
                    }
                }
            }
        }
        List<Finding> findings = new ArrayList<>();
        if (p999.isEmpty()) {
            return findings;
        }
        if (lab.decides(name(), Percentile.P999, count(lab))) {
            p999Reads.decide(findings, Finding.target(name(), String.format(Locale.ROOT, "the launcher's JVM options give a p99.9 "
                    + "within %.2fx of the best other options': no collector or flag tried pays enough to adopt",
                    P999_MARGIN), Rule.atMost(P999_MARGIN), p999));
        }
        if (lab.decides(name(), Percentile.P9999, count(lab))) {
            p9999Reads.decide(findings, Finding.target(name(), String.format(Locale.ROOT, "the launcher's JVM options give a p99.99 "
                    + "within %.2fx of the best other options'", P9999_MARGIN), Rule.atMost(P9999_MARGIN), p9999));
        }
        return findings;
    }

    /**
     * {@return {@code p} of {@code row} set aside where a target could read it, or null}: a percentile the
     * targets judge ({@link #JUDGED}) and the run's round trips decide, whose runs spread wider than their
     * median
     */
    private SetAside setAside(TailCell.Row row, Distribution d, Percentile p, LabContext lab) {
        return JUDGED.contains(p) && p.decidedBy(count(lab))
                ? SetAside.of(name(), row.name(), row.placement(), p, d.setAside(p)) : null;
    }

    /**
     * {@inheritDoc} Here: each row's p99.9 and p99.99 (where the run's round trips decide them) whose runs
     * spread wider than their median; the tables mark the same cells.
     */
    @Override
    public List<SetAside> setAside(Results<TailCell, ChildReport.Latency> results, LabContext lab) {
        List<SetAside> setAside = new ArrayList<>();
        rows(results).forEach((row, d) -> {
            for (Percentile p : Percentile.values()) {
                SetAside distrusted = setAside(row, d, p, lab);
                if (distrusted != null) {
                    setAside.add(distrusted);
                }
            }
        });
        return setAside;
    }

    private static Check againstBest(String where, TailCell.Row launcher, List<TailCell.Row> others, Percentile p,
            Map<TailCell.Row, Distribution> rows) {
        TailCell.Row best = others.get(0);
        for (TailCell.Row other : others) {
            if (rows.get(other).get(p).median() < rows.get(best).get(p).median()) {
                best = other;
            }
        }
        return new Check(where, new Figure(launcher.variant().label() + " " + p.label(), rows.get(launcher).get(p),
                Unit.MICROSECONDS), new Figure(best.variant().label() + " " + p.label(), rows.get(best).get(p),
                Unit.MICROSECONDS));
    }
}
