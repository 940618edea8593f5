package dev.wirespeed.lab.experiments.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Unit;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stream findings judged on synthetic figures: each rule where it holds and where it fails. */
class StreamFindingsTest {
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    private static final Placement TOGETHER = new Placement(Placement.Kind.SAME_CORE, 1, 1);

    /** MB/s of every tcp row, as a run on a 2-CPU machine measured them. */
    private static Map<StreamCase, Double> tcp() {
        Map<StreamCase, Double> mb = new LinkedHashMap<>();
        double[] figures = {47, 85, 788, 734, 826, 2249, 2307, 2118, 2573, 3501, 2412, 3006, 2300, 2900, 608, 901, 850};
        Strategies[] strategies = Strategies.values(); // the tcp rows come first; the client loop reads stream-tls
        for (int i = 0; i < figures.length; i++) {
            mb.put(new StreamCase.Java(strategies[i]), figures[i]);
        }
        mb.put(new StreamCase.Java(Strategies.UNBUFFERED, 0, StreamCase.Writer.JAVA_PER_FRAME), 48.0);
        mb.put(new StreamCase.Java(Strategies.ZERO_COPY, 0, StreamCase.Writer.JAVA_PER_FRAME), 350.0);
        mb.put(new StreamCase.Java(Strategies.WIRESPEED, 0, StreamCase.Writer.JAVA_PER_FRAME), 336.0);
        mb.put(new StreamCase.Java(Strategies.WIRESPEED, 0, StreamCase.Writer.C), 2677.0);
        mb.put(new StreamCase.Java(Strategies.WIRESPEED_SPIN, 0, StreamCase.Writer.C), 3655.0);
        mb.put(new StreamCase.Ceiling(false, 0), 3516.0);
        mb.put(new StreamCase.Ceiling(true, 0), 5347.0);
        mb.put(new StreamCase.Iperf(), 2546.0);
        return mb;
    }

    /** The results of a run with these figures: the paired rows in three passes, each of the row's figure. */
    private static Results<StreamCell, Throughput> results(Map<StreamCase, Double> mb) {
        Results<StreamCell, Throughput> results = new Results<>();
        for (Placement placement : List.of(APART, TOGETHER)) {
            mb.forEach((row, figure) -> {
                if (!StreamExperiment.paired(row)) {
                    results.put(new StreamCell(placement, row), throughput(row, figure));
                }
            });
            for (int pass = 1; pass <= 3; pass++) {
                for (Map.Entry<StreamCase, Double> row : mb.entrySet()) {
                    if (StreamExperiment.paired(row.getKey())) {
                        results.put(new StreamCell(placement, row.getKey(), pass), throughput(row.getKey(), row.getValue()));
                    }
                }
            }
        }
        return results;
    }

    /** Three rounds around {@code figure}, with frames a second and CPU per frame where the row counts frames. */
    private static Throughput throughput(StreamCase row, double figure) {
        boolean frames = !(row instanceof StreamCase.Iperf);
        return new Throughput(List.of(figure * 0.95, figure, figure * 1.05), frames ? List.of(figure * 1e4) : List.of(),
                frames ? List.of(3e4 / figure) : List.of());
    }

