package dev.wirespeed.lab.experiments.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.Experiments;
import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shm experiment's registration, rows, tables and measurements, on synthetic results. */
class ShmExperimentTest {
    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);

    @Test
    void itRunsWhenNamedOrWithFullAsTheOtherDeepDivesDo() {
        assertTrue(Experiments.byName("shm").orElseThrow() instanceof ShmExperiment);
        assertTrue(Experiments.names(true).contains("shm"));
        assertFalse(Experiments.names(false).contains("shm"));
    }

    @Test
    void theIdlePartPutsTheLibrarysParkedReaderBesideTheCRingsAndTheFutexProbeAndTheStreamAddsTheUnixSocket() {
        assertEquals(List.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON, Peer.C), Part.OPEN_LOOP.peers(true));
        assertEquals(List.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON), Part.CLOSED_LOOP.peers(false));
        assertEquals(List.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON, Peer.C, Peer.UNIX), Part.STREAM.peers(true));
        assertEquals(List.of(Peer.WIRESPEED, Peer.C, Peer.FUTEX), Part.IDLE.peers(true));
        assertEquals(List.of(Peer.WIRESPEED), Part.IDLE.peers(false));
        assertEquals("Aeron IPC, open loop at 50,000/s", Part.OPEN_LOOP.row(Peer.AERON));
        assertEquals("C ring, same layout, futex parking", Part.IDLE.row(Peer.C));
        assertEquals("kernel futex wake-up (C, no ring)", Part.IDLE.row(Peer.FUTEX));
        assertEquals(3 * 5, new ShmExperiment().steps(new ShmCell(APART, Part.STREAM), LAB), "3 runs of 5 peers");
        assertEquals(3 * 3, new ShmExperiment().steps(new ShmCell(APART, Part.IDLE), LAB), "3 runs of 3 peers");
    }

    @Test
    void theManyWriterStreamPutsTheManyToOneRingBesideAgronasAndAeronsAndTheCRingOfItsLayoutNamingTheWriters() {
        assertEquals(List.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON, Peer.C), Part.MANY_STREAM.peers(true));
        assertEquals(List.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON), Part.MANY_STREAM.peers(false));
        ShmCell four = new ShmCell(APART, Part.MANY_STREAM, 4);
        assertEquals(List.of("wirespeed ManyToOneRing, 4 writers", "Agrona ManyToOneRingBuffer, 4 writers",
                "Aeron IPC, concurrent publications, 4 writers", "C ring, same layout 2, 4 writers"),
                Part.MANY_STREAM.peers(true).stream().map(four::row).toList());
        assertEquals("wirespeed SharedRing", new ShmCell(APART, Part.STREAM).row(Peer.WIRESPEED));
        assertEquals(3 * 4, new ShmExperiment().steps(four, LAB), "3 runs of 4 peers");
    }

    @Test
    void aCellHasOneWriterButInTheManyWriterStreamWhichHasAtLeastTwo() {
        var one = assertThrows(IllegalArgumentException.class, () -> new ShmCell(APART, Part.MANY_STREAM, 1));
        assertEquals("writers=1 for part=MANY_STREAM: at least 2 for MANY_STREAM, else 1", one.getMessage());
        var two = assertThrows(IllegalArgumentException.class, () -> new ShmCell(APART, Part.STREAM, 2));
        assertEquals("writers=2 for part=STREAM: at least 2 for MANY_STREAM, else 1", two.getMessage());
    }

    @Test
    void theManyWriterStreamHasATableOfItsOwnWithBothCountsOfWritersAndARowEachInTheResults() {
        Results<ShmCell, ShmResult> results = new Results<>();
        ShmResult.Rate rate = new ShmResult.Rate(new Stats(6e6, 5e6, 7e6, 8), Stats.exact(50));
        for (int writers : ShmExperiment.WRITERS) {
            results.put(new ShmCell(APART, Part.MANY_STREAM, writers), new ShmResult.Rates(Map.of(Peer.WIRESPEED, rate,
                    Peer.AGRONA, rate)));
        }
        List<Table> tables = new ShmExperiment().tables(results, LAB);
        assertEquals(1, tables.size());
        assertTrue(tables.getFirst().title().startsWith("shm: 100-byte frames from several writer processes into one "
                + "ring"), tables.getFirst().title());
        assertEquals(List.of(List.of("wirespeed ManyToOneRing, 2 writers", "6,000,000 [5,000,000-7,000,000]", "648.0",
                "50.0"), List.of("Agrona ManyToOneRingBuffer, 2 writers", "6,000,000 [5,000,000-7,000,000]", "648.0",
                "50.0"), List.of("wirespeed ManyToOneRing, 4 writers", "6,000,000 [5,000,000-7,000,000]", "648.0",
                "50.0"), List.of("Agrona ManyToOneRingBuffer, 4 writers", "6,000,000 [5,000,000-7,000,000]", "648.0",
                "50.0")), tables.getFirst().rows());
        List<Measurement> rows = new ShmExperiment().measurements(results, LAB);
        assertEquals(List.of("wirespeed ManyToOneRing, 2 writers", "Agrona ManyToOneRingBuffer, 2 writers",
                "wirespeed ManyToOneRing, 4 writers", "Agrona ManyToOneRingBuffer, 4 writers"), rows.stream()
                .filter(m -> m.unit() == Unit.MSG_PER_S).map(m -> m.series().name()).toList());
        assertEquals(List.of(Role.LIBRARY, Role.PEER, Role.LIBRARY, Role.PEER), rows.stream()
                .filter(m -> m.unit() == Unit.MSG_PER_S).map(m -> m.series().role()).toList());
    }

    /** One placement: the library and the C ring in each part, the idle part also the futex probe. */
    private static Results<ShmCell, ShmResult> results() {
        Map<Percentile, Stats> stats = new EnumMap<>(Percentile.class);
        for (Percentile p : Percentile.values()) {
            stats.put(p, Stats.exact(p.ordinal() + 1));
        }
        Distribution d = new Distribution(stats);
        ShmResult.Rate rate = new ShmResult.Rate(new Stats(1e7, 9e6, 1.1e7, 8), Stats.exact(30));
        ShmResult.Wakeup wake = new ShmResult.Wakeup(Stats.exact(60), Stats.exact(80), Stats.exact(0.002));
        ShmResult.Wakeup cRing = new ShmResult.Wakeup(new Stats(55, 50, 58, 3), Stats.exact(70), Stats.exact(0.001));
        ShmResult.Wakeup futex = new ShmResult.Wakeup(Stats.exact(30), Stats.exact(40), Stats.exact(0.0001));
        Results<ShmCell, ShmResult> results = new Results<>();
        results.put(new ShmCell(APART, Part.CLOSED_LOOP), new ShmResult.Latencies(Map.of(Peer.WIRESPEED, d, Peer.C, d)));
        results.put(new ShmCell(APART, Part.OPEN_LOOP), new ShmResult.Latencies(Map.of(Peer.WIRESPEED, d, Peer.C, d)));
        results.put(new ShmCell(APART, Part.STREAM), new ShmResult.Rates(Map.of(Peer.WIRESPEED, rate, Peer.C, rate)));
        results.put(new ShmCell(APART, Part.IDLE), new ShmResult.Wakeups(Map.of(Peer.WIRESPEED, wake, Peer.C, cRing,
                Peer.FUTEX, futex)));
        return results;
    }

    @Test
    void eachPlacementHasATableOfRoundTripsOfTheStreamAndOfTheWakeUpsWithTheirPeersInOrder() {
        List<Table> tables = new ShmExperiment().tables(results(), LAB);
        assertEquals(3, tables.size());
        assertEquals(List.of("wirespeed SharedRing", "C ring, same layout", "wirespeed SharedRing, open loop at "
                + "50,000/s", "C ring, same layout, open loop at 50,000/s"), tables.get(0).rows().stream()
                .map(List::getFirst).toList());
        assertEquals(List.of("wirespeed SharedRing", "10,000,000 [9,000,000-11,000,000]", "1,080.0", "30.0"),
                tables.get(1).rows().getFirst());
        assertEquals(List.of(List.of("wirespeed SharedRing, futex parking", "60.0 [60.0-60.0]", "80.0", "0.200%"),
                List.of("C ring, same layout, futex parking", "55.0 [50.0-58.0]", "70.0", "0.100%"),
                List.of("kernel futex wake-up (C, no ring)", "30.0 [30.0-30.0]", "40.0", "0.010%")),
                tables.get(2).rows());
    }

    @Test
    void theUnixSocketRowOfTheStreamIsMeasuredAsAUnixSocket() {
        Results<ShmCell, ShmResult> results = new Results<>();
        ShmResult.Rate rate = new ShmResult.Rate(Stats.exact(4e6), Stats.exact(90));
        results.put(new ShmCell(APART, Part.STREAM), new ShmResult.Rates(Map.of(Peer.WIRESPEED, rate, Peer.UNIX, rate)));
        List<Measurement> rows = new ShmExperiment().measurements(results, LAB);
        assertEquals(List.of(Medium.SHM, Medium.SHM, Medium.UNIX, Medium.UNIX), rows.stream()
                .map(m -> m.series().medium()).toList());
        assertEquals("Unix socket, wirespeed-spin", rows.getLast().series().name());
    }

    @Test
    void measurementsNameTheSharedMemoryMediumAndTheIdleCpuInPercentOfACore() {
        List<Measurement> rows = new ShmExperiment().measurements(results(), LAB);
        assertTrue(rows.stream().allMatch(m -> m.series().medium() == Medium.SHM && m.series().experiment().equals("shm")));
        assertEquals(2 * 2 * Percentile.values().length + 2 * 2 + 3 * 3, rows.size(),
                "percentiles of two loops, rate and CPU of the stream for two peers, wake p50, max and CPU for three");
        Measurement idle = rows.stream().filter(m -> m.unit() == Unit.CORE_PERCENT).findFirst().orElseThrow();
        assertEquals("wirespeed SharedRing, futex parking", idle.series().name());
        assertEquals(0.2, idle.stats().median(), 1e-12);
    }

    @Test
    void theIdlePartsCRowsAreMeasuredAsCeilingsUnderTheirOwnNames() {
        List<Measurement> idle = new ShmExperiment().measurements(results(), LAB).stream()
                .filter(m -> m.unit() == Unit.CORE_PERCENT).toList();
        assertEquals(List.of("wirespeed SharedRing, futex parking", "C ring, same layout, futex parking",
                "kernel futex wake-up (C, no ring)"), idle.stream().map(m -> m.series().name()).toList());
        assertEquals(List.of(Role.LIBRARY, Role.CEILING, Role.CEILING), idle.stream().map(m -> m.series().role())
                .toList());
    }
}
