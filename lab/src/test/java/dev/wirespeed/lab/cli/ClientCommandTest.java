package dev.wirespeed.lab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.RefusingPort;
import dev.wirespeed.testing.Vectors;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/** {@code wirespeed client} run in-process: its output lines, summary, messages and exit codes. */
class ClientCommandTest {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

    static Run client(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of("client"));
        all.addAll(List.of(args));
        int code = commandLine.execute(all.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    @TestFactory
    Stream<DynamicTest> everyVectorGivesItsOutcomeThroughTheFileTransportWithEveryStrategy() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (Vectors vector : Vectors.all()) {
            Path file = Files.write(dir.resolve(vector.file()), vector.bytes());
            for (Strategies strategy : Strategies.values()) {
                if (!strategy.supports(Transport.FILE)) {
                    continue; // sockets only: covered by EndToEndTest
                }
                tests.add(DynamicTest.dynamicTest(strategy + " " + vector, () -> {
                    boolean verify = vector.file().startsWith("seq-");
                    List<String> args = new ArrayList<>(List.of("--transport", "file", "--path", file.toString(),
                            "--strategy", strategy.cliName(), "--json"));
                    if (verify) {
                        args.add("--verify");
                    }
                    Run run = client(args.toArray(String[]::new));
                    if (vector.isClean()) {
                        assertEquals(ExitCode.OK, run.code(), run.err());
                        assertTrue(run.out().endsWith("{\"summary\":true,\"frames\":" + vector.frames() + ",\"bytes\":"
                                + vector.bytes().length + ",\"verified\":" + verify + "}\n"), run.out());
                        assertEquals("", run.err());
                    } else {
                        assertEquals(ExitCode.BAD_INPUT, run.code(), run.err());
                        long before = vector.framesBeforeError();
                        assertEquals("wirespeed client: " + vector.expectedMessage() + " (after " + before
                                + " complete frames, " + vector.errorOffset() + " bytes)\n", run.err());
                    }
                }));
            }
        }
        return tests.stream();
    }

    @Test
    void printsTheArticlesLinePerRoundAndStopsAfterTheRounds() throws Exception {
        Path file = Files.write(dir.resolve("seq.bin"), new Frames().sequence(0, 25, 100).toByteArray());
        Run run = client("--transport", "file", "--path", file.toString(), "--strategy", "wirespeed",
                "--messages", "10", "--rounds", "2", "--verify");
        assertEquals(ExitCode.OK, run.code());
        String[] lines = run.out().split("\n");
        assertEquals(3, lines.length, run.out());
        assertTrue(lines[0].matches("Time for 10 msg: \\d+; speed: \\d+ msg/s; \\d+\\.\\d MB/s"), lines[0]);
        assertEquals("Total: 20 msg; 2160 bytes; 2 rounds; every frame verified", lines[2]);
    }

    @Test
    void exitsFourNamingTheFrameAndByteWhenVerificationFails() throws Exception {
        byte[] stream = new Frames().sequence(0, 3, 10).toByteArray();
        stream[18 + 8 + 4] ^= 1;
        Path file = Files.write(dir.resolve("corrupt.bin"), stream);
        for (Strategies strategy : Strategies.values()) {
            if (!strategy.supports(Transport.FILE)) {
                continue; // sockets only: covered by EndToEndTest
            }
            Run run = client("--transport", "file", "--path", file.toString(), "--strategy", strategy.cliName(),
                    "--verify", "--json");
            assertEquals(ExitCode.VERIFY_FAILED, run.code(), strategy.cliName());
            assertEquals("wirespeed client: verification failed: frame 1 byte 4 is corrupt: actual=4 expected=5"
                    + " offset=30 (after 1 complete frames, 18 bytes)\n", run.err(), strategy.cliName());
            assertTrue(run.out().endsWith("\"verified\":false}\n"), run.out());
        }
    }

