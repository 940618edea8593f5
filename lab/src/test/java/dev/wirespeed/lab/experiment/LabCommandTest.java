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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code wirespeed lab tcp --quick} end to end: the table, the findings and every expected cell in the results. */
class LabCommandTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void quickTcpRunWritesEveryCellWithItsFigures() throws Exception {
        StringWriter out = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(new StringWriter()));
        int code = commandLine.execute("lab", "tcp", "--quick", "--out", dir.toString());
        assertEquals(ExitCode.OK, code, out.toString());

        String json = Files.readString(dir.resolve("results.json"));
        List<Placement> placements = Placement.available(new java.util.ArrayList<>());
        for (Placement placement : placements) {
            for (Strategies strategy : Strategies.values()) {
                for (String unit : List.of("MB/s", "msg/s", "cpu ns/msg")) {
                    Matcher row = Pattern.compile("\\{\"experiment\": \"tcp\", \"case\": \"" + strategy.cliName()
                            + "\", \"transport\": \"tcp\", \"placement\": \"" + placement.name() + "\", \"unit\": \""
                            + unit + "\", \"median\": ([\\d.]+), \"min\": ([\\d.]+), \"max\": ([\\d.]+), \"runs\": 1, "
                            + "\"size\": 100, \"published\": [^,]+, \"ours\": " + strategy.cliName().startsWith("wirespeed")
                            + ", \"ceiling\": false, \"peer\": false}").matcher(json);
                    assertTrue(row.find(), "no row for " + strategy + " " + placement.name() + " " + unit + " in " + json);
                    double median = Double.parseDouble(row.group(1));
                    assertTrue(median > 0 && Double.parseDouble(row.group(2)) <= median
                            && median <= Double.parseDouble(row.group(3)), row.group());
                }
            }
        }
        long findings = Pattern.compile("\\{\"finding\": ").matcher(json).results().count();
        assertEquals(9L * placements.size(), findings, json);
        assertTrue(json.contains("\"jdk\": \"") && json.contains("\"machine\": {\"cpu\": "), json);
        String csv = Files.readString(dir.resolve("results.csv"));
        assertEquals(1 + 3 * Strategies.values().length * placements.size(), csv.lines().count(), csv);
        assertTrue(out.toString().contains("strategy           | "), out.toString());
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
