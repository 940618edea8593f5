package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server of the loop serving {@code openssl s_client}: a TLS peer nobody here wrote, in a process of its
 * own, with OpenSSL's certificate and host name checks on. Frames go in on its standard input and come
 * back, echoed by the server, on its standard output, compared byte for byte; ALPN and mutual TLS are
 * checked from both ends. A transport's and engine's test extends this and names both, as for
 * {@link TlsLoopContract}: the OpenSSL engine's test is a class that returns it from {@link #engine()}.
 *
 * <p>Skipped, saying so, where there is no {@code openssl} command ({@link Feature#OPENSSL}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class OpenSslSClientContract {
    /** The random frames of the tests that send them. */
    @RegisterExtension
    protected static final Seed SEED = Seed.fromPropertyOrNew();

    /** How long any one wait (a frame, a close, the process's end) may take. */
    private static final long WAIT_SECONDS = 20;

    /**
     * {@return a new transport under test, or null for the loops' default, the JDK's {@code Selector}} (whose
     * class the core's module keeps to itself: the native module's tests name it so)
     */
    protected abstract LoopTransport transport();

    /** {@return the engine under test} */
    protected abstract TlsEngineFactory engine();

    private final List<AutoCloseable> open = new ArrayList<>();
    private final Recorder recorder = new Recorder();

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

    /** A connection opened, and what its handshake agreed, e.g. {@code TLSv1.3 alpn=x client=CN=y}. */
    private record Opened(Connection connection, String agreed) {
    }

    /** Echoes every frame; records each open, with what its handshake agreed, and each close's cause. */
    private static final class Recorder implements ConnectionHandler {
        /** A close's cause, or this for a clean close. */
        static final Throwable CLEAN = new Throwable("clean");
        final BlockingQueue<Opened> opened = new LinkedBlockingQueue<>();
        final BlockingQueue<Throwable> closed = new LinkedBlockingQueue<>();

        @Override
        public void onOpen(Connection connection) {
            String client;
            try {
                client = connection.tlsSession().getPeerPrincipal().getName();
            } catch (SSLPeerUnverifiedException none) {
                client = "none";
            }
            opened.add(new Opened(connection, connection.tlsSession().getProtocol() + " alpn="
                    + connection.applicationProtocol() + " client=" + client));
        }

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
            connection.writeFrame(type, body);
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            closed.add(cause == null ? CLEAN : cause);
        }

        Opened nextOpen() throws InterruptedException {
            Opened o = opened.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(o, "no connection opened within " + WAIT_SECONDS + " s");
            return o;
        }

        Throwable nextClose() throws InterruptedException {
            Throwable t = closed.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(t, "no connection closed within " + WAIT_SECONDS + " s");
            return t;
        }
    }

    private FrameServer server(TlsSettings.Builder tls) throws IOException {
        FrameServer.Builder b = FrameServer.builder(recorder);
        LoopTransport transport = transport();
        FrameServer server = (transport == null ? b : b.transport(transport))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).tls(tls.engine(engine()).build())
                .start();
        open.add(server);
        return server;
    }

    /**
     * {@code openssl s_client} connected to {@code server}, verifying its certificate against the test CA
     * and its name against localhost (sent as SNI), failing the handshake where either check fails.
     */
    private SClient sClient(FrameServer server, String... more) throws IOException {
        int port = ((InetSocketAddress) server.localAddresses().getFirst()).getPort();
        List<String> command = new ArrayList<>(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port,
                "-CAfile", TestCertificates.file("ca.pem").toString(), "-servername", "localhost",
                "-verify_return_error", "-verify_hostname", "localhost"));
        command.addAll(List.of(more));
        SClient s = new SClient(command);
        open.add(s);
        return s;
    }

    /** {@return the arguments that make s_client present the test client's certificate} */
    private static String[] clientCertificate() {
        return new String[] {"-cert", TestCertificates.file("client.pem").toString(), "-key",
                TestCertificates.file("client.key").toString()};
    }

    /**
     * An {@code openssl s_client} process: its standard output and error read on threads of their own
     * (so that neither pipe fills and stops it), every wait bounded, the process killed at {@link #close}.
     */
    private static final class SClient implements AutoCloseable {
        final List<String> command;
        final Process process;
        final InputStream stdout;
        final CompletableFuture<String> stderr;

        SClient(List<String> command) throws IOException {
            this.command = command;
            this.process = new ProcessBuilder(command).start();
            this.stdout = process.getInputStream();
            InputStream err = process.getErrorStream();
            this.stderr = inBackground("s_client-stderr",
                    () -> new String(err.readAllBytes(), StandardCharsets.UTF_8));
        }

        /** Writes {@code bytes} to its standard input from a thread of its own, then closes it. */
        CompletableFuture<Void> send(byte[] bytes) {
            OutputStream in = process.getOutputStream();
            return inBackground("s_client-stdin", () -> {
                try (in) {
                    in.write(bytes);
                }
                return null;
            });
        }

        /** Writes {@code text} to its standard input, which stays open: a command, where it takes them. */
        void command(String text) throws IOException {
            OutputStream in = process.getOutputStream();
            in.write(text.getBytes(StandardCharsets.US_ASCII));
            in.flush();
        }

        /** Reads its standard output up to and with the first line that {@code line} matches; {@return that line} */
        String readUpTo(Predicate<String> line) throws Exception {
            return await(inBackground("s_client-stdout", () -> {
                BufferedReader lines = new BufferedReader(new InputStreamReader(stdout, StandardCharsets.ISO_8859_1));
                for (String l; (l = lines.readLine()) != null; ) {
                    if (line.test(l)) {
                        return l;
                    }
                }
                throw new AssertionError("its standard output ended before the line looked for");
            }), "the line looked for on stdout");
        }

        /** {@return the next {@code n} bytes of its standard output, fewer only at its end} */
        byte[] read(int n) throws Exception {
            return await(inBackground("s_client-stdout", () -> stdout.readNBytes(n)), n + " bytes of stdout");
        }

        /** {@return its standard output to the end} */
        byte[] readToEnd() throws Exception {
            return await(inBackground("s_client-stdout", stdout::readAllBytes), "the end of stdout");
        }

        /** {@return its exit status, once it ended by itself} */
        int exit() throws Exception {
            if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("s_client still running after " + WAIT_SECONDS + " s; " + this);
            }
            return process.exitValue();
        }

        /** {@return what it wrote on standard error, once it ended} */
        String errors() throws Exception {
            return await(stderr, "the end of stderr");
        }

        private <T> T await(CompletableFuture<T> f, String what) throws Exception {
            try {
                return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("no " + what + " within " + WAIT_SECONDS + " s; " + this, e);
            }
        }

        @Override
        public void close() {
            process.destroyForcibly();
            try {
                process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return String.join(" ", command) + " (stderr: " + stderr.getNow("not yet ended") + ")";
        }
    }

    private static <T> CompletableFuture<T> inBackground(String name, Callable<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name(name).start(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** {@return the bytes of {@code frames} frames of random types and sizes, from empty to several TLS records} */
    private static byte[] randomFrames(Random random, int frames) {
        Frames stream = new Frames();
        for (int i = 0; i < frames; i++) {
            int length = switch (random.nextInt(3)) {
                case 0 -> random.nextInt(16);
                case 1 -> random.nextInt(2_000);
                default -> random.nextInt(70_000);
            };
            byte[] body = new byte[length];
            random.nextBytes(body);
            stream.frame(random.nextInt(), length, body);
        }
        return stream.toByteArray();
    }

    /**
     * Sends {@code frames} random frames through s_client (quiet: nothing but the server's bytes on its
     * standard output), checks they come back byte for byte, then closes the server's connection: its
     * close_notify ends s_client cleanly, with nothing more on its standard output, and s_client's own
     * close_notify closes the connection cleanly.
     *
     * @return what the server's handshake agreed
     */
    private String echoesByteForByte(TlsSettings.Builder tls, int frames, String... more) throws Exception {
        FrameServer server = server(tls);
        List<String> args = new ArrayList<>(List.of(more));
        args.add("-quiet");
        SClient s = sClient(server, args.toArray(String[]::new));
        byte[] sent = randomFrames(new Random(SEED.value()), frames);
        CompletableFuture<Void> sending = s.send(sent);
        Opened opened = recorder.nextOpen();
        byte[] echoed = s.read(sent.length);
        assertEquals(sent.length, echoed.length, "bytes echoed before the end of s_client's output; " + s);
        assertArrayEquals(sent, echoed, "the echo, byte for byte");
        sending.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(frames, server.framesRead());
        Connection c = opened.connection();
        c.execute(c::close); // a graceful close: our close_notify, which OpenSSL tells from a truncation
        assertEquals(0, s.exit(), "s_client's exit status; " + s);
        assertArrayEquals(new byte[0], s.readToEnd(), "nothing after the echo");
        assertEquals(Recorder.CLEAN, recorder.nextClose(), "s_client's close_notify: a clean close");
        return opened.agreed();
    }

    @Test
    void sClientGetsEveryFrameBackByteForByteAndAGracefulCloseEndsItCleanly() throws Exception {
        assertEquals("TLSv1.3 alpn=null client=none", echoesByteForByte(TestCertificates.identity("server"), 200));
    }

    @Test
    void closingTheServerSendsSClientACloseNotify() throws Exception {
        FrameServer server = server(TestCertificates.identity("server"));
        SClient s = sClient(server, "-quiet");
        byte[] sent = randomFrames(new Random(SEED.value()), 3);
        s.send(sent);
        recorder.nextOpen();
        assertArrayEquals(sent, s.read(sent.length), "the echo, byte for byte");
        server.close(); // every connection closed at once: each with a close_notify, OpenSSL's clean end
        assertEquals(0, s.exit(), "s_client's exit status; " + s);
    }

    @Test
    void sClientOverTls12GetsEveryFrameBackByteForByte() throws Exception {
        assertEquals("TLSv1.2 alpn=null client=none", echoesByteForByte(TestCertificates.identity("server"), 50,
                "-tls1_2"));
    }

    @Test
    void sClientOverTls13GetsEveryFrameBackByteForByte() throws Exception {
        assertEquals("TLSv1.3 alpn=null client=none", echoesByteForByte(TestCertificates.identity("server"), 50,
                "-tls1_3"));
    }

    private static final Pattern ALPN = Pattern.compile("^ALPN protocol: (.*)$", Pattern.MULTILINE);

    @Test
    void sClientAndAServerWithAlpnAgreeOnTheServersProtocolOfThoseOffered() throws Exception {
        FrameServer server = server(TestCertificates.identity("server").alpn("wirespeed/1", "wirespeed/0"));
        // Not quiet: s_client prints the session, ALPN included, then ends at the end of its input, with
        // its close_notify. Its commands (Q, R, k) are off, though it reads none here.
        SClient s = sClient(server, "-alpn", "h2,wirespeed/0,wirespeed/1", "-nocommands");
        s.send(new byte[0]).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals("TLSv1.3 alpn=wirespeed/1 client=none", recorder.nextOpen().agreed());
        String printed = new String(s.readToEnd(), StandardCharsets.UTF_8);
        Matcher alpn = ALPN.matcher(printed);
        assertTrue(alpn.find(), "no \"ALPN protocol:\" line in s_client's output: " + printed);
        assertEquals("wirespeed/1", alpn.group(1));
        assertEquals(0, s.exit(), "s_client's exit status; " + s);
        assertEquals(Recorder.CLEAN, recorder.nextClose(), "s_client's close_notify: a clean close");
    }

    @Test
    void aServerWithAlpnRefusesSClientOfferingOnlyOtherProtocols() throws Exception {
        FrameServer server = server(TestCertificates.identity("server").alpn("wirespeed/1"));
        SClient s = sClient(server, "-alpn", "h2", "-quiet");
        assertInstanceOf(SSLException.class, recorder.nextClose(), "the server's handler hears of it");
        assertEquals(1, s.exit(), "s_client's exit status, a failure; " + s);
        String errors = s.errors();
        assertTrue(errors.contains(":tlsv1 alert no application protocol:"), "s_client hears the alert: " + errors);
        assertTrue(recorder.opened.isEmpty(), "never opened");
    }

    /** {@code s_client}'s arguments that offer only a suite outside the server's list, on TLS 1.2 and 1.3. */
    enum OtherSuite {
        TLS_1_2("-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384"),
        TLS_1_3("-tls1_3", "-ciphersuites", "TLS_AES_256_GCM_SHA384");

        final String[] args;

        OtherSuite(String... args) {
            this.args = args;
        }
    }

    @ParameterizedTest
    @EnumSource(OtherSuite.class)
    void aServerWithCipherSuitesRefusesSClientOfferingOnlyAnother(OtherSuite offer) throws Exception {
        FrameServer server = server(TestCertificates.identity("server").cipherSuites("TLS_AES_128_GCM_SHA256",
                "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"));
        List<String> args = new ArrayList<>(List.of(offer.args));
        args.add("-quiet");
        SClient s = sClient(server, args.toArray(String[]::new));
        assertInstanceOf(SSLException.class, recorder.nextClose(), "the server's handler hears of it");
        assertEquals(1, s.exit(), "s_client's exit status, a failure; " + s);
        String errors = s.errors();
        assertTrue(errors.contains("alert handshake failure:"), "s_client hears the alert: " + errors);
        assertTrue(recorder.opened.isEmpty(), "never opened");
    }

    @Test
    void aServerWithCipherSuitesServesSClientOfferingOneOfThem() throws Exception {
        assertEquals("TLSv1.2 alpn=null client=none", echoesByteForByte(TestCertificates.identity("server")
                .cipherSuites("TLS_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"), 5, "-tls1_2",
                "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256"));
    }

    @Test
    void aServerRequiringClientCertificatesServesSClientPresentingOne() throws Exception {
        assertEquals("TLSv1.3 alpn=null client=CN=wirespeed test client", echoesByteForByte(
                TestCertificates.identity("server").clientAuth(TlsSettings.ClientAuth.REQUIRED), 20,
                clientCertificate()));
    }

    @Test
    void aServerRequiringClientCertificatesOverTls12ServesSClientPresentingOne() throws Exception {
        List<String> args = new ArrayList<>(List.of(clientCertificate()));
        args.add("-tls1_2");
        assertEquals("TLSv1.2 alpn=null client=CN=wirespeed test client", echoesByteForByte(
                TestCertificates.identity("server").clientAuth(TlsSettings.ClientAuth.REQUIRED), 20,
                args.toArray(String[]::new)));
    }

    @Test
    void aServerRequiringClientCertificatesRefusesSClientWithout() throws Exception {
        FrameServer server = server(TestCertificates.identity("server").clientAuth(TlsSettings.ClientAuth.REQUIRED));
        SClient s = sClient(server, "-quiet");
        // Over TLS 1.3 s_client's handshake is done before the server reads its (empty) certificate: the
        // server's alert reaches it at its next read, and it ends.
        assertInstanceOf(SSLException.class, recorder.nextClose(), "the server's handler hears of it");
        assertEquals(1, s.exit(), "s_client's exit status, a failure; " + s);
        String errors = s.errors();
        assertTrue(errors.contains(":tlsv13 alert certificate required:"), "s_client hears the alert: " + errors);
        assertTrue(recorder.opened.isEmpty(), "never opened");
        assertEquals(0, server.framesRead());
    }

    @ParameterizedTest
    @EnumSource(TlsSettings.Protocol.class)
    void aFinFromSClientWithoutCloseNotifyIsATruncationNotACleanClose(TlsSettings.Protocol protocol) throws Exception {
        FrameServer server = server(TestCertificates.identity("server"));
        SClient s = sClient(server, "-quiet", protocol == TlsSettings.Protocol.TLS_1_2 ? "-tls1_2" : "-tls1_3");
        byte[] sent = randomFrames(new Random(SEED.value()), 3);
        s.send(sent); // its standard input closed after: -quiet ignores that end, and it runs on
        assertEquals(protocol.jdkName() + " alpn=null client=none", recorder.nextOpen().agreed());
        assertArrayEquals(sent, s.read(sent.length), "the echo, byte for byte");
        s.close(); // killed: the kernel's FIN, with every byte it sent read and no close_notify
        Throwable cause = recorder.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close");
        assertEquals("the peer ended the stream without a TLS close_notify: a truncation, not a clean close",
                cause.getMessage());
    }

    @Test
    void aFinFromSClientInsideAFrameIsATruncationNotACleanClose() throws Exception {
        FrameServer server = server(TestCertificates.identity("server"));
        SClient s = sClient(server, "-quiet");
        byte[] whole = randomFrames(new Random(SEED.value()), 1);
        byte[] part = new Frames().raw(whole).header(7, 100).raw(new byte[40]).toByteArray();
        s.send(part);
        recorder.nextOpen();
        assertArrayEquals(whole, s.read(whole.length), "the whole frame's echo, byte for byte");
        Await.awaitTrue(() -> server.bytesRead() == part.length, () -> "the loop read " + server.bytesRead()
                + " bytes of " + part.length + ", the second frame's 48 among them");
        s.close(); // killed inside the second frame: the kernel's FIN, no close_notify
        Throwable cause = recorder.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close, nor a frame cut short: " + cause);
        assertEquals("the peer ended the stream without a TLS close_notify: a truncation, not a clean close",
                cause.getMessage());
    }

    @Test
    void sClientRenegotiatingTls12IsRefused() throws Exception {
        FrameServer server = server(TestCertificates.identity("server"));
        // Not quiet: its standard input takes the command "R", which renegotiates; the session it prints
        // ends with the verification's result, after which it reads its standard input.
        SClient s = sClient(server, "-tls1_2");
        assertEquals("TLSv1.2 alpn=null client=none", recorder.nextOpen().agreed());
        s.readUpTo(l -> l.strip().startsWith("Verify return code: "));
        s.command("R\n");
        Throwable cause = recorder.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close");
        assertEquals("TLS renegotiation refused: the peer began a new handshake on an established TLSv1.2 connection",
                cause.getMessage());
        assertEquals(1, s.exit(), "s_client's exit status, a failure: its connection ended in its handshake; " + s);
        assertTrue(s.errors().contains("RENEGOTIATING"), "s_client renegotiated: " + s);
    }
}
