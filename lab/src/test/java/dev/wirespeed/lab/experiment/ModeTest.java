package dev.wirespeed.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Main;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/** The options a mode hands to the lab's children are options those children take. */
class ModeTest {
    @ParameterizedTest
    @EnumSource(Mode.class)
    void pingAndEchoTakeTheWarmUpOptionsOfEveryMode(Mode mode) {
        List<String> ping = new ArrayList<>(List.of("ping", "--transport", "tcp", "--impl", "jdk", "--count", "1"));
        ping.addAll(mode.pingWarmup().pingOptions());
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(ping.toArray(String[]::new));
        assertEquals((long) mode.pingWarmup().millis(), parsed.subcommand().matchedOptionValue("--warmup-ms", -1L));
        assertEquals((long) mode.pingWarmup().settleMillis(), parsed.subcommand().matchedOptionValue("--settle-ms", -1L));

        List<String> echo = new ArrayList<>(List.of("echo", "--transport", "tcp"));
        echo.addAll(mode.pingWarmup().echoOptions());
        parsed = Main.commandLine().parseArgs(echo.toArray(String[]::new));
        assertEquals(mode.pingWarmup().primeRoundTrips(), parsed.subcommand().matchedOptionValue("--prime", -1L));
    }

    @Test
    void quickModeWarmsUpByCountAloneAndTheOthersWaitForTheJit() {
        assertEquals("no timed warm-up, echoes not primed", Mode.QUICK.pingWarmup().describe());
        assertEquals("ping warm-up at least 200 ms, then until its JIT is idle for 100 ms; each echo primed with "
                + "20,000 round trips per priming connection", Mode.DEFAULT.pingWarmup().describe());
        assertTrue(Mode.FULL.pingWarmup().millis() >= Mode.DEFAULT.pingWarmup().millis());
        assertTrue(Mode.FULL.pingWarmup().primeRoundTrips() >= Mode.DEFAULT.pingWarmup().primeRoundTrips());
    }
}