    private static Finding finding(Map<StreamCase, Double> mb, String claim) {
        List<Finding> findings = new StreamFindings(Link.TCP, results(mb)).all();
        return findings.stream().filter(f -> f.claim().equals(claim)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding '" + claim + "' in " + findings));
    }

    @Test
    void anArticleClaimHoldsOrFailsOnItsRatioAndCarriesTheArticlesRatio() {
        Finding holds = finding(tcp(), "buffering speeds the unbuffered client up many times");
        assertTrue(holds.holds(), holds.figures());
        assertEquals(520.2 / 32.9, holds.published());
        assertEquals(2, holds.checks().size(), "one check per placement");
        Map<StreamCase, Double> mb = tcp();
        mb.put(new StreamCase.Java(Strategies.BUFFERED_READINT), 47 * 4.9);
        assertFalse(finding(mb, "buffering speeds the unbuffered client up many times").holds());
    }

    @Test
    void zeroCopyMustBeatCopyingStrictly() {
        Map<StreamCase, Double> mb = tcp();
        mb.put(new StreamCase.Java(Strategies.ZERO_COPY), 2307.0);
        assertFalse(finding(mb, "zero-copy beats copying the body").holds(), "level is not a win");
        mb.put(new StreamCase.Java(Strategies.ZERO_COPY), 2308.0);
        assertTrue(finding(mb, "zero-copy beats copying the body").holds());
    }

    @Test
    void theNettyTargetIsAgainstTheBetterNettyAtEachPlacement() {
        Finding spin = finding(tcp(), "wirespeed-spin is at least 3x the best Netty strategy");
        assertTrue(spin.holds(), spin.figures());
        assertEquals("netty-epoll", spin.checks().get(0).denominator().name());
        Finding blocking = finding(tcp(), "wirespeed is at least 3x the best Netty strategy");
        assertFalse(blocking.holds(), "2,573 / 901 = 2.86x: " + blocking.figures());
    }

    @Test
    void theNettyTargetSaysWhenThreeTimesNettyIsBeyondTheCeiling() {
        String claim = "the 3x-Netty target is within the ceiling: 3x the best Netty strategy is at most what the best "
                + "C or iperf3 row reads";
        Finding reachable = finding(tcp(), claim);
        assertTrue(reachable.holds(), "3 x 901 = 2,703 <= 5,347: " + reachable.figures());
        assertEquals("3x netty-epoll", reachable.checks().get(0).numerator().name());
        assertEquals(3 * 901.0, reachable.checks().get(0).numerator().stats().median());
        Map<StreamCase, Double> mb = tcp();
        mb.put(new StreamCase.Java(Strategies.NETTY_EPOLL), 1800.0);
        assertFalse(finding(mb, claim).holds(), "3 x 1,800 = 5,400 > 5,347");
    }

    @Test
    void theBestNettyIsItsIoUringTransportWhereThatRanAndReadFastest() {
        String claim = "the 3x-Netty target is within the ceiling: 3x the best Netty strategy is at most what the best "
                + "C or iperf3 row reads";
        Map<StreamCase, Double> mb = tcp();
        mb.put(new StreamCase.Java(Strategies.NETTY_URING), 1000.0);
        assertEquals("3x netty-uring", finding(mb, claim).checks().get(0).numerator().name());
        mb.remove(new StreamCase.Java(Strategies.NETTY_URING)); // a run without --full
        assertEquals("3x netty-epoll", finding(mb, claim).checks().get(0).numerator().name());
    }

    @Test
    void oneStreamThroughIoUringIsJudgedAgainstTheBestOtherReaderFedByTheCWriterWhereItRan() {
        String target = "one stream through io_uring reads at least as fast as the library's best other reader, both "
                + "fed by the C writer";
        List<Finding> without = new StreamFindings(Link.TCP, results(tcp())).all();
        assertTrue(without.stream().noneMatch(f -> f.claim().equals(target)), "no io_uring rows, no finding: " + without);
        Map<StreamCase, Double> mb = tcp();
        mb.put(new StreamCase.Java(Strategies.URING, 0, StreamCase.Writer.C), 3000.0);
        mb.put(new StreamCase.Java(Strategies.URING_SPIN, 0, StreamCase.Writer.C), 3700.0);
        Finding holds = finding(mb, target);
        assertTrue(holds.holds(), "3,700 >= 3,655: " + holds.figures());
        assertEquals("uring-spin <- C writer", holds.checks().get(0).numerator().name());
        assertEquals("wirespeed-spin <- C writer", holds.checks().get(0).denominator().name());
        mb.put(new StreamCase.Java(Strategies.URING_SPIN, 0, StreamCase.Writer.C), 3500.0);
        assertFalse(finding(mb, target).holds(), "3,500 < 3,655");
    }

    @Test
    void theEndToEndTargetIsAgainstTheBestCOrIperfRowOfThePlacementItsPassesMerged() {
        Finding ceiling = finding(tcp(), "wirespeed-spin reaches 90% of the ceiling");
        assertEquals(5347.0, ceiling.checks().get(0).denominator().stats().median());
        assertFalse(ceiling.holds(), "3,006 / 5,347 = 56%");
        Map<StreamCase, Double> mb = tcp();
        mb.put(new StreamCase.Java(Strategies.WIRESPEED_SPIN), 0.9 * 5347.0);
        assertTrue(finding(mb, "wirespeed-spin reaches 90% of the ceiling").holds());
    }

    private static final String FASTER = "the library's faster reader fed by the C writer reads at least 90% of the "
            + "faster C reader (blocking or busy-polling), on the median of interleaved passes";
    private static final String SPIN_MODE = "wirespeed-spin <- C writer reads at least 90% of the C reader that waits "
            + "as it does (busy-polling), fed by the same writer, on the median of interleaved passes";
    private static final String BLOCKING_MODE = "wirespeed <- C writer reads at least 90% of the C reader that waits "
            + "as it does (blocking), fed by the same writer, on the median of interleaved passes";

    /** tcp's figures, but for the busy-polling reader fed by C and the two C readers, {spin, block, poll} a pass. */
    private static List<Finding> drifting(double[][] passes) {
        StreamCase spin = new StreamCase.Java(Strategies.WIRESPEED_SPIN, 0, StreamCase.Writer.C);
        StreamCase block = new StreamCase.Ceiling(false, 0);
        StreamCase poll = new StreamCase.Ceiling(true, 0);
        Results<StreamCell, Throughput> results = results(tcp());
        Results<StreamCell, Throughput> drifting = new Results<>();
        for (StreamCell cell : results.cases()) {
            int row = cell.row().equals(spin) ? 0 : cell.row().equals(block) ? 1 : cell.row().equals(poll) ? 2 : -1;
            drifting.put(cell, row < 0 || cell.pass() == 0 ? results.get(cell)
                    : throughput(cell.row(), passes[cell.pass() - 1][row]));
        }
        return new StreamFindings(Link.TCP, drifting).all();
    }

    private static Finding named(List<Finding> findings, String claim) {
        return findings.stream().filter(f -> f.claim().equals(claim)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding " + claim + " in " + findings));
    }

    @Test
    void theReaderTargetIsJudgedPassByPassAgainstTheFasterCReaderOfThatPass() {
        // The machine slows in pass 2; the blocking C reader is the faster one in pass 3.
        List<Finding> findings = drifting(new double[][] {{6900, 5000, 7500}, {4700, 4000, 5000}, {6500, 7000, 6800}});
        Finding faster = named(findings, FASTER);
        assertTrue(faster.holds(), faster.figures());
        Stats ratios = faster.checks().get(0).numerator().stats();
        assertEquals(6900 / 7500.0, ratios.min(), 1e-9, "pass 1 against the busy-polling reader");
        assertEquals(6500 / 7000.0, ratios.median(), 1e-9, "pass 3 against the blocking reader");
        assertEquals(4700 / 5000.0, ratios.max(), 1e-9, "pass 2, the slow one, against its own C readers");
        assertEquals(3, ratios.runs());
        assertEquals(1.0, faster.checks().get(0).denominator().stats().median());
        assertEquals("the faster of wirespeed <- C writer and wirespeed-spin <- C writer / the faster C reader, pass by pass",
                faster.checks().get(0).numerator().name());

        Finding slow = finding(tcp(), FASTER);
        assertFalse(slow.holds(), "3,655 / 5,347 = 68% in every pass: " + slow.figures());
        assertEquals(2, slow.failures().size(), "both placements");
    }

    @Test
    void eachReaderIsAlsoJudgedAgainstTheCReaderThatWaitsAsItDoes() {
        List<Finding> findings = drifting(new double[][] {{6900, 5000, 7500}, {4700, 4000, 5000}, {6500, 7000, 6800}});
        Finding spin = named(findings, SPIN_MODE);
        assertTrue(spin.holds(), spin.figures());
        Stats ratios = spin.checks().get(0).numerator().stats();
        assertEquals(6900 / 7500.0, ratios.min(), 1e-9);
        assertEquals(4700 / 5000.0, ratios.median(), 1e-9);
        assertEquals(6500 / 6800.0, ratios.max(), 1e-9, "pass 3 against the busy-polling reader, not the faster one");

        Finding blocking = named(findings, BLOCKING_MODE);
        assertFalse(blocking.holds(), blocking.figures());
        assertEquals(2677 / 5000.0, blocking.checks().get(0).numerator().stats().median(), 1e-9);
        assertEquals(2677 / 3516.0, finding(tcp(), BLOCKING_MODE).checks().get(1).numerator().stats().median(), 1e-9,
                "same core, against the blocking C reader");
    }

    @Test
    void withoutPassesOfTheCReadersTheReaderTargetsAreNotJudged() {
        Map<StreamCase, Double> mb = tcp();
        mb.remove(new StreamCase.Ceiling(false, 0));
        mb.remove(new StreamCase.Ceiling(true, 0));
        List<Finding> findings = new StreamFindings(Link.TCP, results(mb)).all();
        for (String claim : List.of(FASTER, SPIN_MODE, BLOCKING_MODE)) {
            assertTrue(findings.stream().noneMatch(f -> f.claim().equals(claim)), claim + ": " + findings);
        }
    }

    @Test
    void note1HoldsWhenBufferingGainsLessAgainstAPerFrameServer() {
        assertTrue(finding(tcp(), "buffering gains less when the server writes each frame on its own (Note 1)").holds());
        Map<StreamCase, Double> mb = tcp();
        mb.put(new StreamCase.Java(Strategies.ZERO_COPY, 0, StreamCase.Writer.JAVA_PER_FRAME), 2118.0);
        mb.put(new StreamCase.Java(Strategies.UNBUFFERED, 0, StreamCase.Writer.JAVA_PER_FRAME), 47.0);
        assertFalse(finding(mb, "buffering gains less when the server writes each frame on its own (Note 1)").holds());
    }

    @Test
    void publishedFiguresOnlyBesideTheCaseTheArticleMeasured() {
        assertEquals(2147.1, Published.mbPerSec(Link.TCP, new StreamCase.Java(Strategies.ZERO_COPY), APART));
        assertTrue(Double.isNaN(Published.mbPerSec(Link.TCP, new StreamCase.Java(Strategies.ZERO_COPY, 0,
                StreamCase.Writer.JAVA_PER_FRAME), APART)), "the article never measured a per-frame server");
        assertTrue(Double.isNaN(Published.mbPerSec(Link.PIPE, new StreamCase.Java(Strategies.WIRESPEED,
                StreamCase.BIG_PIPE, StreamCase.Writer.JAVA), TOGETHER)));
        assertEquals(1782.0, Published.mbPerSec(Link.PIPE, new StreamCase.Java(Strategies.ZERO_COPY), TOGETHER));
    }

    @Test
    void theLibraryReadByTheCWriterIsStillTheLibrary() {
        assertEquals(dev.wirespeed.lab.result.Role.LIBRARY,
                new StreamCase.Java(Strategies.WIRESPEED, 0, StreamCase.Writer.C).role());
        assertEquals(dev.wirespeed.lab.result.Role.PEER, new StreamCase.Java(Strategies.NETTY_NIO).role());
        assertEquals(dev.wirespeed.lab.result.Role.CEILING, new StreamCase.Iperf().role());
    }

    @Test
    void aRowWhoseTimedFigureStraysFromItsUntimedPassJudgesNothingAndIsNamed() {
        String claim = "wirespeed is at least " + StreamFindings.NETTY_FACTOR + "x the best Netty strategy";
        Results<StreamCell, Throughput> trusted = results(tcp());
        assertTrue(new StreamFindings(Link.TCP, trusted).all().stream().anyMatch(f -> f.claim().equals(claim)));

        // Netty's NIO client read 608 MB/s in timed rounds and 5,000 when it counted frames: set aside.
        StreamCell nettyNio = new StreamCell(APART, new StreamCase.Java(Strategies.NETTY_NIO));
        Results<StreamCell, Throughput> broken = new Results<>();
        for (StreamCell cell : trusted.cases()) {
            Throughput t = trusted.get(cell);
            broken.put(cell, cell.equals(nettyNio) ? t.withUntimed(List.of(5000.0)) : t);
        }
        List<String> notes = new java.util.ArrayList<>();
        List<Finding> findings = new StreamFindings(Link.TCP, broken, notes::add).all();
        assertFalse(findings.stream().anyMatch(f -> f.claim().equals(claim)), () -> "judged on a row set aside: "
                + findings);
        assertTrue(notes.stream().anyMatch(n -> n.contains(claim) && n.contains("netty-nio at " + APART)
                && n.contains("timed rounds read 608.0 MB/s and an untimed pass of the same client 5,000.0 MB/s: -88%")),
                () -> "no note naming the row and why: " + notes);
        // A finding that reads no Netty row is judged as before.
        assertTrue(findings.stream().anyMatch(f -> f.claim().equals("zero-copy beats copying the body")));
    }

    @Test
    void aTimedFigureWithinTheToleranceOfItsUntimedPassIsTrustedAndSpreadBeyondTheMedianIsNot() {
        Throughput timed = new Throughput(List.of(95.0, 100.0, 105.0), List.of(1e6), List.of());
        assertEquals(null, timed.setAside());
        assertEquals(null, timed.withUntimed(List.of(115.0)).setAside()); // -13%
        assertEquals(null, timed.withUntimed(List.of(87.0)).setAside()); // +15%
        assertEquals("its timed rounds read 100.0 MB/s and an untimed pass of the same client 118.0 MB/s: -15%, "
                + "beyond the 15% the lab allows", timed.withUntimed(List.of(118.0)).setAside().toString());
        assertEquals("its timed rounds read 100.0 MB/s and an untimed pass of the same client 80.0 MB/s: +25%, "
                + "beyond the 15% the lab allows", timed.withUntimed(List.of(80.0)).setAside().toString());
        assertEquals("its figures spread from 10.0 to 300.0 MB/s about a median of 100.0: wider than the median",
                new Throughput(List.of(10.0, 100.0, 300.0), List.of(), List.of()).setAside().toString());
        assertEquals(null, new Throughput(List.of(50.0, 100.0, 150.0), List.of(), List.of()).setAside());
    }

    @Test
    void anUntimedPassCountsWhatTheTimedRoundsReadAtTheirRate() {
        dev.wirespeed.lab.experiment.Mode mode = dev.wirespeed.lab.experiment.Mode.DEFAULT;
        String rounds = String.valueOf(mode.measuredRounds() + 1);
        Throughput timed = new Throughput(List.of(100.0), List.of(2_000_000.0), List.of());
        long frames = (long) (2_000_000.0 * mode.roundMillis() / 1e3);
        assertTrue(frames > UntimedPass.LEAST_FRAMES);
        Args client = Args.of(ClientCommand.OPTIONS).with(ClientCommand.TRANSPORT, Transport.STDIN)
                .with(ClientCommand.STRATEGY, Strategies.WIRESPEED);
        assertEquals(List.of("client", "--transport", "stdin", "--strategy", "wirespeed", "--messages",
                String.valueOf(frames), "--rounds", rounds), UntimedPass.options(timed, mode, mode.roundMillis())
                .apply(client).toArgs());
        assertEquals(List.of("client", "--transport", "stdin", "--strategy", "wirespeed", "--messages",
                String.valueOf(UntimedPass.LEAST_FRAMES), "--rounds", rounds), UntimedPass.options(new Throughput(
                List.of(1.0), List.of(10.0), List.of()), mode, mode.roundMillis()).apply(client).toArgs());
    }

    @Test
    void theRowsSetAsideAreTheExperimentsTypedAndEachFindingThatReadsOneIsNotJudged() {
        StreamCell nettyNio = new StreamCell(APART, new StreamCase.Java(Strategies.NETTY_NIO));
        Results<StreamCell, Throughput> trusted = results(tcp());
        Results<StreamCell, Throughput> broken = new Results<>();
        for (StreamCell cell : trusted.cases()) {
            Throughput t = trusted.get(cell);
            broken.put(cell, cell.equals(nettyNio) ? t.withUntimed(List.of(5000.0)) : t);
        }
        LabContext lab = new LabContext(Mode.QUICK, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()), false);
        StreamExperiment tcp = new StreamExperiment(Link.TCP);
        assertEquals(List.of(), tcp.setAside(trusted, lab));
        List<SetAside> setAside = tcp.setAside(broken, lab);
        assertEquals(1, setAside.size(), setAside::toString);
        assertEquals(new SetAside("tcp", "netty-nio", APART, null, new SetAside.Reason(SetAside.Cause.UNTIMED,
                Unit.MB_PER_S, broken.get(nettyNio).mbPerSec(), 5000.0, Throughput.TIMED_TOLERANCE)), setAside.getFirst());

        List<String> judged = tcp.findings(broken, lab).stream().map(Finding::claim).toList();
        assertEquals(3, lab.notes().size(), () -> "both Netty targets and the ceiling one read netty-nio: " + lab.notes());
        for (String note : lab.notes()) {
            assertTrue(note.startsWith("tcp: not judged, as it reads rows set aside: ")
                    && note.endsWith(". " + setAside.getFirst()), note);
        }
        for (Finding finding : new StreamFindings(Link.TCP, trusted).all()) {
            boolean noted = lab.notes().stream().anyMatch(n -> n.contains(": " + finding.title() + ". "));
            assertTrue(noted != judged.contains(finding.claim()), () -> "judged or noted, never both: " + finding.title());
        }
    }
}
