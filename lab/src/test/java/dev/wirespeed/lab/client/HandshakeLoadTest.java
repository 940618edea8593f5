package dev.wirespeed.lab.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.tls.NoResumption;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameClient;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TLS handshake load ({@link HandshakeLoad}, {@code wirespeed handshakes}) against an in-process TLS
 * echo: every handshake a full TLS 1.3 one on a new connection that the server sees close cleanly, on
 * the JDK's engine and on OpenSSL at both ends.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HandshakeLoadTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private static TlsEngineFactory engine(String name) {
        if (name.equals("jdk")) {
            return TlsEngineFactory.jdk();
        }
        Environment.assume(Feature.LIBSSL, OpenSsl.isAvailable(), OpenSsl::unavailableReason);
        return OpenSsl.engine();
    }

    /** The loops' transport: epoll, the command's default, and nothing else in its place. */
    private static LoopImpl transport() {
        String why = LoopImpl.NATIVE.unavailable();
        Environment.assume(Feature.EPOLL, why == null, () -> why);
        return LoopImpl.NATIVE;
    }

    /** What the server saw of its connections. */
    private static final class Seen implements ConnectionHandler {
        final AtomicInteger opened = new AtomicInteger();
        final AtomicInteger closedCleanly = new AtomicInteger();
        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final Set<String> protocols = ConcurrentHashMap.newKeySet();
        /** The sessions' creation times, in order of opening: a resumed session keeps its first's. */
        final BlockingQueue<Long> sessionsCreated = new LinkedBlockingQueue<>();

        @Override
        public void onOpen(Connection connection) {
            opened.incrementAndGet();
            protocols.add(connection.tlsSession().getProtocol());
            sessionsCreated.add(connection.tlsSession().getCreationTime());
        }

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) {
            connection.writeFrame(type, body);
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            if (cause == null) {
                closedCleanly.incrementAndGet();
            } else {
                failures.add(cause);
            }
        }
    }

    private InetSocketAddress server(Seen seen, TlsEngineFactory engine) throws IOException {
        FrameServer server = transport().apply(FrameServer.builder(seen).bind(new InetSocketAddress("127.0.0.1", 0)))
                .tls(TestCertificates.identity("server").engine(engine).build()).start();
        open.add(server);
        return (InetSocketAddress) server.localAddresses().getFirst();
    }

    /**
     * A client's settings as the command's: TLS 1.3, waiting as long as a handshake may take for the
     * server's close_notify, since a client that stops waiting closes its socket, and a busy server's
     * late close_notify (or the JDK engine's ticket) then meets a reset.
     */
    private static TlsSettings client(TlsEngineFactory engine) {
        return TestCertificates.trustingTheTestCa().serverName("localhost").protocols(TlsSettings.Protocol.TLS_1_3)
                .closeTimeout(Duration.ofSeconds(10)).engine(engine).build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "openssl"})
    void everyHandshakeIsATls13OneOnANewConnectionThatTheServerSeesCloseCleanly(String engineName) throws Exception {
        TlsEngineFactory engine = engine(engineName);
        Seen seen = new Seen();
        InetSocketAddress address = server(seen, engine);
        int connections = 8;
        List<ChildReport.Handshakes> rounds = new ArrayList<>();
        try (LoopGroup loops = transport().apply(LoopGroup.builder()).start()) {
            // Rounds of 2 s: the load fails a round after the first that completes no handshake (its rule for the
            // lab), and a round has to outlast a stall of the whole process (a collection, a compilation, a
            // loaded machine's scheduler) to be sure of one. The first round cannot be empty: it lasts until a
            // round's time after the first handshake.
            new HandshakeLoad(loops, address, connections, client(new NoResumption(engine))).run(2, 2_000, rounds::add);
            // The server's end of each close follows the client's: wait for it, the loops still running.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (seen.closedCleanly.get() + seen.failures.size() < seen.opened.get() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        assertEquals(List.of(1L, 2L), rounds.stream().map(ChildReport.Handshakes::round).toList());
        long reported = 0;
        for (ChildReport.Handshakes round : rounds) {
            assertEquals(connections, round.connections(), round.toString());
            assertTrue(round.handshakes() >= 1, round.toString());
            reported += round.handshakes();
        }
        assertEquals(List.of(), List.copyOf(seen.failures), "every connection closed cleanly at the server");
        assertEquals(seen.opened.get(), seen.closedCleanly.get(), "every connection the server opened closed");
        // Those in flight when the rounds ended completed and closed, unreported.
        assertTrue(reported <= seen.opened.get() && seen.opened.get() <= reported + connections,
                "reported=" + reported + " opened at the server=" + seen.opened.get());
        assertEquals(Set.of("TLSv1.3"), seen.protocols);
    }

    /**
     * Two connections of one client to a JDK server, which sends a TLS 1.3 ticket after each
     * handshake: one frame echoed on the first, so that its ticket has been read, then the second,
     * later. A resumed session keeps the creation time of the first.
     */
    private static List<Long> twoConnectionsCreatedAt(TlsEngineFactory clientEngine, Seen seen, InetSocketAddress address)
            throws Exception {
        CompletableFuture<Void> echoed = new CompletableFuture<>();
        ConnectionHandler handler = (connection, type, body) -> echoed.complete(null);
        try (FrameClient client = FrameClient.builder(handler).tls(client(clientEngine)).build()) {
            Connection first = client.connect(address).get(20, TimeUnit.SECONDS);
            first.execute(() -> first.writeFrame(1, ByteBuffer.wrap(new byte[] {42})));
            echoed.get(20, TimeUnit.SECONDS);
            first.execute(first::close);
            // Creation times are in milliseconds: sessions made 50 ms apart at least cannot share one, and so
            // an equal time can only be a resumed session's.
            Thread.sleep(50);
            Connection second = client.connect(address).get(20, TimeUnit.SECONDS);
            second.execute(second::close);
        }
        return List.of(seen.sessionsCreated.poll(20, TimeUnit.SECONDS), seen.sessionsCreated.poll(20, TimeUnit.SECONDS));
    }

    @Test
    void aJdkClientResumesItsSessionUnlessItsEnginesComeThroughNoResumption() throws Exception {
        Seen seen = new Seen();
        InetSocketAddress address = server(seen, TlsEngineFactory.jdk());
        List<Long> plain = twoConnectionsCreatedAt(TlsEngineFactory.jdk(), seen, address);
        assertEquals(plain.get(0), plain.get(1), "the JDK's client resumed the first session: the check can tell");
        List<Long> fresh = twoConnectionsCreatedAt(new NoResumption(TlsEngineFactory.jdk()), seen, address);
        assertNotEquals(fresh.get(0), fresh.get(1), "each connection a new session");
    }

    @Test
    void anOpenSslClientResumesNoSession() throws Exception {
        Seen seen = new Seen();
        InetSocketAddress address = server(seen, TlsEngineFactory.jdk());
        List<Long> created = twoConnectionsCreatedAt(engine("openssl"), seen, address);
        assertNotEquals(created.get(0), created.get(1), "each connection a new session");
    }

    private record Run(int code, String out, String err) {
    }

    private static Run handshakes(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of("handshakes"));
        all.addAll(List.of(args));
        return new Run(commandLine.execute(all.toArray(String[]::new)), out.toString(), err.toString());
    }

    @Test
    void theCommandPrintsOneReportLinePerRound() throws Exception {
        Seen seen = new Seen();
        // The server's engine is not what this tests: the JDK's, everywhere; the command's client takes its default.
        InetSocketAddress address = server(seen, TlsEngineFactory.jdk());
        // Rounds of 2 s, as above: a second round that a stall leaves without a handshake fails the command.
        Run run = handshakes("--port", String.valueOf(address.getPort()), "--trust",
                TestCertificates.file("ca.pem").toString(), "--connections", "4", "--rounds", "2",
                "--round-ms", "2000");
        assertEquals(ExitCode.OK, run.code(), run.err());
        List<ChildReport> lines = new ArrayList<>();
        for (String line : run.out().split("\n")) {
            lines.add(ChildReports.read(line));
        }
        assertEquals(2, lines.size(), run.out());
        for (int i = 0; i < 2; i++) {
            ChildReport.Handshakes round = (ChildReport.Handshakes) lines.get(i);
            assertEquals(i + 1, round.round());
            assertEquals(4, round.connections());
        }
    }

    @Test
    void theCommandRefusesWhatItCannotRunNamingIt() {
        String trust = TestCertificates.file("ca.pem").toString();
        Run none = handshakes("--trust", trust, "--connections", "0");
        assertEquals(ExitCode.USAGE, none.code());
        assertEquals("wirespeed handshakes: --connections=0 --rounds=3 --round-ms=1000: each at least 1\n", none.err());
        Run engine = handshakes("--trust", trust, "--tls-engine", "boring");
        assertEquals(ExitCode.USAGE, engine.code());
        assertEquals("wirespeed handshakes: --tls-engine boring: use jdk or openssl\n", engine.err());
    }
}
