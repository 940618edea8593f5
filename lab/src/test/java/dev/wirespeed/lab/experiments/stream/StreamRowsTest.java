package dev.wirespeed.lab.experiments.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.NettyTransport;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.pingpong.SocketApi;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which rows each socket table has, which of them a run's mode leaves to {@code --full}, and in which
 * order the cells run.
 */
class StreamRowsTest {
    @Test
    void theIoUringReadersAreRowsOfBothSocketTablesFedByTheJavaServerAndByTheCWriter() {
        Environment.assume(Feature.IO_URING, SocketApi.URING.unavailable() == null, SocketApi.URING::unavailable);
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
        Environment.assume(Feature.IO_URING, NettyTransport.IO_URING.unavailable() == null,
                NettyTransport.IO_URING::unavailable);
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

    @Test
    void thePairedRowsRunInPassesWhereTheFirstOfThemStandsEveryOtherPassReversed() {
        Placement apart = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
        Placement together = new Placement(Placement.Kind.SAME_CORE, 1, 1);
        StreamCase zeroCopy = new StreamCase.Java(Strategies.ZERO_COPY);
        StreamCase fedByC = new StreamCase.Java(Strategies.WIRESPEED, 0, StreamCase.Writer.C);
        StreamCase blocking = new StreamCase.Ceiling(false, 0);
        StreamCase polling = new StreamCase.Ceiling(true, 0);
        StreamCase bigPipe = new StreamCase.Ceiling(false, StreamCase.BIG_PIPE);
        List<StreamCell> cells = StreamExperiment.cells(List.of(apart, together),
                List.of(zeroCopy, fedByC, blocking, polling, bigPipe), 3);
        List<StreamCell> perPlacement = List.of(new StreamCell(apart, zeroCopy),
                new StreamCell(apart, fedByC, 1), new StreamCell(apart, blocking, 1), new StreamCell(apart, polling, 1),
                new StreamCell(apart, polling, 2), new StreamCell(apart, blocking, 2), new StreamCell(apart, fedByC, 2),
                new StreamCell(apart, fedByC, 3), new StreamCell(apart, blocking, 3), new StreamCell(apart, polling, 3),
                new StreamCell(apart, bigPipe));
        assertEquals(perPlacement, cells.subList(0, perPlacement.size()));
        assertEquals(2 * perPlacement.size(), cells.size());
        assertTrue(cells.subList(perPlacement.size(), cells.size()).stream().allMatch(c -> c.placement().equals(together)));
    }

    @Test
    void mergingThePassesKeepsEveryRoundOfEveryPassInOneCellOfTheRow() {
        Placement apart = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
        StreamCase zeroCopy = new StreamCase.Java(Strategies.ZERO_COPY);
        StreamCase polling = new StreamCase.Ceiling(true, 0);
        Results<StreamCell, Throughput> results = new Results<>();
        results.put(new StreamCell(apart, zeroCopy), new Throughput(List.of(1.0, 2.0), List.of(), List.of()));
        results.put(new StreamCell(apart, polling, 1), new Throughput(List.of(5.0, 6.0), List.of(50.0), List.of()));
        results.put(new StreamCell(apart, polling, 2), new Throughput(List.of(9.0), List.of(90.0), List.of(3.0)));
        Results<StreamCell, Throughput> merged = StreamExperiment.merged(results);
        assertEquals(List.of(new StreamCell(apart, zeroCopy), new StreamCell(apart, polling)), merged.cases());
        assertEquals(List.of(5.0, 6.0, 9.0), merged.get(new StreamCell(apart, polling)).mbRounds());
        assertEquals(6.0, merged.get(new StreamCell(apart, polling)).mbPerSec().median());
        assertEquals(List.of(3.0), merged.get(new StreamCell(apart, polling)).cpuRounds());
        assertEquals(null, merged.get(new StreamCell(apart, zeroCopy)).msgPerSec(), "no frames counted, no figure");
    }
}
