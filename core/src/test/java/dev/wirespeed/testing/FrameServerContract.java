package dev.wirespeed.testing;

import static dev.wirespeed.testing.Await.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wirespeed.frame.CorruptFrameException;
import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameTooLongException;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.loop.BlockHandler;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectTimeoutException;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameClient;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.InputBudgetException;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.loop.spi.LoopTransport;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of a loop's connections, for every {@link LoopTransport} over TCP and Unix sockets, on
 * connections accepted by a {@link FrameServer} and on connections opened by a {@link FrameClient}
 * alike: a transport's test extends this and names its transport. The peers are plain blocking sockets
 * writing bytes built independently of the library's writer: the server's clients, or what the client
 * connects to.
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

    /** Who opens the connection under test. */
    public enum Opener {
        /** The peer connects; a {@link FrameServer} accepts. */
        PEER,
        /** A {@link FrameClient} connects; the peer accepts. */
        LOOP
    }

    /** {@return every socket kind with every opener} */
    static Stream<Arguments> cases() {
        return Stream.of(Transport.values()).flatMap(t -> Stream.of(Opener.values()).map(o -> Arguments.of(t, o)));
    }

    /** {@return a new transport under test} */
    protected abstract LoopTransport transport();

    /**
     * {@return why this transport's loop may allocate in its steady state here, or empty where the
     * allocation tests claim it allocates nothing}: a transport whose calls allocate for a reason outside
     * the library's reach (the JDK's, in a mode the build also tests) says so, and those tests are skipped
     * with the reason
     */
    protected Optional<String> whyTheLoopMayAllocate() {
        return Optional.empty();
    }

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

        /**
         * One close: which connection, why, and when the handler heard of it ({@link System#nanoTime()}, read
         * on the loop's thread after the loop decided to close: not before any deadline it closed at).
         */
        public record Closed(Connection connection, Throwable cause, long nanos) {
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
            closed.add(new Closed(connection, cause, System.nanoTime()));
        }

        Closed nextClose() throws InterruptedException {
            Closed c = closed.poll(20, TimeUnit.SECONDS);
            assertNotNull(c, "no connection closed within 20 s");
            return c;
        }
    }

    /** The loop settings and connection limits a test sets, for a server's builder or a group's and a client's. */
    protected static final class Settings {
        private Integer chunkSize;
        private Long inputBudget;
        private Duration unusedMemoryTimeout;
        private Long outputLimit;
        private Integer maxFrameLength;
        private Duration idleTimeout;
        private Duration frameTimeout;
        private Integer maxConnections;
        private Duration lingerTimeout;
        private int loops = 1;
        private String threadName = "contract-loop";
        private IntConsumer onLoopStart;

        Settings chunkSize(int v) {
            chunkSize = v;
            return this;
        }

        Settings inputBudget(long v) {
            inputBudget = v;
            return this;
        }

        Settings unusedMemoryTimeout(Duration v) {
            unusedMemoryTimeout = v;
            return this;
        }

        Settings outputLimit(long v) {
            outputLimit = v;
            return this;
        }

        Settings maxFrameLength(int v) {
            maxFrameLength = v;
            return this;
        }

        Settings idleTimeout(Duration v) {
            idleTimeout = v;
            return this;
        }

        Settings frameTimeout(Duration v) {
            frameTimeout = v;
            return this;
        }

        Settings maxConnections(int v) {
            maxConnections = v;
            return this;
        }

        Settings lingerTimeout(Duration v) {
            lingerTimeout = v;
            return this;
        }

        Settings loops(int v) {
            loops = v;
            return this;
        }

        Settings threadName(String v) {
            threadName = v;
            return this;
        }

        Settings onLoopStart(IntConsumer v) {
            onLoopStart = v;
            return this;
        }

        FrameServer.Builder applyTo(FrameServer.Builder b, LoopTransport transport) {
            b.transport(transport).loops(loops).threadName(threadName);
            if (onLoopStart != null) {
                b.onLoopStart(onLoopStart);
            }
            if (chunkSize != null) {
                b.chunkSize(chunkSize);
            }
            if (inputBudget != null) {
                b.inputBudget(inputBudget);
            }
            if (unusedMemoryTimeout != null) {
                b.unusedMemoryTimeout(unusedMemoryTimeout);
            }
            if (outputLimit != null) {
                b.outputLimit(outputLimit);
            }
            if (maxFrameLength != null) {
                b.maxFrameLength(maxFrameLength);
            }
            if (idleTimeout != null) {
                b.idleTimeout(idleTimeout);
            }
            if (frameTimeout != null) {
                b.frameTimeout(frameTimeout);
            }
            if (maxConnections != null) {
                b.maxConnections(maxConnections);
            }
            if (lingerTimeout != null) {
                b.lingerTimeout(lingerTimeout);
            }
            return b;
        }

        LoopGroup.Builder applyTo(LoopGroup.Builder b, LoopTransport transport) {
            b.transport(transport).loops(loops).threadName(threadName);
            if (onLoopStart != null) {
                b.onLoopStart(onLoopStart);
            }
            if (chunkSize != null) {
                b.chunkSize(chunkSize);
            }
            if (inputBudget != null) {
                b.inputBudget(inputBudget);
            }
            if (unusedMemoryTimeout != null) {
                b.unusedMemoryTimeout(unusedMemoryTimeout);
            }
            return b;
        }

        FrameClient.Builder applyTo(FrameClient.Builder b) {
            if (outputLimit != null) {
                b.outputLimit(outputLimit);
            }
            if (maxFrameLength != null) {
                b.maxFrameLength(maxFrameLength);
            }
            if (idleTimeout != null) {
                b.idleTimeout(idleTimeout);
            }
            if (frameTimeout != null) {
                b.frameTimeout(frameTimeout);
            }
            if (maxConnections != null) {
                b.maxConnections(maxConnections);
            }
            if (lingerTimeout != null) {
                b.lingerTimeout(lingerTimeout);
            }
            return b;
        }
    }

    /** The loop's end under test: a server and the address its peers connect to, or a client and the peers' listener. */
    protected interface Side extends AutoCloseable {
        /** {@return a new connection, open at both ends: the peer's blocking socket} */
        Peer connect() throws IOException;

        int connectionCount();

        long framesRead();

        /** {@return the bytes the loops read from their connections; may lag behind them} */
        long bytesRead();

        /** {@return the bytes the loops sent to their connections; may lag behind them} */
        long bytesWritten();

        long pooledBytes();

        long partialFrameBytes();

        /** {@return the loops' failure, or null} */
        IOException failure();

        long rejectedConnections();

        @Override
        void close() throws IOException;
    }

    private Side start(Transport transport, Opener opener, ConnectionHandler handler, UnaryOperator<Settings> settings)
            throws IOException {
        return start(transport(), transport, opener, handler, settings);
    }

    /** As {@link #start(Transport, Opener, ConnectionHandler, UnaryOperator)}, the loops on {@code loops}. */
    private Side start(LoopTransport loops, Transport transport, Opener opener, ConnectionHandler handler,
            UnaryOperator<Settings> settings) throws IOException {
        SocketAddress address = switch (transport) {
            case TCP -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            case UNIX -> UnixDomainSocketAddress.of(dir.resolve("s.sock"));
        };
        Settings set = settings.apply(new Settings());
        Side side = switch (opener) {
            case PEER -> new ServerSide(set.applyTo(FrameServer.builder(handler).bind(address), loops).start());
            case LOOP -> {
                LoopGroup group = set.applyTo(LoopGroup.builder(), loops).start();
                try {
                    yield new ClientSide(group, set.applyTo(FrameClient.builder(handler).group(group)).build(), address);
                } catch (IOException | RuntimeException e) {
                    group.close();
                    throw e;
                }
            }
        };
        open.add(side);
        return side;
    }

    private Peer connect(Side side) throws IOException {
        Peer peer = side.connect();
        open.add(peer);
        return peer;
    }

    /** A server: its peers connect to its first address. */
    private record ServerSide(FrameServer server) implements Side {
        @Override
        public Peer connect() throws IOException {
            return new Peer(SocketChannel.open(server.localAddresses().get(0)));
        }

        @Override
        public int connectionCount() {
            return server.connectionCount();
        }

        @Override
        public long framesRead() {
            return server.framesRead();
        }

        @Override
        public long bytesRead() {
            return server.bytesRead();
        }

        @Override
        public long bytesWritten() {
            return server.bytesWritten();
        }

        @Override
        public long pooledBytes() {
            return server.pooledBytes();
        }

        @Override
        public long partialFrameBytes() {
            return server.partialFrameBytes();
        }

        @Override
        public IOException failure() {
            return server.failure();
        }

        @Override
        public long rejectedConnections() {
            return server.rejectedConnections();
        }

        @Override
        public void close() {
            server.close();
        }
    }

    /** A client on a group of its own: it connects to a blocking listener, whose accepted sockets are the peers. */
    private static final class ClientSide implements Side {
        final LoopGroup group;
        final FrameClient client;
        final ServerSocketChannel listener;
        final SocketAddress address;

        ClientSide(LoopGroup group, FrameClient client, SocketAddress address) throws IOException {
            this.group = group;
            this.client = client;
            this.listener = address instanceof UnixDomainSocketAddress
                    ? ServerSocketChannel.open(StandardProtocolFamily.UNIX) : ServerSocketChannel.open();
            listener.bind(address);
            this.address = listener.getLocalAddress();
        }

        @Override
        public Peer connect() throws IOException {
            CompletableFuture<Connection> opened = client.connect(address);
            Peer peer = new Peer(accept(opened));
            try {
                opened.get(20, TimeUnit.SECONDS);
            } catch (InterruptedException | ExecutionException | TimeoutException e) {
                peer.close();
                throw new IOException("the client's connect to " + address + " did not open", e);
            }
            return peer;
        }

        /** {@return the connection the client is opening, accepted; or the client's failure, at once} */
        private SocketChannel accept(CompletableFuture<Connection> opened) throws IOException {
            listener.configureBlocking(false);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                SocketChannel accepted = listener.accept();
                if (accepted != null) {
                    accepted.configureBlocking(true);
                    return accepted;
                }
                if (opened.isCompletedExceptionally()) {
                    throw new IOException("the client's connect to " + address + " failed: " + opened.exceptionNow());
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("nothing connected to " + address + " within 20 s");
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }

        @Override
        public int connectionCount() {
            return client.connectionCount();
        }

        @Override
        public long framesRead() {
            return client.framesRead();
        }

        @Override
        public long bytesRead() {
            return client.bytesRead();
        }

        @Override
        public long bytesWritten() {
            return client.bytesWritten();
        }

        @Override
        public long pooledBytes() {
            return group.pooledBytes();
        }

        @Override
        public long partialFrameBytes() {
            return group.partialFrameBytes();
        }

        @Override
        public IOException failure() {
            return group.failure();
        }

        @Override
        public long rejectedConnections() {
            return client.rejectedConnections();
        }

        @Override
        public void close() throws IOException {
            client.close();
            group.close();
            listener.close();
            if (address instanceof UnixDomainSocketAddress unix) {
                Files.deleteIfExists(unix.getPath());
            }
        }
    }

    /** A blocking client: raw bytes out, frames in through the library's reader. */
    protected static final class Peer implements AutoCloseable {
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

    /**
     * {@return {@code peer} writing {@code bytes} on another thread, in pieces of 1 to {@code small} or 1 to
     * {@code large} bytes, sizes drawn from {@code seed}}, so that the server reads headers and bodies split
     * anywhere
     */
    private static CompletableFuture<Void> writeInPieces(Peer peer, byte[] bytes, long seed, int small, int large) {
        return CompletableFuture.runAsync(() -> {
            Random pieces = new Random(seed);
            try {
                for (int at = 0; at < bytes.length; ) {
                    int n = Math.min(bytes.length - at, 1 + pieces.nextInt(pieces.nextBoolean() ? small : large));
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
    }

    private static byte[] body(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    @ParameterizedTest
    @MethodSource("cases")
    void echoesEveryFrameUnchangedWhateverItsSizeAndHowTheBytesArrive(Transport transport, Opener opener) throws Exception {
        long seed = SEED.value();
        Random random = new Random(seed);
        Side server = start(transport, opener, recorder, b -> b.chunkSize(16 * 1024));
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
        // This thread reads the echoes while the peer writes.
        CompletableFuture<Void> writer = writeInPieces(peer, bytes, seed + 1, 9, 40_000);
        for (int i = 0; i < frames; i++) {
            peer.expect(i, bodies.get(i));
        }
        writer.get();
        assertEquals(frames, server.framesRead());
        // Every byte the peer sent was read, and the same bytes sent back, as the loops count them.
        awaitTrue(() -> server.bytesRead() == bytes.length && server.bytesWritten() == bytes.length,
                () -> "bytesRead=" + server.bytesRead() + " bytesWritten=" + server.bytesWritten() + " of "
                        + bytes.length + " sent and echoed");
    }

    /** What the mixing handler does with frame {@code i}: its type is {@code i}, the action {@code actions[i]}. */
    private enum Reply { BACK, OTHER_FIRST, NONE, BACK_TWICE, BACK_AFTER_A_READ, BACK_AS_OTHER_TYPE, CLAIMED, OTHER_AFTER }

    @ParameterizedTest
    @MethodSource("cases")
    void framesWrittenBackAsReceivedKeepTheirOrderAmongOtherWritesWhereverReadsSplit(Transport transport,
            Opener opener) throws Exception {
        long seed = SEED.value();
        Random random = new Random(seed);
        int frames = 400;
        Reply[] actions = new Reply[frames];
        List<byte[]> bodies = new ArrayList<>();
        Frames stream = new Frames();
        for (int i = 0; i < frames; i++) {
            // runs of frames written back unchanged, broken by every other kind of write
            actions[i] = random.nextInt(3) > 0 ? Reply.BACK : Reply.values()[random.nextInt(Reply.values().length)];
            int length = switch (random.nextInt(5)) {
                case 0 -> random.nextInt(2);
                case 1, 2 -> random.nextInt(200);
                case 3 -> random.nextInt(3_000);
                default -> random.nextInt(40_000); // past the 8 KiB chunk: read into a buffer of its own
            };
            byte[] b = body(random, length);
            bodies.add(b);
            stream.frame(i, length, b);
        }
        // The last frame is answered, so that its answer tells the peer the server has counted every frame
        // (replies leave after the read's frames are counted); a last frame left unanswered raced the count.
        actions[frames - 1] = Reply.BACK;
        ConnectionHandler mixing = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                byte[] other = {(byte) type, 7};
                switch (actions[type]) {
                    case BACK -> connection.writeFrame(type, body);
                    case OTHER_FIRST -> {
                        connection.writeFrame(100_000 + type, ByteBuffer.wrap(other));
                        connection.writeFrame(type, body);
                    }
                    case NONE -> { }
                    case BACK_TWICE -> {
                        connection.writeFrame(type, body);
                        connection.writeFrame(type, body);
                    }
                    case BACK_AFTER_A_READ -> {
                        if (body.hasRemaining()) {
                            body.get();
                        }
                        connection.writeFrame(type, body);
                    }
                    case BACK_AS_OTHER_TYPE -> connection.writeFrame(200_000 + type, body);
                    case CLAIMED -> {
                        connection.claim(300_000 + type, 2).put(other);
                        connection.commit();
                    }
                    case OTHER_AFTER -> {
                        connection.writeFrame(type, body);
                        connection.writeFrame(100_000 + type, ByteBuffer.wrap(other));
                    }
                }
            }
        };
        Side server = start(transport, opener, mixing, b -> b.chunkSize(8 * 1024));
        Peer peer = connect(server);
        byte[] bytes = stream.toByteArray();
        CompletableFuture<Void> writer = writeInPieces(peer, bytes, seed + 1, 300, 30_000);
        for (int i = 0; i < frames; i++) {
            byte[] b = bodies.get(i);
            byte[] other = {(byte) i, 7};
            switch (actions[i]) {
                case BACK -> peer.expect(i, b);
                case OTHER_FIRST -> {
                    peer.expect(100_000 + i, other);
                    peer.expect(i, b);
                }
                case NONE -> { }
                case BACK_TWICE -> {
                    peer.expect(i, b);
                    peer.expect(i, b);
                }
                case BACK_AFTER_A_READ -> peer.expect(i, b.length == 0 ? b : Arrays.copyOfRange(b, 1, b.length));
                case BACK_AS_OTHER_TYPE -> peer.expect(200_000 + i, b);
                case CLAIMED -> peer.expect(300_000 + i, other);
                case OTHER_AFTER -> {
                    peer.expect(i, b);
                    peer.expect(100_000 + i, other);
                }
            }
        }
        writer.get();
        assertEquals(frames, server.framesRead());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void deliversFramesWhoseBytesArriveOneAtATime(Transport transport, Opener opener) throws Exception {
        echoesFramesWhoseBytesArriveOneAtATime(transport, opener, recorder);
    }

    /** Three frames sent a byte at a time to a server of {@code echo}: each echoed, each counted. */
    private void echoesFramesWhoseBytesArriveOneAtATime(Transport transport, Opener opener, ConnectionHandler echo)
            throws Exception {
        Side server = start(transport, opener, echo, b -> b);
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
        assertEquals(3, server.framesRead());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void closesAConnectionThatSendsANegativeLengthNamingItsOffsetAndNoOtherNotices(Transport transport, Opener opener)
            throws Exception {
        Side server = start(transport, opener, recorder, b -> b);
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
    @MethodSource("cases")
    void closesAConnectionThatSendsAFrameOverTheLimitNamingTheLimit(Transport transport, Opener opener) throws Exception {
        Side server = start(transport, opener, recorder, b -> b.maxFrameLength(1_000));
        Peer bad = connect(server);
        bad.send(new Frames().frame(1, 1_000, new byte[1_000]).header(2, 1_001).toByteArray());
        bad.expect(1, new byte[1_000]);
        FrameTooLongException e = assertInstanceOf(FrameTooLongException.class, recorder.nextClose().cause());
        assertEquals("frame too long: length=1001 maxFrameLength=1000 offset=1008", e.getMessage());
        assertReadsNoMore(bad);
    }

    /** How the stream of {@link #aBadFrameAfterAnyFramesSplitAnywhereIsRefusedAtItsOffsetAfterTheFramesBefore} ends. */
    private enum Ending { NEGATIVE_LENGTH, LENGTH_OVER_THE_LIMIT, END_INSIDE_A_HEADER, END_INSIDE_A_BODY }

    @ParameterizedTest
    @MethodSource("cases")
    void aBadFrameAfterAnyFramesSplitAnywhereIsRefusedAtItsOffsetAfterTheFramesBefore(Transport transport,
            Opener opener) throws Exception {
        long seed = SEED.value();
        Random random = new Random(seed);
        int max = 50_000;
        for (boolean blocks : new boolean[] {false, true}) {
            for (Ending ending : Ending.values()) {
                String what = ending + (blocks ? " to a block handler" : " to a frame handler") + ", seed=" + SEED;
                Recorder handler = blocks ? new BlockRecorder() : new Recorder();
                Side server = start(transport, opener, handler, b -> b.chunkSize(8 * 1024).maxFrameLength(max));
                Peer peer = connect(server);
                Frames stream = new Frames();
                List<byte[]> bodies = new ArrayList<>();
                int frames = random.nextInt(60);
                long offset = 0;
                for (int i = 0; i < frames; i++) {
                    int length = random.nextInt(8) == 0 ? random.nextInt(max + 1) : random.nextInt(2_000);
                    byte[] b = body(random, length);
                    bodies.add(b);
                    stream.frame(i, length, b);
                    offset += FrameFormat.HEADER_LENGTH + length;
                }
                String expected = switch (ending) {
                    case NEGATIVE_LENGTH -> {
                        int length = -1 - random.nextInt(Integer.MAX_VALUE);
                        stream.header(frames, length).raw(body(random, random.nextInt(5_000)));
                        yield "corrupt frame: negative length: length=" + length + " offset=" + offset;
                    }
                    case LENGTH_OVER_THE_LIMIT -> {
                        int length = max + 1 + random.nextInt(Integer.MAX_VALUE - max - 1);
                        stream.header(frames, length).raw(body(random, random.nextInt(5_000)));
                        yield "frame too long: length=" + length + " maxFrameLength=" + max + " offset=" + offset;
                    }
                    case END_INSIDE_A_HEADER -> {
                        int present = 1 + random.nextInt(FrameFormat.HEADER_LENGTH - 1);
                        stream.raw(Arrays.copyOf(new Frames().header(frames, 5).toByteArray(), present));
                        yield "truncated frame: header bytes present=" + present + " of 8 offset=" + offset;
                    }
                    case END_INSIDE_A_BODY -> {
                        int length = 1 + random.nextInt(max);
                        int present = random.nextInt(length);
                        stream.header(frames, length).raw(body(random, present));
                        yield "truncated frame: body bytes present=" + present + " of length=" + length + " offset="
                                + offset;
                    }
                };
                CompletableFuture<Void> writer = writeInPieces(peer, stream.toByteArray(), random.nextLong(), 300,
                        30_000);
                // After a bad length the server lingers, reading and dropping the rest; a truncated stream
                // is only one once the peer has sent all of it and ended its output.
                CompletableFuture<Void> ended = writer.handle((ok, failed) -> {
                    try {
                        peer.channel.shutdownOutput();
                    } catch (IOException e) {
                        // reset by the server's close already: the close below says why
                    }
                    return null;
                });
                // The replies to the frames before the bad one, as far as the socket took them when it
                // came (the guide's "Bad input"): a prefix of the echoes' bytes, whole echoes in order, then
                // the end, which may cut the last echo short.
                int received = 0;
                long echoed = 0;
                try {
                    while (peer.receive()) {
                        assertTrue(received < frames, "a reply past the " + frames + " good frames: " + what);
                        assertEquals(received, peer.type, what);
                        assertArrayEquals(bodies.get(received), peer.body, "echo of frame " + received + ": " + what);
                        echoed += FrameFormat.HEADER_LENGTH + peer.body.length;
                        received++;
                    }
                } catch (TruncatedFrameException e) {
                    assertTrue(received < frames, "a cut reply past the " + frames + " good frames: " + what);
                    assertEquals(echoed, e.offset(), "where the cut echo starts: " + what);
                } catch (SocketException e) {
                    assertTrue(e.getMessage().contains("reset"), e.getMessage()); // the RST of a close with input unread
                }
                ended.get(20, TimeUnit.SECONDS);
                Throwable cause = handler.nextClose().cause();
                assertNotNull(cause, what);
                assertEquals(expected, cause.getMessage(), what);
                assertEquals(frames, server.framesRead(), what);
                server.close();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void reportsAStreamThatEndsInsideAHeaderOrABody(Transport transport, Opener opener) throws Exception {
        Side server = start(transport, opener, recorder, b -> b);
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
    @MethodSource("cases")
    void aPeerThatClosesAtAFrameBoundaryGetsEveryReplyThenTheEnd(Transport transport, Opener opener) throws Exception {
        Side server = start(transport, opener, recorder, b -> b.chunkSize(4096));
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
    @MethodSource("cases")
    void aPeerThatDoesNotReadIsNotReadEitherAndHoldsBoundedOutputWhileOthersGoOn(Transport transport, Opener opener)
            throws Exception {
        int chunk = 16 * 1024;
        int limit = 64 * 1024;
        int slowBody = 1_000;
        OutputLimitWatch watch = new OutputLimitWatch(limit);
        ConnectionHandler measuring = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                boolean slow = body.remaining() == slowBody;
                connection.writeFrame(type, body);
                if (slow) {
                    watch.replied(connection);
                }
            }

            @Override
            public void onWritable(Connection connection) {
                watch.drained();
            }
        };
        Side server = start(transport, opener, measuring, b -> b.chunkSize(chunk).outputLimit(limit));
        Peer slow = connect(server);
        int frames = 20_000;
        Frames stream = new Frames();
        for (int i = 0; i < frames; i++) {
            stream.frame(i, slowBody, body(new Random(i), slowBody));
        }
        CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
            try {
                slow.send(stream.toByteArray()); // blocks once the server stops reading and the socket buffers fill
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        watch.awaitLimit();
        Peer fast = connect(server);
        for (int i = 0; i < 1_000; i++) { // a thousand turns at least, the peer's bytes waiting in each
            fast.send(new Frames().frame(i, 8, new byte[8]).toByteArray());
            fast.expect(i, new byte[8]);
        }
        watch.awaitTurn();
        // What a read of a chunk holds, and so what the loop hands over after the frame that reached the limit.
        watch.assertReadNoMoreThan(chunk / (FrameFormat.HEADER_LENGTH + slowBody) + 1);
        assertFalse(writing.isDone(), "20 MB went into a server that should have stopped reading");
        // The limit, plus the replies to one read of a chunk: what the connection may hold.
        assertTrue(watch.mostQueued.get() <= limit + chunk + 1_008, "queued " + watch.mostQueued.get()
                + " bytes, limit=" + limit);
        for (int i = 0; i < frames; i++) {
            slow.expect(i, body(new Random(i), slowBody));
        }
        writing.get();
    }

    /**
     * A connection's output seen from its handler: the most it held, the frames handed to the handler after
     * the output reached the limit and before {@link ConnectionHandler#onWritable} said it drained (the rest
     * of the read that reached it, no more: a connection at the limit is not read), the most of them in one
     * such pause. Touched on the loop thread but for the atomics and {@code connection}.
     */
    private static final class OutputLimitWatch {
        final AtomicLong mostQueued = new AtomicLong();
        final AtomicLong mostAfterLimit = new AtomicLong();
        final AtomicLong pauses = new AtomicLong();
        final AtomicLong drains = new AtomicLong();
        final AtomicLong replies = new AtomicLong();
        private final AtomicReference<Connection> connection = new AtomicReference<>();
        private final long limit;
        private boolean atLimit;
        private long afterLimit;

        OutputLimitWatch(long limit) {
            this.limit = limit;
        }

        /** After the handler wrote its reply to a frame of {@code c}'s. */
        void replied(Connection c) {
            connection.set(c);
            replies.incrementAndGet();
            if (atLimit) {
                mostAfterLimit.accumulateAndGet(++afterLimit, Math::max);
            }
            long queued = c.queuedBytes();
            mostQueued.accumulateAndGet(queued, Math::max);
            if (!atLimit && queued >= limit) {
                atLimit = true;
                afterLimit = 0;
                pauses.incrementAndGet();
            }
        }

        /** From {@link ConnectionHandler#onWritable}. */
        void drained() {
            atLimit = false;
            drains.incrementAndGet();
        }

        /** Waits until the output reached the limit and the read that took it there is over. */
        void awaitLimit() throws InterruptedException {
            awaitTrue(() -> pauses.get() > 0, () -> "the output of a peer that does not read never reached the "
                    + "limit: " + this);
            awaitTurn();
        }

        /**
         * Waits until a task given to the connection's loop has run: the turn under way when it was given
         * (its reads and the handler calls of them) has ended.
         */
        void awaitTurn() throws InterruptedException {
            CountDownLatch ran = new CountDownLatch(1);
            connection.get().execute(ran::countDown);
            assertTrue(ran.await(20, TimeUnit.SECONDS), "a task given to the connection's loop did not run within "
                    + "20 s: " + this);
        }

        /** Checks that no more than {@code frames} were handed over in any one pause. */
        void assertReadNoMoreThan(long frames) {
            assertTrue(mostAfterLimit.get() <= frames, "frames handed over after the output reached the limit, "
                    + "before it drained: " + mostAfterLimit.get() + " in one pause, bound=" + frames + "; " + this);
        }

        @Override
        public String toString() {
            return "limit=" + limit + " mostQueued=" + mostQueued.get() + " replies=" + replies.get() + " pauses="
                    + pauses.get() + " drains=" + drains.get() + " mostAfterLimit=" + mostAfterLimit.get();
        }
    }

    /**
     * A peer that sends small frames as fast as they are taken and never reads, against the defaults (64
     * KiB chunks, a 256 KiB output limit): the replies held for it take about the memory of the output
     * limit on every transport, in chunks about as full as the bytes they hold, not a chunk for each
     * transport receive buffer's few KiB of replies (io_uring's held some 40 chunks for the limit's
     * bytes), and the loop stops reading it there.
     */
    @ParameterizedTest
    @MethodSource("cases")
    void aPeerThatDoesNotReadHoldsItsRepliesInAboutTheMemoryOfTheOutputLimit(Transport transport, Opener opener)
            throws Exception {
        int body = 100;
        OutputLimitWatch watch = new OutputLimitWatch(256 * 1024); // the default
        ConnectionHandler measuring = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer b) throws IOException {
                connection.writeFrame(type, b);
                watch.replied(connection);
            }

            @Override
            public void onWritable(Connection connection) {
                watch.drained();
            }
        };
        Side server = start(transport, opener, measuring, b -> b);
        Peer slow = connect(server);
        int perBlock = 600;
        int blocks = 300; // 19 MB: far more than the socket buffers and the limit take
        Frames block = new Frames();
        for (int i = 0; i < perBlock; i++) {
            block.frame(7, body, new byte[body]);
        }
        byte[] bytes = block.toByteArray();
        CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < blocks; i++) {
                    slow.send(bytes); // blocks once the server stops reading and the socket buffers fill
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        watch.awaitLimit(); // the most the loop holds for the peer
        long read = server.framesRead();
        long pooled = server.pooledBytes();
        assertTrue(read < (long) perBlock * blocks, "the loop read all " + read + " frames of a peer that never reads");
        // One slab of 16 chunks, and the small buffers' slabs: the limit, a read's replies, the chunk read into.
        long bound = 16 * 64 * 1024 + 16L * (256 + 1024 + 4096 + 16384);
        assertTrue(pooled <= bound, "the pools hold " + pooled + " bytes with a peer that does not read, "
                + "outputLimit=262144 chunkSize=65536, after " + read + " frames read; bound=" + bound);
        for (int turn = 0; turn < 3; turn++) { // each a poll in which the peer's waiting bytes would be read
            watch.awaitTurn();
        }
        watch.assertReadNoMoreThan(64 * 1024 / (FrameFormat.HEADER_LENGTH + body) + 1);
        for (long i = 0; i < (long) perBlock * blocks; i++) {
            slow.expect(7, new byte[body]);
        }
        writing.get(30, TimeUnit.SECONDS);
    }

    /**
     * Counts the bytes a loop hands its handler in each turn (a task given to the loop runs between
     * turns, and so marks where one ends), and sees the last frame of a stream arrive. Touched on the
     * loop thread only, but for {@code most} and {@code last}.
     */
    private static final class TurnCounter {
        final AtomicLong most = new AtomicLong();
        final CountDownLatch last = new CountDownLatch(1);
        private final int lastType;
        private long inTurn;
        private boolean marked;

        TurnCounter(int lastType) {
            this.lastType = lastType;
        }

        /** {@code bytes} were handed over on {@code connection}, the last of them in a frame of type {@code type}. */
        void handed(Connection connection, long bytes, int type) {
            if (!marked) {
                marked = true;
                connection.execute(() -> {
                    marked = false;
                    inTurn = 0;
                });
            }
            inTurn += bytes;
            most.accumulateAndGet(inTurn, Math::max);
            if (type == lastType) {
                last.countDown();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aTurnHandsOverAtMostAChunkAndTheFrameThatCrossesIt(Transport transport, Opener opener) throws Exception {
        // What bounds a peer's held output: a read hands the handler at most a chunk's worth of frames,
        // plus the one that crosses it, however the stream is split.
        assertTurnsHandOverAtMostAChunkAndTheFrameThatCrossesIt(transport, opener, counter -> new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) {
                counter.handed(connection, FrameFormat.HEADER_LENGTH + body.remaining(), type);
            }
        });
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aTurnHandsABlockHandlerAtMostAChunkAndTheFrameThatCrossesIt(Transport transport, Opener opener)
            throws Exception {
        // The same bound for blocks: a turn's blocks hold at most a chunk's worth of frames plus the one
        // that crosses it.
        assertTurnsHandOverAtMostAChunkAndTheFrameThatCrossesIt(transport, opener, counter -> new BlockRecorder() {
            @Override
            public void onFrames(Connection connection, ByteBuffer block) {
                int at = block.position();
                while (at + FrameFormat.HEADER_LENGTH + FrameFormat.length(block, at) < block.limit()) {
                    at += FrameFormat.HEADER_LENGTH + FrameFormat.length(block, at);
                }
                counter.handed(connection, block.remaining(), block.getInt(at)); // the block's last frame's type
            }
        });
    }

    /** Sends 20,000 frames of random sizes to a server of {@code handler}, which reports to the counter it is made with. */
    private void assertTurnsHandOverAtMostAChunkAndTheFrameThatCrossesIt(Transport transport, Opener opener,
            Function<TurnCounter, ConnectionHandler> handler) throws Exception {
        int chunk = 16 * 1024;
        int most = 2_000;
        int frames = 20_000;
        TurnCounter counter = new TurnCounter(frames - 1);
        Side server = start(transport, opener, handler.apply(counter), b -> b.chunkSize(chunk));
        Peer peer = connect(server);
        Random random = new Random(SEED.value());
        Frames stream = new Frames();
        for (int i = 0; i < frames; i++) {
            int length = random.nextInt(most + 1);
            stream.frame(i, length, new byte[length]);
        }
        peer.send(stream.toByteArray());
        assertTrue(counter.last.await(30, TimeUnit.SECONDS), "the last frame did not arrive, seed=" + SEED);
        long bound = chunk + FrameFormat.HEADER_LENGTH + most - 1;
        assertTrue(counter.most.get() <= bound,
                "a turn handed over " + counter.most.get() + " bytes, chunk=" + chunk + " bound=" + bound + " seed=" + SEED);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aProducerThatStopsAtIsWritableIsResumedByOnWritableUntilItsStreamIsSent(Transport transport, Opener opener)
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
        Side server = start(transport, opener, producer, b -> b.outputLimit(limit));
        Peer peer = connect(server);
        peer.send(new Frames().frame(0, 0, new byte[0]).toByteArray());
        // The peer reads nothing until the socket's buffers are full and the producer has stopped.
        awaitTrue(() -> stops.get() > 0, () -> "the producer never stopped at isWritable() with a peer that "
                + "does not read: mostQueued=" + mostQueued.get() + " limit=" + limit);
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
        assertTrue(resumes.get() > 0, "onWritable was never called");
        // A producer that checks before each frame queues at most one frame past the limit.
        assertTrue(mostQueued.get() < limit + FrameFormat.HEADER_LENGTH + bodyLength,
                "queued " + mostQueued.get() + " bytes, limit=" + limit);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void resetsAConnectionIdleForTheTimeout(Transport transport, Opener opener) throws Exception {
        Side server = start(transport, opener, recorder, b -> b.idleTimeout(Duration.ofMillis(200)));
        long before = System.nanoTime(); // the loop starts the idle timer later, once the connection is there
        Peer quiet = connect(server);
        Recorder.Closed closed = recorder.nextClose();
        SocketTimeoutException e = assertInstanceOf(SocketTimeoutException.class, closed.cause());
        assertClosedNoSoonerThan(closed, before, 200, "idleTimeout");
        assertTrue(e.getMessage().contains("idleTimeout=200 ms"), e.getMessage());
        assertReadsNoMore(quiet);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void anIdleTimeoutCountsFromTheConnectionsOpenHoweverLongTheLoopWaitedBefore(Transport transport, Opener opener)
            throws Exception {
        Side server = start(transport, opener, recorder, b -> b.idleTimeout(Duration.ofMillis(200)));
        Thread.sleep(400); // the loop waits in its poll with nothing timed, its clock unread
        long before = System.nanoTime(); // timed from its stale clock, the connection would be closed at once
        Peer quiet = connect(server);
        Recorder.Closed closed = recorder.nextClose();
        assertInstanceOf(SocketTimeoutException.class, closed.cause());
        assertClosedNoSoonerThan(closed, before, 200, "idleTimeout");
        assertReadsNoMore(quiet);
    }

    /**
     * Checks that {@code closed} came a whole {@code timeout} ms after {@code before}, a moment before the
     * loop started the timer that closed it: sound however late this thread or the loop runs, as the close
     * is stamped after the loop read its clock past the deadline.
     */
    private static void assertClosedNoSoonerThan(Recorder.Closed closed, long before, long timeoutMillis, String name) {
        long after = closed.nanos() - before;
        assertTrue(after >= TimeUnit.MILLISECONDS.toNanos(timeoutMillis), "closed " + TimeUnit.NANOSECONDS.toMicros(after)
                + " us after a moment before its timer started, " + name + "=" + timeoutMillis + " ms: "
                + closed.cause());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void resetsConnectionsPastTheLimit(Transport transport, Opener opener) throws Exception {
        Side server = start(transport, opener, recorder, b -> b.maxConnections(2));
        Peer one = connect(server);
        Peer two = connect(server);
        for (Peer p : List.of(one, two)) {
            p.send(new Frames().frame(1, 0, new byte[0]).toByteArray());
            p.expect(1, new byte[0]);
        }
        if (opener == Opener.PEER) {
            Peer three = connect(server);
            assertReadsNoMore(three);
        } else {
            ClientSide client = (ClientSide) server;
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> client.client.connect(client.address).get(20, TimeUnit.SECONDS));
            assertEquals("connect to " + client.address + " refused: maxConnections=2 connections are open or "
                    + "connecting", e.getCause().getMessage());
        }
        assertEquals(1, server.rejectedConnections());
        assertEquals(2, server.connectionCount());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void anAcceptThatFailsStopsWatchingItsListenerTwiceAsLongEachTimeThenAcceptsAgain(Transport transport)
            throws Exception {
        FailingAccepts failing = new FailingAccepts(transport());
        failing.failNext(3);
        SocketAddress address = switch (transport) {
            case TCP -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            case UNIX -> UnixDomainSocketAddress.of(dir.resolve("s.sock"));
        };
        FrameServer server = FrameServer.builder(recorder).transport(failing).bind(address).start();
        open.add(server);
        Peer peer = new Peer(SocketChannel.open(server.localAddresses().get(0)));
        open.add(peer);
        // In the backlog while three accepts fail, 100, 200 and 400 ms apart: no more tries than that.
        awaitTrue(() -> server.connectionCount() == 1, () -> "not accepted: " + failing.calls());
        List<FailingAccepts.Call> calls = failing.calls();
        assertEquals(List.of(FailingAccepts.Outcome.FAILED, FailingAccepts.Outcome.FAILED,
                FailingAccepts.Outcome.FAILED, FailingAccepts.Outcome.ACCEPTED),
                calls.subList(0, 4).stream().map(FailingAccepts.Call::outcome).toList(), calls.toString());
        for (int i = 1; i < 4; i++) {
            long pausedMillis = TimeUnit.NANOSECONDS.toMillis(calls.get(i).nanos() - calls.get(i - 1).nanos());
            long pause = 100L << (i - 1);
            assertTrue(pausedMillis >= pause, "accept " + i + " came " + pausedMillis + " ms after the one that failed "
                    + "before it, not after a pause of " + pause + " ms: " + calls);
        }
        assertEquals(3, server.acceptFailures());
        peer.send(new Frames().frame(7, 1, new byte[] {7}).toByteArray());
        peer.expect(7, new byte[] {7});
    }

    @Test
    void aServerClosedWhileItsListenerIsPausedLeavesTheGroupServing() throws Exception {
        FailingAccepts failing = new FailingAccepts(transport());
        LoopGroup group = LoopGroup.builder().transport(failing).threadName("paused-listener").start();
        open.add(group);
        SocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        FrameServer paused = FrameServer.builder(recorder).group(group).bind(loopback).start();
        failing.failNext(1);
        open.add(SocketChannel.open(paused.localAddresses().getFirst())); // waits in the backlog
        awaitTrue(() -> paused.acceptFailures() == 1, () -> "no accept failed: " + failing.calls());
        paused.close(); // within the 100 ms pause: the loop watches the closed listener again after it
        awaitTrue(() -> failing.listenerInterest().equals(List.of(0, 1)),
                () -> "the pause did not end: listener interest " + failing.listenerInterest());
        assertNull(group.failure());
        FrameServer next = FrameServer.builder(recorder).group(group).bind(loopback).start();
        open.add(next);
        Peer peer = new Peer(SocketChannel.open(next.localAddresses().getFirst()));
        open.add(peer);
        peer.send(new Frames().frame(3, 1, new byte[] {3}).toByteArray());
        peer.expect(3, new byte[] {3});
        assertEquals(1, paused.acceptFailures(), "a closed listener's accept is no failure");
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aHandlerClosesGracefullyAfterItsReplyOrAbortsWithoutIt(Transport transport, Opener opener) throws Exception {
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
        Side server = start(transport, opener, closing, b -> b);
        Peer graceful = connect(server);
        graceful.send(new Frames().frame(99, 2, new byte[] {4, 2}).frame(7, 0, new byte[0]).toByteArray());
        graceful.expect(99, new byte[] {4, 2});
        assertFalse(graceful.receive(), "a clean end after the reply; frame 7 was not read");

        Peer aborted = connect(server);
        aborted.send(new Frames().frame(98, 2, new byte[] {4, 2}).toByteArray());
        assertReadsNoMore(aborted);
        assertEquals(0, server.connectionCount());
    }

    /** {@return a handler that answers frame type 99 with itself, then closes gracefully} */
    private static Recorder replyThenClose() {
        return replyThenClose(new CountDownLatch(0));
    }

    /**
     * {@return a handler that answers frame type 99 with itself, waits (20 s at most, on the loop's thread)
     * for {@code sent}, then closes gracefully}
     */
    private static Recorder replyThenClose(CountDownLatch sent) {
        return new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                if (type == 99) {
                    connection.writeFrame(type, body);
                    try {
                        assertTrue(sent.await(20, TimeUnit.SECONDS), "the peer's bytes were not sent within 20 s");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    connection.close();
                }
            }
        };
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aGracefulCloseReadsWhatThePeerStillSendsRatherThanResetIt(Transport transport, Opener opener) throws Exception {
        // The handler closes once the peer's first 64 KiB are in the kernel: the loop has read at most a
        // chunk of them, and the rest are unread in the server's socket at the close.
        int chunk = 16 * 1024;
        CountDownLatch sent = new CountDownLatch(1);
        Side server = start(transport, opener, replyThenClose(sent), b -> b.chunkSize(chunk));
        Peer peer = connect(server);
        // Closed there and then, the socket would answer with a reset, which can cost the peer the reply it
        // has not read yet.
        Frames stream = new Frames().frame(99, 2, new byte[] {4, 2});
        for (int i = 0; i < 512; i++) {
            stream.frame(7, 1000, new byte[1000]);
        }
        byte[] bytes = stream.toByteArray();
        int first = 4 * chunk; // what any socket's buffers take, unread
        peer.send(Arrays.copyOf(bytes, first));
        sent.countDown();
        peer.send(Arrays.copyOfRange(bytes, first, bytes.length));
        peer.expect(99, new byte[] {4, 2});
        assertFalse(peer.receive(), "a clean end of stream after the reply, not a reset");
        assertEquals(0, server.connectionCount(), "the connection is closed for the server once its output is");
        peer.close();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aLingeringSocketClosesAtTheLingerTimeoutWhenThePeerGoesOnSending(Transport transport, Opener opener) throws Exception {
        Side server = start(transport, opener, replyThenClose(), b -> b.lingerTimeout(java.time.Duration.ofMillis(100)));
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
    @MethodSource("cases")
    void aLingeringSocketDropsWhatComesForItsTimeoutHoweverLongTheLoopWaitedBefore(Transport transport, Opener opener)
            throws Exception {
        Side server = start(transport, opener, replyThenClose(), b -> b.lingerTimeout(java.time.Duration.ofMillis(400)));
        Peer peer = connect(server);
        Thread.sleep(400); // the loop waits in its poll with nothing timed, its clock unread
        long before = System.nanoTime(); // the close, and its linger timer, come once frame 99 arrives
        peer.send(new Frames().frame(99, 2, new byte[] {4, 2}).toByteArray());
        peer.expect(99, new byte[] {4, 2});
        assertFalse(peer.receive(), "a clean end of stream after the reply");
        // For 400 ms from its close the server's socket reads and drops what comes, then closes: the peer's
        // writes succeed until then, and the first to fail does so after it, 400 ms at least after the moment
        // read before frame 99. Timed from the loop's stale clock, the socket would close at its next check.
        byte[] more = new Frames().frame(7, 100, new byte[100]).toByteArray();
        long deadline = before + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                peer.send(more);
            } catch (IOException e) {
                long failed = System.nanoTime() - before;
                assertTrue(failed >= TimeUnit.MILLISECONDS.toNanos(400), "a write failed "
                        + TimeUnit.NANOSECONDS.toMillis(failed) + " ms after a moment before the close, "
                        + "lingerTimeout=400 ms: " + e);
                return;
            }
            assertTrue(System.nanoTime() - deadline < 0, "the peer could still write 20 s after a close with a "
                    + "400 ms linger");
            Thread.sleep(5);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aHandlerThatThrowsClosesItsConnectionWithWhatItThrew(Transport transport, Opener opener) throws Exception {
        IllegalStateException thrown = new IllegalStateException("handler failed on purpose");
        Recorder failing = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) {
                throw thrown;
            }
        };
        Side server = start(transport, opener, failing, b -> b);
        Peer peer = connect(server);
        peer.send(new Frames().frame(1, 0, new byte[0]).toByteArray());
        assertEquals(thrown, failing.nextClose().cause());
        assertReadsNoMore(peer);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aHandlerThatThrowsAnErrorClosesOnlyItsConnectionWithItAndTheLoopGoesOn(Transport transport, Opener opener)
            throws Exception {
        OutOfMemoryError thrown = new OutOfMemoryError("thrown on purpose");
        Recorder failing = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                if (type == 9) {
                    throw thrown;
                }
                super.onFrame(connection, type, body);
            }
        };
        Side server = start(transport, opener, failing, b -> b);
        Peer good = connect(server);
        Peer bad = connect(server);
        good.send(new Frames().frame(1, 1, new byte[] {1}).toByteArray());
        good.expect(1, new byte[] {1});
        bad.send(new Frames().frame(9, 3, new byte[3]).toByteArray());
        Recorder.Closed closed = failing.nextClose();
        assertSame(thrown, closed.cause());
        assertReadsNoMore(bad);
        good.send(new Frames().frame(2, 2, new byte[] {2, 2}).toByteArray());
        good.expect(2, new byte[] {2, 2});
        assertEquals(1, server.connectionCount());
        assertNull(server.failure());
    }

    /** An {@code Error} a transport's endpoint throws, and from where. */
    enum EndpointError {
        /** From its read (or lend): a StackOverflowError, as a transport's too deep recursion would throw. */
        READ_STACK_OVERFLOW(FailingEndpoints.Call.READ),
        /** From its write (or hand-over of output): an OutOfMemoryError, as a transport's allocation would throw. */
        WRITE_OUT_OF_MEMORY(FailingEndpoints.Call.WRITE);

        final FailingEndpoints.Call call;

        EndpointError(FailingEndpoints.Call call) {
            this.call = call;
        }

        Error make() {
            return switch (this) {
                case READ_STACK_OVERFLOW -> new StackOverflowError("thrown by the endpoint's read on purpose");
                case WRITE_OUT_OF_MEMORY -> new OutOfMemoryError("thrown by the endpoint's write on purpose");
            };
        }
    }

    /** {@return every socket kind with every opener and every endpoint error} */
    static Stream<Arguments> endpointErrors() {
        return cases().flatMap(a -> Stream.of(EndpointError.values())
                .map(e -> Arguments.of(a.get()[0], a.get()[1], e)));
    }

    /**
     * An {@code Error} thrown by the transport's endpoint, not by a handler, where the loop reads or writes
     * one connection (the calls each transport's endpoints are read and written by: by address, lent, handed
     * chunks): that connection alone is reset, its handler told the Error itself, and the loop serves the
     * others as before.
     */
    @ParameterizedTest
    @MethodSource("endpointErrors")
    void anErrorThrownByAnEndpointClosesOnlyItsConnectionWithItAndTheLoopGoesOn(Transport transport, Opener opener,
            EndpointError endpointError) throws Exception {
        FailingEndpoints failing = new FailingEndpoints(transport());
        Side server = start(failing, transport, opener, recorder, b -> b);
        Peer good = connect(server);
        good.send(new Frames().frame(1, 1, new byte[] {1}).toByteArray());
        good.expect(1, new byte[] {1}); // its endpoint made: the next one is the bad peer's
        Connection served = recorder.opened.poll(20, TimeUnit.SECONDS);
        Error thrown = endpointError.make();
        failing.failNext(endpointError.call, thrown);
        Peer bad = connect(server);
        bad.send(new Frames().frame(9, 3, new byte[3]).toByteArray()); // read, then echoed: written
        Recorder.Closed closed = recorder.nextClose();
        assertSame(thrown, closed.cause(), "the handler is told the endpoint's Error");
        assertNotSame(served, closed.connection(), "the well-behaved connection closed");
        assertEquals(1, failing.thrown(), "the endpoint threw once: its connection was not read or written again");
        assertReadsNoMore(bad);
        good.send(new Frames().frame(2, 2, new byte[] {2, 2}).toByteArray());
        good.expect(2, new byte[] {2, 2});
        assertEquals(1, server.connectionCount());
        assertNull(server.failure());
        assertTrue(recorder.closed.isEmpty(), "closed too: " + recorder.closed);
    }

    /** How a connection whose endpoint throws an {@code Error} as it closes comes to close. */
    enum Closing {
        /** Reset by the loop's sweep of its timeouts: a partial frame past the frame timeout. */
        RESET_AT_THE_FRAME_TIMEOUT,
        /** Closed by its handler, gracefully: its output shut down, then its socket closed. */
        CLOSED_BY_ITS_HANDLER
    }

    /** {@return every socket kind with every opener and every way of closing} */
    static Stream<Arguments> closings() {
        return cases().flatMap(a -> Stream.of(Closing.values()).map(e -> Arguments.of(a.get()[0], a.get()[1], e)));
    }

    /**
     * An {@code Error} thrown by the transport's endpoint as the loop closes its connection, from the calls
     * that close it (its reset, from the loop's sweep of its timeouts; its shutdownOutput and close, at a
     * graceful close), each after it did its work: the connection is closed all the same and its handler
     * told why, once; the Error goes to the loop thread's uncaught-exception handler; the loop serves the
     * others as before.
     */
    @ParameterizedTest
    @MethodSource("closings")
    void anErrorThrownByAnEndpointAsItClosesIsReportedAndTheLoopGoesOn(Transport transport, Opener opener,
            Closing closing) throws Exception {
        FailingEndpoints failing = new FailingEndpoints(transport());
        Recorder closer = new Recorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                super.onFrame(connection, type, body);
                if (type == 9) {
                    connection.close();
                }
            }
        };
        BlockingQueue<Throwable> reported = new LinkedBlockingQueue<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> reported.add(e));
        try {
            Side server = start(failing, transport, opener, closer, b -> b.frameTimeout(Duration.ofMillis(50)));
            Peer good = connect(server);
            good.send(new Frames().frame(1, 1, new byte[] {1}).toByteArray());
            good.expect(1, new byte[] {1}); // its endpoint made: the next one is the bad peer's
            Connection served = closer.opened.poll(20, TimeUnit.SECONDS);
            OutOfMemoryError thrown = new OutOfMemoryError("thrown by the endpoint as it closed, on purpose");
            failing.failNext(FailingEndpoints.Call.CLOSE, thrown);
            Peer bad = connect(server);
            switch (closing) {
                case RESET_AT_THE_FRAME_TIMEOUT -> bad.send(new Frames().header(9, 10).toByteArray());
                case CLOSED_BY_ITS_HANDLER -> bad.send(new Frames().frame(9, 1, new byte[] {9}).toByteArray());
            }
            Recorder.Closed closed = closer.nextClose();
            assertNotSame(served, closed.connection(), "the well-behaved connection closed");
            switch (closing) {
                case RESET_AT_THE_FRAME_TIMEOUT -> assertInstanceOf(SocketTimeoutException.class, closed.cause());
                case CLOSED_BY_ITS_HANDLER -> {
                    assertNull(closed.cause(), "a graceful close, the handler's");
                    bad.expect(9, new byte[] {9}); // the reply before it
                }
            }
            assertReadsNoMore(bad);
            assertSame(thrown, reported.poll(20, TimeUnit.SECONDS), "the Error went to the uncaught-exception "
                    + "handler");
            assertTrue(failing.thrown() >= 1);
            good.send(new Frames().frame(2, 2, new byte[] {2, 2}).toByteArray());
            good.expect(2, new byte[] {2, 2});
            assertEquals(1, server.connectionCount());
            assertNull(server.failure());
            assertTrue(closer.closed.isEmpty(), "closed too: " + closer.closed);
            for (Throwable e : reported) {
                assertSame(thrown, e, "reported besides the endpoint's Error");
            }
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void peersAnnouncingTheLongestFramesHoldAboutTheBytesTheySentWhileAnHonestPeerIsServed(Transport transport,
            Opener opener) throws Exception {
        int peers = 100;
        Side server = start(transport, opener, recorder, b -> b); // the defaults: 16 MiB frames, 64 KiB chunks
        Peer honest = connect(server);
        List<Peer> hostile = new ArrayList<>();
        for (int i = 0; i < peers; i++) {
            hostile.add(connect(server));
        }
        // One header announcing the longest frame allowed, 16 bytes of its body, then nothing.
        byte[] attack = new Frames().header(7, FrameFormat.DEFAULT_MAX_FRAME_LENGTH).raw(new byte[16]).toByteArray();
        long directBefore = directMemoryUsed();
        for (Peer p : hostile) {
            p.send(attack);
        }
        long each = 256; // the smallest buffer a partial frame is kept in
        awaitTrue(() -> server.partialFrameBytes() == peers * each,
                () -> "partialFrameBytes=" + server.partialFrameBytes() + " where " + peers + " peers' 24 bytes each "
                        + "should be kept in " + each + " bytes");
        long grown = directMemoryUsed() - directBefore;
        // The loop's slabs, and what a transport allocates as it reads (a test's lending one does, per read,
        // left to the collector), against 1.6 GB had the announced lengths been trusted.
        assertTrue(grown <= 32L << 20,
                "direct memory grew by " + grown + " bytes for " + peers + " peers that sent 24 bytes each");
        honest.send(new Frames().frame(1, 100, new byte[100]).toByteArray());
        honest.expect(1, new byte[100]);
        for (Peer p : hostile) {
            p.close();
        }
        for (int i = 0; i < peers; i++) {
            assertInstanceOf(TruncatedFrameException.class, recorder.nextClose().cause());
        }
        assertEquals(0, server.partialFrameBytes());
        assertNull(server.failure());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void poolsGiveBackTheMemoryTheLoadTookOnceItGoesAndServeAgain(Transport transport, Opener opener)
            throws Exception {
        int peers = 40; // a partial frame each, kept in a chunk: three slabs of sixteen
        int chunk = 64 * 1024;
        Side server = start(transport, opener, recorder, b -> b.unusedMemoryTimeout(Duration.ofMillis(100)));
        List<Peer> load = new ArrayList<>();
        for (int i = 0; i < peers; i++) {
            load.add(connect(server));
        }
        // 20,000 bytes of a 100,000-byte frame: more than the largest small buffer holds, so a chunk each.
        byte[] part = new Frames().header(5, 100_000).raw(new byte[20_000]).toByteArray();
        for (Peer p : load) {
            p.send(part);
        }
        awaitTrue(() -> server.partialFrameBytes() == (long) peers * chunk,
                () -> "partialFrameBytes=" + server.partialFrameBytes() + " where " + peers + " peers should keep a chunk each");
        long slab = 16L * chunk;
        long busy = server.pooledBytes();
        assertTrue(busy >= 3 * slab, "pooledBytes=" + busy + " with " + peers + " chunks taken");
        for (Peer p : load) {
            p.close();
        }
        for (int i = 0; i < peers; i++) {
            assertInstanceOf(TruncatedFrameException.class, recorder.nextClose().cause());
        }
        // What each pool keeps: its last slab. The chunks', and those of the small buffers (256 B to 16 KiB).
        long kept = slab + 16L * (256 + 1024 + 4096 + 16384);
        awaitTrue(() -> server.pooledBytes() <= kept, () -> "pooledBytes=" + server.pooledBytes()
                + " after the load went, at most " + kept + " expected; " + busy + " while it lasted");
        // The slabs kept, and new ones, serve as before: frames that take many chunks at once.
        List<Peer> again = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            again.add(connect(server));
        }
        byte[] body = new byte[100_000];
        new Random(45).nextBytes(body);
        byte[] frame = new Frames().frame(6, body.length, body).toByteArray();
        for (Peer p : again) {
            p.send(frame);
        }
        for (Peer p : again) {
            p.expect(6, body);
        }
        assertNull(server.failure());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aPartialFrameThatWouldTakeTheLoopPastItsInputBudgetResetsItsConnectionAloneNamingTheBudget(
            Transport transport, Opener opener) throws Exception {
        int chunk = 16 * 1024;
        int budget = 4 * chunk;
        int length = 1 << 20;
        Side server = start(transport, opener, recorder,
                b -> b.chunkSize(chunk).inputBudget(budget).maxFrameLength(length));
        Peer honest = connect(server);
        Peer greedy = connect(server);
        // A frame's buffer doubles as it fills: 16, 32, 64 KiB, then 128 KiB would pass the budget.
        greedy.send(new Frames().header(3, length).raw(new byte[budget]).toByteArray());
        InputBudgetException e = assertInstanceOf(InputBudgetException.class, recorder.nextClose().cause());
        Matcher m = Pattern.compile("inputBudget=" + budget + " exceeded: the loop "
                + "keeps (\\d+) bytes of partial frames and records, this connection (\\d+); a frame of length=" + length
                + " at offset=0, (\\d+) bytes of it come, needs a buffer of (\\d+)").matcher(e.getMessage());
        assertTrue(m.matches(), e.getMessage());
        long loopKeeps = Long.parseLong(m.group(1));
        long connectionKeeps = Long.parseLong(m.group(2));
        long came = Long.parseLong(m.group(3));
        long needs = Long.parseLong(m.group(4));
        assertTrue(loopKeeps - connectionKeeps + needs > budget, e.getMessage());
        assertTrue(needs <= 2 * Math.max(came, chunk), e.getMessage()); // the bytes that came, at most doubled
        assertReadsNoMore(greedy);
        honest.send(new Frames().frame(1, 10, new byte[10]).toByteArray());
        honest.expect(1, new byte[10]);
        assertEquals(0, server.partialFrameBytes());
        assertNull(server.failure());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aPeerThatDripsAFrameIsResetAtTheFrameTimeoutThoughNeverIdleWhileAnHonestPeerIsServed(Transport transport,
            Opener opener) throws Exception {
        Side server = start(transport, opener, recorder,
                b -> b.frameTimeout(Duration.ofMillis(300)).idleTimeout(Duration.ofSeconds(30)));
        Peer honest = connect(server);
        Peer drip = connect(server);
        byte[] frame = new Frames().frame(4, 100, new byte[100]).toByteArray();
        long start = System.nanoTime();
        CompletableFuture<Void> dripping = CompletableFuture.runAsync(() -> {
            try {
                for (byte b : frame) { // 108 bytes, one every 20 ms: never idle, never whole within 300 ms
                    drip.send(new byte[] {b});
                    Thread.sleep(20);
                }
            } catch (IOException | InterruptedException e) {
                // reset by the server, as it should be
            }
        });
        SocketTimeoutException e = assertInstanceOf(SocketTimeoutException.class, recorder.nextClose().cause());
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Matcher m = Pattern.compile("a frame (?:header|of length=100) at offset=0 not whole (\\d+) ms after its "
                + "first byte, (\\d+) bytes of it come: frameTimeout=300 ms, .*").matcher(e.getMessage());
        assertTrue(m.matches(), e.getMessage());
        assertTrue(Long.parseLong(m.group(1)) >= 300 && millis >= 300, e.getMessage() + " after " + millis + " ms");
        assertTrue(Integer.parseInt(m.group(2)) < frame.length, e.getMessage());
        assertReadsNoMore(drip);
        dripping.get(20, TimeUnit.SECONDS);
        honest.send(new Frames().frame(1, 10, new byte[10]).toByteArray());
        honest.expect(1, new byte[10]);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aPeerStreamingFramesSplitAcrossReadsLongerThanTheFrameTimeoutIsServed(Transport transport, Opener opener)
            throws Exception {
        // A frame's time is this thread's own: from sending its first half, through waiting for the loop to hold
        // it, to sending the second. 2 s, so that no stall of this thread (a collection, a loaded machine's
        // scheduler) outlasts it; the frames are paced so that the stream outlasts it still.
        long timeoutMillis = 2_000;
        Side server = start(transport, opener, recorder, b -> b.frameTimeout(Duration.ofMillis(timeoutMillis)));
        Peer peer = connect(server);
        if (transport == Transport.TCP) {
            peer.channel.setOption(StandardSocketOptions.TCP_NODELAY, true); // a half not held for the first's ACK
        }
        int frames = 100;
        long start = System.nanoTime();
        // Each frame in two pieces, the second sent once the loop holds the first: a frame begun in one read
        // and made whole in the next at once. The frames 25 ms apart, outside any frame's time: 2.5 s of frames
        // at least, more than the timeout: a timeout that counted over the stream, not from each frame's first
        // byte, would reset it.
        for (int i = 0; i < frames; i++) {
            byte[] frame = new Frames().frame(i, 1_000, new byte[1_000]).toByteArray();
            peer.send(Arrays.copyOfRange(frame, 0, 500));
            int sent = i;
            awaitTrue(() -> server.partialFrameBytes() > 0, () -> "the first half of frame " + sent
                    + " not held: partialFrameBytes=" + server.partialFrameBytes() + " framesRead=" + server.framesRead());
            peer.send(Arrays.copyOfRange(frame, 500, frame.length));
            awaitTrue(() -> server.framesRead() == sent + 1 || !recorder.closed.isEmpty(),
                    () -> "frame " + sent + " not handed over: framesRead=" + server.framesRead());
            assertTrue(recorder.closed.isEmpty(), "closed at frame " + sent + ": " + recorder.closed);
            Thread.sleep(25); // pacing: at least 25 ms, however late the thread wakes
        }
        assertTrue(System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(timeoutMillis),
                "the stream took less than the timeout");
        for (int i = 0; i < frames; i++) {
            peer.expect(i, new byte[1_000]);
        }
        assertTrue(recorder.closed.isEmpty(), "closed: " + recorder.closed);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aLoopThatFailsClosesTheGroupsConnectionsWithItsFailureAndTheServerSaysSo(Transport transport,
            Opener opener) throws Exception {
        CountDownLatch served = new CountDownLatch(1);
        IllegalStateException thrown = new IllegalStateException("loop 1 failed on purpose");
        Side server = start(transport, opener, recorder, b -> b.loops(2).onLoopStart(i -> {
            if (i == 1) {
                try {
                    assertTrue(served.await(20, TimeUnit.SECONDS), "the first connection was not served in 20 s");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw thrown;
            }
        }));
        Peer peer = connect(server); // the first connection: on loop 0
        peer.send(new Frames().frame(1, 1, new byte[] {1}).toByteArray());
        peer.expect(1, new byte[] {1});
        assertNull(server.failure());
        served.countDown();
        Recorder.Closed closed = recorder.nextClose();
        IOException failure = assertInstanceOf(IOException.class, closed.cause());
        assertEquals("loop 1 stopped: " + thrown, failure.getMessage());
        assertSame(thrown, failure.getCause());
        assertSame(failure, server.failure());
        assertReadsNoMore(peer);
        if (opener == Opener.PEER) {
            // The server stops listening once its loop failed, not before it closes the connections: the
            // Selector's channel, closed from the failed loop, is released at its loop's next select. A
            // connect before then lands in the backlog of a socket about to close, and is closed with it.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                try (Peer late = server.connect()) {
                    assertTrue(System.nanoTime() < deadline, "the failed server still listens after 20 s: " + late);
                } catch (IOException refused) {
                    break;
                }
                Thread.sleep(10);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aConnectionWrittenToByItsOwnAndAnotherHandlerInOneTurnGetsEverythingInOrder(Transport transport,
            Opener opener) throws Exception {
        // Every frame is echoed, and also copied to the other peer: each peer's output is written to by
        // its own handler and by the other's, often in the same turn.
        List<Connection> both = new ArrayList<>();
        CountDownLatch bothOpen = new CountDownLatch(2);
        ConnectionHandler crossing = new Recorder() {
            @Override
            public void onOpen(Connection connection) {
                both.add(connection);
                super.onOpen(connection);
                bothOpen.countDown();
            }

            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
                connection.writeFrame(type, body);
                for (Connection other : both) {
                    if (other != connection) {
                        other.writeFrame(type + 1_000_000, body);
                    }
                }
            }
        };
        Side server = start(transport, opener, crossing, b -> b);
        Peer a = connect(server);
        Peer b = connect(server);
        // Both open before either sends: else every frame of one can be handled before the other is
        // open, and the other waits for copies that were never made.
        assertTrue(bothOpen.await(10, TimeUnit.SECONDS), "both connections open");
        int frames = 2_000;
        Frames fromA = new Frames();
        Frames fromB = new Frames();
        for (int i = 0; i < frames; i++) {
            fromA.frame(i, 4, new byte[] {1, (byte) i, 0, 0});
            fromB.frame(i, 4, new byte[] {2, (byte) i, 0, 0});
        }
        CompletableFuture<Void> sendA = CompletableFuture.runAsync(() -> send(a, fromA.toByteArray()));
        CompletableFuture<Void> sendB = CompletableFuture.runAsync(() -> send(b, fromB.toByteArray()));
        CompletableFuture<Void> readA = CompletableFuture.runAsync(() -> expectCrossed(a, 1, 2, frames));
        expectCrossed(b, 2, 1, frames);
        readA.get(20, TimeUnit.SECONDS);
        sendA.get();
        sendB.get();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aBlockRelayedWholeToAnotherConnectionOfTheLoopArrivesAsSent(Transport transport, Opener opener)
            throws Exception {
        // Each block is relayed whole to the other connection (relayBlock: not checked again), after the
        // same block cut short is refused by writeFrames, which checks it, and by relayBlock, which
        // relays only the block as handed; each peer gets the other's frames as sent, in order.
        List<Connection> both = new ArrayList<>();
        CountDownLatch bothOpen = new CountDownLatch(2);
        List<String> refusedOutsideABlock = new ArrayList<>();
        BlockHandler relay = new BlockRecorder() {
            @Override
            public void onOpen(Connection connection) {
                both.add(connection);
                super.onOpen(connection);
                refusedOutsideABlock.add(assertThrows(IllegalStateException.class, () -> connection.relayBlock(connection))
                        .getMessage());
                bothOpen.countDown();
            }

            @Override
            public void onFrames(Connection connection, ByteBuffer frames) {
                int at = frames.position();
                int end = frames.limit();
                for (Connection other : both) {
                    if (other != connection) {
                        frames.limit(end - 1); // the last frame cut short
                        assertThrows(IllegalArgumentException.class, () -> other.writeFrames(frames));
                        assertThrows(IllegalStateException.class, () -> connection.relayBlock(other));
                        frames.limit(end);
                        assertTrue(connection.relayBlock(other), "queued");
                        assertEquals(at, frames.position(), "the block's position not moved");
                    }
                }
            }
        };
        Side server = start(transport, opener, relay, b -> b);
        Peer a = connect(server);
        Peer b = connect(server);
        assertTrue(bothOpen.await(10, TimeUnit.SECONDS), "both connections open");
        long seed = SEED.value();
        Random random = new Random(seed);
        int frames = 1_000;
        List<byte[]> bodies = new ArrayList<>();
        Frames fromA = new Frames();
        Frames fromB = new Frames();
        for (int i = 0; i < frames; i++) {
            byte[] body = body(random, random.nextInt(8) == 0 ? random.nextInt(20_000) : random.nextInt(64));
            bodies.add(body);
            fromA.frame(i, body.length, body);
            fromB.frame(1_000_000 + i, body.length, body);
        }
        // in pieces, so that blocks end anywhere: each block relayed is the whole frames one read brought
        CompletableFuture<Void> sendA = writeInPieces(a, fromA.toByteArray(), seed, 64, 30_000);
        CompletableFuture<Void> sendB = writeInPieces(b, fromB.toByteArray(), seed + 1, 64, 30_000);
        CompletableFuture<Void> atA = CompletableFuture.runAsync(() -> expectAll(a, 1_000_000, bodies));
        expectAll(b, 0, bodies);
        atA.get(20, TimeUnit.SECONDS);
        sendA.get();
        sendB.get();
        assertEquals(2, refusedOutsideABlock.size());
        assertTrue(refusedOutsideABlock.get(0).contains("not being handed a block"), refusedOutsideABlock.get(0));
    }

    /** Reads frames of types {@code firstType} up with {@code bodies}, in order, from {@code peer}. */
    private static void expectAll(Peer peer, int firstType, List<byte[]> bodies) {
        try {
            for (int i = 0; i < bodies.size(); i++) {
                peer.expect(firstType + i, bodies.get(i));
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    private static void send(Peer peer, byte[] bytes) {
        try {
            peer.send(bytes);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * Reads {@code 2 * frames} frames from {@code peer}: its own echoes (first byte {@code own}, types 0 up)
     * and the other's copies (first byte {@code other}, types 1,000,000 up), each in its order.
     */
    private static void expectCrossed(Peer peer, int own, int other, int frames) {
        try {
            int echoes = 0;
            int copies = 0;
            while (echoes + copies < 2 * frames) {
                assertTrue(peer.receive(), "end of stream after " + echoes + " echoes and " + copies + " copies");
                if (peer.type < 1_000_000) {
                    assertEquals(echoes, peer.type, "echoes in order");
                    assertArrayEquals(new byte[] {(byte) own, (byte) echoes, 0, 0}, peer.body);
                    echoes++;
                } else {
                    assertEquals(1_000_000 + copies, peer.type, "copies in order");
                    assertArrayEquals(new byte[] {(byte) other, (byte) copies, 0, 0}, peer.body);
                    copies++;
                }
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void otherThreadsWriteThroughExecuteOnly(Transport transport, Opener opener) throws Exception {
        Side server = start(transport, opener, recorder, b -> b.threadName("contract-loop"));
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
    @MethodSource("cases")
    void aClaimedFrameIsFilledInPlace(Transport transport, Opener opener) throws Exception {
        ConnectionHandler claiming = (connection, type, body) -> {
            ByteBuffer reply = connection.claim(type + 1, 4);
            reply.putInt(0, body.remaining());
            connection.commit();
        };
        Side server = start(transport, opener, claiming, b -> b);
        Peer peer = connect(server);
        peer.send(new Frames().frame(1, 70_000, new byte[70_000]).frame(5, 3, new byte[3]).toByteArray());
        peer.expect(2, ByteBuffer.allocate(4).putInt(70_000).array());
        peer.expect(6, ByteBuffer.allocate(4).putInt(3).array());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void spreadsConnectionsOverTheLoopsInTurn(Transport transport, Opener opener) throws Exception {
        BlockingQueue<String> threads = new LinkedBlockingQueue<>();
        Recorder naming = new Recorder() {
            @Override
            public void onOpen(Connection connection) {
                threads.add(connection.id() + "@" + Thread.currentThread().getName());
            }
        };
        Side server = start(transport, opener, naming, b -> b.loops(2).threadName("spread"));
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
    @MethodSource("cases")
    void idleConnectionsHoldNoBuffer(Transport transport, Opener opener) throws Exception {
        int chunk = 4096;
        Side server = start(transport, opener, recorder, b -> b.chunkSize(chunk));
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
        assertEquals(0, server.partialFrameBytes());
        // Had each kept its input or output chunk, 200 connections would hold at least 200 chunks: 13 slabs of
        // 16. A read that split a frame may have made the small buffers' first slabs, a few KiB.
        long pooled = server.pooledBytes();
        assertTrue(pooled < 2 * 16 * chunk, "the pools hold " + pooled + " bytes for 200 idle connections, "
                + pooledForOne + " after the first round trip");
    }

    @ParameterizedTest
    @MethodSource("cases")
    void closingTheServerClosesEveryConnectionOnce(Transport transport, Opener opener) throws Exception {
        Side server = start(transport, opener, recorder, b -> b.loops(2));
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
        if (server instanceof ServerSide(FrameServer closed)) {
            assertThrows(IOException.class, () -> SocketChannel.open(closed.localAddresses().get(0)));
        } else {
            ClientSide client = (ClientSide) server;
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> client.client.connect(client.address));
            assertEquals("the client is closed: address=" + client.address, e.getMessage());
        }
    }

    /**
     * Once per transport, over a Unix socket to the loop's client; the block's check below takes the other
     * socket and opener, so that between them each kind and each opener is measured. Once, because a frame's
     * path through the loop (read, handed over, echoed, written) is the same for either socket and opener:
     * every connection is one {@link Connection}, made by the loop in one place, whose endpoint reads and
     * writes a TCP and a Unix socket by the same calls; the opener only decides how the endpoint came to be.
     * A check of each of the four would measure that one path four times, each with a warm-up and windows of
     * its own.
     */
    @Test
    void theLoopAllocatesNothingPerEchoedFrameOnceWarm() throws Exception {
        assertTheLoopAllocatesNothingPerEchoOnceWarm("echoes by the loop thread", Transport.UNIX, Opener.LOOP, recorder,
                new Frames().frame(7, 100, new byte[100]), 1);
    }

    /**
     * Round trips of {@code frames} ({@code count} of them) to a server of {@code echo}: the claim is the
     * loop's, so its thread is the one measured. The peer is the test's own blocking client, which copies
     * each body into a new array. After each round trip the loop has written the echo; it then waits in
     * its poll.
     */
    private void assertTheLoopAllocatesNothingPerEchoOnceWarm(String what, Transport transport, Opener opener,
            ConnectionHandler echo, Frames frames, int count) throws Exception {
        Optional<String> why = whyTheLoopMayAllocate();
        assumeTrue(why.isEmpty(), () -> why.orElseThrow());
        AtomicReference<Thread> loop = new AtomicReference<>();
        Side server = start(transport, opener, echo, b -> b.onLoopStart(i -> loop.set(Thread.currentThread())));
        Peer peer = connect(server);
        byte[] bytes = frames.toByteArray();
        peer.send(bytes);
        receive(peer, count, "the first round trip");
        SteadyState.assertAllocatesNothingPerOperation(what, List.of(loop.get()), 40_000, i -> {
            peer.send(bytes);
            receive(peer, count, "round trip " + i);
        });
    }

    private static void receive(Peer peer, int count, String when) throws IOException {
        for (int k = 0; k < count; k++) {
            assertTrue(peer.receive(), "end of stream at " + when);
        }
    }

    /** Echoes each block whole, in one write of the block as handed; records the closes as {@link Recorder} does. */
    public static class BlockRecorder extends Recorder implements BlockHandler {
        @Override
        public void onFrames(Connection connection, ByteBuffer frames) throws IOException {
            connection.writeFrames(frames);
        }
    }

    /** How the block handler writes a block back: every way writes each frame once, in order. */
    private enum BlockReply { WHOLE, TWO_RUNS, COPIED, EACH_FRAME_FROM_THE_VIEW, OTHER_FIRST }

    @ParameterizedTest
    @MethodSource("cases")
    void aBlockHandlerGetsWholeFramesInOrderAndWhatItWritesBackKeepsItsOrderWhereverReadsSplit(Transport transport,
            Opener opener) throws Exception {
        long seed = SEED.value();
        Random random = new Random(seed);
        int frames = 400;
        Frames stream = new Frames();
        for (int i = 0; i < frames; i++) {
            int length = switch (random.nextInt(5)) {
                case 0 -> random.nextInt(2);
                case 1, 2 -> random.nextInt(200);
                case 3 -> random.nextInt(3_000);
                default -> random.nextInt(40_000); // past the 8 KiB chunk: read into a buffer of its own
            };
            stream.frame(i, length, body(random, length));
        }
        Random replies = new Random(seed + 2); // the loop thread's alone
        List<String> problems = new ArrayList<>();
        List<byte[]> written = new ArrayList<>(); // what the handler wrote, frame by frame, in order
        AtomicLong blocks = new AtomicLong();
        int[] next = {0};
        Recorder blockwise = new BlockRecorder() {
            @Override
            public void onFrame(Connection connection, int type, ByteBuffer body) {
                problems.add("onFrame called for type " + type + " on a handler that takes blocks");
            }

            @Override
            public void onFrames(Connection connection, ByteBuffer block) throws IOException {
                blocks.incrementAndGet();
                if (!block.isReadOnly() || !block.hasRemaining()) {
                    problems.add("block " + block + " readOnly=" + block.isReadOnly());
                }
                int from = block.position();
                int end = block.limit();
                List<Integer> starts = new ArrayList<>();
                for (int at = from; at < end; ) {
                    starts.add(at);
                    if (block.getInt(at) != next[0]++) {
                        problems.add("frame type " + block.getInt(at) + " where " + (next[0] - 1) + " was due");
                    }
                    at += FrameFormat.HEADER_LENGTH + FrameFormat.length(block, at);
                    if (at > end) {
                        problems.add("a frame at " + starts.getLast() + " runs to " + at + " past the block's end " + end);
                    }
                }
                switch (BlockReply.values()[replies.nextInt(BlockReply.values().length)]) {
                    case WHOLE -> connection.writeFrames(block);
                    case TWO_RUNS -> {
                        int mid = starts.get(replies.nextInt(starts.size()));
                        block.limit(mid);
                        connection.writeFrames(block);
                        block.limit(end).position(mid);
                        connection.writeFrames(block);
                    }
                    case COPIED -> {
                        ByteBuffer copy = ByteBuffer.allocate(end - from);
                        copy.put(0, block, from, end - from);
                        connection.writeFrames(copy);
                    }
                    case EACH_FRAME_FROM_THE_VIEW -> {
                        for (int at : starts) { // the block's own view pointed at each body: copied, as any body
                            block.limit(end);
                            long header = block.getLong(at);
                            block.limit(at + FrameFormat.HEADER_LENGTH + FrameFormat.length(header))
                                    .position(at + FrameFormat.HEADER_LENGTH);
                            connection.writeFrame(FrameFormat.type(header), block);
                        }
                    }
                    case OTHER_FIRST -> {
                        byte[] other = {(byte) starts.size(), 7};
                        connection.writeFrame(1_000_000 + next[0], ByteBuffer.wrap(other));
                        written.add(new Frames().frame(1_000_000 + next[0], 2, other).toByteArray());
                        connection.writeFrames(block);
                    }
                }
                for (int at : starts) {
                    byte[] frame = new byte[FrameFormat.HEADER_LENGTH + FrameFormat.length(block, at)];
                    block.get(at, frame);
                    written.add(frame);
                }
            }
        };
        Side server = start(transport, opener, blockwise, b -> b.chunkSize(8 * 1024));
        Peer peer = connect(server);
        CompletableFuture<Void> writer = writeInPieces(peer, stream.toByteArray(), seed + 1, 300, 30_000);
        List<byte[]> received = new ArrayList<>();
        int type = -1;
        while (type != frames - 1) {
            if (!peer.receive()) {
                fail("end of stream after " + received.size() + " frames: " + blockwise.closed.peek() + ", seed=" + SEED);
            }
            type = peer.type;
            received.add(new Frames().frame(type, peer.body.length, peer.body).toByteArray());
        }
        writer.get();
        server.close(); // the loop is done with the lists
        assertEquals(List.of(), problems, "seed=" + SEED);
        assertEquals(frames, next[0]);
        assertEquals(written.size(), received.size(), "frames written and received, seed=" + SEED);
        for (int i = 0; i < written.size(); i++) {
            assertArrayEquals(written.get(i), received.get(i), "frame " + i + " of the replies, seed=" + SEED);
        }
        assertTrue(blocks.get() < frames, blocks + " blocks for " + frames + " frames: none held two, seed=" + SEED);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aBlockHandlerGetsFramesWhoseBytesArriveOneAtATime(Transport transport, Opener opener) throws Exception {
        BlockHandler echo = (connection, frames) -> connection.writeFrames(frames);
        echoesFramesWhoseBytesArriveOneAtATime(transport, opener, echo);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aBlockRelayedToItsOwnConnectionIsEchoed(Transport transport, Opener opener) throws Exception {
        BlockHandler echo = (connection, frames) -> connection.relayBlock(connection);
        echoesFramesWhoseBytesArriveOneAtATime(transport, opener, echo);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aBlockHandlerHasTheFramesBeforeABadLengthThenTheConnectionIsRefusedNamingItsOffset(Transport transport,
            Opener opener) throws Exception {
        BlockRecorder blocks = new BlockRecorder();
        Side server = start(transport, opener, blocks, b -> b.maxFrameLength(1_000));
        Peer negative = connect(server);
        negative.send(new Frames().frame(5, 10, new byte[10]).frame(6, 0, new byte[0]).header(7, -1).raw(new byte[20])
                .toByteArray());
        negative.expect(5, new byte[10]);
        negative.expect(6, new byte[0]);
        CorruptFrameException corrupt = assertInstanceOf(CorruptFrameException.class, blocks.nextClose().cause());
        assertEquals("corrupt frame: negative length: length=-1 offset=26", corrupt.getMessage());
        assertReadsNoMore(negative);

        Peer tooLong = connect(server);
        tooLong.send(new Frames().frame(1, 1_000, new byte[1_000]).header(2, 1_001).toByteArray());
        tooLong.expect(1, new byte[1_000]);
        FrameTooLongException e = assertInstanceOf(FrameTooLongException.class, blocks.nextClose().cause());
        assertEquals("frame too long: length=1001 maxFrameLength=1000 offset=1008", e.getMessage());
        assertReadsNoMore(tooLong);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aBlockHandlerThatClosesIsReadNoMoreAndOneThatThrowsClosesWithWhatItThrew(Transport transport, Opener opener)
            throws Exception {
        IllegalStateException thrown = new IllegalStateException("block handler failed on purpose");
        AtomicLong handed = new AtomicLong();
        Recorder closing = new BlockRecorder() {
            @Override
            public void onFrames(Connection connection, ByteBuffer frames) {
                handed.incrementAndGet();
                if (frames.getInt(frames.position()) == 1) {
                    throw thrown;
                }
                connection.writeFrames(frames);
                connection.close();
                assertFalse(connection.writeFrames(frames), "a closing connection took frames");
            }
        };
        Side server = start(transport, opener, closing, b -> b);
        Peer peer = connect(server);
        peer.send(new Frames().frame(0, 3, new byte[] {1, 2, 3}).toByteArray());
        peer.expect(0, new byte[] {1, 2, 3});
        peer.send(new Frames().frame(0, 1, new byte[] {4}).toByteArray()); // after the close: not read
        assertFalse(peer.receive(), "the connection ends after the block's reply");
        assertNull(closing.nextClose().cause());
        assertEquals(1, handed.get());

        Peer failing = connect(server);
        failing.send(new Frames().frame(1, 0, new byte[0]).toByteArray());
        assertEquals(thrown, closing.nextClose().cause());
        assertReadsNoMore(failing);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void writeFramesRefusesBytesThatAreNotWholeFramesNamingWhereAndQueuesNothingOfThem(Transport transport,
            Opener opener) throws Exception {
        List<String> refused = new ArrayList<>();
        Recorder checking = new BlockRecorder() {
            @Override
            public void onFrames(Connection connection, ByteBuffer frames) {
                for (byte[] bad : List.of(new Frames().frame(1, 1, new byte[] {1}).raw(new byte[3]).toByteArray(),
                        new Frames().frame(1, 0, new byte[0]).header(2, -5).toByteArray(),
                        new Frames().header(3, 101).raw(new byte[101]).toByteArray(),
                        new Frames().frame(1, 0, new byte[0]).header(4, 10).raw(new byte[9]).toByteArray())) {
                    ByteBuffer b = ByteBuffer.allocate(bad.length + 2).position(2);
                    b.put(bad).position(2);
                    refused.add(assertThrows(IllegalArgumentException.class, () -> connection.writeFrames(b)).getMessage());
                }
                connection.writeFrames(frames);
            }
        };
        Side server = start(transport, opener, checking, b -> b.maxFrameLength(100));
        Peer peer = connect(server);
        peer.send(new Frames().frame(9, 2, new byte[] {9, 9}).toByteArray());
        peer.expect(9, new byte[] {9, 9}); // the refused writes left nothing before it
        server.close();
        assertEquals(List.of(
                "not whole frames: a header of 8 bytes at index 11 has 3 before the limit=14 (position=2)",
                "not whole frames: length=-5 at index 10 outside 0..maxFrameLength=100 (position=2 limit=18)",
                "not whole frames: length=101 at index 2 outside 0..maxFrameLength=100 (position=2 limit=111)",
                "not whole frames: the body of length=10 at index 18 runs past the limit=27 (position=2)"), refused);
    }

    /**
     * Over TCP to a server only: the block's path through the loop is the same for either socket and opener,
     * as a frame's is (see {@link #theLoopAllocatesNothingPerEchoedFrameOnceWarm()}, which takes the other two).
     */
    @Test
    void theLoopAllocatesNothingPerEchoedBlockOnceWarm() throws Exception {
        assertTheLoopAllocatesNothingPerEchoOnceWarm("echoes blocks on the loop thread", Transport.TCP, Opener.PEER,
                new BlockRecorder(), new Frames().frame(7, 100, new byte[100]).frame(8, 50, new byte[50]), 2);
    }

    /** {@return a client on a group of its own, of this transport, closed after the test} */
    private FrameClient client(ConnectionHandler handler, UnaryOperator<FrameClient.Builder> settings) throws IOException {
        LoopGroup group = LoopGroup.builder().transport(transport()).threadName("contract-client").start();
        open.add(group);
        FrameClient client = settings.apply(FrameClient.builder(handler).group(group)).build();
        open.add(client);
        return client;
    }

    /** {@return an address of {@code transport} that nothing listens on, until the test's end} */
    private SocketAddress nobodyListensAt(Transport transport) throws IOException {
        return switch (transport) {
            case TCP -> {
                RefusingPort refusing = new RefusingPort(); // bound, not listening: held until the test ends
                open.add(refusing);
                yield refusing.address();
            }
            case UNIX -> UnixDomainSocketAddress.of(dir.resolve("nobody.sock"));
        };
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aRefusedConnectNeverOpensAndClosesNamingTheAddress(Transport transport) throws Exception {
        FrameClient client = client(recorder, b -> b);
        SocketAddress nobody = nobodyListensAt(transport);
        CompletableFuture<Connection> opening = client.connect(nobody);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> opening.get(20, TimeUnit.SECONDS));
        ConnectException e = assertInstanceOf(ConnectException.class, failed.getCause());
        assertTrue(e.getMessage().startsWith("connect to " + nobody + " failed: "), e.getMessage());
        assertNotNull(e.getCause(), "the socket's own failure");
        Recorder.Closed closed = recorder.nextClose();
        assertEquals(e, closed.cause());
        assertTrue(recorder.opened.isEmpty(), "a failed connect never opens");
        assertEquals(nobody, closed.connection().remoteAddress());
        assertEquals(0, client.connectionCount());
    }

    @org.junit.jupiter.api.Test
    void aConnectThatGetsNoAnswerIsGivenUpAtTheConnectTimeout() throws Exception {
        // A listener that never accepts, with its queue full: the kernel drops the next connect's SYN.
        try (ServerSocketChannel full = ServerSocketChannel.open()) {
            full.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            SocketAddress address = full.getLocalAddress();
            List<SocketChannel> queued = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    SocketChannel c = SocketChannel.open();
                    queued.add(c);
                    c.configureBlocking(false);
                    c.connect(address);
                }
                FrameClient client = client(recorder, b -> b.connectTimeout(Duration.ofMillis(300)));
                long start = System.nanoTime();
                CompletableFuture<Connection> opening = client.connect(address);
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> opening.get(20, TimeUnit.SECONDS));
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                ConnectTimeoutException e = assertInstanceOf(ConnectTimeoutException.class, failed.getCause());
                assertEquals("connect to " + address + " timed out: connectTimeout=300 ms", e.getMessage());
                assertTrue(millis >= 250, "given up after " + millis + " ms");
                assertEquals(e, recorder.nextClose().cause());
                assertEquals(0, client.connectionCount());
                // The client goes on: a connect that is answered opens.
                try (ServerSocketChannel open = ServerSocketChannel.open()) {
                    open.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                    CompletableFuture<Connection> answered = client.connect(open.getLocalAddress());
                    try (SocketChannel peer = open.accept()) {
                        assertEquals(peer.getLocalAddress(), answered.get(20, TimeUnit.SECONDS).remoteAddress());
                    }
                }
            } finally {
                for (SocketChannel c : queued) {
                    c.close();
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closingAClientAbandonsItsConnectsUnderWay(Transport transport) throws Exception {
        FrameClient client = client(recorder, b -> b);
        // A Unix listener with its queue full refuses at once; a TCP one drops the SYN and leaves it connecting.
        try (ServerSocketChannel full = switch (transport) {
            case TCP -> ServerSocketChannel.open();
            case UNIX -> ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        }) {
            full.bind(transport == Transport.TCP ? new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)
                    : UnixDomainSocketAddress.of(dir.resolve("full.sock")), 1);
            SocketAddress address = full.getLocalAddress();
            List<CompletableFuture<Connection>> opening = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                opening.add(client.connect(address));
            }
            client.close();
            for (CompletableFuture<Connection> f : opening) {
                assertTrue(f.isDone(), "close() returned with a connect under way");
                if (f.isCompletedExceptionally()) {
                    ExecutionException e = assertThrows(ExecutionException.class, f::get);
                    assertInstanceOf(ConnectException.class, e.getCause());
                    assertTrue(e.getCause().getMessage().startsWith("connect to " + address + " "),
                            e.getCause().getMessage());
                }
            }
            assertEquals(6, recorder.closed.size(), "each connect, opened or not, ends in one onClose");
            assertEquals(0, client.connectionCount());
            if (transport == Transport.UNIX) {
                Files.deleteIfExists(dir.resolve("full.sock"));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aGatewayAcceptsAndConnectsOnwardOnOneLoopThread(Transport transport) throws Exception {
        // upstream: a plain echo server; the gateway relays each frame to it and each answer back,
        // both connections of a session on the gateway loop's thread.
        try (LoopGroup group = LoopGroup.builder().transport(transport()).loops(2).threadName("gateway").start()) {
            SocketAddress upstreamAddress = switch (transport) {
                case TCP -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
                case UNIX -> UnixDomainSocketAddress.of(dir.resolve("up.sock"));
            };
            FrameServer upstream = FrameServer.builder(recorder).group(group).bind(upstreamAddress).start();
            BlockingQueue<String> threads = new LinkedBlockingQueue<>();
            ConnectionHandler back = new ConnectionHandler() {
                @Override
                public void onOpen(Connection connection) {
                    threads.add("upstream " + Thread.currentThread().getName());
                }

                @Override
                public void onFrame(Connection connection, int type, ByteBuffer body) {
                    ((Connection) connection.attachment()).writeFrame(type, body);
                }
            };
            FrameClient onward = FrameClient.builder(back).group(group).build();
            ConnectionHandler gateway = new ConnectionHandler() {
                @Override
                public void onOpen(Connection downstream) {
                    threads.add("downstream " + Thread.currentThread().getName());
                    onward.connect(upstream.localAddresses().get(0)).thenAccept(up -> {
                        up.attach(downstream);
                        downstream.attach(up);
                    });
                }

                @Override
                public void onFrame(Connection downstream, int type, ByteBuffer body) {
                    Connection up = (Connection) downstream.attachment();
                    if (up != null) {
                        up.writeFrame(type, body);
                    }
                }
            };
            SocketAddress gatewayAddress = switch (transport) {
                case TCP -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
                case UNIX -> UnixDomainSocketAddress.of(dir.resolve("gw.sock"));
            };
            FrameServer front = FrameServer.builder(gateway).group(group).bind(gatewayAddress).start();
            List<String> sessionThreads = new ArrayList<>();
            for (int session = 0; session < 2; session++) {
                try (Peer peer = new Peer(SocketChannel.open(front.localAddresses().get(0)))) {
                    String down = threads.poll(20, TimeUnit.SECONDS);
                    String up = threads.poll(20, TimeUnit.SECONDS);
                    assertNotNull(up, "the onward connection did not open");
                    assertEquals(down.substring("downstream ".length()), up.substring("upstream ".length()),
                            "both ends of session " + session + " on one thread");
                    sessionThreads.add(up.substring("upstream ".length()));
                    // The onward connection is attached on the loop thread before it reads the peer again.
                    for (int i = 0; i < 100; i++) {
                        peer.send(new Frames().frame(i, 3, new byte[] {1, 2, (byte) i}).toByteArray());
                        peer.expect(i, new byte[] {1, 2, (byte) i});
                    }
                }
            }
            assertEquals(List.of("gateway-0", "gateway-1"), sessionThreads, "the front server's sessions in turn");
            front.close();
            assertEquals(0, front.connectionCount());
            // The group and its other members go on after one server closes.
            try (Peer peer = new Peer(SocketChannel.open(upstream.localAddresses().get(0)))) {
                peer.send(new Frames().frame(5, 1, new byte[] {5}).toByteArray());
                peer.expect(5, new byte[] {5});
            }
        }
    }

    /** {@return the bytes of direct buffers the JVM holds} */
    private static long directMemoryUsed() {
        for (BufferPoolMXBean pool
                : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new AssertionError("no direct buffer pool among the JVM's");
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
