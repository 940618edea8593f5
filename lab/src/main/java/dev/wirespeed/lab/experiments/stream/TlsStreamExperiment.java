package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.ServerCommand;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.FindingReads;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.lab.server.SizeRange;
import dev.wirespeed.lab.tls.SelfSigned;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.linux.tls.OpenSsl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One TLS stream of 100-byte frames over TCP loopback, server to client, the two on different cores:
 * {@code wirespeed server --loop --tls} (the library's {@code FrameServer} over epoll and over io_uring,
 * and Netty's epoll server with its {@code SslHandler}), each on the JDK's engine and on OpenSSL (the
 * library's OpenSSL 3 through FFM, Netty's BoringSSL), read by one receiver, the same for every row:
 * {@code wirespeed client --strategy loop --tls}, the library's client loop over epoll. Each row's
 * server, started at the row's first run, and the identity (a self-signed EC P-256 certificate made by
 * {@code keytool} for the run) live for the whole run; each row's client runs in {@link dev.wirespeed.lab.experiment.Mode#pairedPasses()}
 * passes, each pass one client run of every row in turn, every other pass in reverse order, so that
 * the machine's drift falls on every row alike. A client run reads a warm-up round and
 * {@link dev.wirespeed.lab.experiment.Mode#measuredRounds()} timed rounds, as the other stream
 * experiments' clients do; a row's figure is the median of the measured rounds of all its passes,
 * with min and max. In its first pass each row's receiver also runs once counting frames instead of
 * timing rounds ({@link UntimedPass}): a row whose timed figure strays from that pass's, or whose rounds
 * spread wider than their median, is set aside ({@link Throughput#setAside()}), and the target, which
 * reads every row to find the fastest of each side, is then not judged.
 *
 * <p>Its target: the library's best row at least {@value #NETTY_FACTOR}x the frames a second of
 * Netty's best; the table gives each of our rows against Netty's on the same kind of engine.
 */
public final class TlsStreamExperiment implements Experiment<TlsStreamCell, Throughput> {
    /** The experiment's name. */
    public static final String NAME = "stream-tls";
    /** The target: the library's best row at least this many times Netty's best, in frames a second. */
    static final double NETTY_FACTOR = 1.5;
    /** The receiver's rounds against the mode's: see {@link #clientArgs}. */
    static final int ROUND_FACTOR = 5;

    /** The experiment. */
    public TlsStreamExperiment() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "ours: one TLS stream of 100-byte frames over TCP loopback, server to client on different cores: "
                + "the library's FrameServer over epoll and io_uring and Netty's SslHandler, each on the JDK's engine "
                + "and on OpenSSL, read by the library's client loop";
    }

    @Override
    public boolean inDefaultRun() {
        return false; // about a minute: it runs when named, or with --full
    }

    /**
     * {@return the engine of the receiver, the same for every row}: OpenSSL 3 through FFM where it is
     * usable, else the JDK's
     *
     * <p>The receiver is the library's client loop ({@link Strategies#LOOP}) because a short check of the
     * candidates against the same servers found it the cheapest per frame: Netty's epoll client (its
     * {@code SslHandler} and {@code LengthFieldBasedFrameDecoder}) spent far more of its CPU on each frame,
     * with either engine, and so would be first to set the rate; on the loop the two engines cost about
     * the same, and OpenSSL is the one the issue names. The table's client CPU column shows, row by row,
     * how near the receiver came to being the limit.
     */
    static TlsStreamCase.Engine receiverEngine() {
        return OpenSsl.isAvailable() ? TlsStreamCase.Engine.OPENSSL : TlsStreamCase.Engine.JDK;
    }

    /** {@return where server and client run: the first placement on two CPUs that are not one core} */
    static Placement placement(List<Placement> placements) {
        return placements.stream().filter(p -> p.kind() != Placement.Kind.SAME_CORE).findFirst()
                .orElse(Placement.UNPINNED);
    }

    @Override
    public List<TlsStreamCell> cases(LabContext lab) {
        List<TlsStreamCase> rows = new ArrayList<>();
        for (TlsStreamCase row : TlsStreamCase.all()) {
            String why = row.unavailable();
            if (why == null) {
                rows.add(row);
            } else {
                lab.note(NAME + ": " + row.name() + " skipped: " + why);
            }
        }
        if (receiverEngine() == TlsStreamCase.Engine.JDK) {
            lab.note(NAME + ": the receiver uses the JDK's engine: " + OpenSsl.unavailableReason());
        }
        return cells(placement(lab.placements()), rows, lab.mode().pairedPasses());
    }

    /**
     * {@return the cells of {@code rows} in the order they run}: {@code passes} passes, each every row
     * once, every other pass in reverse order
     *
     * @param placement where they run
     * @param rows the rows, in table order
     * @param passes passes, {@code >= 1}
     */
    static List<TlsStreamCell> cells(Placement placement, List<TlsStreamCase> rows, int passes) {
        List<TlsStreamCell> cells = new ArrayList<>();
        for (int pass = 1; pass <= passes; pass++) {
            for (TlsStreamCase row : pass % 2 == 1 ? rows : rows.reversed()) {
                cells.add(new TlsStreamCell(placement, row, pass));
            }
        }
        return cells;
    }

    @Override
    public int steps(TlsStreamCell cell, LabContext lab) {
        return UntimedPass.runsIn(cell.pass()) ? 2 : 1;
    }

    @Override
    public CaseRunner<TlsStreamCell, Throughput> open(LabContext lab) throws IOException, InterruptedException {
        return new CaseRunner<>() {
            private final Map<TlsStreamCase, Process> servers = new LinkedHashMap<>();
            private final Map<TlsStreamCase, String> ports = new LinkedHashMap<>();
            private Path dir;
            private SelfSigned identity;

            @Override
            public Throughput run(TlsStreamCell cell) throws IOException, InterruptedException {
                TlsStreamCase row = cell.row();
                lab.progress(NAME + " " + cell.placement() + ": " + row.name() + " pass " + cell.pass() + "/"
                        + lab.mode().pairedPasses());
                if (identity == null) {
                    dir = Files.createTempDirectory("wirespeed-stream-tls");
                    identity = SelfSigned.create(dir);
                }
                String port = ports.get(row);
                if (port == null) {
                    Process server = lab.jvm().start(cell.placement().serverCpu(), "server-tls", serverArgs(row,
                            identity));
                    servers.put(row, server);
                    port = Children.awaitListening(server, null);
                    ports.put(row, port);
                    // A first client run, not counted: the new server's JIT compiles its path while it streams,
                    // so that its first measured pass is not its warm-up (the client's warm-up is its own).
                    receive(cell, port, row.name() + ", priming", timedRounds(lab));
                }
                Throughput t = Throughput.of(receive(cell, port, row.name(), timedRounds(lab)));
                lab.stepDone();
                if (!UntimedPass.runsIn(cell.pass())) {
                    return t;
                }
                lab.progress(NAME + " " + cell.placement() + ": " + row.name() + " untimed");
                List<ChildReport.Round> untimed = receive(cell, port, row.name() + ", untimed",
                        UntimedPass.options(t, lab.mode(), ROUND_FACTOR * lab.mode().roundMillis()));
                lab.stepDone();
                return t.withUntimedPass(untimed);
            }

            /**
             * Runs the receiver against the server on {@code port}, its rounds as {@code rounds} says;
             * {@return its measured rounds}
             */
            private List<ChildReport.Round> receive(TlsStreamCell cell, String port, String what,
                    UnaryOperator<Args> rounds)
                    throws IOException, InterruptedException {
                Process client = new ProcessBuilder(lab.jvm().command(cell.placement().clientCpu(), "client-tls",
                        clientArgs(port, identity.certificate(), rounds))).start();
                return Children.measuredRounds(client, what);
            }

            @Override
            public void close() throws IOException {
                servers.values().forEach(Children::stop);
                if (dir != null) {
                    try (var files = Files.list(dir)) {
                        for (Path file : files.toList()) {
                            Files.deleteIfExists(file);
                        }
                    }
                    Files.deleteIfExists(dir);
                }
            }
        };
    }

    /** {@return the {@code wirespeed} arguments of {@code row}'s server, endless} */
    static List<String> serverArgs(TlsStreamCase row, SelfSigned identity) {
        return Args.of(ServerCommand.OPTIONS).with(ServerCommand.TRANSPORT, Transport.TCP).with(ListenOptions.PORT, 0)
                .with(ServerCommand.SIZE, new SizeRange(StreamExperiment.SIZE, StreamExperiment.SIZE))
                .with(ServerCommand.LOOP).with(ServerCommand.IMPL, row.server().impl()).with(TlsOptions.TLS)
                .with(TlsOptions.CERT, identity.certificate()).with(TlsOptions.KEY, identity.key())
                .with(TlsOptions.ENGINE, row.engine().cliName()).toArgs();
    }

    /** {@return the {@code wirespeed} arguments of the receiver of a server on {@code port}, timing its rounds} */
    static List<String> clientArgs(String port, Path trust, LabContext lab) {
        return clientArgs(port, trust, timedRounds(lab));
    }

    /**
     * {@return the {@code wirespeed} arguments of the receiver of a server on {@code port}}
     *
     * @param rounds gives the line how it reads its rounds: timed, or counted for an untimed pass
     */
    static List<String> clientArgs(String port, Path trust, UnaryOperator<Args> rounds) {
        return rounds.apply(Args.of(ClientCommand.OPTIONS).with(ClientCommand.TRANSPORT, Transport.TCP)
                .with(ConnectOptions.PORT, Integer.valueOf(port)).with(ClientCommand.STRATEGY, Strategies.LOOP)
                .with(TlsOptions.TLS).with(TlsOptions.TRUST, trust).with(TlsOptions.ENGINE, receiverEngine().cliName())
                .with(ClientCommand.JSON)).toArgs();
    }

    /**
     * {@return what gives the receiver's line timed rounds}: the mode's, {@link #ROUND_FACTOR} times as long,
     * because a TLS stream moves in records of 16 KiB and in sends of several of them, and a round of the
     * other stream experiments' length (100 ms by default) saw a pause of either end as a fifth of its frames
     */
    private static UnaryOperator<Args> timedRounds(LabContext lab) {
        return client -> lab.mode().inRounds(client, ROUND_FACTOR * lab.mode().roundMillis());
    }

    /**
     * {@return the results with each row's passes merged into one cell of pass 0}, in the order the
     * rows first ran
     *
     * @param results results that hold passes
     */
    static Results<TlsStreamCell, Throughput> merged(Results<TlsStreamCell, Throughput> results) {
        Map<TlsStreamCell, Throughput> rows = new LinkedHashMap<>();
        for (TlsStreamCell cell : results.cases()) {
            rows.merge(cell.merged(), results.get(cell), Throughput::plus);
        }
        Results<TlsStreamCell, Throughput> merged = new Results<>();
        rows.forEach(merged::put);
        return merged;
    }

    @Override
    public List<Measurement> measurements(Results<TlsStreamCell, Throughput> passes, LabContext lab) {
        Results<TlsStreamCell, Throughput> results = merged(passes);
        List<Measurement> rows = new ArrayList<>();
        for (TlsStreamCell cell : results.cases()) {
            Throughput t = results.get(cell);
            Series series = new Series(NAME, cell.row().name(), cell.row().role(), Medium.TCP, StreamExperiment.SIZE);
            rows.add(series.at(cell.placement(), Unit.MSG_PER_S, t.msgPerSec()));
            rows.add(series.at(cell.placement(), Unit.MB_PER_S, t.mbPerSec()));
            if (t.cpuNsPerMsg() != null) {
                rows.add(series.at(cell.placement(), Unit.CPU_NS_PER_MSG, t.cpuNsPerMsg()));
            }
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<TlsStreamCell, Throughput> passes, LabContext lab) {
        Results<TlsStreamCell, Throughput> results = merged(passes);
        if (results.cases().isEmpty()) {
            return List.of();
        }
        Placement placement = results.cases().getFirst().placement();
        List<List<String>> lines = new ArrayList<>();
        for (TlsStreamCell cell : results.cases()) {
            Throughput t = results.get(cell);
            Stats msg = t.msgPerSec();
            Optional<TlsStreamCell> netty = sameEngineNetty(results, cell);
            Stats cpu = t.cpuNsPerMsg();
            lines.add(List.of(cell.row().name(),
                    t.marked(String.format(Locale.ROOT, "%,.0f [%,.0f-%,.0f]", msg.median(), msg.min(), msg.max())),
                    String.format(Locale.ROOT, "%,.1f", t.mbPerSec().median()),
                    netty.map(n -> String.format(Locale.ROOT, "%.2fx", msg.median()
                            / results.get(n).msgPerSec().median())).orElse("-"),
                    cpu == null ? "-" : String.format(Locale.ROOT, "%.1f", cpu.median()),
                    cpu == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * cpu.median() * msg.median() / 1e9)));
        }
        int passCount = passes.cases().stream().mapToInt(TlsStreamCell::pass).max().orElse(0);
        String title = String.format(Locale.ROOT, "%s: one TLS stream of %d-byte frames over TCP loopback, server to "
                + "client; median of the measured rounds [min-max] of %d interleaved run(s) a row, each %d round(s) of "
                + "%d ms after a warm-up of at least %d ms; %s (%s)", NAME, StreamExperiment.SIZE, passCount,
                lab.mode().measuredRounds(), ROUND_FACTOR * lab.mode().roundMillis(), lab.mode().warmupMillis(), placement,
                placement.cpus());
        List<String> notes = new ArrayList<>(List.of(
                "the servers: 'wirespeed server --loop --tls', each started once for the run and primed by a client "
                + "run not counted, 1 MiB of output queued at most per connection "
                + "(Netty: its write-buffer high water mark), frames encoded into pooled direct buffers and "
                + "flushed per batch by Netty's; the identity: a self-signed EC P-256 certificate made by "
                + "keytool for the run; TLS 1.3 as negotiated",
                "JDK engine: the JDK's SSLEngine (Netty's JDK provider); OpenSSL engine: the library's OpenSSL 3 "
                + "through FFM, Netty's OpenSSL provider (BoringSSL from netty-tcnative-boringssl-static)",
                "the receiver of every row: 'wirespeed client --strategy loop --tls', the library's client loop "
                + "over epoll on the " + receiverEngine().label() + ", counting every frame; client CPU: its "
                + "loop thread's CPU time per frame, and as a share of one CPU (near 100%, the receiver rather "
                + "than the server may have set the rate)", UntimedPass.note("each row's receiver")));
        setAside(results).forEach(row -> notes.add(row.note()));
        return List.of(new Table(title, List.of("server", "frames/s [min-max]", "MB/s", "x Netty, same engine",
                "client CPU ns/frame", "client CPU"), lines, notes));
    }

    @Override
    public List<SetAside> setAside(Results<TlsStreamCell, Throughput> passes, LabContext lab) {
        return setAside(merged(passes));
    }

    /** {@return the rows of {@code results}, passes merged, that the lab does not trust, in table order} */
    static List<SetAside> setAside(Results<TlsStreamCell, Throughput> results) {
        List<SetAside> rows = new ArrayList<>();
        for (TlsStreamCell cell : results.cases()) {
            SetAside row = results.get(cell).setAside(NAME, cell.row().name(), cell.placement());
            if (row != null) {
                rows.add(row);
            }
        }
        return rows;
    }

    /** {@return Netty's row on the engine of {@code cell}'s, for one of the library's rows; empty for Netty's own} */
    private static Optional<TlsStreamCell> sameEngineNetty(Results<TlsStreamCell, Throughput> results,
            TlsStreamCell cell) {
        if (cell.row().netty()) {
            return Optional.empty();
        }
        TlsStreamCell netty = new TlsStreamCell(cell.placement(),
                new TlsStreamCase(TlsStreamCase.Server.NETTY, cell.row().engine()), 0);
        return results.has(netty) ? Optional.of(netty) : Optional.empty();
    }

    @Override
    public List<Finding> findings(Results<TlsStreamCell, Throughput> passes, LabContext lab) {
        return findings(merged(passes), lab::note);
    }

    /**
     * {@return the target judged on merged results, a target left out unnoted}
     *
     * @param results each row's passes merged
     */
    static List<Finding> findings(Results<TlsStreamCell, Throughput> results) {
        return findings(results, note -> { });
    }

    /**
     * {@return the target judged on merged results}: the library's fastest row against Netty's fastest,
     * where both ran. Finding the fastest of a side reads every row of it, so a row set aside on either
     * side leaves the target unjudged, and {@code notes} is told which and why.
     *
     * @param results each row's passes merged
     * @param notes told of the target left out for a row set aside
     */
    static List<Finding> findings(Results<TlsStreamCell, Throughput> results, Consumer<String> notes) {
        Optional<TlsStreamCell> ours = fastest(results, false);
        Optional<TlsStreamCell> netty = fastest(results, true);
        if (ours.isEmpty() || netty.isEmpty()) {
            return List.of();
        }
        Check check = new Check(NAME + ", " + ours.get().placement(), figure(results, ours.get()),
                figure(results, netty.get()));
        FindingReads reads = new FindingReads(notes);
        setAside(results).forEach(reads::read);
        List<Finding> findings = new ArrayList<>();
        reads.decide(findings, Finding.target(NAME, "one TLS stream of 100-byte frames, server to client between "
                + "cores: the library's best server streams at least " + NETTY_FACTOR + "x the frames a second of "
                + "Netty's best (each on its faster engine and, for the library, its faster loop transport)",
                Rule.atLeast(NETTY_FACTOR), List.of(check)));
        return findings;
    }

    private static Optional<TlsStreamCell> fastest(Results<TlsStreamCell, Throughput> results, boolean netty) {
        return results.cases().stream().filter(cell -> cell.row().netty() == netty)
                .max(Comparator.comparingDouble(cell -> results.get(cell).msgPerSec().median()));
    }

    private static Figure figure(Results<TlsStreamCell, Throughput> results, TlsStreamCell cell) {
        return new Figure(cell.row().name(), results.get(cell).msgPerSec(), Unit.MSG_PER_S);
    }
}
