package dev.wirespeed.lab;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.testing.Frames;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * Hostile peers against the client command: what the user sees (exit code, message) and that every frame
 * before the fault was delivered and verified. The peers are scripted here, over real TCP. The client runs
 * in this JVM, where its exit code is what the command returns and its output what it prints, as in a
 * process of its own; the test of a client that dies runs the server and every client as processes, as a
 * process's death beside the others is what it is about.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FaultsTest {
    private static final Pattern AFTER = Pattern.compile("\\(after (\\d+) complete frames, (\\d+) bytes\\)");
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopProcesses() {
        started.forEach(Process::destroyForcibly);
    }

    record Result(int code, String out, String err) {
    }

    /** Runs the client in this JVM against {@code port} with {@code --verify --json}. */
    private static Result client(int port, String strategy, String... more) {
        return client(port, strategy, line -> { }, more);
    }

    /** As {@link #client(int, String, String...)}, handing each line of its output to {@code onLine} as it comes. */
    private static Result client(int port, String strategy, Consumer<String> onLine, String... more) {
        List<String> args = new ArrayList<>(List.of("client", "--transport", "tcp", "--port", String.valueOf(port),
                "--strategy", strategy, "--verify", "--json"));
        args.addAll(List.of(more));
        Lines out = new Lines(onLine);
        StringWriter err = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int code = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> commandLine.execute(args.toArray(String[]::new)),
                "client hung");
        return new Result(code, out.toString(), err.toString());
    }

    /** As {@link #client(int, String, String...)}, in a process of its own. */
    private Result clientProcess(int port, String strategy, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("client", "--transport", "tcp", "--port", String.valueOf(port),
                "--strategy", strategy, "--verify", "--json"));
        args.addAll(List.of(more));
        Process client = Processes.command(args.toArray(String[]::new)).start();
        started.add(client);
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> Processes.readAll(client.getErrorStream()));
        String out = Processes.readAll(client.getInputStream());
        assertTrue(client.waitFor(2, TimeUnit.MINUTES), "client hung");
        return new Result(client.exitValue(), out, err.get());
    }

    /** Keeps what is written, and hands each line to {@code onLine} once its newline comes. */
    private static final class Lines extends Writer {
        private final StringBuilder all = new StringBuilder();
        private final Consumer<String> onLine;
        private int lineStart;

        Lines(Consumer<String> onLine) {
            this.onLine = onLine;
        }

        @Override
        public void write(char[] chars, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                all.append(chars[i]);
                if (chars[i] == '\n') {
                    onLine.accept(all.substring(lineStart, all.length() - 1));
                    lineStart = all.length();
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public String toString() {
            return all.toString();
        }
    }

    /** A one-connection peer on a free port, running {@code script} on the accepted connection. */
    private static int peer(Script script) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        Thread.ofVirtual().start(() -> {
            try (server; SocketChannel connection = server.accept()) {
                script.run(connection);
            } catch (IOException | InterruptedException e) {
                // the client went away: nothing to script any more
            }
        });
        return port;
    }

    @FunctionalInterface
    interface Script {
        void run(SocketChannel connection) throws IOException, InterruptedException;
    }

    private static void writeFully(SocketChannel channel, byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private static long framesBefore(String err) {
        Matcher matcher = AFTER.matcher(err);
        assertTrue(matcher.find(), err);
        return Long.parseLong(matcher.group(1));
    }

    @Test
    void aResetAfterAHalfFrameIsAnIoFailureAfterEveryWholeFrameWasVerified() throws Exception {
        byte[] whole = new Frames().sequence(0, 500, 100).toByteArray();
        byte[] half = new Frames().sequence(500, 1, 100).toByteArray();
        CountDownLatch read = new CountDownLatch(1);
        int port = peer(connection -> {
            writeFully(connection, whole);
            writeFully(connection, java.util.Arrays.copyOf(half, 50));
            // A reset discards what the client has not read yet: it comes once the client said it read the 500
            // (a round of 500 frames ended), or after a minute, and then the check of the frames below fails.
            read.await(1, TimeUnit.MINUTES);
            connection.setOption(StandardSocketOptions.SO_LINGER, 0);
            connection.close(); // RST
        });
        Result result = client(port, "wirespeed", line -> {
            if (line.startsWith("{\"round\":1,\"messages\":500,")) {
                read.countDown();
            }
        }, "--messages", "500");
        assertEquals(ExitCode.IO_FAILURE, result.code(), result.err());
        assertTrue(result.err().startsWith("wirespeed client: I/O failure: java.net.SocketException: Connection reset"),
                result.err());
        assertEquals(500, framesBefore(result.err()), result.err());
    }

    @Test
    void aPeerThatStopsMidFrameAndClosesIsATruncatedFrameAtItsOffset() throws Exception {
        for (Strategies strategy : List.of(Strategies.WIRESPEED, Strategies.NATIVE, Strategies.ZERO_COPY,
                Strategies.BUFFERED)) {
            byte[] stream = new Frames().sequence(0, 300, 100).toByteArray();
            int port = peer(connection -> {
                writeFully(connection, stream);
                writeFully(connection, java.util.Arrays.copyOf(new Frames().sequence(300, 1, 100).toByteArray(), 60));
                // Pacing: the client most often waits in the frame when the end comes; in either order the end
                // follows the bytes, and the report must be the same.
                Thread.sleep(200);
            });
            Result result = client(port, strategy.cliName());
            assertEquals(ExitCode.BAD_INPUT, result.code(), strategy + ": " + result.err());
            assertEquals("wirespeed client: truncated frame: body bytes present=52 of length=100 offset=32400 (after "
                    + "300 complete frames, 32400 bytes)\n", result.err(), strategy.cliName());
        }
    }

    @Test
    void aPeerSendingOneBytePerWriteWithPausesLosesNothing() throws Exception {
        byte[] stream = new Frames().sequence(0, 200, 37).toByteArray();
        for (Strategies strategy : Strategies.values()) {
            if (!strategy.supports(Transport.TCP)) {
                continue;
            }
            int port = peer(connection -> {
                connection.setOption(StandardSocketOptions.TCP_NODELAY, true);
                for (int i = 0; i < stream.length; i++) {
                    writeFully(connection, new byte[] {stream[i]});
                    if (i % 997 == 0) { // pacing: the client's reads find the stream cut anywhere, or whole
                        Thread.sleep(2);
                    }
                }
            });
            Result result = client(port, strategy.cliName());
            assertEquals(ExitCode.OK, result.code(), strategy + ": " + result.err());
            assertTrue(result.out().endsWith("{\"summary\":true,\"frames\":200,\"bytes\":" + stream.length
                    + ",\"verified\":true}\n"), strategy + ": " + result.out());
        }
    }

    @Test
    void aClientKilledMidStreamLeavesTheOthersServedToTheEnd() throws Exception {
        Process server = Processes.command("server", "--transport", "tcp", "--port", "0", "--count", "2000000").start();
        started.add(server);
        int port = Processes.listeningPort(server);
        Process victim = Processes.command("client", "--transport", "tcp", "--port", String.valueOf(port), "--strategy",
                "wirespeed", "--messages", "100000", "--json").start();
        started.add(victim);
        BufferedReader victimOut = new BufferedReader(new InputStreamReader(victim.getInputStream(), StandardCharsets.UTF_8));
        List<CompletableFuture<Result>> others = new ArrayList<>();
        for (String strategy : List.of("wirespeed", "zero-copy", "native")) {
            others.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return clientProcess(port, strategy, "--messages", "500000");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        assertTrue(String.valueOf(victimOut.readLine()).startsWith("{\"round\":1,"), "the victim never started");
        victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        for (CompletableFuture<Result> other : others) {
            Result result = other.get(2, TimeUnit.MINUTES);
            assertEquals(ExitCode.OK, result.code(), result.err());
            assertTrue(result.out().endsWith("{\"summary\":true,\"frames\":2000000,\"bytes\":216000000,\"verified\":true}\n"),
                    result.out());
        }
        Result after = clientProcess(port, "wirespeed-spin", "--messages", "500000");
        assertEquals(ExitCode.OK, after.code(), "the server still serves new clients: " + after.err());
        assertTrue(server.isAlive(), "the server survived its client's death");
    }

    @Test
    void anIdlePeerIsAReadTimeoutWithExitCodeFiveForEveryStrategy() {
        List<Strategies> tcp = Stream.of(Strategies.values()).filter(s -> s.supports(Transport.TCP)).toList();
        List<Strategies> blocking = tcp.stream().filter(s -> !s.polls()).toList();
        List<Strategies> polling = tcp.stream().filter(Strategies::polls).toList();
        // Each client waits out its peer's silence, 2.5 s or a little more: they wait side by side, each
        // against its own peer and its own clock. What races a clock is a client's start, its connect and
        // its 100 frames, so those come one client at a time, on a machine where every other client sits
        // in its silence: the blocking ones asleep in a read, then the busy-polling ones, one at a time
        // from start to end, as each takes a core while it waits.
        Semaphore turn = new Semaphore(1, true);
        CountDownLatch blockingRead = new CountDownLatch(blocking.size());
        List<Future<?>> clients = new ArrayList<>();
        try (ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().name("idle-", 0)
                .factory())) {
            for (Strategies strategy : blocking) {
                clients.add(threads.submit(() -> {
                    idlePeerIsAReadTimeout(strategy, turn, blockingRead::countDown);
                    return null;
                }));
            }
            clients.add(threads.submit(() -> {
                assertTrue(blockingRead.await(2, TimeUnit.MINUTES), "the blocking clients' frames, in 2 minutes");
                assertAll(polling.stream().map(strategy -> (Executable) () -> idlePeerIsAReadTimeout(strategy, turn,
                        () -> { })));
                return null;
            }));
            assertAll(clients.stream().map(client -> (Executable) () -> awaitClient(client)));
        }
    }

    /** Waits for one client's case, its assertion failures rethrown as they were. */
    private static void awaitClient(Future<?> client) throws Throwable {
        try {
            client.get(3, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    /**
     * The peer sends 100 frames then stays silent: the client gives up on its read timeout with the 100
     * kept. The client starts on its {@code turn}, and gives the turn back, and runs {@code read}, once it
     * has read the 100 frames (or has ended without them).
     */
    private static void idlePeerIsAReadTimeout(Strategies strategy, Semaphore turn, Runnable read)
            throws Exception {
        byte[] stream = new Frames().sequence(0, 100, 100).toByteArray();
        CountDownLatch clientDone = new CountDownLatch(1);
        AtomicBoolean peerGaveUp = new AtomicBoolean();
        int port = peer(connection -> {
            writeFully(connection, stream);
            // Then silence, the connection open until the client has ended: its end is its own timeout's.
            peerGaveUp.set(!clientDone.await(3, TimeUnit.MINUTES));
        });
        assertTrue(turn.tryAcquire(2, TimeUnit.MINUTES), strategy + ": no turn to start in 2 minutes");
        AtomicBoolean given = new AtomicBoolean();
        Runnable giveBack = () -> {
            if (given.compareAndSet(false, true)) {
                turn.release();
                read.run();
            }
        };
        Result result;
        try {
            // The timeout counts from the client's start, its connect included (the command's rule), and the
            // watchdog's clock from its first check, a quarter of the timeout in: the client has 3.1 s to
            // connect and read the 100 frames before the timeout could fire with fewer, where a cold Netty
            // connect takes a few hundred ms, and more on a loaded machine. Rounds of 100 frames: the first
            // round's line says the client has them all.
            result = client(port, strategy.cliName(), line -> {
                if (line.startsWith("{\"round\":1,\"messages\":100,")) {
                    giveBack.run();
                }
            }, "--messages", "100", "--read-timeout", "2500");
        } finally {
            giveBack.run();
        }
        clientDone.countDown();
        assertFalse(peerGaveUp.get(), strategy + ": the peer closed, after 3 minutes, before the client gave up");
        assertEquals(ExitCode.IO_FAILURE, result.code(), strategy + ": " + result.err());
        assertEquals("wirespeed client: read timed out: no complete frame for 2500 ms (after 100 complete frames, "
                + "10800 bytes)\n", result.err(), strategy.cliName());
        assertTrue(result.out().startsWith("{\"round\":1,\"messages\":100,") && result.out().endsWith(
                "{\"summary\":true,\"frames\":100,\"bytes\":10800,\"verified\":false}\n"),
                strategy + ": " + result.out());
    }
}
