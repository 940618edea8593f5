package dev.wirespeed.linux.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.CHeap;
import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.testing.TlsLoopContract;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The loop's TLS on the JDK's {@code Selector} (the loops' default), with OpenSSL through FFM as the
 * engine: a server's default transport with the engine a server on Linux is likely to choose, and the
 * pairing whose memory per hostile connection the lab's hostile experiment reported the highest.
 */
class SelectorOpenSslTlsTest extends TlsLoopContract {
    /** Batches of connections measured, each with a partial record a connection. */
    private static final int BATCHES = 7;
    /** Connections a batch. */
    private static final int BATCH = 50;
    /** Connections that send their partial records first, so that the loop's path for them is compiled. */
    private static final int WARM_PEERS = 100;
    /** The part of a record each sends after its handshake: a header announcing 16,640 bytes, and 16 of them. */
    private static final byte[] PART = ByteBuffer.allocate(21).put((byte) 23).putShort((short) 0x0303)
            .putShort((short) (16 * 1024 + 256)).array();
    /** The bytes a partial record of 21 bytes is kept in: the smallest of the loop's buffers for them. */
    private static final long HOLD = 256;
    /**
     * The most of the C heap a connection may take for its partial record: its hold and a quarter of a
     * record's buffer for the JVM's own movements. OpenSSL's record buffer (16,709 bytes and more) or a
     * ciphertext buffer of the loop's (4 records) kept per connection would be four times this or more.
     */
    private static final long BOUND = 4 * 1024;

    @BeforeEach
    void needs() {
        NativeFeatures.assumeOpenSsl();
    }

    @Override
    protected LoopTransport transport() {
        return null; // the loops' default: the JDK's Selector
    }

    @Override
    protected TlsEngineFactory engine() {
        return OpenSsl.engine();
    }

    /**
     * A server's connections, each with a partial record after its handshake (as the lab's hostile
     * {@code partial TLS record} attack leaves them): each keeps the 21 bytes in a buffer of {@value
     * #HOLD}, and the C heap (OpenSSL's memory, and the loop's direct buffers) grows by at most {@value
     * #BOUND} bytes a connection as they come in. The connections come in {@value #BATCHES} batches, each
     * measured alone, and the median batch is judged: the JVM's own use of the C heap (a compilation's
     * arena, given back in one piece later) moves a batch's figure now and then, never most of them.
     */
    @Test
    void partialRecordsAfterTheHandshakeTakeAHoldEachAndLittleOfTheCHeap() throws Exception {
        CHeap.assumeMeasurable();
        TlsSettings tls = TestCertificates.identity("server").engine(engine()).build();
        List<SocketChannel> open = new ArrayList<>();
        try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).tls(tls).start()) {
            InetSocketAddress address = (InetSocketAddress) server.localAddresses().getFirst();
            SSLContext context = peerContext(null);
            List<SocketChannel> warm = handshaken(address, context, WARM_PEERS, open);
            sendParts(server, warm, 0);
            long[] perPart = new long[BATCHES];
            for (int b = 0; b < BATCHES; b++) {
                List<SocketChannel> batch = handshaken(address, context, BATCH, open);
                System.gc(); // what garbage frees of the C heap (cleaners run after it) freed before the window, not in it
                Thread.sleep(200);
                long before = CHeap.settledInUse(3, 50);
                sendParts(server, batch, WARM_PEERS + b * BATCH);
                perPart[b] = (CHeap.settledInUse(3, 50) - before) / BATCH;
            }
            long[] sorted = perPart.clone();
            Arrays.sort(sorted);
            long median = sorted[BATCHES / 2];
            System.out.println("SelectorOpenSslTlsTest: a partial record of 21 bytes after the handshake took "
                    + Arrays.toString(perPart) + " bytes of the C heap a connection, batch by batch of " + BATCH
                    + "; median " + median + "; " + server.partialFrameBytes() + " bytes kept for "
                    + (WARM_PEERS + BATCHES * BATCH) + " partial records");
            assertEquals((WARM_PEERS + BATCHES * BATCH) * HOLD, server.partialFrameBytes(), "partialFrameBytes");
            assertTrue(median <= BOUND, "a partial record of 21 bytes after the handshake took " + median + " bytes "
                    + "of the C heap a connection (median of " + Arrays.toString(perPart) + "), more than " + BOUND);
        } finally {
            for (SocketChannel c : open) {
                c.close();
            }
        }
    }

    /** {@return {@code n} connections to {@code address}, each after a TLS handshake}, also added to {@code open} */
    private static List<SocketChannel> handshaken(InetSocketAddress address, SSLContext context, int n,
            List<SocketChannel> open) throws IOException {
        List<SocketChannel> made = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SocketChannel channel = SocketChannel.open(address);
            open.add(channel);
            made.add(channel);
            // A socket layered on the channel and never closed: the handshake done, the channel is left as it is.
            ((SSLSocket) context.getSocketFactory().createSocket(channel.socket(), "localhost", address.getPort(),
                    false)).startHandshake();
        }
        return made;
    }

    /** Sends {@link #PART} on each of {@code peers}; returns once the server keeps {@code kept} more, within 20 s. */
    private static void sendParts(FrameServer server, List<SocketChannel> peers, int kept) throws Exception {
        for (SocketChannel c : peers) {
            ByteBuffer part = ByteBuffer.wrap(PART);
            while (part.hasRemaining()) {
                c.write(part);
            }
        }
        long expected = (kept + peers.size()) * HOLD;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (server.partialFrameBytes() != expected) {
            assertTrue(System.nanoTime() - deadline < 0, "partialFrameBytes=" + server.partialFrameBytes() + " where "
                    + expected + " was expected after 20 s");
            Thread.sleep(1);
        }
    }
}
