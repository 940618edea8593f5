package dev.wirespeed.lab.experiments.many;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Stats;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The many experiment's findings, on synthetic results: each can hold and each can fail. */
class ManyExperimentTest {
    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final int MOST = 1_000;

    private static ManyResult.Load load(double framesPerSecond, double cpuNs, double p99) {
        return new ManyResult.Load(Stats.exact(framesPerSecond), Stats.exact(p99 / 2), Stats.exact(p99),
                Stats.exact(p99 * 1.2), Stats.exact(p99 * 1.5), Stats.exact(cpuNs), Stats.exact(0.85), Stats.exact(1.0));
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
        return r;
    }

    private static Finding finding(List<Finding> findings, String start) {
        return findings.stream().filter(f -> f.claim().startsWith(start)).findFirst().orElseThrow();
    }

    @Test
    void everyTargetHoldsForALoopAtCsRateAndHalfNettysCost() {
        List<Finding> findings = new ManyExperiment().findings(results(1_900_000, 320, 1.3, 0.95, 1_024, 3_000, 1.05), LAB);
        assertEquals(12, findings.size(), findings.toString());
        for (Finding f : findings) {
            assertTrue(f.holds(), f.summary());
        }
    }

    @Test
    void eachTargetFailsWhenItsFigureCrossesTheLine() {
        List<Finding> slow = new ManyExperiment().findings(results(1_500_000, 400, 1.0, 0.8, 8_192, 20_000, 1.2), LAB);
        for (String claim : List.of("the library's event loop echoes at least 0.9x",
                "the library's event loop costs the server at most 1/0.9",
                "the library's event loop echoes at least 1.2x",
                "beside a slow reader", "a slow reader grows", "an idle connection costs",
                "the server's JFR events", "the library's event loop over io_uring echoes at least 1.2x",
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

    @Test
    void frameCountsPerConnectionCoverSixteenConnectionsAtLeast() {
        ManyExperiment.Settings settings = new ManyExperiment.Settings(List.of(1, 16, 256, 1_000), 1_000_000, 6, 10_000);
        assertEquals(62_500, settings.framesPerConnection(1));
        assertEquals(62_500, settings.framesPerConnection(16));
        assertEquals(1_000, settings.framesPerConnection(1_000));
        assertEquals(ManyExperiment.WINDOW, new ManyExperiment.Settings(List.of(1), 10, 2, 1).framesPerConnection(1));
    }
}