    @Test
    void exitsTwoOnABadCommandLine() {
        assertEquals(ExitCode.USAGE, client("--transport", "file", "--strategy", "wirespeed").code());
        Run unknown = client("--transport", "tcp", "--strategy", "fastest");
        assertEquals(ExitCode.USAGE, unknown.code());
        assertEquals("Invalid value for option '--strategy': unknown strategy 'fastest'; known: unbuffered, readint, "
                + "buffered, buffered-readint, no-alloc, channel, channel-compact, zero-copy, wirespeed, wirespeed-spin, "
                + "native, native-spin, uring, uring-spin, netty-nio, netty-epoll, netty-uring, loop", unknown.err().lines().findFirst().orElseThrow());
        Run unknownIdle = client("--transport", "tcp", "--strategy", "wirespeed-spin", "--idle", "nap");
        assertEquals(ExitCode.USAGE, unknownIdle.code());
        assertEquals("Invalid value for option '--idle': unknown --idle 'nap'; known: spin, busy-spin, yield, backoff",
                unknownIdle.err().lines().findFirst().orElseThrow());
        assertEquals(ExitCode.USAGE, client("--transport", "carrier-pigeon", "--strategy", "wirespeed").code());
        assertEquals(ExitCode.USAGE, client("--transport", "stdout", "--strategy", "wirespeed").code());
        Run nativeOnFile = client("--transport", "file", "--path", "/dev/null", "--strategy", "native");
        assertEquals(ExitCode.USAGE, nativeOnFile.code());
        assertEquals("wirespeed client: --strategy native needs --transport tcp or unix\n", nativeOnFile.err());
        Run tlsOnAStream = client("--transport", "tcp", "--strategy", "wirespeed", "--tls", "--trust", "/dev/null");
        assertEquals(ExitCode.USAGE, tlsOnAStream.code());
        assertEquals("wirespeed client: --tls needs --strategy loop, netty-nio, netty-epoll or netty-uring: the "
                + "strategies that open their own connection\n", tlsOnAStream.err());
        Run tlsWithoutTrust = client("--transport", "tcp", "--strategy", "loop", "--tls");
        assertEquals(ExitCode.USAGE, tlsWithoutTrust.code());
        assertTrue(tlsWithoutTrust.err().startsWith("wirespeed client: --tls needs --trust FILE"), tlsWithoutTrust.err());
        Run timeoutOnFile = client("--transport", "file", "--path", "/dev/null", "--strategy", "wirespeed",
                "--read-timeout", "100");
        assertEquals(ExitCode.USAGE, timeoutOnFile.code());
        assertEquals("wirespeed client: --read-timeout=100 must be >= 1 and needs --transport tcp or unix\n",
                timeoutOnFile.err());
    }

    @Test
    void exitsFiveWhenTheServerRefuses() throws Exception {
        try (RefusingPort refusing = new RefusingPort()) { // bound, not listening, for as long as the client runs
            Run run = client("--transport", "tcp", "--port", String.valueOf(refusing.port()), "--strategy", "zero-copy");
            assertEquals(ExitCode.IO_FAILURE, run.code());
            assertTrue(run.err().startsWith("wirespeed client: I/O failure: java.net.ConnectException: Connection "
                    + "refused"), run.err());
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "--round-ms 0 | --round-ms=0 must be 1 to 3600000 and --warmup-ms=0 0 to 3600000",
        "--round-ms 10 --warmup-ms -1 | --round-ms=10 must be 1 to 3600000 and --warmup-ms=-1 0 to 3600000",
        "--round-ms 10 --messages 5 | --messages=5 and --round-ms=10: give one of them",
        "--warmup-ms 50 | --warmup-ms=50 needs --round-ms",
        "--messages 0 | --messages=0 must be >= 1",
        "--rounds -1 | --rounds=-1 must be >= 0",
        "--idle backoff | --idle backoff needs a busy-polling --strategy: wirespeed-spin or native-spin",
    })
    void roundOptionsOutOfRangeAreUsageErrorsNamingTheValues(String options, String message) throws Exception {
        Path file = Files.write(dir.resolve("one.bin"), new Frames().frame(0, 0, new byte[0]).toByteArray());
        List<String> args = new ArrayList<>(List.of("--transport", "file", "--path", file.toString(), "--strategy",
                "wirespeed"));
        args.addAll(List.of(options.split(" ")));
        Run run = client(args.toArray(String[]::new));
        assertEquals(ExitCode.USAGE, run.code(), run.err());
        assertEquals("wirespeed client: " + message, run.err().strip());
    }

    @Test
    void timedRoundsEndAtTheEndOfTheStreamWithTheFramesRead() throws Exception {
        // A short file ends inside the warm-up: the partial round is printed, then the summary.
        Path file = Files.write(dir.resolve("three.bin"), new Frames().sequence(0, 3, 4).toByteArray());
        Run run = client("--transport", "file", "--path", file.toString(), "--strategy", "zero-copy", "--round-ms", "50",
                "--warmup-ms", "100", "--json");
        assertEquals(ExitCode.OK, run.code(), run.err());
        String[] lines = run.out().split("\n");
        assertEquals(2, lines.length, run.out());
        assertTrue(lines[0].startsWith("{\"round\":1,\"messages\":3,\"bytes\":36,"), lines[0]);
    }
}
