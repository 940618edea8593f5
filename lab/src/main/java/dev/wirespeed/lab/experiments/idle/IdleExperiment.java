package dev.wirespeed.lab.experiments.idle;

import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.PingCommand;
import dev.wirespeed.lab.cli.ServerCommand;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.lab.server.SizeRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a reader should do while a non-blocking socket has no bytes: the library over the JDK's
 * {@code SocketChannel} on TCP loopback, blocking in {@code read} or busy-polling with each
 * {@link Idle} strategy, measured two ways at each placement. Throughput: the library's client reads
 * the batching Java server's stream, in the stream experiments' timed rounds. Latency: {@code ping}
 * against an {@code echo} that waits the same way, closed loop. Each cell runs
 * {@link dev.wirespeed.lab.experiment.Mode#clientRuns()} clients and pings. Busy-spinning at both ends
 * of one CPU takes milliseconds a round trip (each end spins until the scheduler preempts it), so that
 * cell measures {@value #STARVED_DIVISOR} times fewer round trips, and its table says so.
 */
public final class IdleExperiment implements Experiment<IdleCell, IdleResult> {
    /** Body bytes per frame. */
    static final int SIZE = 100;
    /** How many times fewer round trips a starved cell measures (see {@link #starved}). */
    static final int STARVED_DIVISOR = 100;

    /** An experiment. */
    public IdleExperiment() {
    }

    @Override
    public String name() {
        return "idle";
    }

    @Override
    public String description() {
        return "what a reader does while the socket is empty: blocking, or busy-polling with each idle strategy "
                + "(spin, busy-spin, yield, backoff); stream throughput and ping-pong latency over TCP loopback";
    }

    /** A deep dive of ours, not an article's: it runs when named, or with {@code --full}, as {@code tails} does. */
    @Override
    public boolean inDefaultRun() {
        return false;
    }

    @Override
    public List<IdleCell> cases(LabContext lab) {
        List<IdleCell> cells = new ArrayList<>();
        for (Placement placement : lab.placements()) {
            for (IdleRow row : IdleRow.all()) {
                cells.add(new IdleCell(placement, row));
            }
        }
        return cells;
    }

    @Override
    public int steps(IdleCell cell, LabContext lab) {
        return 2 * lab.mode().clientRuns();
    }

    @Override
    public CaseRunner<IdleCell, IdleResult> open(LabContext lab) {
        return new CaseRunner<>() {
            private Placement placement;
            private Process server;
            private String serverPort;

            @Override
            public IdleResult run(IdleCell cell) throws IOException, InterruptedException {
                if (!cell.placement().equals(placement)) {
                    close();
                    placement = cell.placement();
                    server = lab.jvm().start(placement.serverCpu(), "server", Args.of(ServerCommand.OPTIONS)
                            .with(ServerCommand.TRANSPORT, Transport.TCP).with(ListenOptions.PORT, 0)
                            .with(ServerCommand.SIZE, new SizeRange(SIZE, SIZE)).toArgs());
                    serverPort = Children.awaitListening(server, null);
                }
                List<Double> mb = new ArrayList<>();
                List<Double> cpu = new ArrayList<>();
                List<ChildReport.Latency> pings = new ArrayList<>();
                int runs = lab.mode().clientRuns();
                for (int run = 1; run <= runs; run++) {
                    lab.progress("idle " + placement + ": " + cell.row().name() + " stream, run " + run + "/" + runs);
                    for (ChildReport.Round round : stream(cell, lab)) {
                        mb.add(round.mbPerSec());
                        if (round.cpuNsPerMsg() != null) {
                            cpu.add(round.cpuNsPerMsg());
                        }
                    }
                    lab.stepDone();
                    lab.progress("idle " + placement + ": " + cell.row().name() + " ping-pong, run " + run + "/" + runs);
                    pings.add(pingPong(cell, lab));
                    lab.stepDone();
                }
                return new IdleResult(Stats.of(mb), Stats.of(cpu), Distribution.of(pings).byPercentile());
            }

            private List<ChildReport.Round> stream(IdleCell cell, LabContext lab) throws IOException, InterruptedException {
                Args args = Args.of(ClientCommand.OPTIONS).with(ClientCommand.TRANSPORT, Transport.TCP)
                        .with(ConnectOptions.PORT, Integer.valueOf(serverPort)).with(ClientCommand.JSON);
                args = lab.mode().inRounds(cell.row().client(args));
                Process client = new ProcessBuilder(lab.jvm().command(cell.placement().clientCpu(), args.toArgs()))
                        .start();
                return Children.measuredRounds(client, "idle client " + cell.row().name());
            }

            private ChildReport.Latency pingPong(IdleCell cell, LabContext lab) throws IOException, InterruptedException {
                Args echoArgs = cell.row().echo(Args.of(EchoCommand.OPTIONS).with(EchoCommand.TRANSPORT, Transport.TCP)
                        .with(ListenOptions.PORT, 0));
                if (cell.row().idle() != Idle.BUSY_SPIN) { // a busy-spinning echo would starve its own primer
                    echoArgs = lab.mode().pingWarmup().onEcho(echoArgs);
                }
                // Alive beside the stream server: an archive kind of its own.
                Process echo = lab.jvm().start(cell.placement().serverCpu(), "echo-idle", echoArgs.toArgs());
                try {
                    String port = Children.awaitListening(echo, null);
                    Args pingArgs = Args.of(PingCommand.OPTIONS).with(PingCommand.TRANSPORT, Transport.TCP)
                            .with(ConnectOptions.PORT, Integer.valueOf(port)).with(PingCommand.COUNT, count(cell, lab))
                            .with(PingCommand.WARMUP, warmup(cell, lab)).with(PingCommand.SIZE, SIZE)
                            .with(PingCommand.JSON);
                    pingArgs = lab.mode().pingWarmup().onPing(cell.row().ping(pingArgs));
                    Process ping = new ProcessBuilder(lab.jvm().command(cell.placement().clientCpu(),
                            pingArgs.toArgs())).start();
                    return Children.latency(ping, "idle ping " + cell.row().name());
                } finally {
                    Children.stop(echo);
                }
            }

            @Override
            public void close() {
                Children.stop(server);
                server = null;
                placement = null;
            }
        };
    }

    /** {@return whether both ends of {@code cell}'s ping-pong busy-spin on one CPU} */
    static boolean starved(IdleCell cell) {
        return cell.row().idle() == Idle.BUSY_SPIN && cell.placement().serverCpu() == cell.placement().clientCpu();
    }

    /** {@return the round trips measured in one ping of {@code cell}} */
    static long count(IdleCell cell, LabContext lab) {
        long count = switch (lab.mode()) {
            case QUICK -> 1_000;
            case DEFAULT -> 5_000;
            case FULL -> 100_000;
        };
        return starved(cell) ? count / STARVED_DIVISOR : count;
    }

    /** {@return the round trips before measuring in one ping of {@code cell}} */
    static long warmup(IdleCell cell, LabContext lab) {
        long warmup = switch (lab.mode()) {
            case QUICK -> 500;
            case DEFAULT -> 5_000;
            case FULL -> 20_000;
        };
        return starved(cell) ? warmup / STARVED_DIVISOR : warmup;
    }

    @Override
    public List<Measurement> measurements(Results<IdleCell, IdleResult> results, LabContext lab) {
        List<Measurement> rows = new ArrayList<>();
        for (IdleCell cell : results.cases()) {
            IdleResult r = results.get(cell);
            Series series = new Series(name(), cell.row().name(), Role.LIBRARY, Medium.TCP, SIZE);
            rows.add(series.at(cell.placement(), Unit.MB_PER_S, r.mbPerSec()));
            rows.add(series.at(cell.placement(), Unit.CPU_NS_PER_MSG, r.cpuNsPerMsg()));
            for (Percentile p : Percentile.values()) {
                rows.add(series.at(cell.placement(), Unit.MICROSECONDS, r.latency().get(p)).percentile(p));
            }
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<IdleCell, IdleResult> results, LabContext lab) {
        List<Table> tables = new ArrayList<>();
        for (Placement placement : results.cases().stream().map(IdleCell::placement).distinct().toList()) {
            List<String> header = new ArrayList<>(List.of("case", "MB/s [min-max]", "CPU ns/msg"));
            for (Percentile p : Percentile.values()) {
                header.add(p.label() + " us");
            }
            List<List<String>> lines = new ArrayList<>();
            IdleCell typical = new IdleCell(placement, new IdleRow(null));
            List<String> notes = new ArrayList<>(List.of("both ends of the ping-pong wait alike; backoff: 100 spins, "
                    + "10 yields, then parks of 1 us doubling to 1 ms", Percentile.tailNote(count(typical, lab)),
                    lab.mode().pingWarmup().describe() + ", but for busy-spin, whose echo would starve its primer"));
            for (IdleCell cell : results.cases(c -> c.placement().equals(placement))) {
                IdleResult r = results.get(cell);
                if (starved(cell)) {
                    notes.add(String.format(Locale.ROOT, "%s: both ends spin on one CPU, so the ping-pong measured %d "
                            + "round trips after %d", cell.row().name(), count(cell, lab), warmup(cell, lab)));
                }
                List<String> line = new ArrayList<>(List.of(cell.row().name(),
                        String.format(Locale.ROOT, "%,.1f [%,.1f-%,.1f]", r.mbPerSec().median(), r.mbPerSec().min(),
                                r.mbPerSec().max()),
                        String.format(Locale.ROOT, "%.1f", r.cpuNsPerMsg().median())));
                for (Percentile p : Percentile.values()) {
                    line.add(String.format(Locale.ROOT, "%,.1f", r.latency().get(p).median()));
                }
                lines.add(line);
            }
            tables.add(new Table(String.format(Locale.ROOT, "idle: waiting for bytes, the library over SocketChannel, "
                    + "TCP loopback, %d-byte bodies; stream: median of %d round(s) of %d ms; ping-pong: %d round trips "
                    + "after %d, median of %d run(s); %s (%s)", SIZE, lab.mode().measuredRounds() * lab.mode().clientRuns(),
                    lab.mode().roundMillis(), count(typical, lab), warmup(typical, lab), lab.mode().clientRuns(),
                    placement, placement.cpus()), header, lines, notes));
        }
        return tables;
    }

    @Override
    public List<Finding> findings(Results<IdleCell, IdleResult> results, LabContext lab) {
        List<Check> throughput = new ArrayList<>();
        List<Check> latency = new ArrayList<>();
        for (Placement placement : results.cases().stream().map(IdleCell::placement).distinct().toList()) {
            IdleCell byDefault = new IdleCell(placement, new IdleRow(Idle.SPIN));
            List<IdleCell> others = results.cases(c -> c.placement().equals(placement) && c.row().idle() != null
                    && c.row().idle() != Idle.SPIN);
            if (!results.has(byDefault) || others.isEmpty()) {
                continue;
            }
            String where = name() + ", " + placement;
            IdleCell fastest = others.get(0);
            IdleCell quickest = others.get(0);
            for (IdleCell other : others) {
                if (results.get(other).mbPerSec().median() > results.get(fastest).mbPerSec().median()) {
                    fastest = other;
                }
                if (p50(results, other).median() < p50(results, quickest).median()) {
                    quickest = other;
                }
            }
            throughput.add(new Check(where, new Figure(byDefault.row().name(), results.get(byDefault).mbPerSec(),
                    Unit.MB_PER_S), new Figure(fastest.row().name(), results.get(fastest).mbPerSec(), Unit.MB_PER_S)));
            latency.add(new Check(where, new Figure(byDefault.row().name() + " p50", p50(results, byDefault),
                    Unit.MICROSECONDS), new Figure(quickest.row().name() + " p50", p50(results, quickest),
                    Unit.MICROSECONDS)));
        }
        if (throughput.isEmpty()) {
            return List.of();
        }
        return List.of(
                Finding.target(name(), "the default idle strategy (spin, yielding every 8th empty call) reads at least "
                        + "90% as fast as the fastest other one", Rule.atLeast(0.9), throughput),
                Finding.target(name(), "the default idle strategy's ping-pong p50 is within 10% of the quickest other "
                        + "one's", Rule.atMost(1.1), latency));
    }

    private static Stats p50(Results<IdleCell, IdleResult> results, IdleCell cell) {
        return results.get(cell).latency().get(Percentile.P50);
    }
}
