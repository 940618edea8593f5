package dev.wirespeed.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.server.ServerImpl;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.TestCertificates;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code wirespeed server} and {@code wirespeed client} as real processes over TCP loopback. The tests
 * that run one client after another, a strategy each, run those clients in this JVM against the real
 * server: each strategy's reading is what they are about, and a client's exit code and output are the
 * command's own in this JVM as in a process. The other tests' clients are processes. A line a server
 * refuses before it serves is refused in this JVM too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EndToEndTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopProcesses() {
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void everyStrategyReadsAndVerifiesACountedStream() throws Exception {
        int port = startServer("--count", "200000", "--size", "0-300");
        for (Strategies strategy : Strategies.values()) {
            Result client = clientInThisJvm("--port", String.valueOf(port), "--strategy", strategy.cliName(),
                    "--verify", "--json", "--messages", "50000");
            assertEquals(ExitCode.OK, client.code(), strategy + ": " + client.err());
            assertTrue(client.out().contains("{\"round\":4,\"messages\":50000,"), strategy + ": " + client.out());
            assertTrue(client.out().matches("(?s).*\\{\"summary\":true,\"frames\":200000,\"bytes\":\\d+,\"verified\":true}\n"),
                    strategy + ": " + client.out());
        }
    }

    @Test
    void aServerThatWritesEachFrameOnItsOwnIsReadTheSame() throws Exception {
        int port = startServer("--count", "20000", "--write-per-frame");
        Result client = runClient("--port", String.valueOf(port), "--strategy", "wirespeed", "--verify", "--json");
        assertEquals(ExitCode.OK, client.code(), client.err());
        assertTrue(client.out().endsWith("{\"summary\":true,\"frames\":20000,\"bytes\":2160000,\"verified\":true}\n"),
                client.out());
    }

    @Test
    void aServerKilledMidStreamMakesTheClientSayHowManyFramesItHad() throws Exception {
        // 1,000,011-byte frames: a 512 KiB write boundary meets a frame boundary only after ~0.5 TB,
        // so the killed stream always ends inside a frame.
        int port = startServer("--size", "1000003");
        Process client = start("client", "--transport", "tcp", "--port", String.valueOf(port), "--strategy",
                "wirespeed", "--verify", "--json", "--messages", "20");
        BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
        String firstRound = out.readLine();
        assertTrue(firstRound != null && firstRound.startsWith("{\"round\":1,"), String.valueOf(firstRound));
        started.get(0).destroyForcibly().waitFor();

        assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client did not notice the server died");
        String err = new String(client.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = client.exitValue();
        assertTrue(code == ExitCode.BAD_INPUT || code == ExitCode.IO_FAILURE, "exit " + code + ": " + err);
        Matcher frames = Pattern.compile("\\(after (\\d+) complete frames, (\\d+) bytes\\)").matcher(err);
        assertTrue(frames.find(), err);
        assertTrue(Long.parseLong(frames.group(1)) >= 20, err);
        assertEquals(Long.parseLong(frames.group(1)) * 1_000_011L, Long.parseLong(frames.group(2)), err);
    }

    @Test
    void aPipeFromServerStdoutToClientStdinCarriesAVerifiedStream() throws Exception {
        for (Strategies strategy : Strategies.values()) {
            if (!strategy.supports(Transport.STDIN)) {
                continue; // sockets only
            }
            List<Process> pipeline = ProcessBuilder.startPipeline(List.of(
                    command("server", "--transport", "stdout", "--count", "30000", "--size", "0-200"),
                    command("client", "--transport", "stdin", "--strategy", strategy.cliName(), "--verify", "--json")));
            started.addAll(pipeline);
            Process client = pipeline.get(1);
            String out = readAll(client.getInputStream());
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "client hung");
            assertEquals(ExitCode.OK, client.exitValue(), strategy + ": " + readAll(client.getErrorStream()));
            assertTrue(out.matches("(?s).*\\{\"summary\":true,\"frames\":30000,\"bytes\":\\d+,\"verified\":true}\n"),
                    strategy + ": " + out);
        }
    }

    @Test
    void thePeersNeedTcpAndSaySo() throws Exception {
        Process client = start("client", "--transport", "stdin", "--strategy", "netty-epoll");
        client.getOutputStream().close();
        assertTrue(client.waitFor(60, TimeUnit.SECONDS));
        assertEquals(ExitCode.USAGE, client.exitValue());
        assertEquals("wirespeed client: --strategy netty-epoll needs --transport tcp\n", readAll(client.getErrorStream()));
    }

    @Test
    void aServerWhoseReaderGoesAwayOnAPipeEndsQuietly() throws Exception {
        List<Process> pipeline = ProcessBuilder.startPipeline(List.of(
                command("server", "--transport", "stdout"),
                new ProcessBuilder("head", "-c", "1000000")));
        started.addAll(pipeline);
        Process server = pipeline.get(0);
        readAll(pipeline.get(1).getInputStream());
        assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the server kept writing to a closed pipe");
        assertEquals(ExitCode.OK, server.exitValue());
        assertEquals("", readAll(server.getErrorStream()));
    }

    @Test
    void aUnixSocketCarriesAVerifiedStreamToSeveralClients(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        String socket = dir.resolve("wirespeed.sock").toString();
        Process server = start("server", "--transport", "unix", "--path", socket, "--count", "50000");
        BufferedReader err = new BufferedReader(new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8));
        assertTrue(String.valueOf(err.readLine()).startsWith("listening on "), "the server did not start");
        for (String strategy : List.of("buffered", "zero-copy", "wirespeed", "wirespeed-spin", "native", "native-spin")) {
            Result client = inThisJvm("client", "--transport", "unix", "--path", socket, "--strategy", strategy,
                    "--verify", "--json");
            assertEquals(ExitCode.OK, client.code(), strategy + ": " + client.err());
            assertTrue(client.out().endsWith("{\"summary\":true,\"frames\":50000,\"bytes\":5400000,\"verified\":true}\n"),
                    strategy + ": " + client.out());
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"'--loop'", "'--loop --impl native --loops 2'",
        "'--loop --impl uring --loops 2'"})
    void aLoopServerStreamsAVerifiedCountedStreamToClientsAtOnce(String loopArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("--count", "300000", "--size", "0-300"));
        args.addAll(List.of(loopArgs.split(" ")));
        int port = startServer(args.toArray(String[]::new));
        List<Process> clients = new ArrayList<>();
        for (String strategy : List.of("wirespeed", "native-spin", "zero-copy")) {
            clients.add(start("client", "--transport", "tcp", "--port", String.valueOf(port), "--strategy", strategy,
                    "--verify", "--json", "--messages", "100000"));
        }
        for (Process client : clients) {
            String out = readAll(client.getInputStream());
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "client hung");
            assertEquals(ExitCode.OK, client.exitValue(), readAll(client.getErrorStream()));
            assertTrue(out.matches("(?s).*\\{\"summary\":true,\"frames\":300000,\"bytes\":\\d+,\"verified\":true}\n"), out);
        }
    }

    @ParameterizedTest(name = "--impl {0} --tls-engine {1}")
    @CsvSource({"native, jdk", "native, openssl", "uring, jdk", "uring, openssl", "netty, jdk", "netty, openssl"})
    void aLoopServerStreamsAVerifiedCountedStreamOverTlsToTheClientLoop(String impl, String engine) throws Exception {
        ServerImpl server = CliName.byName(ServerImpl.values(), "--impl", impl);
        Environment.assume(server == ServerImpl.URING ? Feature.IO_URING : Feature.EPOLL, server.unavailable() == null,
                server::unavailable);
        boolean netty = server == ServerImpl.NETTY;
        if (engine.equals("openssl") && !netty) {
            Environment.assume(Feature.LIBSSL, OpenSsl.isAvailable(), OpenSsl::unavailableReason);
        }
        if (engine.equals("openssl") && netty) {
            assertTrue(io.netty.handler.ssl.OpenSsl.isAvailable(), () -> "Netty's OpenSSL did not load: "
                    + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
        }
        int port = startServer("--count", "100000", "--size", "0-300", "--loop", "--impl", impl, "--tls", "--cert",
                TestCertificates.file("server.pem").toString(), "--key", TestCertificates.file("server.key").toString(),
                "--tls-engine", engine);
        Result client = runClient("--port", String.valueOf(port), "--strategy", "loop", "--tls", "--trust",
                TestCertificates.file("ca.pem").toString(), "--tls-engine", netty ? "jdk" : engine, "--verify", "--json");
        assertEquals(ExitCode.OK, client.code(), client.err());
        assertTrue(client.out().matches("(?s).*\\{\"summary\":true,\"frames\":100000,\"bytes\":\\d+,\"verified\":true}\n"),
                client.out());
    }

    @Test
    void nettysStreamServerServesTcpOnly(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        Result server = inThisJvm("server", "--transport", "unix", "--path", dir.resolve("s.sock").toString(), "--loop",
                "--impl", "netty");
        assertEquals(ExitCode.USAGE, server.code(), server.err());
        assertEquals("wirespeed server: --impl netty serves tcp only, not unix\n", server.err());
    }

    @Test
    void loopOptionsThatDoNotApplyAreUsageErrors() throws Exception {
        for (List<String> args : List.of(List.of("--loops", "2"), List.of("--loop", "--write-per-frame"),
                List.of("--tls"), List.of("--impl", "netty"))) {
            List<String> all = new ArrayList<>(List.of("server", "--transport", "tcp", "--port", "0"));
            all.addAll(args);
            Result server = inThisJvm(all.toArray(String[]::new));
            assertEquals(ExitCode.USAGE, server.code(), args + ": " + server.err());
            assertTrue(server.err().startsWith("wirespeed server: "), args + ": " + server.err());
        }
    }

    @Test
    void anUnknownLoopImplementationIsAUsageErrorNamingTheKnownOnes() throws Exception {
        Result server = inThisJvm("server", "--transport", "tcp", "--port", "0", "--loop", "--impl", "fast");
        assertEquals(ExitCode.USAGE, server.code(), server.err());
        assertEquals("Invalid value for option '--impl': unknown --impl 'fast'; known: jdk, native, uring, netty",
                server.err().lines().findFirst().orElseThrow());
    }

    private int startServer(String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of("server", "--transport", "tcp", "--port", "0"));
        all.addAll(List.of(args));
        return Processes.listeningPort(start(all.toArray(String[]::new)));
    }

    private Result runClient(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("client", "--transport", "tcp"));
        all.addAll(List.of(args));
        Process client = start(all.toArray(String[]::new));
        var err = new java.util.concurrent.CompletableFuture<String>();
        Thread.ofVirtual().start(() -> err.complete(readAll(client.getErrorStream())));
        String out = readAll(client.getInputStream());
        assertTrue(client.waitFor(60, TimeUnit.SECONDS), "client hung");
        return new Result(client.exitValue(), out, err.get());
    }

    /** {@return {@code client --transport tcp} and {@code args}, run in this JVM} */
    private static Result clientInThisJvm(String... args) {
        List<String> all = new ArrayList<>(List.of("client", "--transport", "tcp"));
        all.addAll(List.of(args));
        return inThisJvm(all.toArray(String[]::new));
    }

    /**
     * {@return a command line run in this JVM}: its exit code is what the command returns, which a process
     * exits with. Given 60 s, as a process is; a server that served instead of refusing its line would not
     * return.
     */
    private static Result inThisJvm(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int code = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> commandLine.execute(args),
                () -> String.join(" ", args) + ": still running after 60 s");
        return new Result(code, out.toString(), err.toString());
    }

    private Process start(String... args) throws IOException {
        Process process = command(args).start();
        started.add(process);
        return process;
    }

    private static ProcessBuilder command(String... args) {
        return Processes.command(args);
    }

    private static String readAll(java.io.InputStream in) {
        return Processes.readAll(in);
    }

    record Result(int code, String out, String err) {
    }
}
