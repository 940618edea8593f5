package dev.wirespeed.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.uring.IoUringSupport;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.RefusingPort;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code wirespeed echo} as a real process and {@code wirespeed ping} in this JVM: every implementation, both
 * transports, the failures. A line the echo refuses before it serves runs in this JVM too.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native implementations are Linux-only")
class LatencyCommandsTest {
    private static final Pattern JSON = Pattern.compile(
            "\\{\"p50\":([0-9.]+),\"p90\":([0-9.]+),\"p99\":([0-9.]+),\"p999\":([0-9.]+),\"p9999\":([0-9.]+),\"max\":([0-9.]+),\"unit\":\"us\"}\n");
    private final List<Process> started = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stopProcesses() {
        started.forEach(Process::destroyForcibly);
    }

    private Process start(String... args) throws Exception {
        Process process = Processes.command(args).start();
        started.add(process);
        return process;
    }

    private int echo(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("echo", "--transport", "tcp", "--port", "0"));
        all.addAll(List.of(args));
        return Processes.listeningPort(start(all.toArray(String[]::new)));
    }

    record Run(int code, String out, String err) {
    }

    /** Runs {@code ping} in this JVM. */
    private static Run ping(String... args) {
        List<String> all = new ArrayList<>(List.of("ping"));
        all.addAll(List.of(args));
        return run(all.toArray(String[]::new));
    }

    /**
     * Runs a line the command must refuse before it serves, in this JVM: its exit code and message are those
     * of a process of its own. A command that served instead would not return: it is given 30 s.
     */
    private static Run refused(String... args) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> run(args),
                () -> String.join(" ", args) + ": not refused, still running after 30 s");
    }

    /** Runs a command line in this JVM. */
    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int code = commandLine.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static void assertPercentiles(Run run, String what) {
        assertEquals(ExitCode.OK, run.code(), what + ": " + run.err());
        Matcher matcher = JSON.matcher(run.out());
        assertTrue(matcher.matches(), what + ": " + run.out());
        double previous = 0;
        for (int group = 1; group <= 6; group++) {
            double value = Double.parseDouble(matcher.group(group));
            assertTrue(value > 0 && value >= previous, what + ": percentiles must rise: " + run.out());
            previous = value;
        }
    }

    @ParameterizedTest
    @CsvSource({"jdk, jdk", "jdk, jdk-spin", "jdk, netty", "jdk, netty-uring", "native, native", "native, native-spin",
        "jdk, native", "native, jdk"})
    void everyImplementationRoundTripsVerifiedFramesOverTcp(String echoImpl, String pingImpl) throws Exception {
        List<String> echoArgs = new ArrayList<>(List.of("--impl", echoImpl));
        if (pingImpl.endsWith("-spin")) {
            echoArgs.add("--spin");
        }
        int port = echo(echoArgs.toArray(String[]::new));
        Run run = ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", pingImpl, "--count", "3000",
                "--warmup", "500", "--json");
        assertPercentiles(run, echoImpl + " echo, " + pingImpl + " ping");
    }

    @ParameterizedTest
    @CsvSource({"'--loop', jdk", "'--loop --spin', jdk-spin", "'--loop --loops 2', native", "'--threads virtual', jdk",
        "'--loop --impl native', native-spin", "'--loop --impl native --spin --loops 2', jdk",
        "'--loop --impl native --jfr', native", "'--loop --impl uring', uring", "'--loop --impl uring --spin --loops 2', native-spin",
        "'--loop --impl uring --ring interrupt', native", "'--loop --impl uring --ring sqpoll', native",
        "'--loop --impl uring --ring coop --spin', native",
        "'--impl netty', jdk", "'--impl netty --loops 2', netty"})
    void everyManyConnectionEchoRoundTripsVerifiedFrames(String echoArgs, String pingImpl) throws Exception {
        int port = echo(echoArgs.split(" "));
        for (int connection = 0; connection < 2; connection++) { // with two loops, one connection on each
            Run run = ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", pingImpl, "--count", "2000",
                    "--warmup", "200", "--json");
            assertPercentiles(run, "echo " + echoArgs + ", " + pingImpl + " ping");
        }
    }

    @Test
    void theLoopEchoServesUnixSocketsAndPrimesItself() throws Exception {
        String socket = dir.resolve("loop.sock").toString();
        Process echo = start("echo", "--transport", "unix", "--path", socket, "--loop", "--prime", "500");
        BufferedReader err = new BufferedReader(new InputStreamReader(echo.getErrorStream(), StandardCharsets.UTF_8));
        assertTrue(String.valueOf(err.readLine()).matches("primed: 3 connections of 500 round trips each in \\d+ ms"));
        assertEquals("listening on " + socket, err.readLine());
        assertPercentiles(ping("--transport", "unix", "--path", socket, "--impl", "native", "--count", "2000",
                "--warmup", "200", "--json"), "a loop echo over unix");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--loops 2|--loops 2 needs --loop or --impl netty",
        "--loop --threads virtual|--threads virtual cannot go with --loop: loops are threads of their own",
        "--spin --threads virtual|--threads virtual cannot go with --spin: a spinning connection would hold its carrier thread",
        "--jfr|--jfr needs --loop: the events are the loop's",
        "--loop --loops 0|--loops=0 must be 1 to 1024",
        "--loop --impl native --ring defer|--ring defer needs --loop --impl uring: it sets up the event loops' rings (each connection's own ring, without --loop, is the library's default)",
        "--impl uring --ring sqpoll|--ring sqpoll needs --loop --impl uring: it sets up the event loops' rings (each connection's own ring, without --loop, is the library's default)",
        "--impl netty --spin|--impl netty serves tcp from its event loops (--loops N), blocking in epoll, unprimed: drop --spin, --prime, --threads and --transport unix",
        "--impl netty-uring --prime 5|--impl netty-uring serves tcp from its event loops (--loops N), blocking in io_uring, unprimed: drop --spin, --prime, --threads and --transport unix"})
    void manyConnectionOptionsThatDoNotGoTogetherAreUsageErrors(String args, String message) throws Exception {
        List<String> all = new ArrayList<>(List.of("echo", "--transport", "tcp", "--port", "0"));
        all.addAll(List.of(args.split(" ")));
        Run echo = refused(all.toArray(String[]::new));
        assertEquals(ExitCode.USAGE, echo.code(), echo.err());
        assertEquals("wirespeed echo: " + message + "\n", echo.err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--threads green|Invalid value for option '--threads': unknown --threads 'green'; known: platform, virtual",
        "--loop --impl uring --ring fast|Invalid value for option '--ring': unknown --ring 'fast'; known: default, interrupt, coop, defer, sqpoll",
        "--loop --impl fast|Invalid value for option '--impl': unknown --impl 'fast'; known: jdk, native, uring, netty, netty-uring",
        "--spin --idle nap|Invalid value for option '--idle': unknown --idle 'nap'; known: spin, busy-spin, yield, backoff"})
    void anUnknownNameIsAUsageErrorNamingItAndTheKnownOnes(String args, String message) throws Exception {
        List<String> all = new ArrayList<>(List.of("echo", "--transport", "tcp", "--port", "0"));
        all.addAll(List.of(args.split(" ")));
        Run echo = refused(all.toArray(String[]::new));
        assertEquals(ExitCode.USAGE, echo.code(), echo.err());
        assertEquals(message, echo.err().lines().findFirst().orElseThrow());
    }

    @ParameterizedTest
    @CsvSource({"jdk, jdk-spin, busy-spin", "jdk, jdk-spin, yield", "native, native-spin, backoff",
        "uring, uring-spin, spin"})
    void everyIdleStrategyRoundTripsVerifiedFramesAtBothEnds(String echoImpl, String pingImpl, String idle)
            throws Exception {
        Environment.assume(Feature.IO_URING, !echoImpl.equals("uring") || IoUringSupport.kernel().available(),
                () -> IoUringSupport.kernel().unavailableReason());
        int port = echo("--impl", echoImpl, "--spin", "--idle", idle);
        Run run = ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", pingImpl, "--idle", idle,
                "--count", "3000", "--warmup", "500", "--json");
        assertPercentiles(run, echoImpl + " echo, " + pingImpl + " ping, --idle " + idle);
    }

    @Test
    void theIoUringEchoAndPingWaitingInTheKernelRoundTripVerifiedFrames() throws Exception {
        Environment.assume(Feature.IO_URING, IoUringSupport.kernel().available(), IoUringSupport.kernel()::unavailableReason);
        int port = echo("--impl", "uring");
        assertPercentiles(ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", "uring", "--count",
                "3000", "--warmup", "500", "--json"), "uring echo, uring ping");
    }

    @ParameterizedTest
    @CsvSource({"uring, uring, interrupt", "uring, uring, defer", "uring, uring, sqpoll", "uring-spin, uring, coop",
        "uring-spin, uring, interrupt", "uring-spin, uring, defer"})
    void theIoUringPingRoundTripsVerifiedFramesInEveryRingSetup(String pingImpl, String echoImpl, String ring)
            throws Exception {
        Environment.assume(Feature.IO_URING, IoUringSupport.kernel().available(), IoUringSupport.kernel()::unavailableReason);
        int port = pingImpl.endsWith("-spin") ? echo("--impl", echoImpl, "--spin") : echo("--impl", echoImpl);
        assertPercentiles(ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", pingImpl, "--ring", ring,
                "--count", "3000", "--warmup", "500", "--json"), pingImpl + " ping, --ring " + ring);
    }

    @Test
    void aRingSetupNeedsAnIoUringPingAndAKnownName() {
        Run notUring = ping("--transport", "tcp", "--port", "1", "--impl", "native", "--ring", "sqpoll", "--count", "10");
        assertEquals(ExitCode.USAGE, notUring.code(), notUring.err());
        assertEquals("wirespeed ping: --ring sqpoll needs --impl uring or uring-spin", notUring.err().strip());
        Run unknown = ping("--transport", "tcp", "--port", "1", "--impl", "uring", "--ring", "fast", "--count", "10");
        assertEquals(ExitCode.USAGE, unknown.code(), unknown.err());
        assertEquals("Invalid value for option '--ring': unknown --ring 'fast'; known: default, interrupt, coop, defer, "
                + "sqpoll", unknown.err().lines().findFirst().orElseThrow());
    }

    @Test
    void anIdleStrategyWithoutBusyPollingIsAUsageError() throws Exception {
        Run run = ping("--transport", "tcp", "--port", "1", "--impl", "jdk", "--idle", "yield", "--count", "10");
        assertEquals(ExitCode.USAGE, run.code(), run.err());
        assertEquals("wirespeed ping: --idle yield needs --impl jdk-spin, native-spin or uring-spin", run.err().strip());
        Run unknown = ping("--transport", "tcp", "--port", "1", "--impl", "jdk-spin", "--idle", "nap", "--count", "10");
        assertEquals(ExitCode.USAGE, unknown.code(), unknown.err());
        assertEquals("Invalid value for option '--idle': unknown --idle 'nap'; known: spin, busy-spin, yield, backoff",
                unknown.err().lines().findFirst().orElseThrow());
    }

    @ParameterizedTest
    @CsvSource({"jdk, jdk", "native, native-spin"})
    void unixSocketsToo(String echoImpl, String pingImpl) throws Exception {
        String socket = dir.resolve("echo.sock").toString();
        Process echo = start("echo", "--transport", "unix", "--path", socket, "--impl", echoImpl);
        BufferedReader err = new BufferedReader(new InputStreamReader(echo.getErrorStream(), StandardCharsets.UTF_8));
        assertEquals("listening on " + socket, err.readLine());
        Run run = ping("--transport", "unix", "--path", socket, "--impl", pingImpl, "--count", "2000", "--warmup", "200",
                "--json");
        assertPercentiles(run, "unix " + pingImpl);
    }

    @Test
    void anOpenLoopAtAFixedRateWritesItsHistogramWhenAsked() throws Exception {
        int port = echo("--impl", "native");
        Path hgrm = dir.resolve("ping.hgrm");
        Run run = ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", "native", "--count", "2000",
                "--warmup", "200", "--rate", "20000", "--hgrm", hgrm.toString());
        assertEquals(ExitCode.OK, run.code(), run.err());
        assertTrue(run.out().contains("open loop at 20000/s: 2000 round trips after 200 warm-up ones"),
                run.out());
        assertTrue(run.out().matches("(?s).*p50 [0-9.]+ us, p90 [0-9.]+ us, p99 [0-9.]+ us, p99.9 [0-9.]+ us, p99.99 [0-9.]+ us, max [0-9.]+ us\n"),
                run.out());
        String histogram = Files.readString(hgrm);
        assertTrue(histogram.contains("Value     Percentile TotalCount 1/(1-Percentile)"), histogram);
        assertTrue(histogram.contains("Total count    =         2000]"), histogram);
    }

    @ParameterizedTest
    @CsvSource({"jdk, jdk", "native, native-spin", "jdk, netty"})
    void aTimedWarmUpLastsItsTimeSaysWhetherTheJitSettledAndMeasuresExactlyTheCount(String echoImpl, String pingImpl)
            throws Exception {
        int port = pingImpl.endsWith("-spin") ? echo("--impl", echoImpl, "--spin") : echo("--impl", echoImpl);
        Path hgrm = dir.resolve("timed.hgrm");
        long start = System.nanoTime();
        Run run = ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", pingImpl, "--count", "500",
                "--warmup", "0", "--warmup-ms", "300", "--settle-ms", "20", "--hgrm", hgrm.toString());
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(ExitCode.OK, run.code(), run.err());
        Matcher warmedUp = Pattern.compile("closed loop: 500 round trips after (\\d+) warm-up ones, the JIT (settled|still compiling "
                + "when the warm-up ran out)\n").matcher(run.out());
        assertTrue(warmedUp.find(), run.out());
        assertTrue(Long.parseLong(warmedUp.group(1)) > 0, "a warm-up of 300 ms makes round trips: " + run.out());
        assertTrue(elapsedMillis >= 300, "the run ended " + elapsedMillis + " ms after it began");
        assertTrue(Files.readString(hgrm).contains("Total count    =          500]"), Files.readString(hgrm));
    }

    @ParameterizedTest
    @CsvSource({"tcp, jdk, ''", "tcp, native, --spin", "unix, jdk, ''", "unix, native, ''"})
    void aPrimedEchoSaysSoThenServesItsPeers(String transport, String impl, String spin) throws Exception {
        List<String> args = new ArrayList<>(List.of("echo", "--transport", transport, "--impl", impl, "--prime", "3000"));
        String socket = dir.resolve("primed.sock").toString();
        args.addAll(transport.equals("tcp") ? List.of("--port", "0") : List.of("--path", socket));
        if (!spin.isEmpty()) {
            args.add(spin);
        }
        Process echo = start(args.toArray(String[]::new));
        BufferedReader err = new BufferedReader(new InputStreamReader(echo.getErrorStream(), StandardCharsets.UTF_8));
        String primed = err.readLine();
        assertTrue(String.valueOf(primed).matches("primed: 3 connections of 3000 round trips each in \\d+ ms"), primed);
        String listening = err.readLine();
        Matcher address = Pattern.compile("listening on (?:127\\.0\\.0\\.1:(\\d+)|(.+))").matcher(String.valueOf(listening));
        assertTrue(address.matches(), listening);
        List<String> where = transport.equals("tcp") ? List.of("--port", address.group(1)) : List.of("--path", socket);
        List<String> pingArgs = new ArrayList<>(List.of("--transport", transport));
        pingArgs.addAll(where);
        pingArgs.addAll(List.of("--impl", spin.isEmpty() ? impl : impl + "-spin", "--count", "2000", "--warmup", "200",
                "--json"));
        assertPercentiles(ping(pingArgs.toArray(String[]::new)), "a primed " + impl + " echo over " + transport);
    }

    @Test
    void primingRefusesAnEchoThatWouldStarveItsPrimer() throws Exception {
        Run echo = refused("echo", "--transport", "tcp", "--port", "0", "--spin", "--idle", "busy-spin", "--prime", "10");
        assertEquals(ExitCode.USAGE, echo.code(), echo.err());
        assertEquals("wirespeed echo: --prime 10 cannot go with --idle busy-spin: the primer runs in this process, and "
                + "an echo that never yields would starve it\n", echo.err());
    }

    @Test
    void aWarmUpTimeOutOfRangeIsAUsageError() {
        Run run = ping("--transport", "tcp", "--port", "1", "--impl", "jdk", "--count", "10", "--warmup-ms", "-1");
        assertEquals(ExitCode.USAGE, run.code(), run.err());
        assertEquals("wirespeed ping: --count=10 must be >= 1, --warmup=20000 >= 0, --warmup-ms=-1 0 to 3600000, "
                + "--settle-ms=0 0 to 60000, --size=100 0 to 16777216, --rate=0.0 >= 0", run.err().strip());
        Run settle = ping("--transport", "tcp", "--port", "1", "--impl", "jdk", "--count", "10", "--settle-ms", "60001");
        assertEquals(ExitCode.USAGE, settle.code(), settle.err());
        assertTrue(settle.err().contains("--settle-ms=60001 0 to 60000"), settle.err());
    }

    @ParameterizedTest
    @CsvSource({"jdk", "native", "netty"})
    void aRefusedConnectionIsAnIoFailure(String impl) throws Exception {
        try (RefusingPort refusing = new RefusingPort()) { // bound, not listening, for as long as the ping runs
            Run run = ping("--transport", "tcp", "--port", String.valueOf(refusing.port()), "--impl", impl, "--count",
                    "10");
            assertEquals(ExitCode.IO_FAILURE, run.code(), run.err());
            assertTrue(run.err().startsWith("wirespeed ping: I/O failure: "), run.err());
            assertTrue(run.err().contains("onnection refused"), run.err());
        }
    }

    @Test
    void anEchoKilledMidRunIsAnIoFailureThatSaysHowFarItGot() throws Exception {
        Process echo = start("echo", "--transport", "tcp", "--port", "0", "--impl", "native");
        int port = Processes.listeningPort(echo);
        AtomicReference<String> connected = new AtomicReference<>();
        Thread killer = Thread.ofVirtual().start(() -> {
            try {
                // Mid-run: once the echo's end of the ping's connection is there, and not before it.
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
                while (connected.get() == null && System.nanoTime() - deadline < 0) {
                    connected.set(establishedOn(port));
                    Thread.sleep(1);
                }
            } catch (InterruptedException | IOException e) {
                connected.set(null); // the kill below ends the ping; the check after it fails, naming the port
            } finally {
                echo.destroyForcibly();
            }
        });
        Run run = ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", "native", "--count", "100000000",
                "--warmup", "0");
        killer.join();
        assertNotNull(connected.get(), "the echo was killed with no connection on port " + port + " after a minute: "
                + run.err());
        assertEquals(ExitCode.IO_FAILURE, run.code(), run.err());
        assertTrue(run.err().matches("wirespeed ping: I/O failure: .*(the echo closed the connection after \\d+ round trips"
                + "|Connection reset by peer).*\n"), run.err());
    }

    /**
     * {@return the line of /proc/net/tcp (or tcp6) of a connected socket whose local port is {@code port}},
     * or null if there is none
     */
    private static String establishedOn(int port) throws IOException {
        String local = String.format(Locale.ROOT, ":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] fields = line.strip().split("\\s+");
                if (fields.length > 3 && fields[1].endsWith(local) && fields[3].equals("01")) { // TCP_ESTABLISHED
                    return line.strip();
                }
            }
        }
        return null;
    }

    @Test
    void aPeerThatAnswersWithFramesLongerThanSentBreaksTheWireFormat() throws Exception {
        // The sequence server is no echo: it streams 200-byte frames, more than ping's 100-byte limit.
        Process server = start("server", "--transport", "tcp", "--port", "0", "--size", "200");
        int port = Processes.listeningPort(server);
        Run run = ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", "jdk", "--count", "10",
                "--size", "100");
        assertEquals(ExitCode.BAD_INPUT, run.code(), run.err());
        assertEquals("wirespeed ping: frame too long: length=200 maxFrameLength=100 offset=0\n", run.err());
    }

    @Test
    void anEchoThatIsNotTheFrameSentFailsVerificationNamingTheByte() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Thread liar = Thread.ofVirtual().start(() -> {
                try (SocketChannel connection = server.accept()) {
                    ByteBuffer frame = ByteBuffer.allocate(108);
                    while (frame.hasRemaining() && connection.read(frame) >= 0) {
                        // read frame 0 whole
                    }
                    frame.put(8 + 4, (byte) (frame.get(8 + 4) ^ 1)); // byte 4 of the body
                    connection.write(frame.flip());
                    connection.read(ByteBuffer.allocate(1)); // until ping gives up
                } catch (java.io.IOException e) {
                    // ping went away
                }
            });
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            Run run = ping("--transport", "tcp", "--port", String.valueOf(port), "--impl", "native-spin", "--count", "10");
            assertEquals(ExitCode.VERIFY_FAILED, run.code(), run.err());
            assertEquals("wirespeed ping: an echo was not the frame sent: frame 0 byte 4 is corrupt: actual=5 expected=4 offset=12\n",
                    run.err());
            liar.join(10_000);
        }
    }

    @Test
    void badCommandLinesSayWhatIsWrong() {
        assertEquals("wirespeed ping: --impl netty needs --transport tcp\n",
                ping("--transport", "unix", "--path", "/tmp/x", "--impl", "netty", "--count", "1").err());
        assertEquals("wirespeed ping: --impl netty-uring needs --transport tcp\n",
                ping("--transport", "unix", "--path", "/tmp/x", "--impl", "netty-uring", "--count", "1").err());
        assertEquals(ExitCode.USAGE, ping("--transport", "tcp", "--impl", "fast", "--count", "1").code());
        assertEquals("Invalid value for option '--impl': unknown --impl 'fast'; known: jdk, jdk-spin, native, "
                + "native-spin, uring, uring-spin, netty, netty-uring",
                ping("--transport", "tcp", "--impl", "fast", "--count", "1").err().lines().findFirst().orElseThrow());
        assertEquals(ExitCode.USAGE, ping("--transport", "tcp", "--impl", "jdk", "--count", "0").code());
    }
}
