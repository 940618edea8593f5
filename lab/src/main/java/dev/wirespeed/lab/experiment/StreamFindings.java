package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.experiment.StreamExperiment.Case;
import dev.wirespeed.lab.experiment.StreamExperiment.Cell;
import dev.wirespeed.lab.experiment.StreamExperiment.JavaCase;
import dev.wirespeed.lab.experiment.StreamExperiment.Link;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The articles' claims about streaming, and our targets, checked on one run of one link. */
final class StreamFindings {
    /** The library's target: at least this share of the ceiling's MB/s. */
    static final double CEILING_TARGET = 0.90;

    private final LabRun lab;
    private final Link link;
    private final Map<Placement, Map<Case, Cell>> results;

    StreamFindings(LabRun lab, Link link, Map<Placement, Map<Case, Cell>> results) {
        this.lab = lab;
        this.link = link;
        this.results = results;
    }

    void add() {
        for (Map.Entry<Placement, Map<Case, Cell>> entry : results.entrySet()) {
            String where = " (" + link.id() + ", " + entry.getKey().name() + ")";
            Map<Case, Cell> cells = entry.getValue();
            if (link == Link.PIPE) {
                pipe(where, cells);
            } else {
                socket(where, cells);
            }
            if (link == Link.TCP) {
                peers(where, cells);
                perFrame(where, cells);
            }
            ours(where, cells);
        }
        if (link == Link.PIPE && results.size() > 1) {
            List<Double> zeroCopy = results.values().stream()
                    .map(cells -> cells.get(java(Strategies.ZERO_COPY)).mb().median()).toList();
            double max = zeroCopy.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            double min = zeroCopy.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            lab.findings.add(new Finding("placement changes pipe throughput (zero-copy, best / worst placement >= 1.1x)"
                    + " (pipe)", max / min >= 1.1, String.format(Locale.ROOT,
                            "zero-copy by placement %s MB/s: %.2fx; article 2.06x (same core 1782 / different processors 867)",
                            String.join(", ", results.keySet().stream().map(p -> p.name() + " "
                                    + fmt(results.get(p).get(java(Strategies.ZERO_COPY)).mb().median())).toList()),
                            max / min)));
        }
    }

    private void socket(String where, Map<Case, Cell> cells) {
        boolean tcp = link == Link.TCP;
        ratio(where, "buffering speeds the unbuffered client up many times (buffered-readint / unbuffered >= 5x)",
                cells, Strategies.BUFFERED_READINT, Strategies.UNBUFFERED, 5.0, tcp ? 520.2 / 32.9 : Double.NaN);
        ratio(where, "removing allocation does not speed the stream client up (no-alloc / buffered-readint <= 1.05x)",
                cells, Strategies.NO_ALLOC, Strategies.BUFFERED_READINT, -1.05, tcp ? 507.0 / 572.9 : Double.NaN);
        ratio(where, "channels and direct buffers beat the best stream client (channel / buffered-readint >= 1.5x)",
                cells, Strategies.CHANNEL, Strategies.BUFFERED_READINT, 1.5, tcp ? 1529.7 / 520.2 : Double.NaN);
        ratio(where, "compact-on-demand beats append-until-end (channel-compact / channel > 1x)",
                cells, Strategies.CHANNEL_COMPACT, Strategies.CHANNEL, 1.0, tcp ? 1728.0 / 1529.7 : Double.NaN);
        ratio(where, "zero-copy beats copying the body (zero-copy / channel-compact > 1x)",
                cells, Strategies.ZERO_COPY, Strategies.CHANNEL_COMPACT, 1.0, tcp ? 2147.1 / 1728.0 : Double.NaN);
        ratio(where, "zero-copy is several times no-alloc (zero-copy / no-alloc >= 2x)",
                cells, Strategies.ZERO_COPY, Strategies.NO_ALLOC, 2.0, tcp ? 2147.1 / 507.0 : Double.NaN);
    }

    private void pipe(String where, Map<Case, Cell> cells) {
        ratio(where, "unbuffered standard input is many times slower than System.in (buffered-readint / unbuffered >= 5x)",
                cells, Strategies.BUFFERED_READINT, Strategies.UNBUFFERED, 5.0, 539 / 41.5);
        ratio(where, "wrapping System.in in another BufferedInputStream slows it (buffered / buffered-readint < 1x)",
                cells, Strategies.BUFFERED, Strategies.BUFFERED_READINT, -0.9999, 304.6 / 647.1);
        ratio(where, "zero-copy beats the best stream client on a pipe (zero-copy / no-alloc > 1x)",
                cells, Strategies.ZERO_COPY, Strategies.NO_ALLOC, 1.0, 867.0 / 638);
        Cell big = cells.get(new JavaCase(Strategies.WIRESPEED, StreamExperiment.BIG_PIPE));
        Cell small = cells.get(java(Strategies.WIRESPEED));
        double ratio = big.mb().median() / small.mb().median();
        lab.findings.add(new Finding("a 1 MiB pipe (F_SETPIPE_SZ through wirespeed's native module) beats the default "
                + "64 KiB one (wirespeed, >= 1.5x)" + where, ratio >= 1.5, String.format(Locale.ROOT,
                        "wirespeed %s MB/s with a 1 MiB pipe / %s MB/s with 64 KiB = %.2fx",
                        fmt(big.mb().median()), fmt(small.mb().median()), ratio)));
    }

