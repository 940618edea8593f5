package dev.wirespeed.lab.experiments.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wirespeed.lab.NettyTransport;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.latency.SocketApi;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which rows each socket table has, and which of them a run's mode leaves to {@code --full}. */
class StreamRowsTest {
    @Test
    void theIoUringReadersAreRowsOfBothSocketTablesFedByTheJavaServerAndByTheCWriter() {
        assumeTrue(SocketApi.URING.unavailable() == null, SocketApi.URING.unavailable());
        for (Link link : List.of(Link.TCP, Link.UNIX)) {
            List<StreamCase> rows = new StreamExperiment(link).rows(true, false);
            for (Strategies uring : List.of(Strategies.URING, Strategies.URING_SPIN)) {
                assertTrue(rows.contains(new StreamCase.Java(uring)), link + ": " + rows);
                assertTrue(rows.contains(new StreamCase.Java(uring, 0, StreamCase.Writer.C)), link + ": " + rows);
            }
        }
        assertFalse(new StreamExperiment(Link.PIPE).rows(true, false).stream()
                .anyMatch(row -> row instanceof StreamCase.Java java && StreamExperiment.IO_URING.contains(java.strategy())));
    }

    @Test
    void nettysIoUringTransportIsATcpRowOnly() {
        assumeTrue(NettyTransport.IO_URING.unavailable() == null, NettyTransport.IO_URING.unavailable());
        assertTrue(new StreamExperiment(Link.TCP).rows(true, false).contains(new StreamCase.Java(Strategies.NETTY_URING)));
        assertFalse(new StreamExperiment(Link.UNIX).rows(true, false).contains(new StreamCase.Java(Strategies.NETTY_URING)));
    }

    @Test
    void everyIoUringRowRunsWithFullOnly() {
        for (Strategies strategy : Strategies.values()) {
            boolean ioUring = StreamExperiment.IO_URING.contains(strategy);
            assertEquals(!ioUring, StreamExperiment.runsIn(strategy, Mode.DEFAULT), strategy.cliName());
            assertEquals(!ioUring, StreamExperiment.runsIn(strategy, Mode.QUICK), strategy.cliName());
            assertTrue(StreamExperiment.runsIn(strategy, Mode.FULL), strategy.cliName());
        }
    }
}
