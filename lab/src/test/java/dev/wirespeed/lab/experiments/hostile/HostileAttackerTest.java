package dev.wirespeed.lab.experiments.hostile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
        Attacker attacker = Attacker.open(Attack.DRIP, address, 2, Duration.ofHours(1), -1);
        List<CompletableFuture<byte[]>> streams = readEach(2);
        attacker.close();
        for (int c = 0; c < 2; c++) {
            assertEquals(1, attacker.sent(c));
            assertArrayEquals(new byte[] {0}, streams.get(c).join(), "connection " + c);
        }
    }

    @Test
    void dripSendsItsFrameAByteAtATimeAndNeverTheLastByte() throws IOException {
        Attacker attacker = Attacker.open(Attack.DRIP, address, 2, Duration.ofMillis(1), -1);
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
    void aConnectionThatFailsIsNamedAndTheOpenedOnesClosed() throws IOException {
        listener.close(); // nothing listens there now
        IOException e = assertThrows(IOException.class, () -> Attacker.open(Attack.FLOOD, address, 3, -1));
        assertEquals("attack 'connection flood': connection 1 of 3 to " + address + " failed: Connection refused",
                e.getMessage());
    }
}
