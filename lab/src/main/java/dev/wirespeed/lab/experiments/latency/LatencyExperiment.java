package dev.wirespeed.lab.experiments.latency;

import dev.wirespeed.lab.Ring;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.PingCommand;
import dev.wirespeed.lab.env.CPrograms;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.pingpong.EchoArgs;
import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.pingpong.SocketApi;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.FindingReads;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.linux.NativeSocket;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The fast-sockets article on this machine: round-trip latency over TCP loopback between
 * {@code wirespeed ping} and {@code wirespeed echo}, 100-byte bodies, for the JDK's
 * {@code SocketChannel} and the library's FFM {@code NativeSocket}, each blocking and busy-polling,
 * Netty as the peer, and a C ping-pong as the ceiling, at every placement (with {@code --full}, also the
 * library's {@code IoUringSocket}, waiting and polling, with its default ring and the other ring setups
 * of {@link #RING_SETUPS}, and Netty over its io_uring transport); then the two busy-polling
 * Java paths and the busy-polling C ping-pong open loop at {@value #OPEN_LOOP_RATE} frames a second
 * (coordinated omission corrected).
 * Each run is a fresh ping JVM against one echo per kind and placement; a cell is the median over runs
 * of each percentile, with min and max.
 */
public final class LatencyExperiment implements Experiment<LatencyCell, Distribution> {
    /** Body bytes per frame. */
    static final int SIZE = 100;
    /**
     * Frames per second of the open-loop rows: a fifth or less of what the busy-polling paths answer
     * closed loop here, so that the rows show the tail at a steady load, not a queue.
     */
    static final int OPEN_LOOP_RATE = 20_000;

    /** Unmeasured round trips of the C ping-pong at most: it has no JIT to wait for. */
    static final int C_WARMUP = 1_000;

    /** How far the Java paths may be from the C ping-pong, percentile by percentile: the targets. */
    static final Map<Percentile, Double> C_BOUNDS = bounds();

    private static Map<Percentile, Double> bounds() {
        Map<Percentile, Double> bounds = new EnumMap<>(Percentile.class);
        bounds.put(Percentile.P50, 1.05);
        bounds.put(Percentile.P999, 1.25);
        bounds.put(Percentile.P9999, 1.5);
        return bounds;
    }

    /** The table note saying which cells are set aside. */
    static final String SPREAD_NOTE = SetAside.spreadNote("a percentile the findings judge");

    /** The percentiles its findings judge: p50 and p99 against the JDK's path, and those of {@link #C_BOUNDS}. */
    static final Set<Percentile> JUDGED = judged();

    private static Set<Percentile> judged() {
        Set<Percentile> judged = EnumSet.of(Percentile.P50, Percentile.P99);
        judged.addAll(C_BOUNDS.keySet());
        return judged;
    }

    /** Creates the experiment. */
    public LatencyExperiment() {
    }

    @Override
    public String name() {
        return "latency";
    }

    @Override
    public String description() {
        return "\"How to make Java sockets faster\" (Chronicle, 2018): round-trip percentiles over TCP loopback, the "
                + "JDK's SocketChannel and the library's NativeSocket, blocking and busy-polling (with --full its "
                + "IoUringSocket too, in several ring setups, and Netty's io_uring transport), Netty, a C ping-pong, and the "
                + "busy-polling paths open "
                + "loop at a fixed rate";
    }

    /**
     * The io_uring ping's ring setups beyond the library's default, each a row of {@code --full} runs: the
     * waiting ping deferred and with a submission-polling kernel thread, the polling one interrupted and
     * deferred. Not the polling ping with a submission-polling thread: the lab pins that thread to the
     * ping's own CPU (there is no other to give it), where the two spin against each other and the ping
     * all but stops.
     */
    static final List<LatencyCase.RingSetup> RING_SETUPS = List.of(new LatencyCase.RingSetup(Impl.URING, Ring.DEFER),
            new LatencyCase.RingSetup(Impl.URING, Ring.SQPOLL), new LatencyCase.RingSetup(Impl.URING_SPIN, Ring.INTERRUPT),
            new LatencyCase.RingSetup(Impl.URING_SPIN, Ring.DEFER));

    /** {@return the rows, in table order}: the io_uring ones only where the mode runs {@link Mode#ioUringRows() them} */
    static List<LatencyCase> rows(boolean withC, Mode mode) {
        List<LatencyCase> rows = new ArrayList<>();
        boolean uring = mode.ioUringRows();
        for (Impl impl : Impl.values()) {
            if (impl.unavailable() == null && (uring || !impl.ioUring())) {
                rows.add(new LatencyCase.Java(impl));
            }
        }
        if (uring && SocketApi.URING.unavailable() == null) {
            rows.addAll(RING_SETUPS);
        }
        if (withC) {
            rows.add(new LatencyCase.C(false));
            rows.add(new LatencyCase.C(true));
        }
        for (Impl impl : List.of(Impl.JDK_SPIN, Impl.NATIVE_SPIN)) {
            if (impl.api().unavailable() == null) {
                rows.add(new LatencyCase.OpenLoop(impl, OPEN_LOOP_RATE));
            }
        }
        if (withC) {
            rows.add(new LatencyCase.COpenLoop(OPEN_LOOP_RATE));
        }
        return rows;
    }

    @Override
    public List<LatencyCell> cases(LabContext lab) throws IOException, InterruptedException {
        if (!NativeSocket.isSupported()) {
            lab.note("latency: the native path needs Linux on a 64-bit JVM: its rows and the findings that compare it "
                    + "are skipped");
        }
        String noUring = SocketApi.URING.unavailable();
        if (NativeSocket.isSupported() && noUring != null && lab.mode().ioUringRows()) {
            lab.note("latency: the io_uring rows are skipped: " + noUring);
        }
        boolean withC = lab.program(CPrograms.Program.PINGPONG).isPresent();
        List<LatencyCell> cells = new ArrayList<>();
        for (Placement placement : lab.placements()) {
            for (LatencyCase row : rows(withC, lab.mode())) {
                cells.add(new LatencyCell(placement, row));
            }
        }
        return cells;
    }

    @Override
    public int steps(LatencyCell cell, LabContext lab) {
        return lab.mode().runs();
    }

    /**
     * {@return round trips measured per run, after {@link #warmup} unmeasured ones}
     *
     * @param lab the run's context, whose mode decides
     */
    public static long count(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> 2_000;
            case DEFAULT -> 10_000;
            case FULL -> 200_000;
        };
    }

    /**
     * {@return round trips before measuring}: outside quick mode enough for C2 to compile the loop
     * (about 10,000 calls), so that compilations stay out of the measured tail
     *
     * @param lab the run's context, whose mode decides
     */
    public static long warmup(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> 1_000;
            case DEFAULT -> 10_000;
            case FULL -> 50_000;
        };
    }

    /** {@return round trips before the C ping-pong measures: {@link #warmup}, at most {@link #C_WARMUP}} */
    static long cWarmup(LabContext lab) {
        return Math.min(warmup(lab), C_WARMUP);
    }

    @Override
    public CaseRunner<LatencyCell, Distribution> open(LabContext lab) throws IOException, InterruptedException {
        Path pingpong = lab.program(CPrograms.Program.PINGPONG).orElse(null);
        return new CaseRunner<>() {
            /** One echo per kind at the current placement: the JDK's blocking echo serves both jdk and netty. */
            private final Map<List<String>, Process> echoes = new LinkedHashMap<>();
            private final Map<List<String>, String> ports = new LinkedHashMap<>();
            private Placement placement;

            @Override
            public Distribution run(LatencyCell cell) throws IOException, InterruptedException {
                if (!cell.placement().equals(placement)) {
                    close();
                    placement = cell.placement();
                }
                List<String> echoCommand = echoCommand(cell, lab, pingpong);
                if (!echoes.containsKey(echoCommand)) {
                    Process echo = new ProcessBuilder(echoCommand).start();
                    echoes.put(echoCommand, echo);
                    ports.put(echoCommand, Children.awaitListening(echo, null));
                }
                List<ChildReport.Latency> pings = new ArrayList<>();
                int runs = lab.mode().runs();
                for (int run = 1; run <= runs; run++) {
                    lab.progress("latency " + cell.placement() + ": " + cell.row().name() + " run " + run + "/" + runs);
                    pings.add(ping(cell, lab, pingpong, ports.get(echoCommand)));
                    lab.stepDone();
                }
                return Distribution.of(pings);
            }

            @Override
            public void close() {
                echoes.values().forEach(Children::stop);
                echoes.clear();
                ports.clear();
            }
        };
    }

    private static List<String> echoCommand(LatencyCell cell, LabContext lab, Path pingpong) {
        int cpu = cell.placement().serverCpu();
        return switch (cell.row()) {
            case LatencyCase.Java java -> javaEcho(java.impl(), cpu, lab);
            case LatencyCase.RingSetup setup -> javaEcho(setup.impl(), cpu, lab); // the default ring's echo
            case LatencyCase.OpenLoop open -> javaEcho(open.impl(), cpu, lab); // the closed-loop row's echo
            case LatencyCase.C c -> cEcho(pingpong, cpu, c.spin());
            case LatencyCase.COpenLoop open -> cEcho(pingpong, cpu, true); // the closed-loop row's echo
        };
    }

    private static List<String> cEcho(Path pingpong, int cpu, boolean spin) {
        return Children.pinned(cpu, List.of(pingpong.toString(), "echo", "127.0.0.1", "0", spin ? "poll" : "block"));
    }

    /** {@return the echo that {@code ping --impl impl} talks to}, waiting as that ping does */
    private static List<String> javaEcho(Impl ping, int cpu, LabContext lab) {
        EchoArgs echo = ping.echo();
        Args args = lab.mode().pingWarmup().onEcho(echo.on(Args.of(EchoCommand.OPTIONS)
                .with(EchoCommand.TRANSPORT, Transport.TCP).with(ListenOptions.PORT, 0)));
        // Echoes of one placement run side by side: each kind has an archive of its own.
        return lab.jvm().command(cpu, "echo-" + echo.impl().cliName() + (echo.spin() ? "-spin" : ""), args.toArgs());
    }

    private static ChildReport.Latency ping(LatencyCell cell, LabContext lab, Path pingpong, String port)
            throws IOException, InterruptedException {
        int cpu = cell.placement().clientCpu();
        List<String> command = switch (cell.row()) {
            case LatencyCase.Java java -> javaPing(java.impl(), ping -> ping, port, cpu, lab);
            case LatencyCase.RingSetup setup -> javaPing(setup.impl(), ping -> ping.with(PingCommand.RING, setup.ring()),
                    port, cpu, lab);
            case LatencyCase.OpenLoop open -> javaPing(open.impl(), ping -> ping.with(PingCommand.RATE,
                    (double) open.rate()), port, cpu, lab);
            case LatencyCase.C c -> cPing(pingpong, port, cpu, c.spin(), List.of(), lab);
            case LatencyCase.COpenLoop open -> cPing(pingpong, port, cpu, true, List.of(String.valueOf(open.rate())),
                    lab);
        };
        return Children.latency(new ProcessBuilder(command).start(), "ping " + cell.row().name());
    }

    /**
     * {@return the C ping-pong's ping}, warmed up for {@link #cWarmup} round trips only: it has no JIT
     * to wait for, and a warm-up counted in round trips costs seconds where round trips are slow
     *
     * @param rate empty for a closed loop, or the frames per second of an open one
     */
    private static List<String> cPing(Path pingpong, String port, int cpu, boolean spin, List<String> rate,
            LabContext lab) {
        List<String> args = new ArrayList<>(List.of(pingpong.toString(), "ping", "127.0.0.1", port,
                spin ? "poll" : "block", String.valueOf(count(lab)), String.valueOf(cWarmup(lab)),
                String.valueOf(SIZE)));
        args.addAll(rate);
        return Children.pinned(cpu, args);
    }

    private static List<String> javaPing(Impl impl, UnaryOperator<Args> loop, String port, int cpu, LabContext lab) {
        Args args = Args.of(PingCommand.OPTIONS).with(PingCommand.TRANSPORT, Transport.TCP)
                .with(ConnectOptions.PORT, Integer.valueOf(port)).with(PingCommand.IMPL, impl)
                .with(PingCommand.COUNT, count(lab)).with(PingCommand.WARMUP, warmup(lab)).with(PingCommand.SIZE, SIZE)
                .with(PingCommand.JSON);
        return lab.jvm().command(cpu, lab.mode().pingWarmup().onPing(loop.apply(args)).toArgs());
    }

    @Override
    public List<Measurement> measurements(Results<LatencyCell, Distribution> results, LabContext lab) {
        List<Measurement> rows = new ArrayList<>();
        for (LatencyCell cell : results.cases()) {
            Series series = new Series(name(), cell.row().name(), cell.row().role(), Medium.TCP, SIZE);
            for (Percentile p : Percentile.values()) {
                rows.add(series.at(cell.placement(), Unit.MICROSECONDS, results.get(cell).get(p)).percentile(p)
                        .published(Published.latencyUs(cell.row(), p)));
            }
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<LatencyCell, Distribution> results, LabContext lab) {
        List<Table> tables = new ArrayList<>();
        List<Placement> placements = results.cases().stream().map(LatencyCell::placement).distinct().toList();
        for (Placement placement : placements) {
            List<String> header = new ArrayList<>(List.of("case"));
            for (Percentile p : Percentile.values()) {
                header.add(p.label() + (p == Percentile.P50 ? " [min-max]" : ""));
            }
            header.add("article p50 / p90");
            List<List<String>> lines = new ArrayList<>();
            List<SetAside> setAside = new ArrayList<>();
            for (LatencyCell cell : results.cases(c -> c.placement().equals(placement))) {
                Distribution d = results.get(cell);
                List<String> line = new ArrayList<>(List.of(cell.row().name()));
                for (Percentile p : Percentile.values()) {
                    Stats s = d.get(p);
                    SetAside row = judgedSetAside(cell, d, p, lab);
                    if (row != null) {
                        setAside.add(row);
                    }
                    line.add(SetAside.marked(p == Percentile.P50 ? String.format(Locale.ROOT, "%,.1f [%,.1f-%,.1f]",
                            s.median(), s.min(), s.max()) : String.format(Locale.ROOT, "%,.1f", s.median()), row != null));
                }
                double p50 = Published.latencyUs(cell.row(), Percentile.P50);
                line.add(Double.isNaN(p50) ? "-" : String.format(Locale.ROOT, "%.1f / %.1f", p50,
                        Published.latencyUs(cell.row(), Percentile.P90)));
                lines.add(line);
            }
            List<String> notes = new ArrayList<>(List.of(Percentile.tailNote(count(lab)), String.format(Locale.ROOT,
                    "open loop: frame i is due at i / %,d s and its round trip counts from then (coordinated omission "
                    + "corrected); the echo is the closed-loop row's", OPEN_LOOP_RATE), String.format(Locale.ROOT,
                    "the C ping-pong warms up for %,d round trips: it has no JIT to wait for", cWarmup(lab)),
                    SPREAD_NOTE));
            setAside.forEach(row -> notes.add(row.note()));
            tables.add(new Table(String.format(Locale.ROOT, "latency: TCP loopback round trips, %d-byte bodies, %d "
                    + "measured after %d warm-up (%s), microseconds, median of %d run(s); %s (%s)", SIZE, count(lab),
                    warmup(lab), lab.mode().pingWarmup().describe(), lab.mode().runs(), placement, placement.cpus()),
                    header, lines, notes));
        }
        return tables;
    }

    @Override
    public List<Finding> findings(Results<LatencyCell, Distribution> results, LabContext lab) {
        if (!NativeSocket.isSupported()) {
            return List.of();
        }
        Checks bypass = new Checks(results, lab);
        Checks openNearC = new Checks(results, lab);
        Checks noWorse = new Checks(results, lab);
        Map<Percentile, Checks> nearC = new EnumMap<>(Percentile.class);
        for (Percentile p : C_BOUNDS.keySet()) {
            nearC.put(p, new Checks(results, lab));
        }
        Checks uringP50 = new Checks(results, lab);
        Checks uringNearC = new Checks(results, lab);
        List<Placement> placements = results.cases().stream().map(LatencyCell::placement).distinct().toList();
        for (Placement placement : placements) {
            LatencyCell uringSpin = new LatencyCell(placement, new LatencyCase.Java(Impl.URING_SPIN));
            LatencyCell nativeSpin = new LatencyCell(placement, new LatencyCase.Java(Impl.NATIVE_SPIN));
            if (results.has(uringSpin)) {
                uringP50.add(new Check(placement.toString(), uringP50.figure(uringSpin, Percentile.P50),
                        uringP50.figure(nativeSpin, Percentile.P50)));
                for (boolean spin : new boolean[] {false, true}) {
                    LatencyCell uring = new LatencyCell(placement, new LatencyCase.Java(spin ? Impl.URING_SPIN : Impl.URING));
                    LatencyCell c = new LatencyCell(placement, new LatencyCase.C(spin));
                    if (results.has(c)) {
                        uringNearC.add(new Check(placement + ", " + (spin ? "busy-polling" : "blocking"),
                                uringNearC.figure(uring, Percentile.P999), uringNearC.figure(c, Percentile.P999)));
                    }
                }
            }
            LatencyCell cOpen = new LatencyCell(placement, new LatencyCase.COpenLoop(OPEN_LOOP_RATE));
            if (results.has(cOpen)) {
                for (Impl impl : List.of(Impl.NATIVE_SPIN, Impl.JDK_SPIN)) {
                    LatencyCell open = new LatencyCell(placement, new LatencyCase.OpenLoop(impl, OPEN_LOOP_RATE));
                    openNearC.add(new Check(placement.toString(), openNearC.figure(open, Percentile.P999),
                            openNearC.figure(cOpen, Percentile.P999)));
                }
            }
            for (boolean spin : new boolean[] {false, true}) {
                String where = placement + ", " + (spin ? "busy-polling" : "blocking");
                LatencyCell jdk = new LatencyCell(placement, new LatencyCase.Java(spin ? Impl.JDK_SPIN : Impl.JDK));
                LatencyCell nat = new LatencyCell(placement, new LatencyCase.Java(spin ? Impl.NATIVE_SPIN : Impl.NATIVE));
                // "Pays" needs a saving beyond run-to-run noise: the native median below the JDK's fastest run.
                bypass.figure(jdk, Percentile.P50); // its fastest run is judged: its runs must agree
                bypass.add(new Check(where, bypass.figure(nat, Percentile.P50),
                        new Figure(jdk.row().name() + " p50, fastest run",
                                Stats.exact(results.get(jdk).get(Percentile.P50).min()), Unit.MICROSECONDS)));
                for (Percentile p : List.of(Percentile.P50, Percentile.P99)) {
                    noWorse.add(new Check(where, noWorse.figure(nat, p), noWorse.figure(jdk, p)));
                }
                LatencyCell c = new LatencyCell(placement, new LatencyCase.C(spin));
                if (results.has(c)) {
                    for (Percentile p : C_BOUNDS.keySet()) {
                        for (LatencyCell row : List.of(nat, jdk)) {
                            Checks checks = nearC.get(p);
                            checks.add(new Check(where, checks.figure(row, p), checks.figure(c, p)));
                        }
                    }
                }
            }
        }
        long count = count(lab);
        List<Finding> findings = new ArrayList<>();
        bypass.decide(findings, Finding.claim(name(), "bypassing the JDK's SocketChannel pays: the article's p50 "
                + "went 6.8 -> 5.7 us with a direct native read", Rule.below(1), 5.7 / 6.8, bypass.list));
        noWorse.decide(findings, Finding.target(name(), "the native path's p50 and p99 are no worse than the JDK "
                + "path's, mode for mode", Rule.atMost(1).within(0.05), noWorse.list));
        if (!openNearC.list.isEmpty() && lab.decides(name(), Percentile.P999, count)) {
            openNearC.decide(findings, Finding.target(name(), String.format(Locale.ROOT, "the busy-polling paths' "
                    + "open-loop p99.9 is within %.2fx the C ping-pong's at the same rate", C_BOUNDS.get(Percentile.P999)),
                    Rule.atMost(C_BOUNDS.get(Percentile.P999)), openNearC.list));
        }
        if (!uringP50.list.isEmpty()) {
            uringP50.decide(findings, Finding.target(name(), "the io_uring path polling its completions (uring-spin) "
                    + "has a p50 no worse than the native busy-polling path's", Rule.atMost(1), uringP50.list));
        }
        if (!uringNearC.list.isEmpty() && lab.decides(name(), Percentile.P999, count)) {
            uringNearC.decide(findings, Finding.target(name(), "the io_uring path's p99.9 is within 1.5x the C "
                    + "ping-pong's, mode for mode", Rule.atMost(1.5), uringNearC.list));
        }
        C_BOUNDS.forEach((p, bound) -> {
            Checks checks = nearC.get(p);
            if (!checks.list.isEmpty() && lab.decides(name(), p, count)) {
                checks.decide(findings, Finding.target(name(), String.format(Locale.ROOT, "the native and JDK "
                        + "paths' %s is within %.2fx the C ping-pong's, mode for mode", p.label(), bound),
                        Rule.atMost(bound), checks.list));
            }
        });
        return findings;
    }

    /**
     * The checks of one finding, and the rows among them whose runs disagree too much to judge on
     * ({@link Distribution#setAside}): a finding with any is left out, and the notes say which and why.
     */
    private final class Checks {
        final List<Check> list = new ArrayList<>();
        private final Results<LatencyCell, Distribution> results;
        private final FindingReads reads;

        Checks(Results<LatencyCell, Distribution> results, LabContext lab) {
            this.results = results;
            this.reads = new FindingReads(lab::note);
        }

        void add(Check check) {
            list.add(check);
        }

        /** {@return {@code cell}'s {@code p} as a figure}, its runs' agreement noted */
        Figure figure(LatencyCell cell, Percentile p) {
            Distribution d = results.get(cell);
            reads.read(setAside(cell, d, p));
            return LatencyExperiment.figure(cell.row(), d, p);
        }

        /** Adds {@code finding} where no row it reads is set aside; else tells the lab's notes why not. */
        void decide(List<Finding> findings, Finding finding) {
            reads.decide(findings, finding);
        }
    }

    /** {@return {@code p} of {@code cell} set aside, or null where the lab trusts it} */
    private SetAside setAside(LatencyCell cell, Distribution d, Percentile p) {
        return SetAside.of(name(), cell.row().name(), cell.placement(), p, d.setAside(p));
    }

    /**
     * {@return {@code p} of {@code cell} set aside where a finding could read it, or null}: a percentile
     * the findings judge ({@link #JUDGED}) and the run's round trips decide, whose runs spread wider than
     * their median
     */
    private SetAside judgedSetAside(LatencyCell cell, Distribution d, Percentile p, LabContext lab) {
        return JUDGED.contains(p) && p.decidedBy(count(lab)) ? setAside(cell, d, p) : null;
    }

    /**
     * {@inheritDoc} Here: each cell's percentiles that findings judge ({@link #JUDGED}, those the run's
     * round trips decide) whose runs spread wider than their median; the tables mark the same cells.
     */
    @Override
    public List<SetAside> setAside(Results<LatencyCell, Distribution> results, LabContext lab) {
        List<SetAside> rows = new ArrayList<>();
        for (LatencyCell cell : results.cases()) {
            for (Percentile p : Percentile.values()) {
                SetAside row = judgedSetAside(cell, results.get(cell), p, lab);
                if (row != null) {
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    private static Figure figure(LatencyCase row, Distribution d, Percentile p) {
        return new Figure(row.name() + " " + p.label(), d.get(p), Unit.MICROSECONDS);
    }
}
