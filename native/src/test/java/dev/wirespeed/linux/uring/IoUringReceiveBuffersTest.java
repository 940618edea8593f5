package dev.wirespeed.linux.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.internal.uring.UringPoller;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import dev.wirespeed.testing.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The receive buffers an io_uring loop shares among its connections, against peers that send without
 * end and do not read: the loop stops reading each once its replies reach the output limit, and what
 * each had received waits in the ring's buffers. Four times as many such peers as could take every
 * buffer at their cap run the ring out (checked: a receive found it empty, and the paused connections
 * copied their bytes out of it); an honest client is served all the same, and once the peers read,
 * each gets back every frame it sent, in order and intact, through the copies. In the clear, where the
 * loop parses the bytes where they lie, and over TLS, where the engine reads them by copying.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IoUringReceiveBuffersTest {
    private static final int BODY = 100;
    private static final int FRAME = 8 + BODY;
    private static final int FRAMES_PER_WRITE = 64;

    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void peersThatSendAndDoNotReadDoNotStarveTheOthersOfReceiveBuffers(boolean tls) throws Exception {
        IoUringTransport uring = IoUringTransport.create(); // 512 buffers; a connection holds 32 at most
        List<UringPoller> pollers = new CopyOnWriteArrayList<>();
        LoopTransport recording = new LoopTransport() {
            @Override
            public String name() {
                return uring.name();
            }

            @Override
            public Poller openPoller() throws IOException {
                Poller p = uring.openPoller();
                pollers.add((UringPoller) p);
                return p;
            }

            @Override
            public Listener listen(SocketAddress address, int backlog) throws IOException {
                return uring.listen(address, backlog);
            }
        };
        SSLContext peers = tls ? TestCertificates.jdkContext(null) : null;
        int attackers = 4 * uring.receiveBufferCount() / uring.maxHeldBuffers();
        List<Socket> open = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        AtomicLongArray sent = new AtomicLongArray(attackers);
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        Thread[] readers = new Thread[attackers];
        long[] echoed = new long[attackers];
        AtomicBoolean stop = new AtomicBoolean();
        FrameServer.Builder builder = FrameServer.builder((c, type, body) -> c.writeFrame(type, body)).transport(recording)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).loops(1);
        if (tls) {
            builder.tls(TestCertificates.identity("server").build());
        }
        try (FrameServer server = builder.start()) {
            InetSocketAddress address = (InetSocketAddress) server.localAddresses().getFirst();
            for (int i = 0; i < attackers; i++) { // every one connected, and its handshake done, before any sends
                open.add(connect(address, peers, 4096)); // a small window: the replies back up soon
            }
            for (int i = 0; i < attackers; i++) {
                Socket attacker = open.get(i);
                int peer = i;
                senders.add(Thread.ofVirtual().start(() -> {
                    try {
                        OutputStream out = attacker.getOutputStream();
                        ByteBuffer frames = ByteBuffer.allocate(FRAMES_PER_WRITE * FRAME);
                        long seq = 0;
                        while (!stop.get()) {
                            frames.clear();
                            for (int f = 0; f < FRAMES_PER_WRITE; f++) {
                                put(frames, peer, seq++);
                            }
                            out.write(frames.array()); // blocks once the loop stops reading this peer
                            sent.addAndGet(peer, FRAMES_PER_WRITE);
                        }
                    } catch (IOException | RuntimeException | Error e) {
                        failures.add(e);
                    }
                }));
            }
            UringPoller poller = pollers.getFirst();
            await(() -> poller.receiveStarvations() > 0 && poller.spilledBytes() > 0,
                    () -> attackers + " peers that do not read hold " + poller.receiveBuffersOut() + " of "
                            + uring.receiveBufferCount() + " receive buffers; receives that found the ring empty: "
                            + poller.receiveStarvations() + ", bytes copied out of it: " + poller.spilledBytes());
            stop.set(true); // the peers block where they are: enough for the rest, and no more to echo at the end
            try (Socket honest = connect(address, peers, 0)) {
                honest.setSoTimeout(30_000);
                OutputStream out = honest.getOutputStream();
                InputStream in = honest.getInputStream();
                for (int i = 0; i < 100; i++) {
                    byte[] frame = ByteBuffer.allocate(12).putInt(i).putInt(4).put(new byte[] {(byte) i, 1, 2, 3}).array();
                    out.write(frame);
                    byte[] back = in.readNBytes(12); // a timeout fails the test, naming the frame below
                    assertArrayEquals(frame, back, "echo of frame " + i + " to an honest client beside " + attackers
                            + " peers that do not read; receive buffers out=" + poller.receiveBuffersOut());
                }
            }
            for (int i = 0; i < attackers; i++) {
                Socket attacker = open.get(i);
                int peer = i;
                readers[i] = Thread.ofVirtual().start(() -> {
                    try {
                        echoed[peer] = readEchoes(attacker.getInputStream(), peer);
                    } catch (IOException | RuntimeException | Error e) {
                        failures.add(e);
                    }
                });
            }
            for (int i = 0; i < attackers; i++) {
                assertTrue(senders.get(i).join(Duration.ofSeconds(30)), "peer " + i + " still sending after 30 s");
                open.get(i).shutdownOutput(); // the server echoes what it has, then closes
            }
            for (int i = 0; i < attackers; i++) {
                assertTrue(readers[i].join(Duration.ofSeconds(30)), "peer " + i + " still reading after 30 s");
            }
            assertEquals(List.of(), List.copyOf(failures), "the peers' failures");
            for (int i = 0; i < attackers; i++) {
                assertEquals(sent.get(i), echoed[i], "frames peer " + i + " got back of those it sent");
            }
            System.out.println("IoUringReceiveBuffersTest(tls=" + tls + "): " + attackers + " peers that did not read"
                    + " ran the ring of " + uring.receiveBufferCount() + " buffers out " + poller.receiveStarvations()
                    + " times; " + poller.spilledBytes() + " bytes copied out of it; " + Arrays.stream(echoed).sum()
                    + " frames echoed back in order");
            assertNull(server.failure(), "the server failed");
        } finally {
            stop.set(true);
            for (Socket s : open) {
                s.close();
            }
        }
    }

    /** {@return a socket connected to {@code address}, over TLS where {@code tls} is given, with that receive buffer (0: the default)} */
    private static Socket connect(InetSocketAddress address, SSLContext tls, int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(address, 10_000);
        if (tls == null) {
            return socket;
        }
        SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(socket, address.getHostString(),
                address.getPort(), true);
        secure.startHandshake();
        return secure;
    }

    /** Writes peer {@code peer}'s frame {@code seq}: its body the sequence number, the peer, then bytes made of both. */
    private static void put(ByteBuffer frames, int peer, long seq) {
        frames.putInt(peer).putInt(BODY).putLong(seq).putInt(peer);
        for (int j = 12; j < BODY; j++) {
            frames.put((byte) (seq * 31 + j));
        }
    }

    /** {@return the frames read from {@code peer}'s stream until its end}, each checked to be the next one sent */
    private static long readEchoes(InputStream in, int peer) throws IOException {
        ByteBuffer expected = ByteBuffer.allocate(FRAME);
        byte[] got = new byte[FRAME];
        long seq = 0;
        while (true) {
            int n = in.readNBytes(got, 0, FRAME);
            if (n == 0) {
                return seq;
            }
            expected.clear();
            put(expected, peer, seq);
            if (n < FRAME || !Arrays.equals(got, expected.array())) {
                throw new AssertionError("peer " + peer + ": frame " + seq + " came back as " + n + " bytes "
                        + Arrays.toString(Arrays.copyOf(got, Math.min(n, 16))) + "...");
            }
            seq++;
        }
    }

    /** Waits for {@code condition}, 30 s at the most. */
    private static void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadline < 0, () -> what.get() + ", after 30 s");
            Thread.sleep(1);
        }
    }
}
