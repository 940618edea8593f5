package dev.wirespeed.lab.experiments.tails;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/** The tails experiment's cases, its rows over runs, and its findings, on synthetic runs. */
class TailsExperimentTest {
    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    /** A full run's context: its runs decide p99.99. */
    private static final LabContext FULL = new LabContext(Mode.FULL, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);

    /** A run whose p99.9 is {@code p999}, p99.99 twice it, the rest below. */
    private static ChildReport.Latency run(double p999) {
        return new ChildReport.Latency(5, 6, 10, p999, 2 * p999, 4 * p999, Unit.MICROSECONDS);
    }

    /** Three runs of every row at one placement, each row's p99.9 in its runs given by {@code p999}. */
    private static Results<TailCell, ChildReport.Latency> results(ToDoubleFunction<TailCell> p999) {
        Results<TailCell, ChildReport.Latency> results = new Results<>();
        for (int run = 1; run <= 3; run++) {
            for (Impl path : TailsExperiment.paths()) {
                for (TailVariant variant : TailVariant.values()) {
                    TailCell cell = new TailCell(new TailCell.Row(APART, path, variant), run);
                    results.put(cell, run(p999.applyAsDouble(cell)));
                }
            }
        }
        return results;
    }

    private static Finding finding(List<Finding> findings, String start) {
        return findings.stream().filter(f -> f.claim().startsWith(start)).findFirst().orElseThrow();
    }

    @Test
    void theCasesTakeEveryRowsFirstRunBeforeAnyRowsSecond() {
        List<TailCell> cells = new TailsExperiment().cases(LAB);
        int rows = LAB.placements().size() * TailsExperiment.paths().size() * TailVariant.values().length;
        assertEquals(rows * Mode.DEFAULT.runs(), cells.size());
        for (int i = 0; i < cells.size(); i++) {
            assertEquals(1 + i / rows, cells.get(i).run(), "cell " + i);
            assertEquals(cells.get(i % rows).row(), cells.get(i).row(), "cell " + i + " repeats the first run's order");
        }
    }

    @Test
    void aRowIsTheMedianOfItsRunsWithTheirRange() {
        Map<TailCell.Row, Distribution> rows = TailsExperiment.rows(results(cell -> 100.0 * cell.run()));
        assertEquals(TailsExperiment.paths().size() * TailVariant.values().length, rows.size());
        Distribution any = rows.values().iterator().next();
        assertEquals(200.0, any.get(Percentile.P999).median());
        assertEquals(100.0, any.get(Percentile.P999).min());
        assertEquals(300.0, any.get(Percentile.P999).max());
        assertEquals(3, any.get(Percentile.P999).runs());
    }

    @Test
    void theLauncherHoldsUnlessAnotherOptionBeatsItsTailByTheMargin() {
        List<Finding> even = new TailsExperiment().findings(results(cell -> 100.0), FULL);
        assertTrue(finding(even, "the launcher's JVM options give a p99.9").holds(), even.toString());
        assertTrue(finding(even, "the launcher's JVM options give a p99.99").holds());

        // ZGC's p99.9 is 1.2 times better on the JDK path: beyond the 1.1x margin, within the p99.99's 1.25x.
        List<Finding> zgc = new TailsExperiment().findings(results(cell -> cell.row().variant() == TailVariant.ZGC
                && cell.row().path() == Impl.JDK ? 100.0 / 1.2 : 100.0), FULL);
        Finding p999 = finding(zgc, "the launcher's JVM options give a p99.9");
        assertFalse(p999.holds());
        assertEquals(1, p999.failures().size());
        assertEquals("different cores, jdk", p999.failures().get(0).where());
        assertTrue(p999.failures().get(0).denominator().name().startsWith("zgc"), p999.failures().toString());
        assertTrue(finding(zgc, "the launcher's JVM options give a p99.99").holds());
    }

