package dev.wirespeed.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.client.Strategies;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code wirespeed lab --quick} end to end: every expected cell in results.json, the CSV and the report. */
class LabCommandTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void quickRunWritesEveryExpectedCellOfEveryLink() throws Exception {
        // Before the run: the lab pins its in-process experiments to one CPU (and then lets go again).
        List<Placement> placements = Placement.available(new ArrayList<>());
        StringWriter out = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(new StringWriter()));
        int code = commandLine.execute("lab", "--quick", "--out", dir.toString());
        assertEquals(ExitCode.OK, code, out.toString());

        String json = Files.readString(dir.resolve("results.json"));
        assertEquals(placements, Placement.available(new ArrayList<>()), "the lab left this thread's CPUs as they were");
        boolean cc = Tools.has("cc");
        int cells = 0;
        for (StreamExperiment.Link link : StreamExperiment.Link.values()) {
            List<String> cases = new ArrayList<>();
            for (Strategies strategy : Strategies.values()) {
                if (StreamExperiment.fits(strategy, link)) {
                    cases.add(strategy.cliName());
                }
            }
            if (link == StreamExperiment.Link.PIPE) {
                cases.add("wirespeed (1 MiB pipe)");
            }
            if (link == StreamExperiment.Link.TCP) {
                StreamExperiment.PER_FRAME.forEach(s -> cases.add(s.cliName() + " (server writes per frame)"));
            }
            if (cc) {
                cases.addAll(List.of("wirespeed <- C writer", "C read(2) blocking", "C read(2) busy-poll"));
            }
            for (Placement placement : placements) {
                for (String kase : cases) {
                    for (String unit : List.of("MB/s", "msg/s", "cpu ns/msg")) {
                        assertCell(json, link.id(), kase, placement.name(), unit);
                        cells++;
                    }
                }
            }
        }
        for (String kase : List.of("manual 8 KiB buffer", "whole-file buffer", "wirespeed ByteCounts.count(Path)",
                "wirespeed ByteCounts (map, then count)")) {
            assertEquals(2, Pattern.compile("\\{\"experiment\": \"files\", \"case\": \"" + Pattern.quote(kase)
                    + "\", \"transport\": \"file\", [^}]*\"unit\": \"MB/s\"").matcher(json).results().count(), kase);
        }
        for (String reader : ReadAllExperiment.READERS.keySet()) {
            for (String unit : List.of("bytes", "ops/s")) {
                assertEquals(ReadAllExperiment.THREAD_LENGTHS.length + 1, Pattern.compile("\\{\"experiment\": \"readall\", "
                        + "\"case\": \"" + Pattern.quote(reader) + "\", [^}]*\"unit\": \"" + Pattern.quote(unit) + "\"")
                        .matcher(json).results().count(), reader + " " + unit);
            }
        }
        for (Placement placement : placements) {
            List<String> latencyCases = new ArrayList<>(List.of("jdk", "jdk-spin", "native", "native-spin", "netty"));
            if (cc) {
                latencyCases.addAll(List.of("C ping-pong blocking", "C ping-pong busy-poll"));
            }
            for (String kase : latencyCases) {
                for (String percentile : LatencyExperiment.PERCENTILES) {
                    Matcher row = Pattern.compile("\\{\"experiment\": \"latency\", \"case\": \"" + Pattern.quote(kase)
                            + "\", \"transport\": \"tcp\", \"placement\": \"" + placement.name() + "\", \"unit\": \"us\", "
                            + "\"median\": ([\\d.]+), [^}]*\"ours\": (true|false), [^}]*\"percentile\": \"" + percentile + "\"}")
                            .matcher(json);
                    assertTrue(row.find(), "no latency row for " + kase + " / " + placement.name() + " / " + percentile);
                    assertTrue(Double.parseDouble(row.group(1)) > 0, row.group());
                    assertEquals(kase.startsWith("native"), Boolean.parseBoolean(row.group(2)), row.group());
                    cells++;
                }
            }
        }
        String csv = Files.readString(dir.resolve("results.csv"));
        assertTrue(csv.lines().count() > cells, "the CSV has a line per row: " + csv.lines().count() + " <= " + cells);
        assertTrue(json.contains("\"findings\": [\n    {\"finding\": "), json);
        String html = Files.readString(dir.resolve("index.html"));
        assertTrue(Pattern.compile("<svg class=\"chart\"").matcher(html).results().count() >= 3L * placements.size() + 1, html);
        assertEquals(placements.size(), Pattern.compile("<svg class=\"chart percentiles\"").matcher(html).results().count(),
                "a percentile chart per placement");
        assertTrue(out.toString().contains("tcp: TCP loopback"), out.toString());
        assertTrue(out.toString().contains("latency: TCP loopback round trips"), out.toString());
    }

    private static void assertCell(String json, String link, String kase, String placement, String unit) {
        Matcher row = Pattern.compile("\\{\"experiment\": \"" + link + "\", \"case\": \"" + Pattern.quote(kase)
                + "\", \"transport\": \"" + link + "\", \"placement\": \"" + placement + "\", \"unit\": \""
                + Pattern.quote(unit) + "\", \"median\": ([\\d.]+), \"min\": ([\\d.]+), \"max\": ([\\d.]+), \"runs\": 1, "
                + "\"size\": 100, \"published\": [^,]+, \"ours\": (true|false), \"ceiling\": (true|false), "
                + "\"peer\": (true|false)}").matcher(json);
        assertTrue(row.find(), "no row for " + link + " / " + kase + " / " + placement + " / " + unit);
        double median = Double.parseDouble(row.group(1));
        assertTrue(median > 0 && Double.parseDouble(row.group(2)) <= median && median <= Double.parseDouble(row.group(3)),
                row.group());
        assertEquals((kase.startsWith("wirespeed") || kase.startsWith("native")) && !kase.contains("C writer"),
                Boolean.parseBoolean(row.group(4)), kase);
        assertEquals(kase.startsWith("C "), Boolean.parseBoolean(row.group(5)), kase);
        assertEquals(kase.startsWith("netty"), Boolean.parseBoolean(row.group(6)), kase);
    }

    @Test
    void refusesAnUnknownExperimentAndBothModes() {
        StringWriter err = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setErr(new PrintWriter(err));
        assertEquals(ExitCode.USAGE, commandLine.execute("lab", "nosuch"));
        assertEquals("wirespeed lab: unknown experiment 'nosuch'; known: tcp, unix, pipe, latency, files, readall\n",
                err.toString());
        var both = Main.commandLine();
        both.setErr(new PrintWriter(new StringWriter()));
        assertEquals(ExitCode.USAGE, both.execute("lab", "--quick", "--full"));
    }

    @Test
    void statsTakeTheMiddleValueAndTheMeanOfTheTwoMiddleOnes() {
        assertEquals(new Stats(2, 1, 9, 3), Stats.of(List.of(9.0, 1.0, 2.0)));
        assertEquals(new Stats(2.5, 1, 9, 4), Stats.of(List.of(9.0, 1.0, 2.0, 3.0)));
    }
}
