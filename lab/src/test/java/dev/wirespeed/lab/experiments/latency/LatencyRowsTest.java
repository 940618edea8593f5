package dev.wirespeed.lab.experiments.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Ring;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.pingpong.SocketApi;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which rows each mode's latency table has. */
class LatencyRowsTest {
    private static boolean readsThroughIoUring(LatencyCase row) {
        return row instanceof LatencyCase.RingSetup
                || row instanceof LatencyCase.Java java && java.impl().ioUring();
    }

    @Test
    void theIoUringRowsRunInFullRunsOnly() {
        for (Mode mode : List.of(Mode.QUICK, Mode.DEFAULT)) {
            assertTrue(LatencyExperiment.rows(true, mode).stream().noneMatch(LatencyRowsTest::readsThroughIoUring),
                    mode + ": " + LatencyExperiment.rows(true, mode));
        }
        Environment.assume(Feature.IO_URING, SocketApi.URING.unavailable() == null, SocketApi.URING::unavailable);
        List<LatencyCase> full = LatencyExperiment.rows(true, Mode.FULL);
        int nettyUring = Impl.NETTY_URING.unavailable() == null ? 1 : 0;
        assertEquals(2 + nettyUring + LatencyExperiment.RING_SETUPS.size(),
                full.stream().filter(LatencyRowsTest::readsThroughIoUring).count(), full.toString());
        assertTrue(full.contains(new LatencyCase.RingSetup(Impl.URING, Ring.SQPOLL)), full.toString());
        assertTrue(!full.contains(new LatencyCase.RingSetup(Impl.URING_SPIN, Ring.SQPOLL)), "a polling ping and its "
                + "submission-polling kernel thread on one CPU starve each other: " + full);
    }

    @Test
    void aRingSetupRowIsNamedAsItsPingIsCalledAndNeedsAnIoUringPing() {
        assertEquals("uring-spin --ring defer", new LatencyCase.RingSetup(Impl.URING_SPIN, Ring.DEFER).name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LatencyCase.RingSetup(Impl.NATIVE_SPIN, Ring.SQPOLL));
        assertEquals("--ring sqpoll needs an io_uring ping, not native-spin", e.getMessage());
    }
}
