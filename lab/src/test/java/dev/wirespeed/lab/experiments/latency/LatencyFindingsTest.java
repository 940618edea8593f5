package dev.wirespeed.lab.experiments.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.linux.NativeSocket;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The latency findings judged on synthetic distributions. */
class LatencyFindingsTest {
    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    /** A full run's context: its runs of 200,000 round trips decide p99.99. */
    private static final LabContext FULL = new LabContext(Mode.FULL, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);

    @BeforeEach
    void nativeSocketsExist() {
        assumeTrue(NativeSocket.isSupported(), "the findings compare the native path, which needs Linux x64");
    }

    /** A distribution whose median is {@code p50}, whose fastest run was {@code fastest}, and p99 twice p50. */
    private static Distribution distribution(double p50, double fastest) {
        Map<Percentile, Stats> stats = new EnumMap<>(Percentile.class);
        stats.put(Percentile.P50, new Stats(p50, fastest, p50 * 1.1, 3));
        stats.put(Percentile.P90, Stats.exact(p50 * 1.2));
        stats.put(Percentile.P99, Stats.exact(p50 * 2));
        stats.put(Percentile.P999, Stats.exact(p50 * 8));
        stats.put(Percentile.P9999, Stats.exact(p50 * 20));
        stats.put(Percentile.MAX, Stats.exact(p50 * 40));
        return new Distribution(stats);
    }

