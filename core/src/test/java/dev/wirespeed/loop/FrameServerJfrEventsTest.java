package dev.wirespeed.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Await;
import dev.wirespeed.testing.FailingAccepts;
import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.RefusingPort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The server's JFR events: emitted when asked for, with what each names, and none otherwise. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FrameServerJfrEventsTest {
    @TempDir
    Path dir;

    /**
     * A periodic event of the loop statistics' period, whose hook counts its runs: JFR runs the periodic
     * events of one period below a second together, in one batch, one batch after the other on its periodic
     * thread ({@code jdk.jfr.internal.periodic.BatchManager}). So once the witness, registered after a
     * server, has run three times more than when a moment was seen, the server's statistics (if it took
     * part) were taken in full after that moment: in the batch of the second run, done before the third's.
     */
    @Name("wirespeed.test.PeriodicWitness")
    @Label("Periodic witness")
    static final class PeriodicWitness extends Event {
    }

    /** Runs one clean connection and one that breaks the wire format at offset 9, under a recording. */
    private List<RecordedEvent> record(boolean jfrEvents) throws Exception {
        Path file = dir.resolve("events.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.wirespeed.ConnectionOpened");
            recording.enable("dev.wirespeed.ConnectionClosed");
            recording.enable("dev.wirespeed.ProtocolError");
            recording.enable("dev.wirespeed.LoopStatistics").withPeriod(Duration.ofMillis(50));
            recording.enable(PeriodicWitness.class).withPeriod(Duration.ofMillis(50));
            recording.start();
            AtomicLong witnessed = new AtomicLong();
            Runnable witness = () -> {
                witnessed.incrementAndGet();
                new PeriodicWitness().commit();
            };
            try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).jfrEvents(jfrEvents).start()) {
                FlightRecorder.addPeriodicEvent(PeriodicWitness.class, witness); // after the server's own, if any
                try (SocketChannel clean = SocketChannel.open(server.localAddresses().get(0))) {
                    clean.write(ByteBuffer.wrap(new Frames().frame(1, 2, new byte[] {1, 2}).toByteArray()));
                    clean.read(ByteBuffer.allocate(10));
                }
                try (SocketChannel bad = SocketChannel.open(server.localAddresses().get(0))) {
                    bad.write(ByteBuffer.wrap(new Frames().frame(1, 1, new byte[] {1}).header(2, -5).toByteArray()));
                    ByteBuffer in = ByteBuffer.allocate(64);
                    while (readQuietly(bad, in) >= 0) {
                        // until the server closes it
                    }
                }
                Await.awaitTrue(() -> server.connectionCount() == 0,
                        () -> "connectionCount=" + server.connectionCount() + " once both peers closed");
                long seen = witnessed.get();
                Await.awaitTrue(() -> witnessed.get() >= seen + 3, () -> "the periodic witness ran "
                        + (witnessed.get() - seen) + " times of 3 since the connections closed, at a 50 ms period");
            } finally {
                FlightRecorder.removePeriodicEvent(witness);
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Files.delete(file);
        return events;
    }

    private static int readQuietly(SocketChannel channel, ByteBuffer in) {
        try {
            in.clear();
            return channel.read(in);
        } catch (IOException reset) {
            return -1;
        }
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    @Test
    void reportsOpensClosesProtocolErrorsAndLoopTotals() throws Exception {
        List<RecordedEvent> events = record(true);
        List<RecordedEvent> opened = named(events, "dev.wirespeed.ConnectionOpened");
        assertEquals(List.of(1L, 2L), opened.stream().map(e -> e.getLong("connection")).toList());
        assertTrue(opened.get(0).getString("remoteAddress").contains("127.0.0.1"), opened.get(0).toString());

        List<RecordedEvent> errors = named(events, "dev.wirespeed.ProtocolError");
        assertEquals(1, errors.size(), events.toString());
        assertEquals(2L, errors.get(0).getLong("connection"));
        assertEquals(9L, errors.get(0).getLong("offset"));
        assertEquals("corrupt frame: negative length: length=-5 offset=9", errors.get(0).getString("message"));

        List<RecordedEvent> closed = named(events, "dev.wirespeed.ConnectionClosed");
        assertEquals(2, closed.size(), events.toString());
        RecordedEvent clean = closed.stream().filter(e -> e.getLong("connection") == 1).findFirst().orElseThrow();
        assertNull(clean.getString("cause"));
        assertEquals(1L, clean.getLong("frames"));
        assertEquals(10L, clean.getLong("bytesRead"));
        assertEquals(10L, clean.getLong("bytesWritten"));
        RecordedEvent bad = closed.stream().filter(e -> e.getLong("connection") == 2).findFirst().orElseThrow();
        assertEquals("dev.wirespeed.frame.CorruptFrameException: corrupt frame: negative length: length=-5 offset=9",
                bad.getString("cause"));

        List<RecordedEvent> loops = named(events, "dev.wirespeed.LoopStatistics");
        assertFalse(loops.isEmpty(), "no loop statistics where a periodic event of their period ran");
        RecordedEvent last = loops.getLast();
        assertEquals(0, last.getInt("loop"));
        assertEquals(2L, last.getLong("frames"));
    }

    @Test
    void emitsNothingUnlessAsked() throws Exception {
        assertTrue(record(false).stream().noneMatch(e -> e.getEventType().getName().startsWith("dev.wirespeed.")));
    }

    @Test
    void reportsALoopThatFailsWithItsIndexAndFailure() throws Exception {
        Path file = dir.resolve("failed.jfr");
        CountDownLatch started = new CountDownLatch(1);
        try (Recording recording = new Recording()) {
            recording.enable("dev.wirespeed.LoopFailed");
            recording.start();
            try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).loops(2).onLoopStart(i -> {
                        if (i == 1) {
                            try {
                                assertTrue(started.await(20, TimeUnit.SECONDS), "the server did not start in 20 s");
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            throw new IllegalStateException("loop 1 failed on purpose");
                        }
                    }).jfrEvents(true).start()) {
                started.countDown();
                Await.awaitTrue(() -> server.failure() != null, () -> "loop 1 did not fail");
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> failed = named(RecordingFile.readAllEvents(file), "dev.wirespeed.LoopFailed");
        Files.delete(file);
        assertEquals(1, failed.size(), "LoopFailed events: " + failed);
        assertEquals(1, failed.getFirst().getInt("loop"));
        assertEquals("loop 1 stopped: java.lang.IllegalStateException: loop 1 failed on purpose",
                failed.getFirst().getString("failure"));
    }

    @Test
    void reportsEachFailedAcceptWithItsCauseAndAPauseThatDoublesUntilAnAcceptSucceeds() throws Exception {
        Path file = dir.resolve("accept.jfr");
        FailingAccepts failing = new FailingAccepts(SelectorTransport.INSTANCE);
        SocketAddress local;
        try (Recording recording = new Recording()) {
            recording.enable("dev.wirespeed.AcceptFailed");
            recording.start();
            try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).transport(failing)
                    .jfrEvents(true).start()) {
                local = server.localAddresses().get(0);
                for (int failures : new int[] {2, 1}) { // the second connection's pause starts over
                    failing.failNext(failures);
                    try (SocketChannel peer = SocketChannel.open(local)) {
                        peer.write(ByteBuffer.wrap(new Frames().frame(1, 1, new byte[] {1}).toByteArray()));
                        ByteBuffer echo = ByteBuffer.allocate(9);
                        while (echo.hasRemaining() && peer.read(echo) >= 0) {
                            // the echo comes once the connection is accepted
                        }
                    }
                }
                assertEquals(3, server.acceptFailures());
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> failed = named(RecordingFile.readAllEvents(file), "dev.wirespeed.AcceptFailed");
        Files.delete(file);
        assertEquals(List.of(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(100)),
                failed.stream().map(e -> e.getDuration("pause")).toList());
        for (RecordedEvent e : failed) {
            assertEquals(local.toString(), e.getString("localAddress"));
            assertEquals("java.io.IOException: " + FailingAccepts.MESSAGE, e.getString("cause"));
        }
    }

    @Test
    void reportsAClientsConnectsAndItsFailedConnectsAsWell() throws Exception {
        Path file = dir.resolve("client.jfr");
        SocketAddress refused;
        try (RefusingPort refusing = new RefusingPort(); // bound, not listening, until its connect was refused
                Recording recording = new Recording()) {
            refused = refusing.address();
            recording.enable("dev.wirespeed.ConnectionOpened");
            recording.enable("dev.wirespeed.ConnectionClosed");
            recording.start();
            try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).start();
                    FrameClient client = FrameClient.builder((c, type, body) -> c.close()).jfrEvents(true).build()) {
                Connection c = client.connect(server.localAddresses().get(0)).get(20, TimeUnit.SECONDS);
                c.execute(() -> c.writeFrame(1, ByteBuffer.wrap(new byte[] {1, 2})));
                assertThrows(ExecutionException.class, () -> client.connect(refused).get(20, TimeUnit.SECONDS));
                Await.awaitTrue(() -> client.connectionCount() == 0,
                        () -> "connectionCount=" + client.connectionCount() + " once its handler closed it");
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Files.delete(file);
        List<RecordedEvent> opened = named(events, "dev.wirespeed.ConnectionOpened");
        assertEquals(List.of(1L), opened.stream().map(e -> e.getLong("connection")).toList(), "only the client's");
        List<RecordedEvent> closed = named(events, "dev.wirespeed.ConnectionClosed");
        assertEquals(2, closed.size(), events.toString());
        RecordedEvent clean = closed.stream().filter(e -> e.getLong("connection") == 1).findFirst().orElseThrow();
        assertNull(clean.getString("cause"));
        assertEquals(10L, clean.getLong("bytesRead"));
        RecordedEvent failed = closed.stream().filter(e -> e.getLong("connection") == 2).findFirst().orElseThrow();
        assertTrue(failed.getString("cause").startsWith("java.net.ConnectException: connect to " + refused + " failed: "),
                failed.getString("cause"));
    }
}
