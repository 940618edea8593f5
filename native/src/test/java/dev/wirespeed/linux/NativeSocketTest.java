package dev.wirespeed.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.SteadyState;
import dev.wirespeed.testkit.SequenceStream;
import dev.wirespeed.testkit.SequenceVerifier;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The native socket against the JDK's sockets, both directions, TCP and Unix, and every errno it maps. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native path is Linux-only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeSocketTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();
    private static final int FRAMES = 20_000;

    @TempDir
    Path dir;

    private ServerSocketChannel jdkServer(String transport) throws IOException {
        if (transport.equals("unix")) {
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(dir.resolve("s.sock")));
            return server;
        }
        return ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    }

    /** Writes {@link #FRAMES} frames of the sequence stream, bodies of seeded random sizes, then closes. */
    private static void writeSequence(ByteChannel channel, long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] pattern = SequenceStream.pattern(2000);
        try (FrameWriter writer = FrameWriter.builder(channel).bufferCapacity(4096).maxFrameLength(2000).build()) {
            for (long frame = 0; frame < FRAMES; frame++) {
                int length = random.nextInt(2000);
                writer.writeFrame(SequenceStream.type(frame), pattern, SequenceStream.patternOffset(frame), length);
                if (random.nextInt(8) == 0) {
                    writer.flush();
                }
            }
        }
    }

    /** Reads frames to the end of stream, verifying each against the sequence stream; returns the count. */
    private static long readSequence(ByteChannel channel) throws IOException {
        SequenceVerifier verifier = new SequenceVerifier();
        FrameReader reader = FrameReader.builder(channel).bufferCapacity(1000).build();
        FrameHandler verify = verifier::verify;
        long frames = reader.readFrames(verify);
        assertEquals(frames, verifier.framesVerified());
        return frames;
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "unix"})
    void aNativeClientReadsWhatAJdkServerWrites(String transport) throws Exception {
        try (ServerSocketChannel server = jdkServer(transport)) {
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try (SocketChannel connection = server.accept()) {
                    writeSequence(connection, SEED.value());
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (NativeSocket socket = NativeSocket.connect(server.getLocalAddress())) {
                assertEquals(FRAMES, readSequence(socket));
                assertEquals(-1, socket.read(ByteBuffer.allocateDirect(8)), "end of stream stays -1");
            }
            writing.get(30, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "unix"})
    void aJdkClientReadsWhatANativeServerWrites(String transport) throws Exception {
        SocketAddress address = transport.equals("unix") ? UnixDomainSocketAddress.of(dir.resolve("n.sock"))
                : new InetSocketAddress("127.0.0.1", 0);
        try (NativeServerSocket server = NativeServerSocket.bind(address, 8)) {
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try (NativeSocket connection = server.accept()) {
                    writeSequence(connection, SEED.value() + 1);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (SocketChannel client = SocketChannel.open(server.localAddress())) {
                assertEquals(FRAMES, readSequence(client));
            }
            writing.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aGatheringWriteSendsManyBuffersInOrderAndAdvancesEachByWhatLeft() throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp");
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
                SocketChannel peer = server.accept()) {
            byte[] sent = new byte[1_000_000];
            new SplittableRandom(SEED.value()).nextBytes(sent);
            // 24 buffers, more than one call gathers: direct ones of varied sizes, an empty one, a heap one.
            ByteBuffer[] parts = new ByteBuffer[24];
            int from = 0;
            for (int i = 0; i < parts.length; i++) {
                int size = i == 5 ? 0 : i == parts.length - 1 ? sent.length - from : 7 + i * 2_001;
                parts[i] = i == 12 ? ByteBuffer.wrap(sent, from, size).slice()
                        : ByteBuffer.allocateDirect(size).put(sent, from, size).flip();
                from += size;
            }
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    while (parts[parts.length - 1].hasRemaining()) {
                        socket.write(parts);
                    }
                    socket.shutdownOutput();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            ByteBuffer received = ByteBuffer.allocate(sent.length);
            while (peer.read(received) >= 0 && received.hasRemaining()) {
                // keep reading
            }
            writing.get(30, TimeUnit.SECONDS);
            assertEquals(ByteBuffer.wrap(sent), received.flip());
            for (ByteBuffer part : parts) {
                assertFalse(part.hasRemaining(), "every part written: " + part);
            }
            assertEquals(0, socket.write(parts), "nothing left: 0 bytes");
        }
    }

    @Test
    void aGatheringWriteStopsBeforeAHeapBufferAndWritesOneAlone() throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp");
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
                SocketChannel peer = server.accept()) {
            ByteBuffer a = ByteBuffer.allocateDirect(10).put(new byte[10]).flip();
            ByteBuffer b = ByteBuffer.wrap(new byte[20]);
            ByteBuffer c = ByteBuffer.allocateDirect(30).put(new byte[30]).flip();
            ByteBuffer[] parts = {ByteBuffer.allocate(5), a, b, c};
            assertEquals(10, socket.write(parts, 1, 3), "the direct buffer before the heap one");
            assertEquals(20, socket.write(parts, 1, 3), "then the heap one alone");
            assertEquals(30, socket.write(parts, 1, 3));
            assertEquals(5, parts[0].remaining(), "outside offset and length: untouched");
            assertThrows(IndexOutOfBoundsException.class, () -> socket.write(parts, 2, 3));
            ByteBuffer received = ByteBuffer.allocate(60);
            while (received.hasRemaining() && peer.read(received) >= 0) {
                // keep reading
            }
            assertEquals(60, received.position());
        }
    }

    @Test
    void heapBuffersAreReadAndWrittenThroughACopy() throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp");
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
                SocketChannel peer = server.accept()) {
            byte[] sent = new byte[200_000];
            new SplittableRandom(SEED.value()).nextBytes(sent);
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    ByteBuffer source = ByteBuffer.wrap(sent);
                    while (source.hasRemaining()) {
                        socket.write(source);
                    }
                    socket.shutdownOutput();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            ByteBuffer received = ByteBuffer.allocate(sent.length);
            while (peer.read(received) >= 0 && received.hasRemaining()) {
                // keep reading
            }
            writing.get(30, TimeUnit.SECONDS);
            assertEquals(ByteBuffer.wrap(sent), received.flip());
            peer.write(ByteBuffer.wrap(sent, 0, 1000));
            peer.shutdownOutput();
            ByteBuffer back = ByteBuffer.allocate(1000);
            while (back.hasRemaining() && socket.read(back) >= 0) {
                // keep reading
            }
            assertEquals(ByteBuffer.wrap(sent, 0, 1000), back.flip());
            assertEquals(-1, socket.read(ByteBuffer.allocate(1)));
        }
    }

    /**
     * A heap buffer goes through a copy buffer of the calling thread's, not one of each socket's: a loop
     * that reads and writes heap buffers on many sockets (the JDK's TLS engine's records) holds one, where
     * each socket held 64 KiB for each direction it had copied in, for its life.
     */
    @Test
    void heapBuffersOfManySocketsGoThroughOneCopyBufferOfTheThread() throws Exception {
        int sockets = 100;
        try (ServerSocketChannel server = jdkServer("tcp")) {
            List<NativeSocket> ours = new ArrayList<>();
            List<SocketChannel> peers = new ArrayList<>();
            try {
                long before = -1;
                for (int i = 0; i < sockets; i++) {
                    NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
                    ours.add(socket);
                    SocketChannel peer = server.accept();
                    peers.add(peer);
                    socket.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
                    ByteBuffer got = ByteBuffer.allocate(3);
                    while (got.hasRemaining()) {
                        peer.read(got);
                    }
                    peer.write(got.flip());
                    ByteBuffer back = ByteBuffer.allocate(3);
                    while (back.hasRemaining()) {
                        socket.read(back);
                    }
                    assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3}), back.flip());
                    if (i == 0) {
                        before = directBytes(); // the thread's copy buffer made
                    }
                }
                long grown = directBytes() - before;
                assertTrue(grown < 64 * 1024, sockets + " sockets that each copied a heap buffer in and out took "
                        + grown + " bytes of direct buffers beyond the first's");
            } finally {
                for (NativeSocket s : ours) {
                    s.close();
                }
                for (SocketChannel p : peers) {
                    p.close();
                }
            }
        }
    }

    /** {@return the bytes of the JVM's direct buffers} */
    private static long directBytes() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(p -> p.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }

    @Test
    void nativeSegmentsAreReadAndWrittenInPlaceAndHeapSegmentsRefused() throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp");
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
                SocketChannel peer = server.accept();
                java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            byte[] sent = new byte[5000];
            new SplittableRandom(SEED.value()).nextBytes(sent);
            java.lang.foreign.MemorySegment out = arena.allocate(sent.length);
            java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(sent), 0, out, 0, sent.length);
            long written = 0;
            while (written < sent.length) {
                written += socket.write(out.asSlice(written));
            }
            ByteBuffer received = ByteBuffer.allocate(sent.length);
            while (received.hasRemaining()) {
                peer.read(received);
            }
            assertEquals(ByteBuffer.wrap(sent), received.flip());
            peer.write(received.rewind());
            java.lang.foreign.MemorySegment in = arena.allocate(sent.length);
            long read = 0;
            while (read < sent.length) {
                read += socket.read(in.asSlice(read));
            }
            assertEquals(-1, in.mismatch(out), "the bytes came back in place");
            assertEquals(0, socket.read(in.asSlice(0, 0)), "an empty segment reads nothing");
            IllegalArgumentException heap = assertThrows(IllegalArgumentException.class,
                    () -> socket.read(java.lang.foreign.MemorySegment.ofArray(new byte[8])));
            assertTrue(heap.getMessage().startsWith("a heap segment cannot be passed to a system call"), heap.getMessage());
        }
    }

    @Test
    void aRefusedConnectionNamesTheCallTheErrnoAndTheAddress() throws Exception {
        InetSocketAddress closed;
        try (ServerSocketChannel server = jdkServer("tcp")) {
            closed = (InetSocketAddress) server.getLocalAddress();
        }
        NativeIoException e = assertThrows(NativeIoException.class, () -> NativeSocket.connect(closed));
        assertEquals("connect", e.call());
        assertEquals(111, e.errno());
        assertTrue(e.getMessage().startsWith("connect failed: errno=111 (Connection refused)"), e.getMessage());
        assertTrue(e.getMessage().contains("address=127.0.0.1:" + closed.getPort()), e.getMessage());
    }

    @Test
    void aHostNameGivenUnresolvedIsLookedUpAndTheAddressFoundIsTheOneUsedAndNamed() throws Exception {
        InetAddress local = InetAddress.getByName("localhost");
        String host = local instanceof Inet6Address ? "[" + local.getHostAddress() + "]" : local.getHostAddress();
        int port;
        try (NativeServerSocket server = NativeServerSocket.bind(InetSocketAddress.createUnresolved("localhost", 0), 8)) {
            InetSocketAddress bound = (InetSocketAddress) server.localAddress();
            assertEquals(local, bound.getAddress(), "bound to the address the name resolves to");
            port = bound.getPort();
            try (NativeSocket client = NativeSocket.connect(InetSocketAddress.createUnresolved("localhost", port));
                    NativeSocket accepted = server.accept()) {
                InetSocketAddress remote = (InetSocketAddress) client.remoteAddress();
                assertFalse(remote.isUnresolved(), "the remote address is the one connected to: " + remote);
                assertEquals(new InetSocketAddress(local, port), remote);
                assertEquals(local, ((InetSocketAddress) accepted.remoteAddress()).getAddress());
            }
        }
        NativeIoException e = assertThrows(NativeIoException.class,
                () -> NativeSocket.connect(InetSocketAddress.createUnresolved("localhost", port)));
        assertTrue(e.getMessage().contains("address=" + host + ":" + port), e.getMessage());
    }

    @Test
    void aClosedSocketThrowsClosedChannelExceptionAndClosesOnce() throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp")) {
            NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
            socket.close();
            socket.close();
            assertFalse(socket.isOpen());
            assertThrows(ClosedChannelException.class, () -> socket.read(ByteBuffer.allocateDirect(4)));
            assertThrows(ClosedChannelException.class, () -> socket.write(ByteBuffer.allocateDirect(4)));
            assertThrows(ClosedChannelException.class, () -> socket.configureBlocking(false));
            assertTrue(socket.toString().contains("closed"), socket.toString());
        }
    }

    @ParameterizedTest(name = "blocking={0}")
    @ValueSource(booleans = {true, false})
    void aDescriptorClosedBehindTheSocketsBackIsEbadfNamedAsSuch(boolean blocking) throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp")) {
            NativeSocket socket = NativeSocket.connect(server.getLocalAddress()).configureBlocking(blocking);
            Sys.close(socket.fd()); // the descriptor is gone, the socket does not know
            NativeIoException e = assertThrows(NativeIoException.class, () -> socket.read(ByteBuffer.allocateDirect(4)));
            assertEquals(9, e.errno());
            assertTrue(e.getMessage().startsWith("recv failed: errno=9 (Bad file descriptor) fd=" + socket.fd()),
                    e.getMessage());
        }
    }

    @Test
    void nonBlockingReadsAndWritesReturnZeroWhereTheyWouldWait() throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp");
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
                SocketChannel peer = server.accept()) {
            socket.configureBlocking(false);
            assertFalse(socket.isBlocking());
            assertEquals(0, socket.read(ByteBuffer.allocateDirect(64)), "nothing sent yet: EAGAIN is 0 bytes");
            ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 16);
            long written = 0;
            int n;
            while ((n = socket.write(chunk.clear())) > 0) { // the peer reads nothing: the buffers fill
                written += n;
            }
            assertEquals(0, n);
            assertTrue(written > 0);
            peer.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            ByteBuffer three = ByteBuffer.allocateDirect(3);
            while (three.hasRemaining()) {
                socket.read(three);
            }
            assertEquals(3, three.get(2));
            socket.configureBlocking(true);
            assertTrue(socket.isBlocking());
        }
    }

    @ParameterizedTest(name = "blocking={0}")
    @ValueSource(booleans = {true, false})
    void aResetConnectionIsEconnresetAndAWriteToAGonePeerIsAnExceptionNotASignal(boolean blocking) throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp");
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress()).configureBlocking(blocking)) {
            SocketChannel peer = server.accept();
            peer.setOption(StandardSocketOptions.SO_LINGER, 0);
            peer.close(); // RST
            NativeIoException reset = assertThrows(NativeIoException.class, () -> {
                ByteBuffer buffer = ByteBuffer.allocateDirect(64);
                while (socket.read(buffer.clear()) >= 0) {
                    // read until the reset arrives
                }
            });
            assertEquals(104, reset.errno(), reset.getMessage());
            NativeIoException gone = assertThrows(NativeIoException.class, () -> {
                for (int i = 0; i < 1000; i++) {
                    socket.write(ByteBuffer.allocateDirect(1024));
                }
            });
            assertTrue(gone.errno() == 32 || gone.errno() == 104, gone.getMessage()); // EPIPE or ECONNRESET
            assertEquals("send", gone.call());
        }
    }

    @Test
    void lingerZeroMakesCloseAReset() throws Exception {
        try (ServerSocketChannel server = jdkServer("tcp")) {
            NativeSocket socket = NativeSocket.connect(server.getLocalAddress()).setTcpNoDelay(true);
            assertTrue(socket.getTcpNoDelay());
            try (SocketChannel peer = server.accept()) {
                socket.setLinger(0).close();
                IOException e = assertThrows(IOException.class, () -> {
                    while (peer.read(ByteBuffer.allocate(8)) >= 0) {
                        // wait for the reset
                    }
                });
                assertTrue(e.getMessage().contains("reset"), e.getMessage());
            }
        }
    }

    @Test
    void closeReleasesABlockedAcceptAndShutdownInputABlockedRead() throws Exception {
        NativeServerSocket server = NativeServerSocket.bind(new InetSocketAddress("127.0.0.1", 0), 4);
        Actor accepting = new Actor("accepting", () -> server.accept().close());
        accepting.begin();
        accepting.awaitAsleepIn(SyscallNumbers.ACCEPT4, "accept4"); // blocked, not yet to call it
        server.close();
        Throwable thrown = accepting.outcome();
        assertInstanceOf(ClosedChannelException.class, thrown, "the blocked accept threw " + thrown);

        try (ServerSocketChannel jdk = jdkServer("tcp");
                NativeSocket socket = NativeSocket.connect(jdk.getLocalAddress());
                SocketChannel peer = jdk.accept()) {
            int[] read = {0};
            Actor reading = new Actor("reading", () -> read[0] = socket.read(ByteBuffer.allocateDirect(8)));
            reading.begin();
            reading.awaitAsleepIn(SyscallNumbers.RECVFROM, "recvfrom"); // blocked in recv(2), not yet to call it
            socket.shutdownInput();
            assertNull(reading.outcome(), "the blocked read threw");
            assertEquals(-1, read[0]);
            assertTrue(peer.isOpen());
        }
    }

    @Test
    void aUnixPathTooLongForSockaddrIsRefusedWithItsLengthAndTcpOptionsOnUnixAreRefused() throws Exception {
        Path longPath = dir.resolve("x".repeat(120));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NativeSocket.connect(UnixDomainSocketAddress.of(longPath)));
        assertTrue(e.getMessage().contains("must be 1 to 107 bytes"), e.getMessage());
        try (NativeServerSocket server = NativeServerSocket.bind(UnixDomainSocketAddress.of(dir.resolve("u.sock")), 1);
                NativeSocket socket = NativeSocket.connect(server.localAddress())) {
            IOException tcp = assertThrows(IOException.class, () -> socket.setTcpNoDelay(true));
            assertTrue(tcp.getMessage().contains("needs a TCP socket"), tcp.getMessage());
        }
    }

    /** Frames the echo thread of the allocation check reads, echoes and flushes per call of {@link #echoSome}. */
    private static final int ECHOES = 64;

    /**
     * Echoes up to {@value #ECHOES} frames, flushing each reply; {@return false at the end of the stream}. The
     * measured echo thread loops over calls of this method, which the JIT compiles whole by its calls: a loop
     * over every frame would be compiled on its back edge about when the windows begin, and entering that code
     * allocates, in a window the JIT may have done its work before.
     */
    private static boolean echoSome(FrameReader reader, FrameHandler back, FrameWriter writer) throws IOException {
        for (int k = 0; k < ECHOES; k++) {
            if (!reader.readFrame(back)) {
                return false;
            }
            writer.flush();
        }
        return true;
    }

    @Test
    void roundTripsAllocateNothingInTheSteadyStateAtEitherEnd() throws Exception {
        NativeFeatures.assumeCallsAllocateNothing();
        int size = 100;
        try (NativeServerSocket server = NativeServerSocket.bind(new InetSocketAddress("127.0.0.1", 0), 4)) {
            AtomicReference<Throwable> echoFailed = new AtomicReference<>();
            Thread echo = Thread.ofPlatform().name("echo").daemon().start(() -> {
                try (NativeSocket connection = server.accept()) {
                    FrameReader reader = new FrameReader(connection);
                    FrameWriter writer = new FrameWriter(connection);
                    FrameHandler back = (type, body) -> writer.writeFrame(type, body);
                    while (echoSome(reader, back, writer)) {
                        // the echo's loop turns once per ECHOES frames
                    }
                } catch (Throwable t) {
                    echoFailed.set(t);
                }
            });
            long[] roundTrips = {0};
            SequenceVerifier verifier = new SequenceVerifier();
            try (NativeSocket socket = NativeSocket.connect(server.localAddress()).setTcpNoDelay(true)) {
                FrameReader reader = new FrameReader(socket);
                FrameWriter writer = new FrameWriter(socket);
                byte[] pattern = SequenceStream.pattern(size);
                FrameHandler verify = verifier::verify;
                // Both ends are the library's, so both threads are measured. The echo thread's part of a round
                // trip ends after its flush; when the client has read the reply, the echo thread may still be
                // returning from that flush, so its bytes can fall in the next window: never lost, only moved.
                SteadyState.assertAllocatesNothingPerOperation("round trips: the client's write, flush and read,"
                        + " the echo's read, write and flush", List.of(Thread.currentThread(), echo), 0, i -> {
                            writer.writeFrame(SequenceStream.type(i), pattern, SequenceStream.patternOffset(i), size);
                            writer.flush();
                            if (!reader.readFrame(verify)) {
                                throw new AssertionError("end of stream at round trip " + i + ": " + echoFailed.get());
                            }
                            roundTrips[0]++;
                        });
            }
            echo.join(10_000);
            assertNull(echoFailed.get(), "the echo thread failed");
            assertFalse(echo.isAlive(), "the echo thread did not see the end of stream");
            assertEquals(roundTrips[0], verifier.framesVerified());
        }
    }
}
