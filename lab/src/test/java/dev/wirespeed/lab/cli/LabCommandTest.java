package dev.wirespeed.lab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.env.Placements;
import dev.wirespeed.lab.env.Tools;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiments.Experiments;
import dev.wirespeed.lab.experiments.many.ManyServer;
import dev.wirespeed.lab.experiments.stream.Link;
import dev.wirespeed.lab.experiments.stream.StreamExperiment;
import dev.wirespeed.lab.experiments.tails.TailVariant;
import dev.wirespeed.lab.report.LabReport;
import dev.wirespeed.lab.report.ResultsFiles;
import dev.wirespeed.lab.report.ResultsSchema;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.linux.NativeSocket;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code wirespeed lab --quick} end to end: every expected cell in results.json, valid against its schema. */
class LabCommandTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void quickRunWritesEveryExpectedCellOfEveryExperiment() throws Exception {
        // Before the run: the lab pins its in-process experiments to one CPU (and then lets go again).
        List<Placement> placements = Placements.available(note -> { });
        StringWriter out = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(new StringWriter()));
        int code = commandLine.execute("lab", "--quick", "--out", dir.toString());
        assertEquals(ExitCode.OK, code, out.toString());
        assertEquals(placements, Placements.available(note -> { }), "the lab left this thread's CPUs as they were");

        assertEquals(List.of(), ResultsSchema.validate(Files.readString(dir.resolve("results.json"))));
        assertEquals(ResultsFiles.schema(), Files.readString(dir.resolve(LabReport.SCHEMA)));
        LabReport report = ResultsFiles.read(dir.resolve("results.json"));
        assertEquals(Experiments.names(false), report.experiments().stream().map(LabReport.Experiment::name).toList());
        boolean cc = Tools.has("cc");
        int cells = 0;
        for (Link link : Link.values()) {
            List<String> cases = new ArrayList<>();
            for (Strategies strategy : Strategies.values()) {
                if (StreamExperiment.fits(strategy, link) && StreamExperiment.runsIn(strategy, Mode.QUICK)) {
                    cases.add(strategy.cliName());
                }
            }
            if (link == Link.PIPE) {
                cases.add("wirespeed (1 MiB pipe)");
            }
            if (link == Link.TCP) {
                List.of("unbuffered", "zero-copy", "wirespeed").forEach(s -> cases.add(s + " (server writes per frame)"));
            }
            if (cc) {
                cases.addAll(List.of("wirespeed <- C writer", "C read(2) blocking", "C read(2) busy-poll"));
                if (StreamExperiment.fits(Strategies.WIRESPEED_SPIN, link)) {
                    cases.add("wirespeed-spin <- C writer");
                }
            }
            for (Placement placement : placements) {
                for (String kase : cases) {
                    for (Unit unit : List.of(Unit.MB_PER_S, Unit.MSG_PER_S, Unit.CPU_NS_PER_MSG)) {
                        Measurement m = only(report, link.id(), kase, placement, unit, null);
                        // One client, its measured rounds.
                        int values = Mode.QUICK.clientRuns() * Mode.QUICK.measuredRounds();
                        assertTrue(m.stats().median() > 0 && m.stats().runs() == values, m.toString());
                        Role expected = kase.startsWith("C ") ? Role.CEILING : kase.startsWith("netty") ? Role.PEER
                                : kase.startsWith("wirespeed") || kase.startsWith("native") ? Role.LIBRARY : Role.ARTICLE;
                        assertEquals(expected, m.series().role(), kase);
                        if (unit == Unit.MB_PER_S && cc) {
                            assertTrue(m.ofCeiling() != null && m.ofCeiling() > 0, m.toString());
                        }
                        cells++;
                    }
                }
            }
        }
        for (String kase : List.of("manual 8 KiB buffer", "whole-file buffer", "wirespeed ByteCounts.count(Path)",
                "wirespeed ByteCounts (map, then count)")) {
            assertEquals(2, report.measurements().stream().filter(m -> m.series().experiment().equals("files")
                    && m.series().name().equals(kase) && m.unit() == Unit.MB_PER_S).count(), kase);
        }
        for (String reader : List.of("JDK readAllBytes (stream)", "wirespeed ReadAll (stream)",
                "JDK Files.readAllBytes (file)", "wirespeed ReadAll (file)")) {
            for (Unit unit : List.of(Unit.BYTES, Unit.CALLS_PER_S)) {
                assertEquals(19, report.measurements().stream().filter(m -> m.series().experiment().equals("readall")
                        && m.series().name().equals(reader) && m.unit() == unit).count(), reader + " " + unit);
            }
        }
        for (Placement placement : placements) {
            List<String> latencyCases = new ArrayList<>(List.of("jdk", "jdk-spin", "native", "native-spin", "netty",
                    "jdk-spin, open loop at 20,000/s", "native-spin, open loop at 20,000/s"));
            if (cc) {
                latencyCases.addAll(List.of("C ping-pong blocking", "C ping-pong busy-poll",
                        "C ping-pong busy-poll, open loop at 20,000/s"));
            }
            for (String kase : latencyCases) {
                for (Percentile percentile : Percentile.values()) {
                    Measurement m = only(report, "latency", kase, placement, Unit.MICROSECONDS, percentile);
                    assertTrue(m.stats().median() > 0, m.toString());
                    assertEquals(kase.startsWith("native"), m.series().role() == Role.LIBRARY, kase);
                    cells++;
                }
            }
        }
        assertTrue(report.findings().size() > 20, "findings: " + report.findings().size());
        String csv = Files.readString(dir.resolve("results.csv"));
        assertEquals(report.measurements().size() + 1, csv.lines().count(), "a CSV line per measurement, and a header");
        assertTrue(cells > 100, "cells checked: " + cells);
        String html = Files.readString(dir.resolve("index.html"));
        assertTrue(html.indexOf("id=\"summary\"") < html.indexOf("<svg"), "the summary comes before the charts");
        assertEquals(placements.size(), Pattern.compile("<svg class=\"chart percentiles\"").matcher(html).results()
                .count(), "a percentile chart per placement, for latency");
        assertTrue(out.toString().contains("tcp: TCP loopback"), out.toString());
        assertTrue(out.toString().contains("latency: TCP loopback round trips"), out.toString());
        String md = Files.readString(dir.resolve("results.md"));
        assertTrue(md.startsWith("## wirespeed lab (quick)\n"), md);
        assertTrue(md.contains("\n**latency: TCP loopback round trips"), md);
        assertTrue(md.contains("\n| case | p50 [min-max] |"), md);
        assertTrue(md.contains("\n### Findings\n"), md);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theDeepDivesRunWhenNamedWithEveryExpectedCell() throws Exception {
        List<Placement> placements = Placements.available(note -> { });
        StringWriter out = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(new StringWriter()));
        assertEquals(ExitCode.OK, commandLine.execute("lab", "--quick", "--out", dir.toString(), "tails", "idle"),
                out.toString());
        assertEquals(List.of(), ResultsSchema.validate(Files.readString(dir.resolve("results.json"))));
        LabReport report = ResultsFiles.read(dir.resolve("results.json"));
        assertEquals(List.of("idle", "tails"), report.experiments().stream().map(LabReport.Experiment::name).toList(),
                "in the registry's order, whatever the command line's");
        for (Placement placement : placements) {
            for (String kase : List.of("blocking", "spin (default)", "busy-spin", "yield", "backoff")) {
                assertTrue(only(report, "idle", kase, placement, Unit.MB_PER_S, null).stats().median() > 0, kase);
                assertTrue(only(report, "idle", kase, placement, Unit.CPU_NS_PER_MSG, null).stats().median() > 0, kase);
                for (Percentile percentile : Percentile.values()) {
                    assertTrue(only(report, "idle", kase, placement, Unit.MICROSECONDS, percentile).stats().median() > 0,
                            kase + " " + percentile);
                }
            }
        }
        List<String> paths = NativeSocket.isSupported() ? List.of("jdk", "native-spin") : List.of("jdk");
        for (Placement placement : placements) {
            for (String path : paths) {
                for (TailVariant variant : TailVariant.values()) {
                    for (Percentile percentile : Percentile.values()) {
                        Measurement m = only(report, "tails", path + ", " + variant.label(), placement, Unit.MICROSECONDS,
                                percentile);
                        assertTrue(m.stats().median() > 0 && m.stats().runs() == Mode.QUICK.runs(), m.toString());
                    }
                }
            }
        }
        assertEquals(0, report.findings().stream().filter(f -> f.experiment().equals("tails")).count(),
                "a quick run's 2,000 round trips decide neither tail target: " + report.findings());
        for (String tail : List.of("p99.9", "p99.99")) {
            assertTrue(report.notes().stream().anyMatch(n -> n.startsWith("tails: " + tail + " targets are not judged")),
                    tail + ": " + report.notes());
        }
        assertTrue(out.toString().contains("tails: TCP loopback round trips by JVM options"), out.toString());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void manyConnectionsRunWhenNamedWithEveryServerAndItsFindings() throws Exception {
        Assumptions.assumeTrue(Tools.has("cc"), "the load generator is a C program: no C compiler");
        StringWriter out = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(new StringWriter()));
        assertEquals(ExitCode.OK, commandLine.execute("lab", "--quick", "--out", dir.toString(), "many"), out.toString());
        assertEquals(List.of(), ResultsSchema.validate(Files.readString(dir.resolve("results.json"))));
        LabReport report = ResultsFiles.read(dir.resolve("results.json"));
        Placement placement = Placements.available(note -> { }).stream()
                .filter(p -> p.kind() != Placement.Kind.SAME_CORE).findFirst().orElse(Placement.UNPINNED);
        for (ManyServer server : ManyServer.values()) {
            for (int connections : List.of(1, 256)) {
                String kase = server.label() + ", " + connections + " connections";
                assertTrue(only(report, "many", kase, placement, Unit.MSG_PER_S, null).stats().median() > 0, kase);
                // CPU time comes in ticks of 10 ms: a --quick round may take less than one, so 0 is a reading.
                assertTrue(only(report, "many", kase, placement, Unit.CPU_NS_PER_MSG, null).stats().median() >= 0, kase);
                for (Percentile percentile : List.of(Percentile.P50, Percentile.P99, Percentile.P999, Percentile.MAX)) {
                    assertTrue(only(report, "many", kase, placement, Unit.MICROSECONDS, percentile).stats().median() > 0,
                            kase + " " + percentile);
                }
            }
        }
        for (ManyServer server : List.of(ManyServer.C_EPOLL, ManyServer.LOOP, ManyServer.LOOP_EPOLL,
                ManyServer.LOOP_URING, ManyServer.NETTY)) {
            assertTrue(only(report, "many", server.label() + ", 1000 idle connections", placement, Unit.BYTES, null)
                    .stats().median() > 0, server.label());
        }
        for (ManyServer server : List.of(ManyServer.LOOP, ManyServer.LOOP_EPOLL, ManyServer.LOOP_URING)) {
            assertTrue(only(report, "many", server.label() + ", 64 connections beside a slow reader", placement,
                    Unit.MSG_PER_S, null).stats().median() > 0, server.label());
        }
        assertEquals(12, report.findings().stream().filter(f -> f.experiment().equals("many")).count(),
                report.findings().toString());
        assertTrue(out.toString().contains("many: the server's resident memory with idle connections held"),
                out.toString());
    }

    private static Measurement only(LabReport report, String experiment, String kase, Placement placement, Unit unit,
            Percentile percentile) {
        List<Measurement> found = report.measurements().stream().filter(m -> m.series().experiment().equals(experiment)
                && m.series().name().equals(kase) && m.placement().equals(placement) && m.unit() == unit
                && m.percentile() == percentile).toList();
        assertEquals(1, found.size(), experiment + " / " + kase + " / " + placement + " / " + unit + " / " + percentile);
        return found.get(0);
    }

    @Test
    void refusesAnUnknownExperimentAndBothModes() {
        StringWriter err = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setErr(new PrintWriter(err));
        assertEquals(ExitCode.USAGE, commandLine.execute("lab", "nosuch"));
        assertEquals("wirespeed lab: unknown experiment 'nosuch'; known: tcp, unix, pipe, latency, idle, tails, many, files, readall\n",
                err.toString());
        StringWriter both = new StringWriter();
        var modes = Main.commandLine();
        modes.setErr(new PrintWriter(both));
        assertEquals(ExitCode.USAGE, modes.execute("lab", "--quick", "--full"));
        assertEquals("wirespeed lab: --quick and --full exclude each other\n", both.toString());
    }
}
