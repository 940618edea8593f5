package dev.wirespeed.lab.experiments.many;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.LoadCommand;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The many experiment's findings, on synthetic results: each where it holds and where it fails, with the
 * figures a reader sees.
 */
class ManyExperimentTest {
    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final int MOST = 1_000;

    private static ManyResult.Load load(double framesPerSecond, double cpuNs, double p99) {
        return new ManyResult.Load(Stats.exact(framesPerSecond), Stats.exact(p99 / 2), Stats.exact(p99),
                Stats.exact(p99 * 1.2), Stats.exact(p99 * 1.5), Stats.exact(cpuNs), Stats.exact(0.85), Stats.exact(1.0),
                Stats.exact(cpuNs / 2));
    }

    /**
     * C at 2,000,000 frames/s and 300 ns a frame, Netty at 1,500,000 and 600 ns (over io_uring 1,400,000
     * and 560), the Selector and epoll loops at {@code loop} frames/s and {@code loopCpu} ns, the io_uring
     * loop {@code uringGain} times faster and cheaper; the slow reader keeps {@code kept} of the rate and
     * grows memory by {@code growthKib}; idle connections cost {@code idleBytes}; JFR costs {@code jfr}x.
     */
    private static Results<ManyCase, ManyResult> results(double loop, double loopCpu, double uringGain, double kept,
            long growthKib, double idleBytes, double jfr) {
        Results<ManyCase, ManyResult> r = new Results<>();
        r.put(new ManyCase.Load(ManyServer.C_EPOLL, MOST), load(2_000_000, 300, 10_000));
        r.put(new ManyCase.Load(ManyServer.NETTY, MOST), load(1_500_000, 600, 20_000));
        r.put(new ManyCase.Load(ManyServer.NETTY_URING, MOST), load(1_400_000, 560, 20_000));
        for (ManyServer server : ManyExperiment.LOOPS) {
            double gain = server == ManyServer.LOOP_URING ? uringGain : 1;
            r.put(new ManyCase.Load(server, MOST), load(loop * gain, loopCpu / gain, 12_000));
            r.put(new ManyCase.Slow(server, 64), new ManyResult.Slow(Stats.exact(2_000_000),
                    Stats.exact(2_000_000 * kept), 100_000, 100_000 + growthKib));
            r.put(new ManyCase.Idle(server, 10_000), new ManyResult.Idle(60_000, 90_000, Stats.exact(idleBytes)));
        }
        r.put(new ManyCase.Load(ManyServer.LOOP_EPOLL_JFR, MOST), load(loop, loopCpu * jfr, 12_000));
        r.put(new ManyCase.Driven(ManyLoad.LOOP_EPOLL, MOST), load(loop * 1.0, 350, 12_000));
        return r;
    }

    private static Finding finding(List<Finding> findings, String start) {
        return findings.stream().filter(f -> f.claim().startsWith(start)).findFirst().orElseThrow();
    }

    @Test
    void everyTargetHoldsForALoopAtCsRateAndHalfNettysCost() {
        List<Finding> findings = new ManyExperiment().findings(results(1_900_000, 290, 1.3, 0.95, 1_024, 3_000, 1.05), LAB);
        assertEquals(14, findings.size(), findings.toString());
        for (Finding f : findings) {
            assertTrue(f.holds(), f.summary());
        }
    }

