package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameClient;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.tls.PeerCertificateException;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client of the loop connected to {@code openssl s_server}: a TLS server nobody here wrote, in a process
 * of its own, as {@link OpenSslSClientContract} has {@code s_client} for the loop's server. A transport's
 * and engine's test extends this and names both.
 *
 * <p>The echo is s_server's {@code -rev}: it reads each line (up to a {@code \n}) of the plaintext and
 * sends it back reversed, with a {@code \n}. So that what comes back is frames, each frame sent is one
 * line whose reversal is another frame of the same length:
 *
 * <pre>
 *   sent:     | type S | length L | middle m ...     | rev(L) | rev(E) | \n |
 *   echoed:   | type E | length L | rev(m) ...       | rev(L) | rev(S) | \n |
 * </pre>
 *
 * where {@code rev} reverses bytes and no byte but the last is {@code \n} or {@code \r} (s_server strips
 * those at a line's end); the middle is random otherwise. Each frame thus crosses s_server's TLS both ways,
 * decrypted, changed and encrypted again, and is compared byte for byte with what the reversal makes of
 * it. s_server prints its summary of each handshake (protocol, client certificate) on its standard error,
 * which the tests read as s_server's side of the story.
 *
 * <p>Skipped, saying so, where there is no {@code openssl} command ({@link Feature#OPENSSL}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class OpenSslSServerContract {
    /** The random frames of the tests that send them. */
    @RegisterExtension
    protected static final Seed SEED = Seed.fromPropertyOrNew();

    /** How long any one wait (a frame, a close) may take. */
    private static final long WAIT_SECONDS = SServer.WAIT_SECONDS;
    /** The longest middle of a frame: a line stays under s_server's buffer of 16 KiB. */
    private static final int MAX_MIDDLE = 10_000;

    /**
     * {@return a new transport under test, or null for the loops' default, the JDK's {@code Selector}} (whose
     * class the core's module keeps to itself: the native module's tests name it so)
     */
    protected abstract LoopTransport transport();

    /** {@return the engine under test} */
    protected abstract TlsEngineFactory engine();

    private final List<AutoCloseable> open = new ArrayList<>();
    private final Received received = new Received();

    @BeforeAll
    static void needsOpenssl() {
        OpenSslCommand.assumeOpenssl();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** A frame echoed to our client, copied out of the loop's buffer. */
    private record Echoed(int type, byte[] body) {
    }

    /** Our client's handler: each frame that came, and each close's cause. */
    private static final class Received implements ConnectionHandler {
        /** A close's cause, or this for a clean close. */
        static final Throwable CLEAN = new Throwable("clean");
        final BlockingQueue<Echoed> frames = new LinkedBlockingQueue<>();
        final BlockingQueue<Throwable> closed = new LinkedBlockingQueue<>();

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) {
            byte[] copy = new byte[body.remaining()];
            body.get(copy);
            frames.add(new Echoed(type, copy));
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            closed.add(cause == null ? CLEAN : cause);
        }

        Throwable nextClose() throws InterruptedException {
            Throwable t = closed.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(t, "no connection closed within " + WAIT_SECONDS + " s");
            return t;
        }
    }

    /** {@return s_server with the certificate and key {@code identity} and the arguments {@code more}} */
    private SServer sServer(String identity, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("-cert", TestCertificates.file(identity + ".pem").toString(),
                "-key", TestCertificates.file(identity + ".key").toString()));
        args.addAll(List.of(more));
        SServer s = new SServer(args.toArray(String[]::new));
        open.add(s);
        return s;
    }

    /** {@return s_server's arguments that allow {@code protocol} alone} */
    private static String only(TlsSettings.Protocol protocol) {
        return switch (protocol) {
            case TLS_1_2 -> "-tls1_2";
            case TLS_1_3 -> "-tls1_3";
        };
    }

    /** {@return s_server's arguments that make it ask for a client certificate, require one, and check it} */
    private static String[] verifyingClients() {
        return new String[] {"-Verify", "1", "-CAfile", TestCertificates.file("ca.pem").toString(),
                "-verify_return_error"};
    }

    /** {@return our client on a loop of its own, speaking TLS as {@code tls} says, checking the name localhost} */
    private FrameClient client(TlsSettings.Builder tls) throws Exception {
        LoopGroup.Builder loops = LoopGroup.builder().threadName("s_server-client");
        LoopTransport transport = transport();
        LoopGroup group = (transport == null ? loops : loops.transport(transport)).start();
        open.add(group);
        FrameClient client = FrameClient.builder(received).group(group)
                .tls(tls.engine(engine()).serverName("localhost").build()).build();
        open.add(client);
        return client;
    }

    private static CompletableFuture<Connection> connect(FrameClient client, SServer server) {
        return client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
    }

    /** {@return what {@code c}'s handshake agreed, read on its loop} */
    private static String protocol(Connection c) throws Exception {
        CompletableFuture<String> protocol = new CompletableFuture<>();
        c.execute(() -> protocol.complete(c.tlsSession().getProtocol()));
        return protocol.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** A frame to send and what s_server's reversal of it is: one line each, of the same length. */
    private record Line(int type, byte[] body, Echoed echo) {
        /**
         * {@return a line of random types and a random middle of {@code middle} bytes, or of more where
         * the length would hold a {@code \n} or {@code \r} (up to 255 more: still a line s_server takes whole)}
         */
        static Line random(Random random, int middle) {
            int length = middle + 9;
            while (!lineSafe(length)) {
                length++;
            }
            middle = length - 9;
            int sent = lineSafeInt(random);
            int echoed = lineSafeInt(random);
            ByteBuffer body = ByteBuffer.allocate(length);
            for (int i = 0; i < middle; i++) {
                body.put(lineSafeByte(random));
            }
            body.putInt(Integer.reverseBytes(length)).putInt(Integer.reverseBytes(echoed)).put((byte) '\n');
            ByteBuffer line = ByteBuffer.allocate(8 + length - 1).putInt(sent).putInt(length).put(body.array(), 0,
                    length - 1);
            byte[] reversed = line.array().clone();
            for (int i = 0, j = reversed.length - 1; i < j; i++, j--) {
                byte b = reversed[i];
                reversed[i] = reversed[j];
                reversed[j] = b;
            }
            ByteBuffer back = ByteBuffer.allocate(8 + length).put(reversed).put((byte) '\n').flip();
            int type = back.getInt();
            assertEquals(length, back.getInt(), "the echo's length, by construction");
            byte[] echoBody = new byte[length];
            back.get(echoBody);
            assertEquals(echoed, type, "the echo's type, by construction");
            return new Line(sent, body.array(), new Echoed(type, echoBody));
        }

        private static boolean lineSafe(int value) {
            for (int shift = 0; shift < 32; shift += 8) {
                int b = value >>> shift & 0xFF;
                if (b == '\n' || b == '\r') {
                    return false;
                }
            }
            return true;
        }

        private static byte lineSafeByte(Random random) {
            while (true) {
                byte b = (byte) random.nextInt(256);
                if (b != '\n' && b != '\r') {
                    return b;
                }
            }
        }

        private static int lineSafeInt(Random random) {
            return ByteBuffer.wrap(new byte[] {lineSafeByte(random), lineSafeByte(random), lineSafeByte(random),
                    lineSafeByte(random)}).getInt();
        }
    }

    /**
     * Sends {@code count} lines of random middles (from empty to {@value #MAX_MIDDLE} bytes, many to a
     * TLS record or one across records) and checks that each comes back, in order, as s_server's reversal.
     */
    private void echoes(Connection c, Random random, int count) throws Exception {
        List<Line> lines = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            lines.add(Line.random(random, random.nextBoolean() ? random.nextInt(64) : random.nextInt(MAX_MIDDLE + 1)));
        }
        c.execute(() -> {
            for (Line line : lines) {
                c.writeFrame(line.type(), ByteBuffer.wrap(line.body()));
            }
        });
        for (int i = 0; i < count; i++) {
            Echoed echoed = received.frames.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(echoed, "frame " + i + " of " + count + " not echoed within " + WAIT_SECONDS + " s");
            Echoed expected = lines.get(i).echo();
            assertEquals(expected.type(), echoed.type(), "type of frame " + i);
            assertArrayEquals(expected.body(), echoed.body(), "body of frame " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(TlsSettings.Protocol.class)
    void sServerEchoesEveryFrameReversedByteForByteAndOurCloseEndsCleanly(TlsSettings.Protocol protocol)
            throws Exception {
        SServer server = sServer("server", "-rev", only(protocol));
        Connection c = connect(client(TestCertificates.trustingTheTestCa()), server).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(protocol.jdkName(), protocol(c));
        assertEquals("Protocol version: " + protocol.jdkName(), server.awaitErrorLine(
                l -> l.startsWith("Protocol version: "), "the handshake's summary"));
        assertEquals("No peer certificate", server.awaitErrorLine(l -> l.equals("No peer certificate")
                || l.startsWith("Peer certificate: "), "the client's certificate, or none"));
        echoes(c, new Random(SEED.value()), 200);
        c.execute(c::close); // our close_notify: s_server's read ends, and so does the connection
        assertEquals(Received.CLEAN, received.nextClose(), "a clean close");
        server.awaitErrorLine(l -> l.equals("CONNECTION CLOSED"), "the connection's end");
    }

    /** {@return the refusal our client gets from s_server with the certificate {@code identity}} */
    private PeerCertificateException refusedBy(String identity) throws Exception {
        SServer server = sServer(identity, "-rev");
        CompletableFuture<Connection> opening = connect(client(TestCertificates.trustingTheTestCa()), server);
        ExecutionException e = assertThrows(ExecutionException.class, () -> opening.get(WAIT_SECONDS, TimeUnit.SECONDS));
        PeerCertificateException refusal = assertInstanceOf(PeerCertificateException.class, e.getCause());
        assertEquals(refusal, received.nextClose(), "our handler hears the same");
        server.awaitErrorLine(l -> l.equals("CONNECTION FAILURE"), "the handshake's failure");
        return refusal;
    }

    @Test
    void ourClientRefusesSServersCertificateForAnotherHostNamingBoth() throws Exception {
        PeerCertificateException e = refusedBy("other-host");
        assertEquals(PeerCertificateException.Problem.WRONG_HOST, e.problem());
        assertTrue(e.getMessage().startsWith("server certificate for another host: expected localhost; came "
                + "CN=example.invalid, names [DNS:example.invalid]"), e.getMessage());
    }

    @Test
    void ourClientRefusesAnUntrustedSServerCertificateNamingItsIssuer() throws Exception {
        PeerCertificateException e = refusedBy("untrusted");
        assertEquals(PeerCertificateException.Problem.UNTRUSTED, e.problem());
        assertTrue(e.getMessage().startsWith("server certificate not issued by a trusted certificate: expected an "
                + "issuer among [CN=wirespeed test CA]; came CN=localhost, names [DNS:localhost, IP:127.0.0.1, "
                + "IP:0:0:0:0:0:0:0:1], issued by CN=wirespeed rogue CA, valid "), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(TlsSettings.Protocol.class)
    void sServerVerifyingClientCertificatesServesOurClientPresentingOne(TlsSettings.Protocol protocol)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("-rev", only(protocol)));
        args.addAll(List.of(verifyingClients()));
        SServer server = sServer("server", args.toArray(String[]::new));
        Connection c = connect(client(TestCertificates.identity("client")), server).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals("Peer certificate: CN = wirespeed test client", server.awaitErrorLine(
                l -> l.startsWith("Peer certificate: "), "the client's certificate"));
        echoes(c, new Random(SEED.value() + 1), 20);
    }

    @Test
    void sServerVerifyingClientCertificatesRefusesOurClientWithout() throws Exception {
        SServer server = sServer("server", verifyingClients());
        connect(client(TestCertificates.trustingTheTestCa()), server);
        // Over TLS 1.3 our handshake is done before s_server reads our (empty) certificate: its alert then
        // closes a connection that opened, with the refusal as its cause.
        Throwable cause = received.nextClose();
        assertInstanceOf(SSLException.class, cause, "our handler hears the refusal");
        assertTrue(cause.getMessage().toLowerCase(Locale.ROOT).replace('_', ' ').contains("certificate required"),
                "the alert named: " + cause.getMessage());
        server.awaitErrorLine(l -> l.contains("peer did not return a certificate"), "its reason");
    }

    @ParameterizedTest
    @EnumSource(TlsSettings.Protocol.class)
    void aFinFromSServerWithoutCloseNotifyIsATruncationNotACleanClose(TlsSettings.Protocol protocol) throws Exception {
        SServer server = sServer("server", "-rev", only(protocol));
        Connection c = connect(client(TestCertificates.trustingTheTestCa()), server).get(WAIT_SECONDS, TimeUnit.SECONDS);
        echoes(c, new Random(SEED.value() + 2), 5);
        server.close(); // killed: the kernel's FIN, with every byte it sent read and no close_notify
        Throwable cause = received.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close");
        assertEquals("the peer ended the stream without a TLS close_notify: a truncation, not a clean close",
                cause.getMessage());
    }

    @Test
    void sServerAskingToRenegotiateTls12IsRefused() throws Exception {
        // Its default mode, not -rev: its standard input takes the command "r", which makes it send a
        // HelloRequest; the plaintext that comes is printed on its standard output.
        SServer server = sServer("server", "-tls1_2");
        Connection c = connect(client(TestCertificates.trustingTheTestCa()), server).get(WAIT_SECONDS, TimeUnit.SECONDS);
        byte[] marker = "before the renegotiation".getBytes(StandardCharsets.US_ASCII);
        c.execute(() -> c.writeFrame(1, ByteBuffer.wrap(marker)));
        server.awaitOutput(marker, "our frame"); // in its loop over the connection and its standard input
        server.command("r\n");
        Throwable cause = received.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close");
        assertEquals("TLS renegotiation refused: the peer began a new handshake on an established TLSv1.2 connection",
                cause.getMessage());
    }
}
