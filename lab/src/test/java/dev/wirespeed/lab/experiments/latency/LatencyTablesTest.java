package dev.wirespeed.lab.experiments.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.report.Console;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The latency tables: each percentile the lab sets aside is marked in its cell and named under its table. */
class LatencyTablesTest {
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    private static final Placement TOGETHER = new Placement(Placement.Kind.SAME_CORE, 1, 1);
    private static final LatencyCell JDK_SPIN_APART = new LatencyCell(APART, new LatencyCase.Java(Impl.JDK_SPIN));

    private static LabContext lab() {
        return new LabContext(Mode.DEFAULT, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()), false);
    }

    /** Runs that agree: each percentile's min and max within a tenth of its median. */
    private static Distribution agreeing(double p50) {
        Map<Percentile, Stats> stats = new EnumMap<>(Percentile.class);
        for (Percentile p : Percentile.values()) {
            double median = p50 * (1 + p.ordinal());
            stats.put(p, new Stats(median, median * 0.9, median * 1.1, 3));
        }
        return new Distribution(stats);
    }

    /** Runs that disagree at every percentile: one run's figure a thousand times another's. */
    private static Distribution wild() {
        Map<Percentile, Stats> stats = new EnumMap<>(Percentile.class);
        for (Percentile p : Percentile.values()) {
            stats.put(p, new Stats(60.0, 37.0, 90_702.0, 3));
        }
        return new Distribution(stats);
    }

    /** jdk-spin's runs disagree at different cores only; every other cell agrees. */
    private static Results<LatencyCell, Distribution> results() {
        Results<LatencyCell, Distribution> results = new Results<>();
        for (Placement placement : List.of(APART, TOGETHER)) {
            results.put(new LatencyCell(placement, new LatencyCase.Java(Impl.JDK)), agreeing(76.9));
            LatencyCell jdkSpin = new LatencyCell(placement, new LatencyCase.Java(Impl.JDK_SPIN));
            results.put(jdkSpin, jdkSpin.equals(JDK_SPIN_APART) ? wild() : agreeing(6.2));
            results.put(new LatencyCell(placement, new LatencyCase.Java(Impl.NATIVE_SPIN)), agreeing(6.0));
        }
        return results;
    }

    @Test
    void theCellsSetAsideAreMarkedAsTheStreamTablesMarkThemAndNamedInTheNotes() {
        LabContext lab = lab();
        Results<LatencyCell, Distribution> results = results();
        LatencyExperiment latency = new LatencyExperiment();
        List<Table> tables = latency.tables(results, lab);
        assertEquals(2, tables.size());
        Table apart = tables.getFirst();
        List<String> jdkSpin = apart.rows().get(1);
        assertEquals("jdk-spin", jdkSpin.getFirst());
        // The percentiles the findings judge that 10,000 round trips decide: p50, p99, p99.9; not p90, p99.99, max.
        assertEquals(List.of("jdk-spin", "60.0 [37.0-90,702.0] set aside", "60.0", "60.0 set aside", "60.0 set aside",
                "60.0", "60.0", "6.8 / 8.2"), jdkSpin);
        List<List<String>> others = tables.stream().flatMap(table -> table.rows().stream())
                .filter(row -> !row.equals(jdkSpin)).toList();
        assertEquals(5, others.size());
        assertTrue(others.stream().flatMap(List::stream).noneMatch(cell -> cell.contains("set aside")),
                others::toString);
        List<SetAside> setAside = latency.setAside(results, lab);
        assertEquals(List.of("jdk-spin p50", "jdk-spin p99", "jdk-spin p99.9"),
                setAside.stream().map(SetAside::name).toList(), "the cells marked are the rows the report lists");
        assertTrue(apart.notes().contains(LatencyExperiment.SPREAD_NOTE), apart.notes()::toString);
        assertEquals(setAside.stream().map(SetAside::note).toList(),
                apart.notes().subList(apart.notes().size() - 3, apart.notes().size()));
        assertEquals("set aside, judging nothing: jdk-spin p50 at different cores: its figures spread from 37.0 to "
                + "90,702.0 us about a median of 60.0: wider than the median", setAside.getFirst().note());
        Table together = tables.getLast();
        assertTrue(together.notes().contains(LatencyExperiment.SPREAD_NOTE), together.notes()::toString);
        assertTrue(together.notes().stream().noneMatch(note -> note.startsWith("set aside")),
                together.notes()::toString);
    }

    @Test
    void theTerminalShowsTheMarkInItsCell() {
        StringWriter out = new StringWriter();
        Console.print(new LatencyExperiment().tables(results(), lab()).getFirst(), new PrintWriter(out));
        assertTrue(out.toString().lines().anyMatch(line -> line.startsWith("  jdk-spin ")
                && line.contains("60.0 [37.0-90,702.0] set aside")), out::toString);
    }
}
