package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The C ping-pong: closed and open loop against its own echo, and the usage it refuses. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PingpongTest {
    private static Path pingpong() throws Exception {
        List<String> notes = new ArrayList<>();
        Optional<Path> program = new CPrograms(notes::add).get(CPrograms.Program.PINGPONG);
        Environment.assume(Feature.C_COMPILER, program.isPresent(), () -> "no C compiler: " + notes);
        return program.get();
    }

    private static String run(List<String> command, int expectedExit) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(1, TimeUnit.MINUTES), out);
        assertEquals(expectedExit, process.exitValue(), out);
        return out;
    }

    @Test
    void anOpenLoopAtARateTakesAtLeastItsScheduleAndReportsPercentiles() throws Exception {
        Path program = pingpong();
        Process echo = new ProcessBuilder(program.toString(), "echo", "127.0.0.1", "0", "poll").start();
        try {
            BufferedReader err = new BufferedReader(new InputStreamReader(echo.getErrorStream(), StandardCharsets.UTF_8));
            Matcher listening = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)").matcher(String.valueOf(err.readLine()));
            assertTrue(listening.matches());
            String port = listening.group(1);
            long start = System.nanoTime();
            // 2,000 frames at 10,000/s are due over 0.2 s: the run cannot be shorter.
            String open = run(List.of(program.toString(), "ping", "127.0.0.1", port, "poll", "1500", "500", "100",
                    "10000"), 0);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis >= 199, "2,000 frames at 10,000/s took " + millis + " ms");
            ChildReport.Latency latency = (ChildReport.Latency) ChildReports.read(open.strip());
            assertTrue(latency.p50() > 0, open); // the report's record itself refuses percentiles out of order
            String closed = run(List.of(program.toString(), "ping", "127.0.0.1", port, "poll", "1500", "500", "100"), 0);
            assertTrue(ChildReports.read(closed.strip()) instanceof ChildReport.Latency, closed);
        } finally {
            echo.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aNegativeRateIsAUsageError() throws Exception {
        String out = run(List.of(pingpong().toString(), "ping", "127.0.0.1", "1", "poll", "10", "0", "100", "-1"), 2);
        assertEquals("pingpong: COUNT >= 1, WARMUP >= 0, 0 <= SIZE <= 65528, RATE >= 0\n", out);
    }
}
