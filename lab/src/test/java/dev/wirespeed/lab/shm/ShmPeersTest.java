package dev.wirespeed.lab.shm;

import static dev.wirespeed.lab.shm.RingCommands.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.lab.shm.RingCommands.Run;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;

/**
 * Each shared-memory peer moves frames through the {@code ring-*} commands: a ping-pong whose every frame
 * comes back checked, the sequence stream verified from writer to reader to the writer's close, and a
 * reader that reports its wake-ups after the writer's idle periods.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShmPeersTest {
    private Path dir;

    @BeforeEach
    void directory() throws IOException {
        Environment.assume(Environment.Feature.NATIVE, NativeSocket.isSupported(),
                "the native module's system calls (Linux, 64-bit): the futex");
        dir = RingCommands.directory("wirespeed-shm-peers");
    }

    @AfterEach
    void remove() throws IOException {
        RingCommands.delete(dir);
    }

    @ParameterizedTest
    @EnumSource(ShmImpl.class)
    void aPingPongBringsEveryFrameBackAndReportsPercentiles(ShmImpl impl) throws Exception {
        String path = dir.resolve("pp").toString();
        CompletableFuture<Run> echo = start("ring-echo", "--impl", impl.cliName(), "--path", path);
        Run ping = start("ring-ping", "--impl", impl.cliName(), "--path", path, "--count", "2000", "--warmup", "500",
                "--json").get(60, TimeUnit.SECONDS);
        assertEquals(ExitCode.OK, ping.code(), ping.err());
        assertInstanceOf(ChildReport.Latency.class, ChildReports.read(ping.out().strip()), ping.out());
        Run echoed = echo.get(30, TimeUnit.SECONDS);
        assertEquals(ExitCode.OK, echoed.code(), echoed.err());
        assertEquals("listening on " + path, echoed.err().strip());
    }

    @ParameterizedTest
    @EnumSource(ShmImpl.class)
    void theSequenceStreamGoesThroughVerifiedToTheWritersClose(ShmImpl impl) throws Exception {
        String path = dir.resolve("stream").toString();
        CompletableFuture<Run> writer = start("ring-write", "--impl", impl.cliName(), "--path", path, "--count",
                "100000", "--capacity", "65536", "--size", "0-300");
        Run reader = start("ring-read", "--impl", impl.cliName(), "--path", path, "--verify", "--messages", "25000",
                "--sleep", impl.parking().cliName()).get(60, TimeUnit.SECONDS);
        assertEquals(ExitCode.OK, reader.code(), reader.err());
        assertTrue(reader.out().contains("Total: 100000 msg;") && reader.out().contains("4 rounds; every frame "
                + "verified"), reader.out());
        Run wrote = writer.get(30, TimeUnit.SECONDS);
        assertEquals(ExitCode.OK, wrote.code(), wrote.err());
    }

    @ParameterizedTest
    @EnumSource(ShmImpl.class)
    void aReaderReportsItsWakeUpsAfterTheWritersIdlePeriods(ShmImpl impl) throws Exception {
        String path = dir.resolve("idle").toString();
        CompletableFuture<Run> writer = start("ring-write", "--impl", impl.cliName(), "--path", path, "--count", "3",
                "--idle-ms", "50", "--burst", "100");
        Run reader = start("ring-read", "--impl", impl.cliName(), "--path", path, "--wakes")
                .get(60, TimeUnit.SECONDS);
        assertEquals(ExitCode.OK, reader.code(), reader.err());
        ChildReport.Wakes wakes = assertInstanceOf(ChildReport.Wakes.class, ChildReports.read(reader.out().strip()));
        assertEquals(2, wakes.wakes(), "3 stamped frames, the first not counted: " + wakes);
        Run wrote = writer.get(30, TimeUnit.SECONDS);
        assertEquals(ExitCode.OK, wrote.code(), wrote.err());
    }

    @ParameterizedTest
    @EnumSource(value = ShmImpl.class, names = {"AGRONA", "AERON"})
    void aPeerWithoutAFutexRefusesTheFutexNamingWhatItTakes(ShmImpl impl) throws Exception {
        Run reader = start("ring-read", "--impl", impl.cliName(), "--path", dir.resolve("none").toString(), "--sleep",
                "futex").get(30, TimeUnit.SECONDS);
        assertEquals(ExitCode.USAGE, reader.code());
        assertEquals("wirespeed ring-read: --sleep futex is the shared ring's; " + impl + " takes spin or backoff",
                reader.err().strip());
    }
}
