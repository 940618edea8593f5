package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.FindingReads;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Unit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The articles' claims about streaming, and our targets, judged on one link's results: each a
 * {@link Rule} over one check per placement. A finding that reads a row the lab does not trust
 * ({@link Throughput#setAside()}) judges nothing: it is left out, and a note says which row and why.
 */
final class StreamFindings {
    /** The library's target against Netty: at least this many times the better Netty strategy's MB/s. */
    static final int NETTY_FACTOR = 3;

    /** The library's target: at least this share of the ceiling's MB/s. */
    static final double CEILING_TARGET = 0.90;

    private final Link link;
    /** Each row's figures, passes merged. */
    private final Results<StreamCell, Throughput> results;
    /** As run: the paired rows pass by pass. */
    private final Results<StreamCell, Throughput> passes;
    private final List<Placement> placements;
    private final String name;
    /** The rows set aside among those read, and where a finding left out for them is told. */
    private final FindingReads reads;
    /** The rows (passes merged) the finding being built has read so far. */
    private final Set<StreamCell> read = new LinkedHashSet<>();

    /**
     * The findings of one link's results, a finding left out unnoted.
     *
     * @param link the link
     * @param passes the results as run, the paired rows pass by pass
     */
    StreamFindings(Link link, Results<StreamCell, Throughput> passes) {
        this(link, passes, note -> { });
    }

    /**
     * The findings of one link's results.
     *
     * @param link the link
     * @param passes the results as run, the paired rows pass by pass
     * @param notes told of each finding left out for a row set aside
     */
    StreamFindings(Link link, Results<StreamCell, Throughput> passes, Consumer<String> notes) {
        this.reads = new FindingReads(notes);
        this.link = link;
        this.passes = passes;
        this.results = StreamExperiment.merged(passes);
        this.placements = results.cases().stream().map(StreamCell::placement).distinct().toList();
        this.name = link.id();
    }

    List<Finding> all() {
        List<Finding> findings = new ArrayList<>();
        if (link == Link.PIPE) {
            pipe(findings);
        } else {
            socket(findings);
        }
        if (link == Link.TCP) {
            peers(findings);
            perFrame(findings);
        }
        ours(findings);
        ioUring(findings);
        return findings;
    }

    /**
     * One stream through io_uring against the library's best other reader, both fed by the C writer (so
     * that the writer does not set the rate): where a run had the io_uring rows ({@code --full}), the faster
     * of {@code uring} and {@code uring-spin} against the faster of {@code wirespeed} and {@code wirespeed-spin}.
     */
    private void ioUring(List<Finding> findings) {
        read.clear();
        List<Check> checks = new ArrayList<>();
        for (Placement placement : placements) {
            StreamCase uring = fastest(placement, StreamCase.Writer.C, Strategies.URING, Strategies.URING_SPIN);
            StreamCase ours = fastest(placement, StreamCase.Writer.C, Strategies.WIRESPEED, Strategies.WIRESPEED_SPIN);
            if (uring != null && ours != null) {
                checks.add(check(placement, uring, ours));
            }
        }
        if (!checks.isEmpty()) {
            decide(findings, Finding.target(name, "one stream through io_uring reads at least as fast as the library's best "
                    + "other reader, both fed by the C writer", Rule.atLeast(1), checks));
        }
    }

    /**
     * {@return the row, fed by {@code writer} at {@code placement}, of the first of {@code strategies} that
     * read fastest among those that ran; null if none ran}
     */
    private StreamCase.Java fastest(Placement placement, StreamCase.Writer writer, Strategies... strategies) {
        StreamCase.Java best = null;
        for (Strategies strategy : strategies) {
            StreamCase.Java row = new StreamCase.Java(strategy, 0, writer);
            if (results.has(new StreamCell(placement, row))
                    && (best == null || mb(placement, row).median() > mb(placement, best).median())) {
                best = row;
            }
        }
        return best;
    }

    private void socket(List<Finding> findings) {
        // The article's ratios over TCP: loopback figures, but for no-alloc, measured only on 10 Gbit, against
        // buffered-readint on the same link (572.9 MB/s).
        claim(findings, "buffering speeds the unbuffered client up many times", Strategies.BUFFERED_READINT,
                Strategies.UNBUFFERED, Rule.atLeast(5), 520.2 / 32.9);
        claim(findings, "removing allocation does not speed the stream client up", Strategies.NO_ALLOC,
                Strategies.BUFFERED_READINT, Rule.atMost(1.05), 507.0 / 572.9);
        claim(findings, "channels and direct buffers beat the best stream client", Strategies.CHANNEL,
                Strategies.BUFFERED_READINT, Rule.atLeast(1.5), 1529.7 / 520.2);
        claim(findings, "compact-on-demand beats append-until-end", Strategies.CHANNEL_COMPACT, Strategies.CHANNEL,
                Rule.above(1), 1728.0 / 1529.7);
        claim(findings, "zero-copy beats copying the body", Strategies.ZERO_COPY, Strategies.CHANNEL_COMPACT,
                Rule.above(1), 2147.1 / 1728.0);
        claim(findings, "zero-copy is several times no-alloc", Strategies.ZERO_COPY, Strategies.NO_ALLOC, Rule.atLeast(2),
                2147.1 / 507.0);
    }

    private void pipe(List<Finding> findings) {
        read.clear();
        decide(findings, Finding.claim(name, "unbuffered standard input is many times slower than System.in",
                Rule.atLeast(5), 539 / 41.5, checks(Strategies.BUFFERED_READINT, Strategies.UNBUFFERED)));
        decide(findings, Finding.claim(name, "wrapping System.in in another BufferedInputStream slows it",
                Rule.below(1), 304.6 / 647.1, checks(Strategies.BUFFERED, Strategies.BUFFERED_READINT)));
        decide(findings, Finding.claim(name, "zero-copy beats the best stream client on a pipe", Rule.above(1), 867.0 / 638,
                checks(Strategies.ZERO_COPY, Strategies.NO_ALLOC)));
        StreamCase big = new StreamCase.Java(Strategies.WIRESPEED, StreamCase.BIG_PIPE, StreamCase.Writer.JAVA);
        StreamCase small = new StreamCase.Java(Strategies.WIRESPEED);
        decide(findings, Finding.target(name, "a 1 MiB pipe (F_SETPIPE_SZ through the native module) beats the default "
                + "64 KiB one", Rule.atLeast(1.5), checks(big, small)));
        if (placements.size() > 1) {
            StreamCase zeroCopy = new StreamCase.Java(Strategies.ZERO_COPY);
            read.clear();
            Function<Placement, Stats> mb = p -> mb(p, zeroCopy);
            Placement best = placements.stream().max(Comparator.comparingDouble(p -> mb.apply(p).median())).orElseThrow();
            Placement worst = placements.stream().min(Comparator.comparingDouble(p -> mb.apply(p).median())).orElseThrow();
            decide(findings, Finding.claim(name, "placement changes pipe throughput (zero-copy, best placement / worst)",
                    Rule.atLeast(1.1), 1782.0 / 867, List.of(new Check("pipe",
                            new Figure("zero-copy, " + best, mb.apply(best), Unit.MB_PER_S),
                            new Figure("zero-copy, " + worst, mb.apply(worst), Unit.MB_PER_S)))));
        }
    }

    /** The first article's Note 1: buffering buys less when the server writes each frame on its own. */
    private void perFrame(List<Finding> findings) {
        read.clear();
        StreamCase fast = new StreamCase.Java(Strategies.ZERO_COPY);
        StreamCase slow = new StreamCase.Java(Strategies.UNBUFFERED);
        StreamCase fastPerFrame = new StreamCase.Java(Strategies.ZERO_COPY, 0, StreamCase.Writer.JAVA_PER_FRAME);
        StreamCase slowPerFrame = new StreamCase.Java(Strategies.UNBUFFERED, 0, StreamCase.Writer.JAVA_PER_FRAME);
        List<Check> checks = new ArrayList<>();
        for (Placement placement : placements) {
            double perFrame = mb(placement, fastPerFrame).median() / mb(placement, slowPerFrame).median();
            double batched = mb(placement, fast).median() / mb(placement, slow).median();
            checks.add(new Check(where(placement),
                    new Figure("zero-copy / unbuffered, per-frame server", Stats.exact(perFrame), Unit.RATIO),
                    new Figure("the same, batching server", Stats.exact(batched), Unit.RATIO)));
        }
        decide(findings, Finding.claim(name, "buffering gains less when the server writes each frame on its own (Note 1)",
                Rule.below(1), Double.NaN, checks));
    }

    private void peers(List<Finding> findings) {
        read.clear();
        for (Strategies ours : List.of(Strategies.WIRESPEED, Strategies.WIRESPEED_SPIN)) {
            read.clear();
            List<Check> checks = new ArrayList<>();
            for (Placement placement : placements) {
                checks.add(check(placement, new StreamCase.Java(ours), new StreamCase.Java(bestNetty(placement))));
            }
            decide(findings, Finding.target(name, ours.cliName() + " is at least " + NETTY_FACTOR + "x the best Netty strategy",
                    Rule.atLeast(NETTY_FACTOR), checks));
        }
        // Whether that target can be met at all: no reader is expected to beat what C reads on the placement.
        List<Check> reachable = new ArrayList<>();
        for (Placement placement : placements) {
            double ceiling = StreamExperiment.ceiling(results, placement);
            if (!Double.isNaN(ceiling)) {
                Strategies best = bestNetty(placement);
                reachable.add(new Check(where(placement), new Figure(NETTY_FACTOR + "x " + best.cliName(),
                        Stats.exact(NETTY_FACTOR * mb(placement, new StreamCase.Java(best)).median()), Unit.MB_PER_S),
                        ceilingFigure(ceiling)));
            }
        }
        if (!reachable.isEmpty()) {
            decide(findings, Finding.claim(name, "the " + NETTY_FACTOR + "x-Netty target is within the ceiling: "
                    + NETTY_FACTOR + "x the best Netty strategy is at most what the best C or iperf3 row reads",
                    Rule.atMost(1), Double.NaN, reachable));
        }
    }

    /** {@return the placement's ceiling as a check's figure} */
    private static Figure ceilingFigure(double ceiling) {
        return new Figure("ceiling (best C or iperf3 row)", Stats.exact(ceiling), Unit.MB_PER_S);
    }

    /** {@return the Netty strategy that read fastest at {@code placement}: NIO, epoll, or io_uring where it ran} */
    private Strategies bestNetty(Placement placement) {
        return fastest(placement, StreamCase.Writer.JAVA, Strategies.NETTY_NIO, Strategies.NETTY_EPOLL,
                Strategies.NETTY_URING).strategy();
    }

    private void ours(List<Finding> findings) {
        read.clear();
        List<Strategies> readers = StreamExperiment.fits(Strategies.WIRESPEED_SPIN, link)
                ? List.of(Strategies.WIRESPEED, Strategies.WIRESPEED_SPIN) : List.of(Strategies.WIRESPEED);
        for (Strategies strategy : readers) {
            decide(findings, Finding.target(name, strategy.cliName() + " is at least as fast as the article's best (zero-copy)",
                    Rule.atLeast(1), checks(strategy, Strategies.ZERO_COPY)));
        }
        read.clear();
        List<Check> cpu = new ArrayList<>();
        for (Placement placement : placements) {
            Throughput ours = throughput(placement, new StreamCase.Java(Strategies.WIRESPEED));
            Throughput theirs = throughput(placement, new StreamCase.Java(Strategies.ZERO_COPY));
            if (ours.cpuNsPerMsg() != null && theirs.cpuNsPerMsg() != null) {
                cpu.add(new Check(where(placement), new Figure("wirespeed", ours.cpuNsPerMsg(), Unit.CPU_NS_PER_MSG),
                        new Figure("zero-copy", theirs.cpuNsPerMsg(), Unit.CPU_NS_PER_MSG)));
            }
        }
        if (!cpu.isEmpty()) {
            decide(findings, Finding.target(name, "wirespeed's reader spends less CPU per message than zero-copy",
                    Rule.below(1), cpu));
        }
        for (Strategies strategy : readers) {
            read.clear();
            StreamCase row = new StreamCase.Java(strategy);
            List<Check> checks = new ArrayList<>();
            for (Placement placement : placements) {
                double ceiling = StreamExperiment.ceiling(results, placement);
                if (!Double.isNaN(ceiling) && results.has(new StreamCell(placement, row))) {
                    checks.add(new Check(where(placement), new Figure(row.name(), mb(placement, row), Unit.MB_PER_S),
                            ceilingFigure(ceiling)));
                }
            }
            if (!checks.isEmpty()) {
                decide(findings, Finding.target(name, row.name() + " reaches 90% of the ceiling", Rule.atLeast(CEILING_TARGET),
                        checks));
            }
        }
        List<StreamCase> fedByC = new ArrayList<>();
        for (Strategies strategy : readers) {
            boolean polls = strategy == Strategies.WIRESPEED_SPIN;
            StreamCase row = new StreamCase.Java(strategy, 0, StreamCase.Writer.C);
            StreamCase c = new StreamCase.Ceiling(polls, 0);
            fedByC.add(row);
            fedByC(findings, row.name() + " reads at least 90% of the C reader that waits as it does ("
                    + (polls ? "busy-polling" : "blocking") + "), fed by the same writer, "
                    + "on the median of interleaved passes", row.name(), List.of(row), c.name(), List.of(c));
        }
        fedByC(findings, "the library's faster reader fed by the C writer reads at least 90% of the faster C reader "
                + "(blocking or busy-polling), on the median of interleaved passes", "the faster of "
                + fedByC.stream().map(StreamCase::name).collect(Collectors.joining(" and ")), fedByC, "the faster C reader",
                List.of(new StreamCase.Ceiling(false, 0), new StreamCase.Ceiling(true, 0)));
    }

    /**
     * A reader target: the fastest of {@code rows}, fed by the C writer, reads at least 90% of the fastest
     * of {@code against}, judged on the median of the passes' ratios, each pass's rows against the C
     * readers of the same pass. Nothing where no pass ran both.
     */
    private void fedByC(List<Finding> findings, String claim, String ours, List<StreamCase> rows, String theirs,
            List<StreamCase> against) {
        read.clear();
        List<Check> checks = new ArrayList<>();
        for (Placement placement : placements) {
            List<Double> ratios = StreamExperiment.passRatios(passes, placement, rows, against);
            if (!ratios.isEmpty()) {
                for (StreamCase row : concat(rows, against)) {
                    if (results.has(new StreamCell(placement, row))) {
                        read.add(new StreamCell(placement, row));
                    }
                }
                checks.add(new Check(where(placement), new Figure(ours + " / " + theirs + ", pass by pass",
                        Stats.of(ratios), Unit.RATIO), new Figure(theirs, Stats.exact(1), Unit.RATIO)));
            }
        }
        if (!checks.isEmpty()) {
            decide(findings, Finding.target(name, claim, Rule.atLeast(CEILING_TARGET), checks));
        }
    }

    private void claim(List<Finding> findings, String claim, Strategies a, Strategies b, Rule rule, double tcpRatio) {
        read.clear();
        decide(findings, Finding.claim(name, claim, rule, link == Link.TCP ? tcpRatio : Double.NaN, checks(a, b)));
    }

    private List<Check> checks(Strategies a, Strategies b) {
        return checks(new StreamCase.Java(a), new StreamCase.Java(b));
    }

    private List<Check> checks(StreamCase a, StreamCase b) {
        List<Check> checks = new ArrayList<>();
        for (Placement placement : placements) {
            checks.add(check(placement, a, b));
        }
        return checks;
    }

    private Check check(Placement placement, StreamCase a, StreamCase b) {
        return new Check(where(placement), new Figure(a.name(), mb(placement, a), Unit.MB_PER_S),
                new Figure(b.name(), mb(placement, b), Unit.MB_PER_S));
    }

    private Stats mb(Placement placement, StreamCase row) {
        return throughput(placement, row).mbPerSec();
    }

    /** {@return a row's figures at {@code placement}, counted as read by the finding being built} */
    private Throughput throughput(Placement placement, StreamCase row) {
        StreamCell cell = new StreamCell(placement, row);
        read.add(cell);
        return results.get(cell);
    }

    /**
     * Adds {@code finding}, unless a row it read is set aside: then it is left out, and the notes say
     * which and why. The next finding starts reading afresh.
     */
    private void decide(List<Finding> findings, Finding finding) {
        for (StreamCell cell : read) {
            reads.read(results.get(cell).setAside(name, cell.row().name(), cell.placement()));
        }
        read.clear();
        reads.decide(findings, finding);
    }

    private static List<StreamCase> concat(List<StreamCase> a, List<StreamCase> b) {
        List<StreamCase> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private String where(Placement placement) {
        return name + ", " + placement;
    }
}
