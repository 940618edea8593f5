package dev.wirespeed.lab.experiments.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A stream table and its rows of results.json as a quick run shows them, on synthetic rounds. */
class StreamTablesTest {
    private static final LabContext QUICK = new LabContext(Mode.QUICK, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    private static final Placement TOGETHER = new Placement(Placement.Kind.SAME_CORE, 1, 1);
    private static final StreamCase UNBUFFERED = new StreamCase.Java(Strategies.UNBUFFERED);
    private static final StreamCase ZERO_COPY = new StreamCase.Java(Strategies.ZERO_COPY);
    private static final StreamCase FED_BY_C = new StreamCase.Java(Strategies.WIRESPEED, 0, StreamCase.Writer.C);
    private static final StreamCase POLLING = new StreamCase.Ceiling(true, 0);
    private static final StreamCase IPERF = new StreamCase.Iperf();

    /** Rounds of 0.9, 1 and 1.1 times {@code mb}; 10,000 frames a second per MB/s, 60,000 / MB/s CPU ns a frame. */
    private static Throughput rounds(StreamCase row, double mb) {
        boolean frames = !(row instanceof StreamCase.Iperf);
        return new Throughput(List.of(0.9 * mb, mb, 1.1 * mb), frames ? List.of(mb * 1e4) : List.of(),
                frames ? List.of(6e4 / mb) : List.of());
    }

    /** Two placements of five rows, iperf3 at the first only; the paired rows in one pass. */
    private static Results<StreamCell, Throughput> run() {
        Results<StreamCell, Throughput> results = new Results<>();
        for (Placement placement : List.of(APART, TOGETHER)) {
            results.put(new StreamCell(placement, UNBUFFERED), rounds(UNBUFFERED, 50));
            results.put(new StreamCell(placement, ZERO_COPY), rounds(ZERO_COPY, 2400));
            if (placement == APART) {
                results.put(new StreamCell(placement, IPERF), rounds(IPERF, 2500));
            }
            results.put(new StreamCell(placement, FED_BY_C, 1), rounds(FED_BY_C, 2900));
            results.put(new StreamCell(placement, POLLING, 1), rounds(POLLING, 3800));
        }
        return results;
    }

    @Test
    void theTcpTableHasARowPerCaseAndFiveColumnsPerPlacement() {
        List<Table> tables = new StreamExperiment(Link.TCP).tables(run(), QUICK);
        assertEquals(1, tables.size());
        Table table = tables.get(0);
        assertEquals("tcp: TCP loopback, 100-byte bodies, server batching 512 KiB writes; median of the measured rounds "
                + "[min-max] of 1 client run(s) a row (1 for the paired rows), each run 2 round(s) of 25 ms after a warm-up "
                + "of at least 50 ms", table.title());
        assertEquals(List.of("case", "different cores (server cpu0, client cpu1): msg/s", "MB/s [min-max]", "CPU ns/msg",
                "% of ceiling", "article MB/s", "same core (server cpu1, client cpu1): msg/s", "MB/s [min-max]",
                "CPU ns/msg", "% of ceiling", "article MB/s"), table.header());
        assertEquals(List.of(
                List.of("unbuffered", "500,000", "50.0 [45.0-55.0]", "1200.0", "1%", "32.9",
                        "500,000", "50.0 [45.0-55.0]", "1200.0", "1%", "32.9"),
                List.of("zero-copy", "24,000,000", "2,400.0 [2,160.0-2,640.0]", "25.0", "63%", "2147.1",
                        "24,000,000", "2,400.0 [2,160.0-2,640.0]", "25.0", "63%", "2147.1"),
                List.of("iperf3", "-", "2,500.0 [2,250.0-2,750.0]", "-", "66%", "-",
                        "-", "-", "-", "-", "-"),
                List.of("wirespeed <- C writer", "29,000,000", "2,900.0 [2,610.0-3,190.0]", "20.7", "76%", "-",
                        "29,000,000", "2,900.0 [2,610.0-3,190.0]", "20.7", "76%", "-"),
                List.of("C read(2) busy-poll", "38,000,000", "3,800.0 [3,420.0-4,180.0]", "15.8", "100%", "-",
                        "38,000,000", "3,800.0 [3,420.0-4,180.0]", "15.8", "100%", "-")), table.rows());
        assertEquals(List.of("% of ceiling: against the best C or iperf3 row of the same placement and pipe size",
                "the rows fed by the C writer and the C readers of the default socket ran in 1 interleaved pass(es) of "
                        + "one client run each",
                "warm-up: fixed, not waiting for the JIT to settle (quick mode)",
                "each Java row's client also ran once counting frames instead of timing rounds: a row whose timed "
                        + "median strays more than 15% from that pass's, or whose rounds spread wider than their median, "
                        + "is set aside and judges no finding"), table.notes());
    }

    @Test
    void thePipeTableNamesItsPipeAndItsPasses() {
        Table table = new StreamExperiment(Link.PIPE).tables(run(), QUICK).get(0);
        assertEquals("pipe: pipe (server stdout | client stdin), 64 KiB unless said, 100-byte bodies, server batching "
                + "512 KiB writes; median of the measured rounds [min-max] of 1 client run(s) a row (1 for the paired "
                + "rows), each run 2 round(s) of 25 ms after a warm-up of at least 50 ms", table.title());
        assertEquals(List.of("unbuffered", "50.0 [45.0-55.0]", "50.8"), List.of(table.rows().get(0).get(0),
                table.rows().get(0).get(2), table.rows().get(0).get(5)), "the article's pipe figure of its placement");
        assertEquals("the rows fed by the C writer and the C readers of the default pipe ran in 1 interleaved pass(es) of "
                + "one client run each", table.notes().get(1));
    }

    @Test
    void everyRowGivesMegabytesWithItsShareOfTheCeilingAndFramesAndCpuWhereItCountsThem() {
        List<Measurement> rows = new StreamExperiment(Link.TCP).measurements(run(), QUICK);
        Series zeroCopy = new Series("tcp", "zero-copy", Role.ARTICLE, Medium.TCP, 100);
        assertEquals(List.of(
                new Measurement(zeroCopy, APART, Unit.MB_PER_S, null, new Stats(2400, 0.9 * 2400, 1.1 * 2400, 3), 2147.1,
                        2400 / 3800.0),
                new Measurement(zeroCopy, APART, Unit.MSG_PER_S, null, Stats.exact(24_000_000), null, null),
                new Measurement(zeroCopy, APART, Unit.CPU_NS_PER_MSG, null, Stats.exact(25), null, null)),
                rows.stream().filter(m -> m.series().equals(zeroCopy) && m.placement().equals(APART)).toList());
        Series iperf = new Series("tcp", "iperf3", Role.CEILING, Medium.TCP, 100);
        assertEquals(List.of(new Measurement(iperf, APART, Unit.MB_PER_S, null, new Stats(2500, 0.9 * 2500, 1.1 * 2500,
                3), null, 2500 / 3800.0)), rows.stream().filter(m -> m.series().equals(iperf)).toList(),
                "no frames counted, no CPU measured");
        Series fedByC = new Series("tcp", "wirespeed <- C writer", Role.LIBRARY, Medium.TCP, 100);
        assertEquals(6, rows.stream().filter(m -> m.series().equals(fedByC)).count(), "three units at two placements");
    }
}