    /** The first article's Note 1: buffering buys less when the server writes each frame on its own. */
    private void perFrame(String where, Map<Case, Cell> cells) {
        JavaCase batchedFast = java(Strategies.ZERO_COPY);
        JavaCase batchedSlow = java(Strategies.UNBUFFERED);
        JavaCase perFrameFast = new JavaCase(Strategies.ZERO_COPY, 0, StreamExperiment.Writer.JAVA_PER_FRAME);
        JavaCase perFrameSlow = new JavaCase(Strategies.UNBUFFERED, 0, StreamExperiment.Writer.JAVA_PER_FRAME);
        double batched = cells.get(batchedFast).mb().median() / cells.get(batchedSlow).mb().median();
        double perFrame = cells.get(perFrameFast).mb().median() / cells.get(perFrameSlow).mb().median();
        lab.findings.add(new Finding("buffering gains less when the server writes each frame on its own (Note 1: "
                + "zero-copy / unbuffered, per-frame server < batched server)" + where, perFrame < batched,
                String.format(Locale.ROOT, "per-frame server: zero-copy %s / unbuffered %s MB/s = %.2fx; batched server: "
                        + "%.2fx", fmt(cells.get(perFrameFast).mb().median()), fmt(cells.get(perFrameSlow).mb().median()),
                        perFrame, batched)));
    }

    private void peers(String where, Map<Case, Cell> cells) {
        Cell nio = cells.get(java(Strategies.NETTY_NIO));
        Cell epoll = cells.get(java(Strategies.NETTY_EPOLL));
        Strategies best = nio.mb().median() >= epoll.mb().median() ? Strategies.NETTY_NIO : Strategies.NETTY_EPOLL;
        ratio(where, "target: wirespeed is >= 3x the best Netty strategy (wirespeed / " + best + " >= 3x)", cells,
                Strategies.WIRESPEED, best, 3.0, Double.NaN);
        ratio(where, "target: wirespeed busy-polling is >= 3x the best Netty strategy (wirespeed-spin / " + best
                + " >= 3x)", cells, Strategies.WIRESPEED_SPIN, best, 3.0, Double.NaN);
    }

    private void ours(String where, Map<Case, Cell> cells) {
        ratio(where, "wirespeed's reader is at least as fast as the article's best (wirespeed / zero-copy >= 1x)",
                cells, Strategies.WIRESPEED, Strategies.ZERO_COPY, 1.0, Double.NaN);
        if (link != Link.PIPE) {
            ratio(where, "wirespeed busy-polling is at least as fast as the article's best (wirespeed-spin / zero-copy >= 1x)",
                    cells, Strategies.WIRESPEED_SPIN, Strategies.ZERO_COPY, 1.0, Double.NaN);
        }
        Stats ours = cells.get(java(Strategies.WIRESPEED)).cpu();
        Stats theirs = cells.get(java(Strategies.ZERO_COPY)).cpu();
        lab.findings.add(new Finding("wirespeed's reader spends less CPU per message than zero-copy" + where,
                ours.median() < theirs.median(), String.format(Locale.ROOT,
                        "wirespeed %.1f ns/msg [%.1f-%.1f] vs zero-copy %.1f ns/msg [%.1f-%.1f] = %.2fx",
                        ours.median(), ours.min(), ours.max(), theirs.median(), theirs.min(), theirs.max(),
                        ours.median() / theirs.median())));
        double ceiling = StreamExperiment.ceilingOf(cells);
        if (!Double.isNaN(ceiling)) {
            List<Strategies> readers = link == Link.PIPE ? List.of(Strategies.WIRESPEED)
                    : List.of(Strategies.WIRESPEED, Strategies.WIRESPEED_SPIN);
            for (Strategies strategy : readers) {
                for (boolean cWriter : new boolean[] {false, true}) {
                    JavaCase kase = new JavaCase(strategy, 0,
                            cWriter ? StreamExperiment.Writer.C : StreamExperiment.Writer.JAVA);
                    double mb = cells.get(kase).mb().median();
                    lab.findings.add(new Finding("target: " + kase.name() + " reaches >= 90% of the ceiling" + where,
                            mb >= CEILING_TARGET * ceiling, String.format(Locale.ROOT,
                                    "%s %s MB/s / ceiling %s MB/s (best C or iperf3 row) = %.0f%%", kase.name(), fmt(mb),
                                    fmt(ceiling), 100 * mb / ceiling)));
                }
            }
        }
    }

    private static JavaCase java(Strategies strategy) {
        return new JavaCase(strategy, 0);
    }

    private static String fmt(double mb) {
        return String.format(Locale.ROOT, "%.1f", mb);
    }

    /**
     * Adds a finding on the ratio of two strategies' median MB/s. A positive {@code threshold} must be
     * reached (>=, or > for 1.0); a negative one is a ceiling the ratio must not exceed.
     */
    private void ratio(String where, String claim, Map<Case, Cell> cells, Strategies a, Strategies b,
            double threshold, double published) {
        Stats sa = cells.get(java(a)).mb();
        Stats sb = cells.get(java(b)).mb();
        double ratio = sa.median() / sb.median();
        boolean holds = threshold < 0 ? ratio <= -threshold : threshold == 1.0 ? ratio > 1.0 : ratio >= threshold;
        String figures = String.format(Locale.ROOT, "%s %.1f MB/s [%.1f-%.1f] / %s %.1f MB/s [%.1f-%.1f] = %.2fx%s",
                a, sa.median(), sa.min(), sa.max(), b, sb.median(), sb.min(), sb.max(), ratio,
                Double.isNaN(published) ? "" : String.format(Locale.ROOT, "; article %.2fx", published));
        lab.findings.add(new Finding(claim + where, holds, figures));
    }
}