    @Test
    void aDefaultRunJudgesP999ButNotesThatItsRunsCannotDecideP9999() {
        LabContext lab = new LabContext(Mode.DEFAULT, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()), false);
        // ZGC's p99.99 would fail the launcher by 2x, were it judged.
        List<Finding> findings = new TailsExperiment().findings(results(cell -> cell.row().variant() == TailVariant.ZGC
                ? 50.0 : 100.0), lab);
        assertFalse(finding(findings, "the launcher's JVM options give a p99.9").holds());
        assertTrue(findings.stream().noneMatch(f -> f.claim().contains("p99.99")), findings.toString());
        assertEquals(List.of("tails: p99.99 targets are not judged: a run of 20,000 round trips leaves 2 beyond p99.99, "
                + "fewer than 10; runs of at least 100,000 decide it"), lab.notes());
    }

    /** Three equal runs of every option on the JDK path, with p99.9 and p99.99 as given for some options. */
    private static Results<TailCell, ChildReport.Latency> jdkPath(Map<TailVariant, double[]> tails) {
        Results<TailCell, ChildReport.Latency> results = new Results<>();
        for (int run = 1; run <= 3; run++) {
            for (TailVariant variant : TailVariant.values()) {
                double[] tail = tails.getOrDefault(variant, new double[] {100, 200});
                results.put(new TailCell(new TailCell.Row(APART, Impl.JDK, variant), run),
                        new ChildReport.Latency(5, 6, 10, tail[0], tail[1], 4 * tail[1], Unit.MICROSECONDS));
            }
        }
        return results;
    }

    private static final String P999 = "the launcher's JVM options give a p99.9 within 1.10x of the best other options': "
            + "no collector or flag tried pays enough to adopt";
    private static final String P9999 = "the launcher's JVM options give a p99.99 within 1.25x of the best other options'";

    private static Finding named(List<Finding> findings, String claim) {
        return findings.stream().filter(f -> f.claim().equals(claim)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding '" + claim + "' in " + findings));
    }

    @Test
    void bothTailTargetsHoldWhenNoOtherOptionBeatsTheLauncherByTheirMargins() {
        List<Finding> findings = new TailsExperiment().findings(jdkPath(Map.of(TailVariant.G1, new double[] {95, 190})),
                FULL);
        assertEquals(List.of("target: " + P999 + " (<= 1.1x)", "target: " + P9999 + " (<= 1.25x)"),
                findings.stream().map(Finding::title).toList());
        Finding p999 = named(findings, P999);
        assertEquals("different cores, jdk: parallel (launcher) p99.9 100.0 us / g1 p99.9 95.00 us = 1.05x",
                p999.figures());
        assertTrue(p999.holds());
        Finding p9999 = named(findings, P9999);
        assertEquals("different cores, jdk: parallel (launcher) p99.99 200.0 us / g1 p99.99 190.0 us = 1.05x",
                p9999.figures());
        assertTrue(p9999.holds());
    }

    @Test
    void bothTailTargetsFailWhenAnotherOptionBeatsTheLauncherByMoreThanTheirMargins() {
        List<Finding> findings = new TailsExperiment().findings(jdkPath(Map.of(TailVariant.G1, new double[] {95, 190},
                TailVariant.ZGC, new double[] {80, 150})), FULL);
        Finding p999 = named(findings, P999);
        assertEquals("different cores, jdk: parallel (launcher) p99.9 100.0 us / zgc p99.9 80.00 us = 1.25x",
                p999.figures());
        assertFalse(p999.holds());
        Finding p9999 = named(findings, P9999);
        assertEquals("different cores, jdk: parallel (launcher) p99.99 200.0 us / zgc p99.99 150.0 us = 1.33x",
                p9999.figures());
        assertFalse(p9999.holds());
    }

    @Test
    void aQuickRunJudgesNeitherTailAndNotesWhy() {
        LabContext quick = new LabContext(Mode.QUICK, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()),
                false);
        assertEquals(List.of(), new TailsExperiment().findings(jdkPath(Map.of(TailVariant.ZGC, new double[] {50, 100})),
                quick));
        assertEquals(List.of("tails: p99.9 targets are not judged: a run of 2,000 round trips leaves 2 beyond p99.9, "
                + "fewer than 10; runs of at least 10,000 decide it", "tails: p99.99 targets are not judged: a run of "
                + "2,000 round trips leaves 0 beyond p99.99, fewer than 10; runs of at least 100,000 decide it"),
                quick.notes());
    }

    @Test
    void aTableForEachPlacementWithARowPerPathAndOptionsAndTheOptionsSpelledOut() {
        LabContext quick = new LabContext(Mode.QUICK, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()),
                false);
        List<Table> tables = new TailsExperiment().tables(jdkPath(Map.of(TailVariant.G1, new double[] {95, 190})), quick);
        assertEquals(1, tables.size());
        Table table = tables.get(0);
        assertEquals("tails: TCP loopback round trips by JVM options, 100-byte bodies, 2,000 measured after 1,000 warm-up "
                + "(no timed warm-up, echoes not primed), microseconds, median of 1 run(s), every row's first run before "
                + "any row's second; different cores (server cpu0, client cpu1)", table.title());
        assertEquals(List.of("path, JVM options", "p50 [min-max]", "p90", "p99", "p99.9", "p99.99", "max"), table.header());
        assertEquals(List.of(
                List.of("jdk, parallel (launcher)", "5.0 [5.0-5.0]", "6.0", "10.0", "100.0", "200.0", "800.0"),
                List.of("jdk, g1", "5.0 [5.0-5.0]", "6.0", "10.0", "95.0", "190.0", "760.0"),
                List.of("jdk, zgc", "5.0 [5.0-5.0]", "6.0", "10.0", "100.0", "200.0", "800.0"),
                List.of("jdk, epsilon", "5.0 [5.0-5.0]", "6.0", "10.0", "100.0", "200.0", "800.0"),
                List.of("jdk, parallel, pre-touched heap", "5.0 [5.0-5.0]", "6.0", "10.0", "100.0", "200.0", "800.0"),
                List.of("jdk, parallel, no periodic safepoint", "5.0 [5.0-5.0]", "6.0", "10.0", "100.0", "200.0",
                        "800.0")), table.rows());
        assertEquals(List.of("round trips beyond each percentile per run: p99 20, p99.9 2, p99.99 0; a tail with fewer "
                + "than 10 beyond it is a hint, not a figure, and no target is judged on it",
                "both ping and echo get the row's options; everything else is the launcher's",
                "g1: -XX:+UseG1GC", "zgc: -XX:+UseZGC", "epsilon: -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC",
                "parallel, pre-touched heap: -XX:+AlwaysPreTouch",
                "parallel, no periodic safepoint: -XX:+UnlockDiagnosticVMOptions -XX:GuaranteedSafepointInterval=0",
                "a p99.9 or p99.99, the percentiles the targets judge, whose runs spread wider than their median (max "
                        + "- min > median) is set aside and judges no finding"),
                table.notes());
    }

    /** Every row's p99.9 100 us in each run, but the JDK path's ZGC's: 20, 100 and 400 us, run by run. */
    private static Results<TailCell, ChildReport.Latency> zgcSpread() {
        return results(cell -> cell.row().path() == Impl.JDK && cell.row().variant() == TailVariant.ZGC
                ? new double[] {20, 100, 400}[cell.run() - 1] : 100.0);
    }

    @Test
    void aRowWhoseRunsSpreadWiderThanTheirMedianIsSetAsideMarkedAndJudgesNoTarget() {
        LabContext full = new LabContext(Mode.FULL, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()),
                false);
        Results<TailCell, ChildReport.Latency> results = zgcSpread();
        TailsExperiment tails = new TailsExperiment();
        List<SetAside> setAside = tails.setAside(results, full);
        assertEquals(List.of("jdk, zgc p99.9", "jdk, zgc p99.99"), setAside.stream().map(SetAside::name).toList());
        assertEquals("jdk, zgc p99.9 at different cores: its figures spread from 20.0 to 400.0 us about a median of "
                + "100.0: wider than the median", setAside.getFirst().toString());
        assertEquals(List.of(), tails.findings(results, full), "both targets read every row of the JDK path");
        assertEquals(List.of("tails: not judged, as it reads rows set aside: target: " + P999 + " (<= 1.1x). "
                + setAside.getFirst(), "tails: not judged, as it reads rows set aside: target: " + P9999
                + " (<= 1.25x). " + setAside.getLast()), full.notes());
        Table table = tails.tables(results, full).getFirst();
        List<String> zgc = table.rows().stream().filter(row -> row.getFirst().equals("jdk, zgc")).findFirst()
                .orElseThrow();
        assertEquals(List.of("jdk, zgc", "5.0 [5.0-5.0]", "6.0", "10.0", "100.0 set aside", "200.0 set aside", "400.0"),
                zgc);
        assertEquals(1, table.rows().stream().filter(row -> String.join(" ", row).contains("set aside")).count(),
                table.rows()::toString);
        assertEquals(setAside.stream().map(SetAside::note).toList(),
                table.notes().subList(table.notes().size() - 2, table.notes().size()));
    }

    @Test
    void aDefaultRunSetsAsideOnlyThePercentileItsRunsDecideAndRunsSpreadAsWideAsTheirMedianAreTrusted() {
        assertEquals(List.of("jdk, zgc p99.9"), new TailsExperiment().setAside(zgcSpread(), LAB).stream()
                .map(SetAside::name).toList(), "a default run judges no p99.99, so sets none aside");
        // 100, 200 and 300 us: max - min is the median, not beyond it.
        assertEquals(List.of(), new TailsExperiment().setAside(results(cell -> 100.0 * cell.run()), LAB));
    }
}
