package dev.wirespeed.lab.experiments.hostile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.lab.tls.SelfSigned;
import dev.wirespeed.tls.Pem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attackers do what they claim: each connection's bytes, as a server reads them to the end of the
 * stream once the attacker has closed.
 */
class HostileAttackerTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private ServerSocketChannel listener;
    private InetSocketAddress address;

    @BeforeEach
    void listen() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0), 64);
        address = (InetSocketAddress) listener.getLocalAddress();
    }

    @AfterEach
    void stopListening() throws IOException {
        listener.close();
    }

    /** Accepts {@code n} connections and reads each to its end on a thread of its own. */
    private List<CompletableFuture<byte[]>> readEach(int n) throws IOException {
        List<CompletableFuture<byte[]>> streams = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SocketChannel accepted = listener.accept();
            CompletableFuture<byte[]> bytes = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try (accepted) {
                    ByteArrayOutputStream all = new ByteArrayOutputStream();
                    ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
                    while (accepted.read(buffer.clear()) >= 0) {
                        all.write(buffer.array(), 0, buffer.position());
                    }
                    bytes.complete(all.toByteArray());
                } catch (IOException e) {
                    bytes.completeExceptionally(new UncheckedIOException(e));
                }
            });
            streams.add(bytes);
        }
        return streams;
    }

    @Test
    void announcedLengthSendsExactlyAHeaderOfSixteenMebibytesAndSixteenBodyBytesAConnection() throws IOException {
        Attacker attacker = Attacker.open(Attack.ANNOUNCED, address, 3, -1);
        List<CompletableFuture<byte[]>> streams = readEach(3);
        attacker.close();
        byte[] expected = ByteBuffer.allocate(24).putLong(FrameFormat.header(Attacker.TYPE, 16 * 1024 * 1024))
                .array();
        for (int c = 0; c < 3; c++) {
            assertEquals(24, attacker.sent(c));
            assertArrayEquals(expected, streams.get(c).join(), "connection " + c);
        }
        assertEquals(72, attacker.totalSent());
    }

    @Test
    void dripSendsOnlyTheFirstByteUntilItsIntervalHasPassed() throws IOException {
        Attacker attacker = Attacker.open(Attack.DRIP, address, 2, Duration.ofHours(1), -1, null);
        List<CompletableFuture<byte[]>> streams = readEach(2);
        attacker.close();
        for (int c = 0; c < 2; c++) {
            assertEquals(1, attacker.sent(c));
            assertArrayEquals(new byte[] {0}, streams.get(c).join(), "connection " + c);
        }
    }

    @Test
    void dripSendsItsFrameAByteAtATimeAndNeverTheLastByte() throws IOException {
        Attacker attacker = Attacker.open(Attack.DRIP, address, 2, Duration.ofMillis(1), -1, null);
        List<CompletableFuture<byte[]>> streams = readEach(2);
        int all = 2 * (Attacker.DRIP_FRAME.length - 1);
        assertTimeoutPreemptively(DEADLINE, () -> {
            while (attacker.totalSent() < all) {
                Thread.onSpinWait();
            }
        }, () -> "the drip sent " + attacker.totalSent() + " of " + all + " bytes");
        attacker.close();
        byte[] expected = Arrays.copyOf(Attacker.DRIP_FRAME, Attacker.DRIP_FRAME.length - 1);
        assertEquals(FrameFormat.header(Attacker.TYPE, Attacker.DRIP_BODY), ByteBuffer.wrap(expected).getLong());
        for (int c = 0; c < 2; c++) {
            assertArrayEquals(expected, streams.get(c).join(), "connection " + c);
        }
        assertEquals(all, attacker.totalSent());
    }

    @Test
    void connectionFloodSendsNoBytes() throws IOException {
        Attacker attacker = Attacker.open(Attack.FLOOD, address, 5, -1);
        List<CompletableFuture<byte[]>> streams = readEach(5);
        attacker.close();
        for (CompletableFuture<byte[]> stream : streams) {
            assertEquals(0, stream.join().length);
        }
        assertEquals(0, attacker.totalSent());
    }

    @Test
    void neverReadsSendsWholeFramesUpToItsLimit() throws IOException {
        Attacker attacker = Attacker.open(Attack.NO_READ, address, 2, -1);
        List<CompletableFuture<byte[]>> streams = readEach(2);
        assertTimeoutPreemptively(DEADLINE, () -> {
            while (attacker.totalSent() < 2 * Attacker.NO_READ_LIMIT) {
                Thread.onSpinWait();
            }
        }, () -> "it sent " + attacker.totalSent() + " of " + 2 * Attacker.NO_READ_LIMIT + " bytes");
        attacker.close();
        int frame = FrameFormat.HEADER_LENGTH + Attacker.NO_READ_BODY;
        for (CompletableFuture<byte[]> stream : streams) {
            ByteBuffer bytes = ByteBuffer.wrap(stream.join());
            assertEquals(Attacker.NO_READ_LIMIT, bytes.remaining());
            assertEquals(0, bytes.remaining() % frame, "whole frames");
            while (bytes.hasRemaining()) {
                assertEquals(FrameFormat.header(Attacker.TYPE, Attacker.NO_READ_BODY), bytes.getLong(),
                        "the header at " + (bytes.position() - 8));
                bytes.position(bytes.position() + Attacker.NO_READ_BODY);
            }
        }
        assertEquals(0, attacker.broken());
    }

    @Test
    void neverReadsStopsWhereTheServerTakesNoMoreAndCountsWhatItSent() throws Exception {
        Attacker attacker = Attacker.open(Attack.NO_READ, address, 1, -1);
        SocketChannel accepted = listener.accept(); // never read: the attacker is stopped by TCP's flow control
        try {
            assertTimeoutPreemptively(DEADLINE, () -> attacker.awaitInPlace(Duration.ofMillis(100), DEADLINE));
            long sent = attacker.totalSent();
            assertTrue(sent > 0 && sent < Attacker.NO_READ_LIMIT, "sent=" + sent + ": what the socket buffers hold");
        } finally {
            attacker.close();
            accepted.close();
        }
    }

    @Test
    void heldCountsTheConnectionsTheServerHasNeitherClosedNorReset() throws Exception {
        Attacker attacker = Attacker.open(Attack.FLOOD, address, 3, -1);
        List<SocketChannel> accepted = new ArrayList<>();
        try {
            for (int c = 0; c < 3; c++) {
                accepted.add(listener.accept());
            }
            assertEquals(3, attacker.held(), "all three established");
            accepted.get(0).close(); // a FIN: the attacker's end waits for its own close
            accepted.get(1).setOption(StandardSocketOptions.SO_LINGER, 0).close(); // a reset
            assertTimeoutPreemptively(DEADLINE, () -> {
                while (attacker.held() != 1) {
                    Thread.onSpinWait();
                }
            }, () -> "held=" + heldOrFailure(attacker) + " of 3, one closed and one reset by the server");
            assertEquals(0, attacker.broken(), "no write showed it: the count is the kernel's");
        } finally {
            attacker.close();
            for (SocketChannel a : accepted) {
                a.close();
            }
        }
    }

    private static String heldOrFailure(Attacker attacker) {
        try {
            return String.valueOf(attacker.held());
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void aConnectionThatFailsIsNamedAndTheOpenedOnesClosed() throws IOException {
        listener.close(); // nothing listens there now
        IOException e = assertThrows(IOException.class, () -> Attacker.open(Attack.FLOOD, address, 3, -1));
        assertEquals("attack 'connection flood': connection 1 of 3 to " + address + " failed: Connection refused",
                e.getMessage());
    }

    /** A server's and a client's TLS contexts around one self-signed identity. */
    private record Contexts(SSLContext server, SSLContext client) {
        static Contexts of(Path dir) throws IOException, InterruptedException, GeneralSecurityException {
            SelfSigned identity = SelfSigned.create(dir);
            List<X509Certificate> chain = Pem.certificates(identity.certificate());
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("server", Pem.privateKey(identity.key()), new char[0], chain.toArray(X509Certificate[]::new));
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, new char[0]);
            SSLContext server = SSLContext.getInstance("TLS");
            server.init(keyManagers.getKeyManagers(), null, null);
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry("server", chain.get(0));
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext client = SSLContext.getInstance("TLS");
            client.init(null, trust.getTrustManagers(), null);
            return new Contexts(server, client);
        }
    }

    @Test
    void partialTlsRecordHandshakesThenSendsARecordHeaderOfTheLongestRecordAndSixteenBytes(@TempDir Path dir)
            throws Exception {
        Contexts tls = Contexts.of(dir);
        CompletableFuture<Attacker> opened = CompletableFuture.supplyAsync(() -> {
            try {
                return Attacker.open(Attack.TLS_RECORD, address, 2, -1, tls.client());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, r -> Thread.ofVirtual().start(r));
        List<Socket> plain = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            Socket accepted = listener.accept().socket();
            plain.add(accepted);
            SSLSocket handshake = (SSLSocket) tls.server().getSocketFactory().createSocket(accepted, (InputStream) null,
                    false);
            handshake.setUseClientMode(false);
            handshake.startHandshake(); // the client's Finished read, and nothing after it
        }
        Attacker attacker = opened.join();
        byte[] expected = ByteBuffer.allocate(21).put((byte) 23).putShort((short) 0x0303).putShort((short) 16_640)
                .array();
        List<byte[]> received = new ArrayList<>();
        for (Socket accepted : plain) {
            received.add(accepted.getInputStream().readNBytes(21));
        }
        // The attacker never read the server's session ticket: its close resets the connection, which then
        // reads as its end here.
        attacker.close();
        for (int c = 0; c < 2; c++) {
            try (Socket accepted = plain.get(c)) {
                assertArrayEquals(expected, received.get(c), "connection " + c);
                assertEquals(-1, readOrReset(accepted.getInputStream()), "nothing after the 21 bytes");
            }
            assertEquals(21, attacker.sent(c));
        }
    }

    /** {@return the next byte, or -1 at the end of the stream or where the peer reset the connection} */
    private static int readOrReset(InputStream in) {
        try {
            return in.read();
        } catch (IOException e) {
            assertEquals("Connection reset", e.getMessage());
            return -1;
        }
    }

    @Test
    void unfinishedHandshakeSendsOneClientHelloAndThenNothing(@TempDir Path dir) throws Exception {
        Contexts tls = Contexts.of(dir);
        Attacker attacker = Attacker.open(Attack.TLS_HANDSHAKE, address, 2, -1, tls.client());
        List<CompletableFuture<byte[]>> streams = readEach(2);
        attacker.close();
        for (int c = 0; c < 2; c++) {
            ByteBuffer hello = ByteBuffer.wrap(streams.get(c).join());
            assertEquals(attacker.sent(c), hello.remaining(), "connection " + c);
            assertEquals(22, hello.get(), "a handshake record");
            hello.getShort(); // the record's legacy version
            assertEquals(hello.remaining() - 2, hello.getShort(), "one record, whole");
            assertEquals(1, hello.get(), "a ClientHello");
        }
    }

    @Test
    void aTlsAttackWithoutAContextIsRefusedAndSoIsAPlaintextOneWithOne(@TempDir Path dir) throws Exception {
        Contexts tls = Contexts.of(dir);
        assertThrows(IllegalArgumentException.class, () -> Attacker.open(Attack.TLS_HANDSHAKE, address, 1, -1, null));
        assertThrows(IllegalArgumentException.class, () -> Attacker.open(Attack.FLOOD, address, 1, -1, tls.client()));
    }
}
