package dev.wirespeed.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.samples.EchoSamplesTest.Output;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BroadcastServer}: one publisher, a client that reads as it goes and one that reads nothing
 * until the publisher is done. Every client must account for every frame, received or reported
 * dropped, in order, and the server's lines must agree with what the clients saw.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BroadcastServerTest {
    private static final int BODY = 8 * 1024;

    @Test
    void aSlowClientIsToldHowManyFramesItMissedAndEveryClientAccountsForEveryFrame() throws Exception {
        long frames = framesToOverflowTheSlowClient();
        Output log = new Output();
        Tally fast;
        Tally slow;
        String fastAddress;
        String slowAddress;
        try (FrameServer server = BroadcastServer.start(new String[] {"0"}, log.stream)) {
            InetSocketAddress address = (InetSocketAddress) server.localAddresses().getFirst();
            assertEquals("broadcast server listening on " + address + "\n", log.text());
            try (SocketChannel fastClient = SocketChannel.open(address);
                    SocketChannel slowClient = SocketChannel.open();
                    ExecutorService reader = Executors.newSingleThreadExecutor()) {
                // A small receive buffer, so that what the kernel holds for it is far less than is published.
                slowClient.setOption(StandardSocketOptions.SO_RCVBUF, 64 * 1024);
                slowClient.connect(address);
                fastAddress = fastClient.getLocalAddress().toString();
                slowAddress = slowClient.getLocalAddress().toString();
                Future<Tally> fastRead = reader.submit(() -> read(fastClient, frames));
                try (SocketChannel publisher = SocketChannel.open(address);
                        FrameWriter writer = new FrameWriter(publisher)) {
                    ByteBuffer body = ByteBuffer.allocate(BODY);
                    for (long i = 0; i < frames; i++) {
                        writer.writeFrame(1, body.clear().putLong(0, i));
                    }
                }
                fast = fastRead.get();
                slow = read(slowClient, frames);
            }
        }
        assertTrue(slow.dropped > 0 && slow.notices > 0, frames * BODY + " bytes were published to a client that "
                + "read nothing, with a 64 KiB receive buffer: it must have missed some and been told: " + slow);
        List<String> lines = log.text().lines().toList();
        assertTrue(lines.contains("connection 1 from " + fastAddress + " left: " + fast.received + " frames queued, "
                + fast.dropped + " dropped"), lines + " " + fast);
        assertTrue(lines.contains("connection 2 from " + slowAddress + " left: " + slow.received + " frames queued, "
                + slow.dropped + " dropped"), lines + " " + slow);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("connection 3 from ")
                && l.endsWith(" left: 0 frames queued, 0 dropped")), lines.toString());
        assertEquals(4, lines.size(), lines.toString());
    }

    /** What a client saw: frames received, frames reported dropped, and the reports. */
    private record Tally(long received, long dropped, long notices) {
    }

    /** Reads until every one of {@code frames} published frames is received or reported dropped. */
    private static Tally read(SocketChannel channel, long frames) throws IOException {
        FrameReader reader = new FrameReader(channel);
        long[] seen = {0, 0, 0, -1}; // received, dropped, notices, last index received
        while (seen[0] + seen[1] < frames) {
            boolean read = reader.readFrame((type, body) -> {
                long value = body.getLong(body.position());
                if (type == BroadcastServer.DROPPED) {
                    assertEquals(Long.BYTES, body.remaining());
                    assertTrue(value > 0, "a notice of " + value + " dropped frames");
                    seen[1] += value;
                    seen[2]++;
                } else {
                    assertEquals(BODY, body.remaining());
                    assertTrue(value > seen[3], "frame " + value + " after frame " + seen[3]);
                    seen[3] = value;
                    seen[0]++;
                }
            });
            if (!read) {
                throw new EOFException("the server closed the connection: " + seen[0] + " received, " + seen[1]
                        + " dropped of " + frames);
            }
        }
        assertEquals(frames, seen[0] + seen[1], "received and dropped");
        return new Tally(seen[0], seen[1], seen[2]);
    }

    /**
     * {@return frames enough to overflow what the kernel holds for a client that does not read}: its
     * 64 KiB receive buffer, the server's send buffer (at most the third field of {@code tcp_wmem}), and
     * the server's output limit, twice over
     */
    private static long framesToOverflowTheSlowClient() throws IOException {
        long sendBuffer = 4 << 20;
        Path wmem = Path.of("/proc/sys/net/ipv4/tcp_wmem");
        if (Files.isReadable(wmem)) {
            String[] fields = Files.readString(wmem).strip().split("\\s+");
            sendBuffer = Long.parseLong(fields[fields.length - 1]);
        }
        return Math.max(4096, 2 * (sendBuffer + (64 << 10) + (256 << 10)) / BODY);
    }
}