    @Test
    void aRowWhoseRoundsRateSpreadsWiderThanItsMedianIsSetAsideAndTheTimedTargetsReadingItAreLeftOut() {
        LabContext lab = new LabContext(Mode.DEFAULT, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()),
                false);
        Results<ManyCase, ManyResult> good = results(1_900_000, 290, 1.3, 0.95, 1_024, 3_000, 1.05);
        assertEquals(List.of(), new ManyExperiment().setAside(good, lab));
        // The C epoll server's rounds: 0.2 to 4 million frames a second about a median of 2 million.
        Stats wild = new Stats(2_000_000, 200_000, 4_000_000, 5);
        ManyCase.Load c = new ManyCase.Load(ManyServer.C_EPOLL, MOST);
        Results<ManyCase, ManyResult> r = new Results<>();
        for (ManyCase kase : good.cases()) {
            r.put(kase, kase.equals(c) ? new ManyResult.Load(wild, Stats.exact(5_000), Stats.exact(10_000),
                    Stats.exact(12_000), Stats.exact(15_000), Stats.exact(300), Stats.exact(0.85), Stats.exact(1.0),
                    Stats.exact(150)) : good.get(kase));
        }
        List<SetAside> setAside = new ManyExperiment().setAside(r, lab);
        assertEquals(List.of(new SetAside("many", ManyExperiment.row(c), ManyExperiment.placement(lab), null,
                new SetAside.Reason(SetAside.Cause.SPREAD, Unit.MSG_PER_S, wild, null, null))), setAside);
        List<Finding> findings = new ManyExperiment().findings(r, lab);
        List<String> leftOut = List.of(AS_FAST_AS_C, AS_CHEAP_AS_C, NO_DEARER_THAN_C,
                "the library's client loop drives the C epoll echo at least 0.9x as fast as the C load generator does, "
                        + "the same load");
        assertEquals(14 - leftOut.size(), findings.size(), findings.toString());
        assertTrue(findings.stream().noneMatch(f -> leftOut.contains(f.claim())), findings.toString());
        assertEquals(leftOut.size(), lab.notes().size(), lab.notes().toString());
        for (String claim : leftOut) {
            assertTrue(lab.notes().stream().anyMatch(note -> note.startsWith("many: not judged, as it reads rows set "
                    + "aside: target: " + claim + " (") && note.endsWith(". " + setAside.getFirst())),
                    () -> claim + ": " + lab.notes());
        }
    }

    @Test
    void eachTargetFailsWhenItsFigureCrossesTheLine() {
        List<Finding> slow = new ManyExperiment().findings(results(1_500_000, 400, 1.0, 0.8, 8_192, 20_000, 1.2), LAB);
        for (String claim : List.of("the library's event loop echoes at least 0.9x",
                "the library's event loop costs the server at most 1/0.9",
                "the library's event loop over epoll costs the server no more CPU",
                "the library's event loop echoes at least 1.2x",
                "beside a slow reader", "a slow reader grows", "an idle connection costs",
                "the server's JFR events", "the library's event loop over io_uring echoes at least 1.2x",
                "the library's client loop drives the C epoll echo at least 0.9x",
                "the library's event loop over io_uring costs the server at most 1/1.2 of its CPU")) {
            assertFalse(finding(slow, claim).holds(), claim);
        }
        assertTrue(finding(slow, "the library's event loop costs the server at most 1/1.2").holds(),
                "600 ns against 400 ns is 1.5x");
        assertTrue(finding(slow, "the library's event loop over io_uring costs the server at most 1/1.2 of Netty's")
                .holds(), "560 ns against 400 ns is 1.4x");
        assertEquals(3, finding(slow, "the library's event loop echoes at least 0.9x").checks().size(),
                "every transport is judged");
    }

    @Test
    void ioUringAgainstEpollIsJudgedAcrossTheLinkTooWhereItWasMeasured() {
        Results<ManyCase, ManyResult> r = results(1_900_000, 320, 1.3, 0.95, 1_024, 3_000, 1.05);
        r.put(new ManyCase.Across(ManyServer.LOOP_EPOLL, MOST), load(1_200_000, 640, 15_000));
        r.put(new ManyCase.Across(ManyServer.LOOP_URING, MOST), load(1_250_000, 600, 15_000)); // 1.04x, 1.07x
        List<Finding> findings = new ManyExperiment().findings(r, LAB);
        for (String claim : List.of("the library's event loop over io_uring echoes at least 1.2x",
                "the library's event loop over io_uring costs the server at most 1/1.2 of its CPU")) {
            Finding f = finding(findings, claim);
            assertEquals(2, f.checks().size(), f.summary());
            assertTrue(f.checks().get(1).where().contains("across a veth link"), f.summary());
            assertFalse(f.holds(), "loopback holds at 1.3x, the link does not: " + f.summary());
        }
    }

    private static final ManyExperiment.Settings SETTINGS = ManyExperiment.settings(LAB);
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    private static final String AT_MOST = "many, 1,000 connections, different cores: ";
    private static final String EPOLL = "wirespeed FrameServer over epoll, 1 loop";
    private static final String URING = "wirespeed FrameServer over io_uring, 1 loop";

    /** The one finding claimed as {@code claim} on results of these cases alone, each followed by its result. */
    private static Finding judged(String claim, Object... caseThenResult) {
        Results<ManyCase, ManyResult> results = new Results<>();
        for (int i = 0; i < caseThenResult.length; i += 2) {
            results.put((ManyCase) caseThenResult[i], (ManyResult) caseThenResult[i + 1]);
        }
        List<Finding> findings = ManyFindings.judge(results, SETTINGS, APART, note -> {
            throw new AssertionError("a target left out: " + note);
        });
        return findings.stream().filter(f -> f.claim().equals(claim)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding '" + claim + "' in " + findings));
    }

    private static ManyCase.Load at(ManyServer server) {
        return new ManyCase.Load(server, MOST);
    }

    private static void assertVerdict(boolean holds, String figures, Finding finding) {
        assertEquals(figures, finding.figures(), finding.title());
        assertEquals(holds, finding.holds(), finding.title() + ": " + finding.figures());
    }

    private static final String AS_FAST_AS_C = "the library's event loop echoes at least 0.9x the frames a second of the "
            + "C epoll server";

    @Test
    void theLoopEchoesAtLeastNineTenthsOfCsRate() {
        assertVerdict(true, AT_MOST + EPOLL + " 1,900,000.0 msg/s / C epoll echo 2,000,000.0 msg/s = 0.95x",
                judged(AS_FAST_AS_C, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000), at(ManyServer.LOOP_EPOLL),
                        load(1_900_000, 320, 12_000)));
        assertVerdict(false, AT_MOST + EPOLL + " 1,700,000.0 msg/s / C epoll echo 2,000,000.0 msg/s = 0.85x",
                judged(AS_FAST_AS_C, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000), at(ManyServer.LOOP_EPOLL),
                        load(1_700_000, 320, 12_000)));
    }

    private static final String AS_CHEAP_AS_C = "the library's event loop costs the server at most 1/0.9 of the C epoll "
            + "server's CPU per frame (C's CPU per frame over the loop's, at least 0.9x): the first target seen from the "
            + "server, whoever limits the rate";

    @Test
    void theLoopCostsTheServerAtMostATenthMoreCpuThanC() {
        assertVerdict(true, AT_MOST + "C epoll echo server CPU 300.0 cpu ns/msg / " + EPOLL + " server CPU 320.0 "
                + "cpu ns/msg = 0.94x", judged(AS_CHEAP_AS_C, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000),
                        at(ManyServer.LOOP_EPOLL), load(1_900_000, 320, 12_000)));
        assertVerdict(false, AT_MOST + "C epoll echo server CPU 300.0 cpu ns/msg / " + EPOLL + " server CPU 400.0 "
                + "cpu ns/msg = 0.75x", judged(AS_CHEAP_AS_C, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000),
                        at(ManyServer.LOOP_EPOLL), load(1_900_000, 400, 12_000)));
    }

    private static final String NO_DEARER_THAN_C = "the library's event loop over epoll costs the server no more CPU "
            + "per frame than the C epoll server (C's CPU per frame over the loop's, at least 1.0x): the same system "
            + "calls, so the difference is the loop's own user time";

    @Test
    void theEpollLoopCostsTheServerNoMoreCpuThanC() {
        assertVerdict(true, AT_MOST + "C epoll echo server CPU 300.0 cpu ns/msg / " + EPOLL + " server CPU 300.0 "
                + "cpu ns/msg = 1.00x", judged(NO_DEARER_THAN_C, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000),
                        at(ManyServer.LOOP_EPOLL), load(1_900_000, 300, 12_000)));
        assertVerdict(false, AT_MOST + "C epoll echo server CPU 300.0 cpu ns/msg / " + EPOLL + " server CPU 303.0 "
                + "cpu ns/msg = 0.99x", judged(NO_DEARER_THAN_C, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000),
                        at(ManyServer.LOOP_EPOLL), load(1_900_000, 303, 12_000)));
    }

    @Test
    void onlyTheEpollLoopIsJudgedAgainstCsCpuAtOneToOne() {
        Finding f = judged(NO_DEARER_THAN_C, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000),
                at(ManyServer.LOOP), load(1_500_000, 400, 12_000), // the Selector loop, dearer
                at(ManyServer.LOOP_EPOLL), load(1_900_000, 290, 12_000));
        assertEquals(1, f.checks().size(), f.summary());
        assertTrue(f.holds(), f.summary());
    }

    private static final String FASTER_THAN_NETTY = "the library's event loop echoes at least 1.2x the frames a second "
            + "of Netty's, one loop each";

    @Test
    void theLoopEchoesAtLeastOneAndAFifthNettysRate() {
        assertVerdict(true, AT_MOST + EPOLL + " 1,900,000.0 msg/s / Netty epoll, 1 event loop 1,500,000.0 msg/s = 1.27x",
                judged(FASTER_THAN_NETTY, at(ManyServer.NETTY), load(1_500_000, 600, 20_000), at(ManyServer.LOOP_EPOLL),
                        load(1_900_000, 320, 12_000)));
        assertVerdict(false, AT_MOST + EPOLL + " 1,700,000.0 msg/s / Netty epoll, 1 event loop 1,500,000.0 msg/s = 1.13x",
                judged(FASTER_THAN_NETTY, at(ManyServer.NETTY), load(1_500_000, 600, 20_000), at(ManyServer.LOOP_EPOLL),
                        load(1_700_000, 320, 12_000)));
    }

    private static final String CHEAPER_THAN_NETTY = "the library's event loop costs the server at most 1/1.2 of Netty's "
            + "CPU per frame (Netty's over the loop's, at least 1.2x)";

    @Test
    void theLoopCostsTheServerAtMostFiveSixthsOfNettysCpu() {
        assertVerdict(true, AT_MOST + "Netty epoll, 1 event loop server CPU 600.0 cpu ns/msg / " + EPOLL + " server CPU "
                + "320.0 cpu ns/msg = 1.88x", judged(CHEAPER_THAN_NETTY, at(ManyServer.NETTY), load(1_500_000, 600, 20_000),
                        at(ManyServer.LOOP_EPOLL), load(1_900_000, 320, 12_000)));
        assertVerdict(false, AT_MOST + "Netty epoll, 1 event loop server CPU 600.0 cpu ns/msg / " + EPOLL + " server CPU "
                + "550.0 cpu ns/msg = 1.09x", judged(CHEAPER_THAN_NETTY, at(ManyServer.NETTY), load(1_500_000, 600, 20_000),
                        at(ManyServer.LOOP_EPOLL), load(1_900_000, 550, 12_000)));
    }

    private static final String TAILS = "the library's event loop's latency under that load is no worse than Netty's at "
            + "p99 and p99.9";

    @Test
    void theLoopsTailIsNoWorseThanNettysAtP99AndP999() {
        assertVerdict(true, AT_MOST + EPOLL + " p99 12,000.0 us / Netty epoll, 1 event loop p99 20,000.0 us = 0.60x; "
                + AT_MOST + EPOLL + " p99.9 14,400.0 us / Netty epoll, 1 event loop p99.9 24,000.0 us = 0.60x",
                judged(TAILS, at(ManyServer.NETTY), load(1_500_000, 600, 20_000), at(ManyServer.LOOP_EPOLL),
                        load(1_900_000, 320, 12_000)));
        assertVerdict(false, AT_MOST + EPOLL + " p99 22,000.0 us / Netty epoll, 1 event loop p99 20,000.0 us = 1.10x; "
                + AT_MOST + EPOLL + " p99.9 26,400.0 us / Netty epoll, 1 event loop p99.9 24,000.0 us = 1.10x",
                judged(TAILS, at(ManyServer.NETTY), load(1_500_000, 600, 20_000), at(ManyServer.LOOP_EPOLL),
                        load(1_900_000, 320, 22_000)));
    }

    private static final String URING_FASTER = "the library's event loop over io_uring echoes at least 1.2x the frames "
            + "a second of the same loop over epoll";
    private static final String URING_CHEAPER = "the library's event loop over io_uring costs the server at most 1/1.2 "
            + "of its CPU per frame over epoll (epoll's over io_uring's, at least 1.2x): the same target seen from the "
            + "server, whoever limits the rate";

    @Test
    void theLoopOverIoUringEchoesAtLeastOneAndAFifthItsRateOverEpoll() {
        assertVerdict(true, AT_MOST + URING + " 2,470,000.0 msg/s / " + EPOLL + " 1,900,000.0 msg/s = 1.30x",
                judged(URING_FASTER, at(ManyServer.LOOP_EPOLL), load(1_900_000, 320, 12_000), at(ManyServer.LOOP_URING),
                        load(2_470_000, 250, 12_000)));
        assertVerdict(false, AT_MOST + URING + " 1,900,000.0 msg/s / " + EPOLL + " 1,900,000.0 msg/s = 1.00x",
                judged(URING_FASTER, at(ManyServer.LOOP_EPOLL), load(1_900_000, 320, 12_000), at(ManyServer.LOOP_URING),
                        load(1_900_000, 250, 12_000)));
    }

    @Test
    void theLoopOverIoUringCostsTheServerAtMostFiveSixthsOfItsCpuOverEpoll() {
        assertVerdict(true, AT_MOST + EPOLL + " server CPU 320.0 cpu ns/msg / " + URING + " server CPU 250.0 cpu ns/msg "
                + "= 1.28x", judged(URING_CHEAPER, at(ManyServer.LOOP_EPOLL), load(1_900_000, 320, 12_000),
                        at(ManyServer.LOOP_URING), load(2_470_000, 250, 12_000)));
        assertVerdict(false, AT_MOST + EPOLL + " server CPU 320.0 cpu ns/msg / " + URING + " server CPU 320.0 cpu ns/msg "
                + "= 1.00x", judged(URING_CHEAPER, at(ManyServer.LOOP_EPOLL), load(1_900_000, 320, 12_000),
                        at(ManyServer.LOOP_URING), load(2_470_000, 320, 12_000)));
    }

    private static final String URING_CHEAPER_THAN_NETTY = "the library's event loop over io_uring costs the server at "
            + "most 1/1.2 of Netty's io_uring transport's CPU per frame (Netty's over the loop's, at least 1.2x)";

    @Test
    void theLoopOverIoUringCostsTheServerAtMostFiveSixthsOfNettysIoUringCpu() {
        assertVerdict(true, AT_MOST + "Netty io_uring, 1 event loop server CPU 560.0 cpu ns/msg / " + URING + " server "
                + "CPU 250.0 cpu ns/msg = 2.24x", judged(URING_CHEAPER_THAN_NETTY, at(ManyServer.NETTY_URING),
                        load(1_400_000, 560, 20_000), at(ManyServer.LOOP_URING), load(2_470_000, 250, 12_000)));
        assertVerdict(false, AT_MOST + "Netty io_uring, 1 event loop server CPU 560.0 cpu ns/msg / " + URING + " server "
                + "CPU 500.0 cpu ns/msg = 1.12x", judged(URING_CHEAPER_THAN_NETTY, at(ManyServer.NETTY_URING),
                        load(1_400_000, 560, 20_000), at(ManyServer.LOOP_URING), load(2_470_000, 500, 12_000)));
    }

    private static final String JFR = "the server's JFR events, on and recorded, cost the loop at most 10% more CPU per "
            + "frame";

    @Test
    void theJfrEventsCostTheLoopAtMostATenthMoreCpu() {
        assertVerdict(true, AT_MOST + "wirespeed FrameServer over epoll, JFR events on server CPU 336.0 cpu ns/msg / "
                + EPOLL + " server CPU 320.0 cpu ns/msg = 1.05x", judged(JFR, at(ManyServer.LOOP_EPOLL),
                        load(1_900_000, 320, 12_000), at(ManyServer.LOOP_EPOLL_JFR), load(1_900_000, 336, 12_000)));
        assertVerdict(false, AT_MOST + "wirespeed FrameServer over epoll, JFR events on server CPU 384.0 cpu ns/msg / "
                + EPOLL + " server CPU 320.0 cpu ns/msg = 1.20x", judged(JFR, at(ManyServer.LOOP_EPOLL),
                        load(1_900_000, 320, 12_000), at(ManyServer.LOOP_EPOLL_JFR), load(1_900_000, 384, 12_000)));
    }

    private static final String KEEP = "beside a slow reader, the library's event loop's other connections keep at least "
            + "90% of their frames a second";
    private static final String BOUNDED = "a slow reader grows the library's event loop's resident memory by at most 4 MiB";
    private static final String SLOW = "many, 64 connections and a slow reader: ";

    @Test
    void besideASlowReaderTheOtherConnectionsKeepNineTenthsOfTheirRate() {
        assertVerdict(true, SLOW + EPOLL + " beside the slow reader 1,900,000.0 msg/s / " + EPOLL + " alone 2,000,000.0 "
                + "msg/s = 0.95x", judged(KEEP, new ManyCase.Slow(ManyServer.LOOP_EPOLL, 64),
                        new ManyResult.Slow(Stats.exact(2_000_000), Stats.exact(1_900_000), 100_000, 101_024)));
        assertVerdict(false, SLOW + EPOLL + " beside the slow reader 1,600,000.0 msg/s / " + EPOLL + " alone 2,000,000.0 "
                + "msg/s = 0.80x", judged(KEEP, new ManyCase.Slow(ManyServer.LOOP_EPOLL, 64),
                        new ManyResult.Slow(Stats.exact(2_000_000), Stats.exact(1_600_000), 100_000, 101_024)));
    }

    @Test
    void aSlowReaderGrowsTheServersMemoryByAtMostFourMib() {
        assertVerdict(true, SLOW + EPOLL + " RSS growth 1,048,576.0 bytes / the bound 4,194,304.0 bytes = 0.25x",
                judged(BOUNDED, new ManyCase.Slow(ManyServer.LOOP_EPOLL, 64),
                        new ManyResult.Slow(Stats.exact(2_000_000), Stats.exact(1_900_000), 100_000, 101_024)));
        assertVerdict(false, SLOW + EPOLL + " RSS growth 8,388,608.0 bytes / the bound 4,194,304.0 bytes = 2.00x",
                judged(BOUNDED, new ManyCase.Slow(ManyServer.LOOP_EPOLL, 64),
                        new ManyResult.Slow(Stats.exact(2_000_000), Stats.exact(1_900_000), 100_000, 108_192)));
    }

    private static final String IDLE = "an idle connection costs the library's event loop at most 16 KiB of resident "
            + "memory";

    @Test
    void anIdleConnectionCostsTheLoopAtMostSixteenKib() {
        assertVerdict(true, "many, 10,000 idle connections: " + EPOLL + " per connection 3,000.0 bytes / the target "
                + "16,384.0 bytes = 0.18x", judged(IDLE, new ManyCase.Idle(ManyServer.LOOP_EPOLL, 10_000),
                        new ManyResult.Idle(60_000, 90_000, Stats.exact(3_000))));
        assertVerdict(false, "many, 10,000 idle connections: " + EPOLL + " per connection 20,000.0 bytes / the target "
                + "16,384.0 bytes = 1.22x", judged(IDLE, new ManyCase.Idle(ManyServer.LOOP_EPOLL, 10_000),
                        new ManyResult.Idle(60_000, 250_000, Stats.exact(20_000))));
    }

    @Test
    void frameCountsPerConnectionCoverSixteenConnectionsAtLeast() {
        ManyExperiment.Settings settings = new ManyExperiment.Settings(List.of(1, 16, 256, 1_000), 1_000_000, 6, 10_000);
        assertEquals(62_500, settings.framesPerConnection(1));
        assertEquals(62_500, settings.framesPerConnection(16));
        assertEquals(1_000, settings.framesPerConnection(1_000));
        assertEquals(ManyExperiment.WINDOW, new ManyExperiment.Settings(List.of(1), 10, 2, 1).framesPerConnection(1));
    }

    @Test
    void theTablesShowTheLoadsAcrossTheLinkBesideASlowReaderAndIdleInThatOrder() {
        Results<ManyCase, ManyResult> r = new Results<>();
        r.put(new ManyCase.Idle(ManyServer.LOOP_EPOLL, 10_000), new ManyResult.Idle(60_000, 90_000, Stats.exact(3_000)));
        r.put(at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000));
        r.put(new ManyCase.Slow(ManyServer.LOOP_EPOLL, 64), new ManyResult.Slow(Stats.exact(2_000_000),
                Stats.exact(1_900_000), 100_000, 101_024));
        r.put(new ManyCase.Across(ManyServer.LOOP_EPOLL, MOST), load(1_200_000, 640, 15_000));
        r.put(at(ManyServer.LOOP_EPOLL), new ManyResult.Load(new Stats(1_900_000, 1_850_000, 1_950_000, 5),
                Stats.exact(6_000), Stats.exact(12_000), Stats.exact(14_400), Stats.exact(18_000), Stats.exact(320),
                Stats.exact(0.85), Stats.exact(0.994), Stats.exact(400)));
        List<Table> tables = new ManyExperiment().tables(r, LAB);
        assertEquals(4, tables.size(), tables.toString());
        List<String> loadHeader = List.of("server", "connections", "frames/s [min-max]", "server CPU ns/frame",
                "of it kernel", "load CPU", "p50 us", "p99 us", "p99.9 us", "max us");

        Table loads = tables.get(0);
        assertTrue(loads.title().startsWith("many: echo servers under a pipelined load, TCP loopback, 100-byte bodies, "
                + "16 frames in flight per connection; median of 5 round(s) after one; "), loads.title());
        assertEquals(loadHeader, loads.header());
        assertEquals(List.of(
                List.of("C epoll echo", "1,000", "2,000,000 [2,000,000-2,000,000]", "300", "85%", "100%", "5,000.0",
                        "10,000.0", "12,000.0", "15,000.0"),
                List.of("wirespeed FrameServer over epoll, 1 loop", "1,000", "1,900,000 [1,850,000-1,950,000]", "320",
                        "85%", "99%", "6,000.0", "12,000.0", "14,400.0", "18,000.0")), loads.rows());
        assertEquals(List.of("the load: the lab's C generator (many.c), every echo checked byte for byte; a round sends "
                + "1,000,000 frames in all (fewer than 16 connections send what 16 would each); latency from a frame's "
                + "send to its echo, so it includes the window's queueing", "server CPU: all the server process's "
                + "threads, user and system, over the measured rounds; of it kernel: the part that was system time (the "
                + "kernel's work for the server: its system calls and the TCP stack under them); load CPU: the "
                + "generator's share of one CPU then (near 100%, the load and not the server set the rate)"),
                loads.notes());

        Table far = tables.get(1);
        assertTrue(far.title().startsWith("many across a link: the same load, the server in a network namespace behind "
                + "a veth pair; median of 5 round(s) after one; "), far.title());
        assertEquals(loadHeader, far.header());
        assertEquals(List.of(List.of("wirespeed FrameServer over epoll, 1 loop", "1,000",
                "1,200,000 [1,200,000-1,200,000]", "640", "85%", "100%", "7,500.0", "15,000.0", "18,000.0", "22,500.0")),
                far.rows());
        assertEquals(List.of("the link: 10.213.0.2 in the namespace, 10gbit each way; the notes below say whether the "
                + "kernel could add a delay (netem)"), far.notes());

        Table slow = tables.get(2);
        assertTrue(slow.title().startsWith("many: 64 pipelined connections alone, then beside a slow reader (one more "
                + "connection that sends as fast as the server takes and never reads); "), slow.title());
        assertEquals(List.of("server", "frames/s alone", "beside the slow reader", "ratio", "server RSS growth MiB"),
                slow.header());
        assertEquals(List.of(List.of("wirespeed FrameServer over epoll, 1 loop", "2,000,000", "1,900,000", "0.95x",
                "1.0")), slow.rows());

        Table idle = tables.get(3);
        assertTrue(idle.title().startsWith("many: the server's resident memory with idle connections held, each after "
                + "one round trip; "), idle.title());
        assertEquals(List.of("server", "connections", "RSS before MiB", "RSS held MiB", "KiB per connection"),
                idle.header());
        assertEquals(List.of(List.of("wirespeed FrameServer over epoll, 1 loop", "10,000", "58.6", "87.9", "2.9")),
                idle.rows());
        assertEquals(List.of("before: after 100 connections came and went; the thread-per-connection echoes are left "
                + "out: a 512 KiB reader per connection by design"), idle.notes());
    }

    private static final String DRIVES = "the library's client loop drives the C epoll echo at least 0.9x as fast as "
            + "the C load generator does, the same load";

    @Test
    void theClientLoopDrivesTheCEchoAtLeastNineTenthsAsFastAsTheCGenerator() {
        assertVerdict(true, AT_MOST + "wirespeed FrameClient over epoll, 1 loop 1,900,000.0 msg/s / C load generator "
                + "(many.c) 2,000,000.0 msg/s = 0.95x", judged(DRIVES, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000),
                        new ManyCase.Driven(ManyLoad.LOOP_EPOLL, MOST), load(1_900_000, 300, 12_000)));
        assertVerdict(false, AT_MOST + "wirespeed FrameClient over epoll, 1 loop 1,700,000.0 msg/s / C load generator "
                + "(many.c) 2,000,000.0 msg/s = 0.85x", judged(DRIVES, at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000),
                        new ManyCase.Driven(ManyLoad.LOOP_EPOLL, MOST), load(1_700_000, 300, 12_000)));
    }

    @Test
    void theGeneratorsTableSetsTheLibrarysClientBesideTheCGenerator() {
        Results<ManyCase, ManyResult> r = new Results<>();
        r.put(at(ManyServer.C_EPOLL), load(2_000_000, 300, 10_000));
        r.put(new ManyCase.Driven(ManyLoad.LOOP_URING, MOST), load(1_800_000, 500, 12_000));
        Table generators = new ManyExperiment().tables(r, LAB).get(1);
        assertTrue(generators.title().startsWith("many: load generators driving the C epoll echo, the same pipelined "
                + "load (1,000 connections, 100-byte bodies, 16 frames in flight each); "), generators.title());
        assertEquals(List.of(
                List.of("C load generator (many.c)", "2,000,000 [2,000,000-2,000,000]", "1.00x", "150", "100%",
                        "5,000.0", "10,000.0", "12,000.0"),
                List.of("wirespeed FrameClient over io_uring, 1 loop", "1,800,000 [1,800,000-1,800,000]", "0.90x", "250",
                        "100%", "6,000.0", "12,000.0", "14,400.0")), generators.rows());
    }

    private static final String CHEAPER_OVER_TLS = "over TLS, the library's event loop costs the server at most 1/1.2 of "
            + "Netty's CPU per frame, the JDK engine each (Netty's over the loop's, at least 1.2x)";

    @Test
    void overTlsTheLoopCostsTheServerAtMostFiveSixthsOfNettysCpu() {
        String where = "many over TLS (JDK engines), 1,000 connections, different cores: ";
        assertVerdict(true, where + "Netty epoll, 1 event loop server CPU 1,800.0 cpu ns/msg / " + EPOLL + " server CPU "
                + "1,400.0 cpu ns/msg = 1.29x", judged(CHEAPER_OVER_TLS, new ManyCase.Tls(ManyServer.NETTY, MOST, false),
                        load(300_000, 1_800, 30_000), new ManyCase.Tls(ManyServer.LOOP_EPOLL, MOST, false),
                        load(350_000, 1_400, 25_000)));
        assertVerdict(false, where + "Netty epoll, 1 event loop server CPU 1,800.0 cpu ns/msg / " + EPOLL + " server CPU "
                + "1,600.0 cpu ns/msg = 1.13x", judged(CHEAPER_OVER_TLS, new ManyCase.Tls(ManyServer.NETTY, MOST, false),
                        load(300_000, 1_800, 30_000), new ManyCase.Tls(ManyServer.LOOP_EPOLL, MOST, false),
                        load(350_000, 1_600, 25_000)));
    }

    @Test
    void everyLibraryGeneratorsOptionsAreOptionsTheLoadCommandTakes() {
        for (ManyLoad load : ManyLoad.values()) {
            if (load.impl() == null) {
                continue; // the C generator
            }
            List<String> args = Args.of(LoadCommand.OPTIONS).with(ConnectOptions.PORT, 1)
                    .with(LoadCommand.IMPL, load.impl()).toArgs();
            picocli.CommandLine.ParseResult parsed = dev.wirespeed.lab.Main.commandLine()
                    .parseArgs(args.toArray(String[]::new));
            assertEquals("load", parsed.subcommand().commandSpec().name(), load.label());
            assertEquals(List.of(), parsed.subcommand().unmatched(), load.label());
        }
    }

    @Test
    void everyJavaServersOptionsAreOptionsTheEchoCommandTakes() {
        for (ManyServer server : ManyServer.values()) {
            if (server.echo() == null) {
                continue; // the C epoll echo
            }
            List<String> args = server.echo().on(Args.of(EchoCommand.OPTIONS)
                    .with(EchoCommand.TRANSPORT, Transport.TCP).with(ListenOptions.PORT, 0)).toArgs();
            picocli.CommandLine.ParseResult parsed = dev.wirespeed.lab.Main.commandLine()
                    .parseArgs(args.toArray(String[]::new));
            assertEquals("echo", parsed.subcommand().commandSpec().name(), server.label());
            assertEquals(List.of(), parsed.subcommand().unmatched(), server.label());
        }
    }
}
