package dev.wirespeed.linux.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.linux.internal.sys.FdDirection;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.SteadyState;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link IoUringSocket}: frames through the ring both ways, waiting in the kernel and polling the
 * completion queue, in each ring mode, with and without zero-copy sends; heap buffers; the end of
 * stream, a reset, a closed channel; zero-copy sends counted (and reported copied, the peer being on
 * this machine), and refused by a Unix domain socket without the writer noticing; no allocation per
 * call. The peer is a JDK socket.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IoUringSocketTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private record Pair(IoUringSocket ours, SocketChannel peer) {
    }

    /** How the channel under test is built. */
    enum Setting {
        WAITING, POLLING, WAITING_ZERO_COPY, POLLING_ZERO_COPY, DEFER_TASKRUN, SQPOLL;

        IoUringSocket.Builder apply(IoUringSocket.Builder builder) {
            return switch (this) {
                case WAITING -> builder;
                case POLLING -> builder.idleStrategy(IdleStrategy.busySpin());
                case WAITING_ZERO_COPY -> builder.zeroCopyFrom(1);
                case POLLING_ZERO_COPY -> builder.idleStrategy(IdleStrategy.busySpin()).zeroCopyFrom(1);
                case DEFER_TASKRUN -> builder.ring(IoUring.options().entries(4)
                        .with(IoUring.Setup.SINGLE_ISSUER, IoUring.Setup.DEFER_TASKRUN));
                case SQPOLL -> builder.idleStrategy(IdleStrategy.busySpin()).ring(IoUring.options().entries(4).sqPoll(-1, 10));
            };
        }
    }

    private Pair connect(boolean polling) throws IOException {
        return connect(polling ? Setting.POLLING : Setting.WAITING);
    }

    private Pair connect(Setting setting) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
            IoUringSocket ours = setting.apply(IoUringSocket.builder(socket)).build();
            open.add(ours);
            SocketChannel peer = server.accept();
            open.add(peer);
            return new Pair(ours, peer);
        }
    }

    /** Sends back every byte the peer socket receives, until its end of stream. */
    private static CompletableFuture<Void> echo(SocketChannel peer) {
        return CompletableFuture.runAsync(() -> {
            ByteBuffer b = ByteBuffer.allocateDirect(32 * 1024);
            try {
                while (peer.read(b.clear()) > 0) {
                    b.flip();
                    while (b.hasRemaining()) {
                        peer.write(b);
                    }
                }
                peer.shutdownOutput();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    @ParameterizedTest
    @EnumSource(Setting.class)
    void framesGoThroughTheRingAndComeBackUnchanged(Setting setting) throws Exception {
        Pair pair = connect(setting);
        CompletableFuture<Void> echoing = echo(pair.peer());
        SplittableRandom random = new SplittableRandom(SEED.value());
        FrameWriter writer = FrameWriter.builder(pair.ours()).bufferCapacity(64 * 1024).build();
        FrameReader reader = FrameReader.builder(pair.ours()).bufferCapacity(64 * 1024).build();
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            byte[] body = new byte[random.nextInt(i % 50 == 0 ? 200_000 : 300)];
            random.nextBytes(body);
            sent.add(body);
            writer.writeFrame(i, body, 0, body.length);
            if (i % 10 == 9) {
                writer.flush();
                for (int k = i - 9; k <= i; k++) {
                    int expectedType = k;
                    byte[] expected = sent.get(k);
                    assertTrue(reader.readFrame((type, b) -> {
                        assertEquals(expectedType, type);
                        byte[] got = new byte[b.remaining()];
                        b.get(got);
                        assertArrayEquals(expected, got, "frame " + expectedType);
                    }));
                }
            }
        }
        pair.ours().socket().shutdownOutput();
        assertEquals(false, reader.readFrame((type, b) -> { }), "the end of stream after the echoes");
        echoing.get(10, TimeUnit.SECONDS);
    }

    @Test
    void emptyBuffersAreAnsweredAtOnceAndAReadReturnsWhatCameShort() throws Exception {
        Pair pair = connect(false);
        // Nothing was sent: a RECV for an empty buffer would wait for ever; none is made.
        assertEquals(0, pair.ours().read(ByteBuffer.allocateDirect(16).position(16)));
        assertEquals(0, pair.ours().read(ByteBuffer.allocate(0)));
        assertEquals(0, pair.ours().write(ByteBuffer.allocateDirect(16).position(16)));
        pair.peer().write(ByteBuffer.wrap(new byte[] {7, 8, 9}));
        ByteBuffer big = ByteBuffer.allocateDirect(64 * 1024);
        int n = 0;
        while (n < 3) {
            int got = pair.ours().read(big);
            assertTrue(got > 0 && got <= 3 - n, "read " + got + " of the 3 bytes sent, " + n + " before");
            n += got;
        }
        assertEquals(3, big.position(), "a short read: only what came");
        assertEquals(7, big.get(0));
        assertEquals(9, big.get(2));
    }

    @Test
    void heapBuffersGoThroughTheCopyBufferAPartAtATime() throws Exception {
        Pair pair = connect(false);
        byte[] sent = new byte[150_000];
        new SplittableRandom(3).nextBytes(sent);
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
            ByteBuffer all = ByteBuffer.allocate(sent.length);
            try {
                while (all.hasRemaining()) {
                    pair.peer().read(all);
                }
                pair.peer().write(ByteBuffer.wrap(new byte[] {4, 5, 6}));
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
            return all.array();
        });
        ByteBuffer src = ByteBuffer.wrap(sent);
        int writes = 0;
        while (src.hasRemaining()) {
            int n = pair.ours().write(src);
            assertTrue(n > 0 && n <= FdDirection.COPY_BUFFER_SIZE, "wrote " + n);
            writes++;
        }
        assertTrue(writes >= 3, writes + " writes for 150,000 bytes through a 64 KiB copy buffer");
        assertArrayEquals(sent, received.get(10, TimeUnit.SECONDS));
        ByteBuffer back = ByteBuffer.allocate(10);
        while (back.position() < 3) {
            assertTrue(pair.ours().read(back) > 0);
        }
        assertArrayEquals(new byte[] {4, 5, 6}, java.util.Arrays.copyOf(back.array(), 3));
    }

    @ParameterizedTest(name = "polling={0}")
    @ValueSource(booleans = {false, true})
    void zeroCopySendsAreCountedAndALoopbackPeerGetsACopy(boolean polling) throws Exception {
        Pair pair = connect(polling ? Setting.POLLING_ZERO_COPY : Setting.WAITING_ZERO_COPY);
        byte[] sent = new byte[1 << 20];
        new SplittableRandom(7).nextBytes(sent);
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> readFully(pair.peer(), sent.length));
        ByteBuffer src = ByteBuffer.allocateDirect(64 * 1024);
        int writes = 0;
        for (int at = 0; at < sent.length; at += src.capacity()) {
            src.clear().put(sent, at, src.capacity()).flip();
            while (src.hasRemaining()) {
                pair.ours().write(src);
                writes++;
            }
            src.clear().put(new byte[src.capacity()]); // the buffer is ours again once write returns
        }
        assertArrayEquals(sent, received.get(10, TimeUnit.SECONDS));
        assertEquals(writes, pair.ours().zeroCopySends(), "every write went by SEND_ZC");
        assertEquals(writes, pair.ours().copiedZeroCopySends(), "the kernel copies for a peer on this machine");
        assertTrue(pair.ours().toString().contains("zeroCopyFrom=1"), pair.ours().toString());
    }

    @Test
    void aUnixDomainSocketRefusesZeroCopyAndTheWritesGoBySend(@TempDir Path dir) throws Exception {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("s"));
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(address);
            IoUringSocket ours = IoUringSocket.builder(NativeSocket.connect(address)).zeroCopyFrom(1).build();
            open.add(ours);
            SocketChannel peer = server.accept();
            open.add(peer);
            byte[] sent = new byte[300_000];
            new SplittableRandom(11).nextBytes(sent);
            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> readFully(peer, sent.length));
            ByteBuffer src = ByteBuffer.allocateDirect(sent.length).put(sent).flip();
            while (src.hasRemaining()) {
                ours.write(src);
            }
            assertArrayEquals(sent, received.get(10, TimeUnit.SECONDS));
            assertEquals(0, ours.zeroCopySends());
            assertTrue(!ours.toString().contains("zeroCopyFrom"), "zero copy is off after the refusal: " + ours);
        }
    }

    @Test
    void aZeroCopyThresholdBelowOneIsRefusedByName() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            try (NativeSocket socket = NativeSocket.connect(server.getLocalAddress())) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> IoUringSocket.builder(socket).zeroCopyFrom(0));
                assertEquals("zeroCopyFrom=0 min=1", e.getMessage());
            }
        }
    }

    private static byte[] readFully(SocketChannel peer, int length) {
        ByteBuffer all = ByteBuffer.allocate(length);
        try {
            while (all.hasRemaining()) {
                if (peer.read(all) < 0) {
                    throw new IOException("end of stream after " + all.position() + " of " + length + " bytes");
                }
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        return all.array();
    }

    @Test
    void aResetNamesTheCallAndTheRingAndTheEndOfStreamIsMinusOne() throws IOException {
        Pair reset = connect(true);
        reset.peer().setOption(StandardSocketOptions.SO_LINGER, 0);
        reset.peer().close();
        NativeIoException e = assertThrows(NativeIoException.class, () -> reset.ours().read(ByteBuffer.allocateDirect(8)));
        assertEquals(104, e.errno());
        assertTrue(e.getMessage().startsWith("recv failed: errno=104 (Connection reset by peer) fd="), e.getMessage());
        assertTrue(e.getMessage().contains("through io_uring"), e.getMessage());

        Pair ended = connect(false);
        ended.peer().close();
        assertEquals(-1, ended.ours().read(ByteBuffer.allocateDirect(8)));
    }

    @Test
    void aClosedChannelRefusesReadsAndWrites() throws IOException {
        Pair pair = connect(false);
        pair.ours().close();
        pair.ours().close();
        assertThrows(ClosedChannelException.class, () -> pair.ours().read(ByteBuffer.allocateDirect(8)));
        assertThrows(ClosedChannelException.class, () -> pair.ours().write(ByteBuffer.allocateDirect(8)));
    }

    @ParameterizedTest
    @EnumSource(value = Setting.class, names = {"WAITING", "POLLING", "POLLING_ZERO_COPY"})
    void roundTripsAllocateNothingOnceWarm(Setting setting) throws Exception {
        Pair pair = connect(setting);
        CompletableFuture<Void> echoing = echo(pair.peer());
        ByteBuffer out = ByteBuffer.allocateDirect(100);
        ByteBuffer in = ByteBuffer.allocateDirect(100);
        // The ring is driven by the thread that calls read and write: this one. The peer is the JDK's, on a
        // thread of its own, and not measured.
        SteadyState.assertAllocatesNothingPerOperation("round trips through the ring (" + setting + ")",
                List.of(Thread.currentThread()), 0, i -> {
                    out.clear().putInt(0, i);
                    while (out.hasRemaining()) {
                        pair.ours().write(out);
                    }
                    in.clear();
                    while (in.hasRemaining()) {
                        int n = pair.ours().read(in);
                        if (n <= 0) {
                            throw new AssertionError("read " + n + " at round trip " + i + ": a read waits for bytes");
                        }
                    }
                    if (in.getInt(0) != i) {
                        throw new AssertionError("round trip " + i + " came back as " + in.getInt(0));
                    }
                });
        pair.ours().socket().shutdownOutput();
        echoing.get(10, TimeUnit.SECONDS);
    }
}
