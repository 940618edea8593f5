package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.CorruptFrameException;
import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameTooLongException;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The contract of {@link FrameServer}, for every {@link dev.wirespeed.loop.spi.LoopTransport} over TCP
 * and Unix sockets: a transport's test extends this and says how to build its server. The peers are
 * plain blocking sockets writing bytes built independently of the library's writer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class FrameServerContract {
    /** The random sizes and splits of the tests that choose them, and of a transport's own where it has some. */
    @RegisterExtension
    protected static final Seed SEED = Seed.fromPropertyOrNew();

    /** The socket kinds every test runs over. */
    public enum Transport {
        /** TCP loopback. */
        TCP,
        /** A Unix domain socket in a temporary directory. */
        UNIX
    }

    /** {@return {@code builder}, set to the backend under test} */
    protected abstract FrameServer.Builder backend(FrameServer.Builder builder);

    private Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final Recorder recorder = new Recorder();

    @BeforeEach
    void makeDir() throws IOException {
        dir = Files.createTempDirectory("wirespeed-loop");
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    /** Records closes; echoes every frame unless a test handler says otherwise. */
    public static class Recorder implements ConnectionHandler {
        final BlockingQueue<Connection> opened = new LinkedBlockingQueue<>();
        final BlockingQueue<Closed> closed = new LinkedBlockingQueue<>();

        /** One close: which connection, and why. */
        public record Closed(Connection connection, Throwable cause) {
        }

        @Override
        public void onOpen(Connection connection) {
            opened.add(connection);
        }

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
            connection.writeFrame(type, body);
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            closed.add(new Closed(connection, cause));
        }

        Closed nextClose() throws InterruptedException {
            Closed c = closed.poll(20, TimeUnit.SECONDS);
            assertNotNull(c, "no connection closed within 20 s");
            return c;
        }
    }

    private FrameServer start(Transport transport, ConnectionHandler handler,
            java.util.function.UnaryOperator<FrameServer.Builder> settings) throws IOException {
        SocketAddress address = switch (transport) {
            case TCP -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            case UNIX -> UnixDomainSocketAddress.of(dir.resolve("s.sock"));
        };
        FrameServer server = settings.apply(backend(FrameServer.builder(handler).bind(address))).start();
        open.add(server);
        return server;
    }

    private Peer connect(FrameServer server) throws IOException {
        Peer peer = new Peer(SocketChannel.open(server.localAddresses().get(0)));
        open.add(peer);
        return peer;
    }

    /** A blocking client: raw bytes out, frames in through the library's reader. */
    static final class Peer implements AutoCloseable {
        final SocketChannel channel;
        final FrameReader reader;
        private int type;
        private byte[] body;

        Peer(SocketChannel channel) {
            this.channel = channel;
            this.reader = FrameReader.builder(channel).bufferCapacity(64 * 1024).build();
        }

        void send(byte[] bytes) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                channel.write(b);
            }
        }

        /** Reads one frame; false at a clean end of stream. */
        boolean receive() throws IOException {
            return reader.readFrame((t, b) -> {
                type = t;
                body = new byte[b.remaining()];
                b.get(body);
            });
        }

        void expect(int expectedType, byte[] expectedBody) throws IOException {
            assertTrue(receive(), "end of stream where frame type " + expectedType + " was due");
            assertEquals(expectedType, type);
            assertArrayEquals(expectedBody, body, "body of frame type " + expectedType);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    private static byte[] body(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void echoesEveryFrameUnchangedWhateverItsSizeAndHowTheBytesArrive(Transport transport) throws Exception {
        long seed = SEED.value();
        Random random = new Random(seed);
        FrameServer server = start(transport, recorder, b -> b.chunkSize(16 * 1024));
        Peer peer = connect(server);
        int frames = 300;
        List<byte[]> bodies = new ArrayList<>();
        Frames stream = new Frames();
        for (int i = 0; i < frames; i++) {
            int length = switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> random.nextInt(16);
                case 2 -> random.nextInt(2_000);
                default -> random.nextInt(100_000); // up to several chunks: assembled in a buffer of its own
            };
            byte[] b = body(random, length);
            bodies.add(b);
            stream.frame(i, length, b);
        }
        byte[] bytes = stream.toByteArray();
        // The peer writes in pieces of random sizes on another thread, so the server reads headers and
        // bodies split anywhere; this thread reads the echoes at the same time.
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            Random pieces = new Random(seed + 1);
            try {
                for (int at = 0; at < bytes.length; ) {
                    int n = Math.min(bytes.length - at, 1 + pieces.nextInt(pieces.nextBoolean() ? 9 : 40_000));
                    ByteBuffer b = ByteBuffer.wrap(bytes, at, n);
                    while (b.hasRemaining()) {
                        peer.channel.write(b);
                    }
                    at += n;
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        for (int i = 0; i < frames; i++) {
            peer.expect(i, bodies.get(i));
        }
        writer.get();
        assertEquals(frames, server.framesRead());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void deliversFramesWhoseBytesArriveOneAtATime(Transport transport) throws Exception {
        FrameServer server = start(transport, recorder, b -> b);
        Peer peer = connect(server);
        byte[] bytes = new Frames().frame(1, 3, new byte[] {1, 2, 3}).frame(2, 0, new byte[0])
                .frame(3, 1, new byte[] {9}).toByteArray();
        for (byte b : bytes) {
            peer.send(new byte[] {b});
            Thread.sleep(1); // most bytes in a read of their own
        }
        peer.expect(1, new byte[] {1, 2, 3});
        peer.expect(2, new byte[0]);
        peer.expect(3, new byte[] {9});
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closesAConnectionThatSendsANegativeLengthNamingItsOffsetAndNoOtherNotices(Transport transport)
            throws Exception {
        FrameServer server = start(transport, recorder, b -> b);
        Peer good = connect(server);
        Peer bad = connect(server);
        good.send(new Frames().frame(1, 1, new byte[] {1}).toByteArray());
        good.expect(1, new byte[] {1});
        bad.send(new Frames().frame(5, 10, new byte[10]).header(6, -1).raw(new byte[20]).toByteArray());
        bad.expect(5, new byte[10]);
        Recorder.Closed closed = recorder.nextClose();
        CorruptFrameException e = assertInstanceOf(CorruptFrameException.class, closed.cause());
        assertEquals("corrupt frame: negative length: length=-1 offset=18", e.getMessage());
        assertReadsNoMore(bad);
        good.send(new Frames().frame(2, 2, new byte[] {2, 2}).toByteArray());
        good.expect(2, new byte[] {2, 2});
        assertEquals(1, server.connectionCount());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closesAConnectionThatSendsAFrameOverTheLimitNamingTheLimit(Transport transport) throws Exception {
        FrameServer server = start(transport, recorder, b -> b.maxFrameLength(1_000));
        Peer bad = connect(server);
        bad.send(new Frames().frame(1, 1_000, new byte[1_000]).header(2, 1_001).toByteArray());
        bad.expect(1, new byte[1_000]);
        FrameTooLongException e = assertInstanceOf(FrameTooLongException.class, recorder.nextClose().cause());
        assertEquals("frame too long: length=1001 maxFrameLength=1000 offset=1008", e.getMessage());
        assertReadsNoMore(bad);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void reportsAStreamThatEndsInsideAHeaderOrABody(Transport transport) throws Exception {
        FrameServer server = start(transport, recorder, b -> b);
        Peer inHeader = connect(server);
        inHeader.send(new Frames().frame(1, 0, new byte[0]).raw(new byte[] {1, 2, 3, 4, 5}).toByteArray());
        inHeader.channel.shutdownOutput();
        TruncatedFrameException header = assertInstanceOf(TruncatedFrameException.class, recorder.nextClose().cause());
        assertEquals("truncated frame: header bytes present=5 of 8 offset=8", header.getMessage());

        Peer inBody = connect(server);
        inBody.send(new Frames().header(1, 10).raw(new byte[] {1, 2, 3}).toByteArray());
        inBody.channel.shutdownOutput();
        TruncatedFrameException body = assertInstanceOf(TruncatedFrameException.class, recorder.nextClose().cause());
        assertEquals("truncated frame: body bytes present=3 of length=10 offset=0", body.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aPeerThatClosesAtAFrameBoundaryGetsEveryReplyThenTheEnd(Transport transport) throws Exception {
        FrameServer server = start(transport, recorder, b -> b.chunkSize(4096));
        Peer peer = connect(server);
        Frames stream = new Frames();
        for (int i = 0; i < 1_000; i++) {
            stream.frame(i, 100, new byte[100]);
        }
        peer.send(stream.toByteArray());
        peer.channel.shutdownOutput();
        for (int i = 0; i < 1_000; i++) {
            peer.expect(i, new byte[100]);
        }
        assertFalse(peer.receive(), "the server closes after the replies");
        assertNull(recorder.nextClose().cause());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aPeerThatDoesNotReadIsNotReadEitherAndHoldsBoundedOutputWhileOthersGoOn(Transport transport)
            throws Exception {
        int chunk = 16 * 1024;
        int limit = 64 * 1024;
        AtomicLong mostQueued = new AtomicLong();
        ConnectionHandler measuring = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                connection.writeFrame(type, body);
                mostQueued.accumulateAndGet(connection.queuedBytes(), Math::max);
            }
        };
        FrameServer server = start(transport, measuring, b -> b.chunkSize(chunk).outputLimit(limit));
        Peer slow = connect(server);
        int frames = 20_000;
        Frames stream = new Frames();
        for (int i = 0; i < frames; i++) {
            stream.frame(i, 1_000, body(new Random(i), 1_000));
        }
        CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
            try {
                slow.send(stream.toByteArray()); // blocks once the server stops reading and the socket buffers fill
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(300);
        assertFalse(writing.isDone(), "20 MB went into a server that should have stopped reading");
        Peer fast = connect(server);
        for (int i = 0; i < 1_000; i++) {
            fast.send(new Frames().frame(i, 8, new byte[8]).toByteArray());
            fast.expect(i, new byte[8]);
        }
        // The limit, plus the replies to one read of a chunk: what the connection may hold.
        assertTrue(mostQueued.get() <= limit + chunk + 1_008, "queued " + mostQueued.get() + " bytes, limit=" + limit);
        for (int i = 0; i < frames; i++) {
            slow.expect(i, body(new Random(i), 1_000));
        }
        writing.get();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aProducerThatStopsAtIsWritableIsResumedByOnWritableUntilItsStreamIsSent(Transport transport)
            throws Exception {
        int limit = 64 * 1024;
        int frames = 50_000;
        int bodyLength = 200;
        AtomicLong mostQueued = new AtomicLong();
        AtomicLong stops = new AtomicLong();
        AtomicLong resumes = new AtomicLong();
        ConnectionHandler producer = new Recorder() {
            private int next;

            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                produce(connection); // the peer's one frame starts the stream
            }

            @Override
            public void onWritable(Connection connection) throws IOException {
                resumes.incrementAndGet();
                produce(connection);
            }

            private void produce(Connection connection) throws IOException {
                while (next < frames && connection.isWritable()) {
                    ByteBuffer reply = connection.claim(next, bodyLength);
                    reply.putInt(0, next);
                    connection.commit();
                    next++;
                    mostQueued.accumulateAndGet(connection.queuedBytes(), Math::max);
                }
                if (next < frames) {
                    stops.incrementAndGet();
                }
            }
        };
        FrameServer server = start(transport, producer, b -> b.outputLimit(limit));
        Peer peer = connect(server);
        peer.send(new Frames().frame(0, 0, new byte[0]).toByteArray());
        Thread.sleep(200); // the peer reads nothing yet: the socket's buffers fill and the producer stops
        CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < frames; i++) {
                    byte[] expected = new byte[bodyLength];
                    ByteBuffer.wrap(expected).putInt(i);
                    peer.expect(i, expected);
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        try {
            reading.get(20, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the stream stalled: the producer stopped " + stops.get() + " times and was resumed "
                    + resumes.get() + " times", e);
        }
        assertTrue(stops.get() > 0, "the producer never saw isWritable() false");
        assertTrue(resumes.get() > 0, "onWritable was never called");
        // A producer that checks before each frame queues at most one frame past the limit.
        assertTrue(mostQueued.get() < limit + FrameFormat.HEADER_LENGTH + bodyLength,
                "queued " + mostQueued.get() + " bytes, limit=" + limit);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void resetsAConnectionIdleForTheTimeout(Transport transport) throws Exception {
        FrameServer server = start(transport, recorder, b -> b.idleTimeout(Duration.ofMillis(200)));
        Peer quiet = connect(server);
        long start = System.nanoTime();
        SocketTimeoutException e = assertInstanceOf(SocketTimeoutException.class, recorder.nextClose().cause());
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis >= 150, "closed after " + millis + " ms");
        assertTrue(e.getMessage().contains("idleTimeout=200 ms"), e.getMessage());
        assertReadsNoMore(quiet);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void resetsConnectionsPastTheLimit(Transport transport) throws Exception {
        FrameServer server = start(transport, recorder, b -> b.maxConnections(2));
        Peer one = connect(server);
        Peer two = connect(server);
        for (Peer p : List.of(one, two)) {
            p.send(new Frames().frame(1, 0, new byte[0]).toByteArray());
            p.expect(1, new byte[0]);
        }
        Peer three = connect(server);
        assertReadsNoMore(three);
        assertEquals(1, server.rejectedConnections());
        assertEquals(2, server.connectionCount());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aHandlerClosesGracefullyAfterItsReplyOrAbortsWithoutIt(Transport transport) throws Exception {
        ConnectionHandler closing = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                connection.writeFrame(type, body);
                if (type == 99) {
                    connection.close();
                    assertFalse(connection.writeFrame(100, body), "a write after close is refused");
                } else if (type == 98) {
                    connection.abort();
                }
            }
        };
        FrameServer server = start(transport, closing, b -> b);
        Peer graceful = connect(server);
        graceful.send(new Frames().frame(99, 2, new byte[] {4, 2}).frame(7, 0, new byte[0]).toByteArray());
        graceful.expect(99, new byte[] {4, 2});
        assertFalse(graceful.receive(), "a clean end after the reply; frame 7 was not read");

        Peer aborted = connect(server);
        aborted.send(new Frames().frame(98, 2, new byte[] {4, 2}).toByteArray());
        assertReadsNoMore(aborted);
        assertEquals(0, server.connectionCount());
    }

    /** {@return a handler that answers frame type 99 with itself, pauses {@code pauseMillis}, then closes gracefully} */
    private static Recorder replyThenClose(long pauseMillis) {
        return new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                if (type == 99) {
                    connection.writeFrame(type, body);
                    try {
                        Thread.sleep(pauseMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    connection.close();
                }
            }
        };
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aGracefulCloseReadsWhatThePeerStillSendsRatherThanResetIt(Transport transport) throws Exception {
        // The pause lets the peer's bytes fill the socket: they are unread at the close.
        FrameServer server = start(transport, replyThenClose(200), b -> b.chunkSize(16 * 1024));
        Peer peer = connect(server);
        // The close comes while most of this is still unread in the server's socket: closed there and then,
        // the socket would answer with a reset, which can cost the peer the reply it has not read yet.
        Frames stream = new Frames().frame(99, 2, new byte[] {4, 2});
        for (int i = 0; i < 512; i++) {
            stream.frame(7, 1000, new byte[1000]);
        }
        peer.send(stream.toByteArray());
        peer.expect(99, new byte[] {4, 2});
        assertFalse(peer.receive(), "a clean end of stream after the reply, not a reset");
        assertEquals(0, server.connectionCount(), "the connection is closed for the server once its output is");
        peer.close();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aLingeringSocketClosesAtTheLingerTimeoutWhenThePeerGoesOnSending(Transport transport) throws Exception {
        FrameServer server = start(transport, replyThenClose(0), b -> b.lingerTimeout(java.time.Duration.ofMillis(100)));
        Peer peer = connect(server);
        peer.send(new Frames().frame(99, 2, new byte[] {4, 2}).toByteArray());
        peer.expect(99, new byte[] {4, 2});
        assertFalse(peer.receive(), "a clean end of stream after the reply");
        // The server's socket drops what comes for 100 ms, then closes: a write fails soon after.
        byte[] more = new Frames().frame(7, 1000, new byte[1000]).toByteArray();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        IOException refused = null;
        while (refused == null && System.nanoTime() - deadline < 0) {
            try {
                peer.send(more);
                Thread.sleep(5);
            } catch (IOException e) {
                refused = e;
            }
        }
        assertNotNull(refused, "the peer could still write 20 s after a close with a 100 ms linger");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aHandlerThatThrowsClosesItsConnectionWithWhatItThrew(Transport transport) throws Exception {
        IllegalStateException thrown = new IllegalStateException("handler failed on purpose");
        Recorder failing = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) {
                throw thrown;
            }
        };
        FrameServer server = start(transport, failing, b -> b);
        Peer peer = connect(server);
        peer.send(new Frames().frame(1, 0, new byte[0]).toByteArray());
        assertEquals(thrown, failing.nextClose().cause());
        assertReadsNoMore(peer);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void otherThreadsWriteThroughExecuteOnly(Transport transport) throws Exception {
        FrameServer server = start(transport, recorder, b -> b.threadName("contract-loop"));
        Peer peer = connect(server);
        Connection c = recorder.opened.poll(20, TimeUnit.SECONDS);
        assertNotNull(c);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> c.writeFrame(1, ByteBuffer.allocate(0)));
        assertEquals("called on thread \"" + Thread.currentThread().getName() + "\"; " + c
                + " belongs to loop thread \"contract-loop-0\": use Connection.execute", e.getMessage());
        c.execute(() -> c.writeFrame(3, ByteBuffer.wrap(new byte[] {1, 2, 3})));
        peer.expect(3, new byte[] {1, 2, 3});
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aClaimedFrameIsFilledInPlace(Transport transport) throws Exception {
        ConnectionHandler claiming = (connection, type, body) -> {
            ByteBuffer reply = connection.claim(type + 1, 4);
            reply.putInt(0, body.remaining());
            connection.commit();
        };
        FrameServer server = start(transport, claiming, b -> b);
        Peer peer = connect(server);
        peer.send(new Frames().frame(1, 70_000, new byte[70_000]).frame(5, 3, new byte[3]).toByteArray());
        peer.expect(2, ByteBuffer.allocate(4).putInt(70_000).array());
        peer.expect(6, ByteBuffer.allocate(4).putInt(3).array());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void spreadsConnectionsOverTheLoopsInTurn(Transport transport) throws Exception {
        BlockingQueue<String> threads = new LinkedBlockingQueue<>();
        Recorder naming = new Recorder() {
            @Override
            public void onOpen(Connection connection) {
                threads.add(connection.id() + "@" + Thread.currentThread().getName());
            }
        };
        FrameServer server = start(transport, naming, b -> b.loops(2).threadName("spread"));
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Peer p = connect(server);
            p.send(new Frames().frame(i, 0, new byte[0]).toByteArray());
            p.expect(i, new byte[0]);
            seen.add(threads.poll(20, TimeUnit.SECONDS));
        }
        assertEquals(List.of("1@spread-0", "2@spread-1", "3@spread-0", "4@spread-1"), seen);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void idleConnectionsHoldNoBuffer(Transport transport) throws Exception {
        int chunk = 4096;
        FrameServer server = start(transport, recorder, b -> b.chunkSize(chunk));
        long pooledForOne = 0;
        for (int i = 0; i < 200; i++) {
            Peer p = connect(server);
            p.send(new Frames().frame(i, 100, new byte[100]).toByteArray());
            p.expect(i, new byte[100]);
            if (i == 0) {
                pooledForOne = server.pooledBytes();
            }
        }
        assertEquals(200, server.connectionCount());
        assertTrue(pooledForOne > 0, "the pool allocated nothing for a round trip");
        // Had each kept its input or output chunk, 200 connections would hold at least 200 chunks.
        assertEquals(pooledForOne, server.pooledBytes(), "the pool grew while connections were idle");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closingTheServerClosesEveryConnectionOnce(Transport transport) throws Exception {
        FrameServer server = start(transport, recorder, b -> b.loops(2));
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Peer p = connect(server);
            p.send(new Frames().frame(i, 0, new byte[0]).toByteArray());
            p.expect(i, new byte[0]);
            peers.add(p);
        }
        server.close();
        assertEquals(5, recorder.closed.size());
        for (Peer p : peers) {
            assertFalse(p.receive());
        }
        assertThrows(IOException.class, () -> SocketChannel.open(server.localAddresses().get(0)));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void theLoopAllocatesNothingPerEchoedFrameOnceWarm(Transport transport) throws Exception {
        AtomicReference<Thread> loop = new AtomicReference<>();
        FrameServer server = start(transport, recorder, b -> b.onLoopStart(i -> loop.set(Thread.currentThread())));
        Peer peer = connect(server);
        byte[] frame = new Frames().frame(7, 100, new byte[100]).toByteArray();
        peer.send(frame);
        assertTrue(peer.receive(), "end of stream at the first round trip");
        // The claim is the loop's: its thread is the one measured. The peer is the test's own blocking
        // client, which copies each body into a new array. After each round trip the loop has written the
        // echo; it then waits in its poll.
        SteadyState.assertAllocatesNothingPerOperation("echoes by the loop thread", List.of(loop.get()), 40_000, i -> {
            peer.send(frame);
            assertTrue(peer.receive(), "end of stream at round trip " + i);
        });
    }

    /** The server closed or reset the peer: no frame comes, the read ends or fails. */
    private static void assertReadsNoMore(Peer peer) {
        try {
            assertFalse(peer.receive(), "a frame arrived on a connection the server closed");
        } catch (SocketException e) {
            assertTrue(e.getMessage().contains("reset"), e.getMessage()); // the RST of an abortive close
        } catch (IOException e) {
            throw new AssertionError("unexpected failure", e);
        }
    }
}
