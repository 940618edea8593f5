package dev.wirespeed.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.PingCommand;
import dev.wirespeed.lab.pingpong.Impl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/** The options a mode hands to the lab's children are options those children take. */
class ModeTest {
    @ParameterizedTest
    @EnumSource(Mode.class)
    void pingAndEchoTakeTheWarmUpOptionsOfEveryMode(Mode mode) {
        Args ping = mode.pingWarmup().onPing(Args.of(PingCommand.OPTIONS).with(PingCommand.TRANSPORT, Transport.TCP)
                .with(PingCommand.IMPL, Impl.JDK).with(PingCommand.COUNT, 1L));
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(ping.toArgs().toArray(String[]::new));
        assertEquals((long) mode.pingWarmup().millis(), parsed.subcommand().matchedOptionValue("--warmup-ms", 0L));
        assertEquals((long) mode.pingWarmup().settleMillis(), parsed.subcommand().matchedOptionValue("--settle-ms", 0L));

        Args echo = mode.pingWarmup().onEcho(Args.of(EchoCommand.OPTIONS).with(EchoCommand.TRANSPORT, Transport.TCP));
        parsed = Main.commandLine().parseArgs(echo.toArgs().toArray(String[]::new));
        assertEquals(mode.pingWarmup().primeRoundTrips(), parsed.subcommand().matchedOptionValue("--prime", 0L));
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