    private static List<Finding> findings(double nativeSpinP50) {
        Results<LatencyCell, Distribution> results = new Results<>();
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.JDK)), distribution(76.9, 76.8));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.JDK_SPIN)), distribution(6.2, 6.1));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.NATIVE)), distribution(73.7, 73.6));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.NATIVE_SPIN)), distribution(nativeSpinP50, 6.0));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.NETTY)), distribution(75.8, 74.3));
        results.put(new LatencyCell(APART, new LatencyCase.C(false)), distribution(71.1, 69.5));
        results.put(new LatencyCell(APART, new LatencyCase.C(true)), distribution(5.8, 5.7));
        return new LatencyExperiment().findings(results, LAB);
    }

    /** The same results with the io_uring rows: {@code uringSpinP50} polling, the blocking one at the native's. */
    private static List<Finding> withUring(double uringSpinP50) {
        Results<LatencyCell, Distribution> results = new Results<>();
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.JDK)), distribution(76.9, 76.8));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.JDK_SPIN)), distribution(6.2, 6.1));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.NATIVE)), distribution(73.7, 73.6));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.NATIVE_SPIN)), distribution(6.0, 6.0));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.URING)), distribution(73.7, 73.6));
        results.put(new LatencyCell(APART, new LatencyCase.Java(Impl.URING_SPIN)), distribution(uringSpinP50, 6.0));
        results.put(new LatencyCell(APART, new LatencyCase.C(false)), distribution(71.1, 69.5));
        results.put(new LatencyCell(APART, new LatencyCase.C(true)), distribution(5.8, 5.7));
        return new LatencyExperiment().findings(results, LAB);
    }

    @Test
    void theIoUringFindingsHoldAndFailOnTheirFigures() {
        String p50 = "the io_uring path polling its completions (uring-spin) has a p50 no worse";
        String tail = "the io_uring path's p99.9 is within 1.5x the C ping-pong's";
        assertTrue(finding(withUring(6.0), p50).holds());
        Finding slower = finding(withUring(7.5), p50);
        assertFalse(slower.holds(), "7.5 / 6.0 = 1.25x");
        assertEquals("different cores", slower.failures().get(0).where());
        assertTrue(finding(withUring(8.7), tail).holds(), "p99.9 8 x 8.7 / 8 x 5.8 = 1.5x");
        Finding tailFails = finding(withUring(8.8), tail);
        assertFalse(tailFails.holds(), "8.8 / 5.8 = 1.52x");
        assertEquals("different cores, busy-polling", tailFails.failures().get(0).where());
        assertTrue(findings(6.1).stream().noneMatch(f -> f.claim().startsWith(p50)), "io_uring findings without its rows");
    }

    private static Finding finding(List<Finding> findings, String start) {
        return findings.stream().filter(f -> f.claim().startsWith(start)).findFirst().orElseThrow();
    }

    @Test
    void theNativePathIsNoWorseThanTheJdkWithinItsStatedFivePercent() {
        assertTrue(finding(findings(6.1), "the native path's p50 and p99 are no worse").holds());
        assertTrue(finding(findings(6.5), "the native path's p50 and p99 are no worse").holds(), "6.5 / 6.2 = 1.048x");
        Finding worse = finding(findings(6.6), "the native path's p50 and p99 are no worse");
        assertFalse(worse.holds(), "6.6 / 6.2 = 1.065x");
        assertEquals("different cores, busy-polling", worse.failures().get(0).where());
    }

    @Test
    void bypassingPaysOnlyBelowTheJdksFastestRunInEveryMode() {
        Finding bypass = finding(findings(6.1), "bypassing the JDK's SocketChannel pays");
        assertFalse(bypass.holds(), "6.1 is not below the JDK's fastest 6.1: " + bypass.figures());
        assertEquals(5.7 / 6.8, bypass.published());
    }

    /** Findings where every Java path's percentiles are {@code factor} times the C ping-pong's of its mode. */
    private static List<Finding> findingsAtTimesC(double factor) {
        return findingsAtTimesC(factor, FULL);
    }

    /** The same, judged in {@code lab}'s mode. */
    private static List<Finding> findingsAtTimesC(double factor, LabContext lab) {
        Results<LatencyCell, Distribution> results = new Results<>();
        for (boolean spin : new boolean[] {false, true}) {
            double c = spin ? 5.8 : 71.1;
            results.put(new LatencyCell(APART, new LatencyCase.C(spin)), distribution(c, c));
            for (Impl impl : spin ? List.of(Impl.JDK_SPIN, Impl.NATIVE_SPIN) : List.of(Impl.JDK, Impl.NATIVE)) {
                results.put(new LatencyCell(APART, new LatencyCase.Java(impl)), distribution(c * factor, c * factor));
            }
        }
        return new LatencyExperiment().findings(results, lab);
    }

    @Test
    void aDefaultRunJudgesTheMedianAndP999ButNotesThatItsRunsCannotDecideP9999() {
        LabContext lab = new LabContext(Mode.DEFAULT, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()), false);
        List<Finding> findings = findingsAtTimesC(1.6, lab);
        assertFalse(finding(findings, "the native and JDK paths' p50 is within 1.05x").holds());
        assertFalse(finding(findings, "the native and JDK paths' p99.9 is within 1.25x").holds());
        assertTrue(findings.stream().noneMatch(f -> f.claim().contains("p99.99")), findings.toString());
        assertEquals(List.of("latency: p99.99 targets are not judged: a run of 10,000 round trips leaves 1 beyond "
                + "p99.99, fewer than 10; runs of at least 100,000 decide it"), lab.notes());
    }

    @Test
    void aQuickRunJudgesOnlyTheMedian() {
        LabContext lab = new LabContext(Mode.QUICK, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()), false);
        List<Finding> findings = findingsAtTimesC(1.6, lab);
        assertFalse(finding(findings, "the native and JDK paths' p50 is within 1.05x").holds());
        assertTrue(findings.stream().noneMatch(f -> f.claim().contains("p99.9")), findings.toString());
        assertEquals(2, lab.notes().size(), "p99.9 and p99.99 each noted: " + lab.notes());
    }

    @Test
    void bothJavaPathsMustBeNearCAtTheMedianAndInTheTail() {
        String p50 = "the native and JDK paths' p50 is within 1.05x";
        String p999 = "the native and JDK paths' p99.9 is within 1.25x";
        String p9999 = "the native and JDK paths' p99.99 is within 1.50x";
        assertTrue(finding(findingsAtTimesC(1.04), p50).holds());
        Finding slow = finding(findingsAtTimesC(1.06), p50);
        assertFalse(slow.holds());
        assertEquals(4, slow.failures().size(), "native and JDK, blocking and busy-polling: " + slow.failures());
        assertTrue(finding(findingsAtTimesC(1.06), p999).holds());
        assertFalse(finding(findingsAtTimesC(1.3), p999).holds());
        assertTrue(finding(findingsAtTimesC(1.3), p9999).holds());
        assertFalse(finding(findingsAtTimesC(1.6), p9999).holds());
    }

    /** Findings with open-loop rows whose p99.9 is {@code factor} times the C open loop's, and the closed rows equal to C. */
    private static List<Finding> findingsWithOpenLoopsAtTimesC(double factor, boolean withCOpenLoop) {
        Results<LatencyCell, Distribution> results = new Results<>();
        for (boolean spin : new boolean[] {false, true}) {
            double c = spin ? 5.8 : 71.1;
            results.put(new LatencyCell(APART, new LatencyCase.C(spin)), distribution(c, c));
            for (Impl impl : spin ? List.of(Impl.JDK_SPIN, Impl.NATIVE_SPIN) : List.of(Impl.JDK, Impl.NATIVE)) {
                results.put(new LatencyCell(APART, new LatencyCase.Java(impl)), distribution(c, c));
            }
        }
        if (withCOpenLoop) {
            results.put(new LatencyCell(APART, new LatencyCase.COpenLoop(LatencyExperiment.OPEN_LOOP_RATE)),
                    distribution(7.0, 7.0));
        }
        for (Impl impl : List.of(Impl.JDK_SPIN, Impl.NATIVE_SPIN)) {
            results.put(new LatencyCell(APART, new LatencyCase.OpenLoop(impl, LatencyExperiment.OPEN_LOOP_RATE)),
                    distribution(7.0 * factor, 7.0 * factor));
        }
        return new LatencyExperiment().findings(results, LAB);
    }

    @Test
    void theOpenLoopsAreJudgedAgainstTheCOpenLoopAtP999WhenItRan() {
        String open = "the busy-polling paths' open-loop p99.9 is within 1.25x the C ping-pong's at the same rate";
        assertTrue(finding(findingsWithOpenLoopsAtTimesC(1.2, true), open).holds());
        Finding slow = finding(findingsWithOpenLoopsAtTimesC(1.3, true), open);
        assertFalse(slow.holds());
        assertEquals(2, slow.failures().size(), "native-spin and jdk-spin open loops: " + slow.failures());
        assertTrue(findingsWithOpenLoopsAtTimesC(1.3, false).stream().noneMatch(f -> f.claim().startsWith(open)),
                "no C open loop, no finding");
    }
}
