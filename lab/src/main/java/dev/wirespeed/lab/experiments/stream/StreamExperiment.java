package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.NettyTransport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.ServerCommand;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.env.CPrograms;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.env.Iperf;
import dev.wirespeed.lab.env.Tools;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.pingpong.SocketApi;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.lab.server.SizeRange;
import dev.wirespeed.linux.NativeSocket;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The streaming experiments: a writer streams 100-byte frames as fast as it can and each case reads
 * them, over TCP loopback ({@code tcp}, the first article), a Unix domain socket ({@code unix}) or a
 * pipe from the writer's standard output to the reader's standard input ({@code pipe}, the second
 * article). Rows are the client strategies (reading the Java server, the Java server writing per
 * frame, or the C writer), the C ceiling (a C writer and a C reader, blocking and busy-polling) and
 * {@code iperf3} where installed. Per placement each row runs {@link dev.wirespeed.lab.experiment.Mode#clientRuns()}
 * client processes. Each reads for a warm-up round (at least {@link dev.wirespeed.lab.experiment.Mode#warmupMillis()},
 * then, in Java and {@linkplain dev.wirespeed.lab.experiment.Mode#jitSettle() where the mode says}, until the JIT has
 * been quiet for a round's length), then measures
 * {@link dev.wirespeed.lab.experiment.Mode#measuredRounds()} rounds of {@link dev.wirespeed.lab.experiment.Mode#roundMillis()}
 * each. Rounds are timed, not counted, so that every row measures for as long as the others,
 * whatever its speed. A row's figure is the median of the measured rounds of all its runs, with min and
 * max.
 *
 * <p>The rows fed by the C writer and the C readers are {@linkplain #paired paired}: they run in
 * {@link Mode#pairedPasses()} passes, each pass one client run of each of them in turn (the order
 * reversed every other pass). The reader targets, fed by the C writer, are judged pass by pass, each
 * pass's readers against the C readers of the same pass, on the median of the passes' ratios: each of the
 * library's readers against the C reader that waits as it does (blocking or busy-polling), and the
 * faster of them against the faster C reader. The machine's drift over the seconds between rows
 * moves a ratio of rows measured apart as much as the gap judged.
 */
public final class StreamExperiment implements Experiment<StreamCell, Throughput> {
    /** Body bytes per frame. */
    static final int SIZE = 100;
    /** The strategies also run against a server that writes each frame on its own (tcp). */
    static final List<Strategies> PER_FRAME = List.of(Strategies.UNBUFFERED, Strategies.ZERO_COPY, Strategies.WIRESPEED);
    /** The strategies that read through io_uring, the library's and Netty's: rows of a run with {@code --full}. */
    static final Set<Strategies> IO_URING = EnumSet.of(Strategies.URING, Strategies.URING_SPIN, Strategies.NETTY_URING);

    private final Link link;

    /**
     * The experiment of one link.
     *
     * @param link where the bytes travel
     */
    public StreamExperiment(Link link) {
        this.link = link;
    }

    @Override
    public String name() {
        return link.id();
    }

    @Override
    public String description() {
        return switch (link) {
            case TCP -> "\"On the benefits of stream buffering in Java\" (2015): every client strategy over TCP loopback, "
                    + "the server batching or writing per frame, Netty, the C ceiling and iperf3";
            case UNIX -> "the same over a Unix domain socket";
            case PIPE -> "\"Standard input, buffering and affinity mask\" (2015): server stdout | client stdin, "
                    + "default and 1 MiB pipe";
        };
    }

    /**
     * {@return whether the lab reads {@code link} with {@code strategy}}: the peers and the native
     * strategies on tcp only (the native ones are the fast-sockets article's TCP case), the library's
     * io_uring ones on tcp and unix where a ring opens, Netty's io_uring one where it runs, busy-polling
     * a pipe only where standard input can be made non-blocking (Linux, through {@code NativePipe}); the
     * library's client loop on none (it is the receiver of {@code stream-tls})
     *
     * @param strategy a client strategy
     * @param link a link
     */
    public static boolean fits(Strategies strategy, Link link) {
        if (strategy == Strategies.LOOP) {
            return false;
        }
        if (strategy == Strategies.NATIVE || strategy == Strategies.NATIVE_SPIN) {
            return link == Link.TCP && NativeSocket.isSupported();
        }
        if (strategy == Strategies.URING || strategy == Strategies.URING_SPIN) {
            return (link == Link.TCP || link == Link.UNIX) && SocketApi.URING.unavailable() == null;
        }
        if (strategy == Strategies.NETTY_URING) {
            return link == Link.TCP && NettyTransport.IO_URING.unavailable() == null;
        }
        if (strategy.peer()) {
            return link == Link.TCP;
        }
        return link != Link.PIPE || strategy != Strategies.WIRESPEED_SPIN || NativeSocket.isSupported();
    }

    /**
     * {@return the rows of this link's table, in order}
     *
     * @param withC whether the C programs were built
     * @param withIperf whether {@code iperf3} is installed
     */
    List<StreamCase> rows(boolean withC, boolean withIperf) {
        List<StreamCase> rows = new ArrayList<>();
        for (Strategies strategy : Strategies.values()) {
            if (fits(strategy, link)) {
                rows.add(new StreamCase.Java(strategy));
            }
        }
        if (link == Link.PIPE) {
            rows.add(new StreamCase.Java(Strategies.WIRESPEED, StreamCase.BIG_PIPE, StreamCase.Writer.JAVA));
        }
        if (link == Link.TCP) {
            for (Strategies strategy : PER_FRAME) {
                rows.add(new StreamCase.Java(strategy, 0, StreamCase.Writer.JAVA_PER_FRAME));
            }
        }
        if (withC) {
            rows.add(new StreamCase.Java(Strategies.WIRESPEED, 0, StreamCase.Writer.C));
            if (fits(Strategies.WIRESPEED_SPIN, link)) {
                rows.add(new StreamCase.Java(Strategies.WIRESPEED_SPIN, 0, StreamCase.Writer.C));
            }
            for (Strategies uring : List.of(Strategies.URING, Strategies.URING_SPIN)) {
                if (fits(uring, link)) {
                    rows.add(new StreamCase.Java(uring, 0, StreamCase.Writer.C)); // one stream through io_uring, C-fed
                }
            }
            rows.add(new StreamCase.Ceiling(false, 0));
            rows.add(new StreamCase.Ceiling(true, 0));
            if (link == Link.PIPE) {
                rows.add(new StreamCase.Ceiling(false, StreamCase.BIG_PIPE));
            }
        }
        if (link == Link.TCP && withIperf) {
            rows.add(new StreamCase.Iperf());
        }
        return rows;
    }

    @Override
    public List<StreamCell> cases(LabContext lab) throws IOException, InterruptedException {
        boolean withC = lab.program(CPrograms.Program.CEILING).isPresent();
        List<StreamCase> rows = rows(withC, Tools.has("iperf3"));
        if (rows.removeIf(row -> row instanceof StreamCase.Java java && !runsIn(java.strategy(), lab.mode()))) {
            lab.note(link + ": the io_uring strategies run with --full");
        }
        return cells(lab.placements(), rows, lab.mode().pairedPasses());
    }

    /**
     * {@return the cells of {@code rows} at each placement, in the order they run}: per placement the
     * unpaired rows before the first paired one, each one cell of all its runs; then {@code passes} passes
     * of the paired rows, each row once a pass, every other pass in reverse order; then the other unpaired
     * rows. The rows first run in table order, so merging the passes keeps it.
     *
     * @param placements where the rows run
     * @param rows the rows, in table order
     * @param passes passes of the paired rows, {@code >= 1}
     */
    static List<StreamCell> cells(List<Placement> placements, List<StreamCase> rows, int passes) {
        List<StreamCase> pairedRows = rows.stream().filter(StreamExperiment::paired).toList();
        int firstPaired = pairedRows.isEmpty() ? rows.size() : rows.indexOf(pairedRows.getFirst());
        List<StreamCell> cells = new ArrayList<>();
        for (Placement placement : placements) {
            for (StreamCase row : rows.subList(0, firstPaired)) {
                cells.add(new StreamCell(placement, row));
            }
            for (int pass = 1; pass <= passes && !pairedRows.isEmpty(); pass++) {
                List<StreamCase> order = pass % 2 == 1 ? pairedRows : pairedRows.reversed();
                for (StreamCase row : order) {
                    cells.add(new StreamCell(placement, row, pass));
                }
            }
            for (StreamCase row : rows.subList(firstPaired, rows.size())) {
                if (!paired(row)) {
                    cells.add(new StreamCell(placement, row));
                }
            }
        }
        return cells;
    }

    /**
     * {@return whether {@code row} runs in passes beside the others of its kind}: a Java reader fed by the
     * C writer, or a C reader of the default pipe or a socket
     *
     * @param row a row
     */
    static boolean paired(StreamCase row) {
        return row instanceof StreamCase.Java java && java.writer() == StreamCase.Writer.C
                || row instanceof StreamCase.Ceiling c && c.pipeSize() == 0;
    }

    /**
     * {@return whether a run of {@code mode} reads with {@code strategy}}: the io_uring strategies only
     * where the mode runs {@link Mode#ioUringRows() io_uring rows}
     *
     * @param strategy a strategy that {@link #fits} a link
     * @param mode the run's mode
     */
    public static boolean runsIn(Strategies strategy, Mode mode) {
        return mode.ioUringRows() || !IO_URING.contains(strategy);
    }

    @Override
    public int steps(StreamCell cell, LabContext lab) {
        return runs(cell, lab.mode()) + (untimedPass(cell) ? 1 : 0);
    }

    /**
     * {@return whether {@code cell} also runs its client once counting frames rather than timing rounds}: a
     * Java reader's cell, once per row (a paired row in its first pass), to check the timed figure against
     */
    static boolean untimedPass(StreamCell cell) {
        return cell.row() instanceof StreamCase.Java && UntimedPass.runsIn(cell.pass());
    }

    /** {@return client runs of {@code cell}: one for a pass of a paired row, the mode's count for another} */
    private static int runs(StreamCell cell, Mode mode) {
        return cell.pass() > 0 ? 1 : mode.clientRuns();
    }

    @Override
    public CaseRunner<StreamCell, Throughput> open(LabContext lab) throws IOException, InterruptedException {
        Path ceiling = lab.program(CPrograms.Program.CEILING).orElse(null);
        return new CaseRunner<>() {
            private StreamServers servers;

            @Override
            public Throughput run(StreamCell cell) throws IOException, InterruptedException {
                if (servers == null || !servers.placement().equals(cell.placement())) {
                    close();
                    servers = new StreamServers(link, cell.placement(), lab.jvm(), ceiling);
                }
                List<Double> mb = new ArrayList<>();
                List<Double> msg = new ArrayList<>();
                List<Double> cpu = new ArrayList<>();
                int runs = runs(cell, lab.mode());
                for (int run = 1; run <= runs; run++) {
                    lab.progress(link.id() + " " + cell.placement() + ": " + cell.row().name() + (cell.pass() > 0
                            ? " pass " + cell.pass() + "/" + lab.mode().pairedPasses() : " run " + run + "/" + runs));
                    if (cell.row() instanceof StreamCase.Iperf) {
                        mb.add(Iperf.mbPerSec(cell.placement(), lab.mode().iperfSeconds()));
                    } else {
                        Throughput.add(runOnce(cell, servers, ceiling, lab, lab.mode()::inRounds), mb, msg, cpu);
                    }
                    lab.stepDone();
                }
                Throughput timed = new Throughput(mb, msg, cpu);
                if (!untimedPass(cell)) {
                    return timed;
                }
                lab.progress(link.id() + " " + cell.placement() + ": " + cell.row().name() + " untimed");
                List<ChildReport.Round> untimed = runOnce(cell, servers, ceiling, lab,
                        UntimedPass.options(timed, lab.mode(), lab.mode().roundMillis()));
                lab.stepDone();
                return timed.withUntimedPass(untimed);
            }

            @Override
            public void close() {
                if (servers != null) {
                    servers.close();
                    servers = null;
                }
            }
        };
    }

    /** One client run of one cell in {@code inRounds}: its measured rounds, the warm-up round left out. */
    private List<ChildReport.Round> runOnce(StreamCell cell, StreamServers servers, Path ceiling, LabContext lab,
            UnaryOperator<Args> inRounds) throws IOException, InterruptedException {
        Placement placement = cell.placement();
        String roundMillis = String.valueOf(lab.mode().roundMillis());
        String warmupMillis = String.valueOf(lab.mode().warmupMillis());
        String rounds = String.valueOf(lab.mode().measuredRounds() + 1);
        List<String> reader;
        List<String> writer = null;
        switch (cell.row()) {
            case StreamCase.Java java -> {
                Args args = inRounds.apply(Args.of(ClientCommand.OPTIONS).with(ClientCommand.STRATEGY, java.strategy())
                        .with(ClientCommand.JSON).with(ClientCommand.TRANSPORT, link.client()));
                args = switch (link) {
                    case TCP -> args.with(ConnectOptions.PORT, Integer.valueOf(servers.address(java.writer())));
                    case UNIX -> args.with(ConnectOptions.PATH, Path.of(servers.address(java.writer())));
                    case PIPE -> args; // standard input
                };
                reader = lab.jvm().command(placement.clientCpu(), args.toArgs());
                if (link == Link.PIPE && java.writer() == StreamCase.Writer.C) {
                    writer = Children.pinned(placement.serverCpu(), List.of(ceiling.toString(), "write", "stdout"));
                } else if (link == Link.PIPE) {
                    Args server = Args.of(ServerCommand.OPTIONS).with(ServerCommand.TRANSPORT, link.server())
                            .with(ServerCommand.SIZE, new SizeRange(SIZE, SIZE))
                            .with(ServerCommand.PIPE_SIZE, java.pipeSize() > 0 ? java.pipeSize() : null);
                    writer = lab.jvm().command(placement.serverCpu(), server.toArgs());
                }
            }
            case StreamCase.Ceiling c -> {
                List<String> args = new ArrayList<>(List.of(ceiling.toString(), "read"));
                switch (link) {
                    case TCP -> args.addAll(List.of("tcp", "127.0.0.1", servers.c()));
                    case UNIX -> args.addAll(List.of("unix", servers.c()));
                    case PIPE -> args.add("stdin");
                }
                args.addAll(List.of(c.poll() ? "poll" : "block", roundMillis + "ms", rounds, warmupMillis));
                reader = Children.pinned(placement.clientCpu(), args);
                if (link == Link.PIPE) {
                    writer = Children.pinned(placement.serverCpu(), List.of(ceiling.toString(), "write", "stdout"));
                }
            }
            case StreamCase.Iperf i -> throw new IllegalArgumentException("iperf3 has no client run");
        }
        Process client;
        Process server = null;
        if (writer == null) {
            client = new ProcessBuilder(reader).start();
        } else {
            ProcessBuilder write = new ProcessBuilder(writer).redirectError(ProcessBuilder.Redirect.DISCARD);
            if (cell.row() instanceof StreamCase.Ceiling c && c.pipeSize() > 0) {
                write.environment().put("CEILING_PIPE_SIZE", String.valueOf(c.pipeSize()));
            }
            List<Process> pipeline = ProcessBuilder.startPipeline(List.of(write, new ProcessBuilder(reader)));
            server = pipeline.get(0);
            client = pipeline.get(1);
        }
        try {
            return Children.measuredRounds(client, cell.row().name());
        } finally {
            Children.stop(server);
        }
    }

    /**
     * {@return the results with each paired row's passes merged into one cell of pass 0}, in the order
     * the rows first ran
     *
     * @param results results that may hold passes
     */
    static Results<StreamCell, Throughput> merged(Results<StreamCell, Throughput> results) {
        Map<StreamCell, Throughput> rows = new LinkedHashMap<>();
        for (StreamCell cell : results.cases()) {
            rows.merge(cell.merged(), results.get(cell), Throughput::plus);
        }
        Results<StreamCell, Throughput> merged = new Results<>();
        rows.forEach(merged::put);
        return merged;
    }

    /**
     * {@return the ratio, pass by pass, of what the fastest of {@code rows} read to what the fastest of
     * {@code against} read in the same pass}, each the median of its rounds in that pass; a pass where
     * either side has no row is left out, so the list is empty where the two never ran in one pass
     *
     * @param results results holding the passes
     * @param placement the placement
     * @param rows paired rows, the numerator
     * @param against paired rows, the denominator
     */
    static List<Double> passRatios(Results<StreamCell, Throughput> results, Placement placement, List<StreamCase> rows,
            List<StreamCase> against) {
        List<Double> ratios = new ArrayList<>();
        for (int pass = 1; ranIn(results, placement, rows, pass) || ranIn(results, placement, against, pass); pass++) {
            double ours = fastest(results, placement, rows, pass);
            double theirs = fastest(results, placement, against, pass);
            if (!Double.isNaN(ours) && !Double.isNaN(theirs)) {
                ratios.add(ours / theirs);
            }
        }
        return ratios;
    }

    private static boolean ranIn(Results<StreamCell, Throughput> results, Placement placement, List<StreamCase> rows,
            int pass) {
        return rows.stream().anyMatch(row -> results.has(new StreamCell(placement, row, pass)));
    }

    /** {@return the highest median MB/s of {@code rows} in {@code pass}, or NaN where none of them ran in it} */
    private static double fastest(Results<StreamCell, Throughput> results, Placement placement, List<StreamCase> rows,
            int pass) {
        double best = Double.NaN;
        for (StreamCase row : rows) {
            StreamCell cell = new StreamCell(placement, row, pass);
            if (results.has(cell) && !(results.get(cell).mbPerSec().median() <= best)) {
                best = results.get(cell).mbPerSec().median();
            }
        }
        return best;
    }

    /**
     * {@return the ceiling of one placement}: the best median MB/s of the C and iperf3 rows that read
     * the same link as the Java rows (the default pipe), or NaN where there are none
     */
    static double ceiling(Results<StreamCell, Throughput> results, Placement placement) {
        double best = Double.NaN;
        for (StreamCell cell : results.cases(c -> c.placement().equals(placement) && c.row().pipeSize() == 0
                && !(c.row() instanceof StreamCase.Java))) {
            double mb = results.get(cell).mbPerSec().median();
            if (!(mb <= best)) {
                best = mb;
            }
        }
        return best;
    }

    @Override
    public List<Measurement> measurements(Results<StreamCell, Throughput> passes, LabContext lab) {
        Results<StreamCell, Throughput> results = merged(passes);
        List<Measurement> rows = new ArrayList<>();
        for (StreamCell cell : results.cases()) {
            Throughput t = results.get(cell);
            Series series = new Series(link.id(), cell.row().name(), cell.row().role(), link.medium(), SIZE);
            rows.add(series.at(cell.placement(), Unit.MB_PER_S, t.mbPerSec())
                    .published(Published.mbPerSec(link, cell.row(), cell.placement()))
                    .ofCeiling(ceiling(results, cell.placement())));
            if (t.msgPerSec() != null) {
                rows.add(series.at(cell.placement(), Unit.MSG_PER_S, t.msgPerSec()));
            }
            if (t.cpuNsPerMsg() != null) {
                rows.add(series.at(cell.placement(), Unit.CPU_NS_PER_MSG, t.cpuNsPerMsg()));
            }
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<StreamCell, Throughput> passes, LabContext lab) {
        Results<StreamCell, Throughput> results = merged(passes);
        List<Placement> placements = results.cases().stream().map(StreamCell::placement).distinct().toList();
        List<StreamCase> rows = results.cases().stream().map(StreamCell::row).distinct().toList();
        List<String> header = new ArrayList<>(List.of("case"));
        for (Placement placement : placements) {
            String p = placement + " (" + placement.cpus() + ")";
            header.addAll(List.of(p + ": msg/s", "MB/s [min-max]", "CPU ns/msg", "% of ceiling", "article MB/s"));
        }
        List<List<String>> lines = new ArrayList<>();
        for (StreamCase row : rows) {
            List<String> line = new ArrayList<>(List.of(row.name()));
            for (Placement placement : placements) {
                StreamCell cell = new StreamCell(placement, row);
                if (!results.has(cell)) {
                    line.addAll(List.of("-", "-", "-", "-", "-"));
                    continue;
                }
                Throughput t = results.get(cell);
                double ceiling = ceiling(results, placement);
                double published = Published.mbPerSec(link, row, placement);
                line.add(t.msgPerSec() == null ? "-" : String.format(Locale.ROOT, "%,.0f", t.msgPerSec().median()));
                line.add(t.marked(String.format(Locale.ROOT, "%,.1f [%,.1f-%,.1f]", t.mbPerSec().median(),
                        t.mbPerSec().min(), t.mbPerSec().max())));
                line.add(t.cpuNsPerMsg() == null ? "-" : String.format(Locale.ROOT, "%.1f", t.cpuNsPerMsg().median()));
                line.add(Double.isNaN(ceiling) ? "-" : String.format(Locale.ROOT, "%.0f%%",
                        100 * t.mbPerSec().median() / ceiling));
                line.add(Double.isNaN(published) ? "-" : String.format(Locale.ROOT, "%.1f", published));
            }
            lines.add(line);
        }
        String title = String.format(Locale.ROOT, "%s: %s, %d-byte bodies, server batching 512 KiB writes; median of "
                + "the measured rounds [min-max] of %d client run(s) a row (%d for the paired rows), each run %d round(s) "
                + "of %d ms after a warm-up of at least %d ms", link.id(), link.title(), SIZE, lab.mode().clientRuns(),
                lab.mode().pairedPasses(), lab.mode().measuredRounds(), lab.mode().roundMillis(),
                lab.mode().warmupMillis());
        List<String> notes = new ArrayList<>(List.of("% of ceiling: against the best C or iperf3 row of the "
                + "same placement and pipe size", String.format(Locale.ROOT, "the rows fed by the C writer and the C "
                + "readers of the default %s ran in %d interleaved pass(es) of one client run each", link == Link.PIPE ? "pipe" : "socket", lab.mode().pairedPasses()), lab.mode().jitSettle()
                        ? "warm-up: a Java client also waits until its JIT has compiled nothing for a round's length, at most "
                        + dev.wirespeed.lab.client.Rounds.ByTime.MAX_WARMUP_FACTOR + " times the least warm-up"
                        : "warm-up: fixed, not waiting for the JIT to settle (quick mode)",
                UntimedPass.note("each Java row's client")));
        setAside(results).forEach(row -> notes.add(row.note()));
        return List.of(new Table(title, header, lines, notes));
    }

    @Override
    public List<SetAside> setAside(Results<StreamCell, Throughput> passes, LabContext lab) {
        return setAside(merged(passes));
    }

    /** {@return the rows of {@code results}, passes merged, that the lab does not trust, in table order} */
    private List<SetAside> setAside(Results<StreamCell, Throughput> results) {
        List<SetAside> rows = new ArrayList<>();
        for (StreamCell cell : results.cases()) {
            SetAside row = results.get(cell).setAside(link.id(), cell.row().name(), cell.placement());
            if (row != null) {
                rows.add(row);
            }
        }
        return rows;
    }

    @Override
    public List<Finding> findings(Results<StreamCell, Throughput> results, LabContext lab) {
        return new StreamFindings(link, results, lab::note).all();
    }
}
