package dev.wirespeed.linux.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.linux.Actor;
import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.linux.internal.sys.FdDirection;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.SteadyState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * call; a failed wait that leaves nothing in flight; close from another thread under a read or write
 * waiting in the kernel. The peer is a JDK socket.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IoUringSocketTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    /** Closed after each test; readers that build their channels add to it too. */
    private final List<AutoCloseable> open = Collections.synchronizedList(new ArrayList<>());

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
        return connect(setting::apply);
    }

    private Pair connect(UnaryOperator<IoUringSocket.Builder> settings) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            NativeSocket socket = NativeSocket.connect(server.getLocalAddress());
            IoUringSocket ours = settings.apply(IoUringSocket.builder(socket)).build();
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

    /** Checks {@code condition} until it holds, failing with {@code what} after {@code seconds}. */
    private static void awaitCondition(Supplier<String> what, int seconds, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + seconds + " s: " + what.get());
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /** Whether thread {@code tid} sleeps in {@code io_uring_enter} waiting for at least one completion. */
    private static boolean waitingInIoUringEnter(int tid) {
        String[] call = Actor.systemCall(tid).split(" ");
        return call[0].equals(Long.toString(SyscallNumbers.IO_URING_ENTER)) && call.length > 3 && !call[3].equals("0x0");
    }

    /** After a close that a waiting thread saw: the ring is unmapped, the channel refuses calls, and a new one works. */
    private void assertReleasedAndTheNextChannelWorks(IoUringSocket closed) throws Exception {
        assertTrue(!closed.isOpen(), closed.toString());
        assertTrue(closed.toString().contains(" closed]"), "the last one out unmapped the ring: " + closed);
        assertThrows(ClosedChannelException.class, () -> closed.read(ByteBuffer.allocateDirect(8)));
        assertThrows(ClosedChannelException.class, () -> closed.write(ByteBuffer.allocateDirect(8)));
        assertANewChannelWorks();
    }

    private void assertANewChannelWorks() throws IOException {
        Pair next = connect(false);
        next.peer().write(ByteBuffer.wrap(new byte[] {42}));
        ByteBuffer one = ByteBuffer.allocateDirect(1);
        assertEquals(1, next.ours().read(one));
        assertEquals(42, one.get(0));
    }

    @ParameterizedTest
    @EnumSource(value = Setting.class, names = {"WAITING", "DEFER_TASKRUN"})
    void aReadWaitingInTheKernelIsEndedByCloseFromAnotherThreadWithAsynchronousCloseException(Setting setting)
            throws Exception {
        for (int i = 0; i < 20; i++) {
            AtomicReference<Pair> connected = new AtomicReference<>();
            ByteBuffer dst = ByteBuffer.allocateDirect(64);
            // The reader builds the channel: a SINGLE_ISSUER ring takes submissions from its builder alone.
            Actor reader = new Actor("reader " + i, () -> {
                Pair pair = connect(setting);
                connected.set(pair);
                pair.ours().read(dst);
            });
            int tid = reader.begin();
            String name = reader.getName();
            // The peer sends nothing: a reader asleep in io_uring_enter has its RECV in flight.
            awaitCondition(() -> name + " waits in io_uring_enter: /proc says " + Actor.systemCall(tid), 10,
                    () -> waitingInIoUringEnter(tid));
            IoUringSocket ours = connected.get().ours();
            ours.close();
            Throwable thrown = reader.outcome();
            assertTrue(thrown instanceof AsynchronousCloseException, name + " threw " + thrown);
            assertEquals(0, dst.position(), "nothing was read");
            assertReleasedAndTheNextChannelWorks(ours);
        }
    }

    @Test
    void aReadPollingTheCompletionQueueIsEndedByCloseFromAnotherThread() throws Exception {
        CountDownLatch polling = new CountDownLatch(1);
        // Called only after the RECV was submitted and a look found no completion: the RECV is in flight.
        IdleStrategy signalling = emptyLooks -> {
            polling.countDown();
            Thread.onSpinWait();
        };
        IoUringSocket ours = connect(builder -> builder.idleStrategy(signalling)).ours();
        Actor reader = new Actor("polling reader", () -> ours.read(ByteBuffer.allocateDirect(64)));
        reader.begin();
        assertTrue(polling.await(10, TimeUnit.SECONDS), "the reader polls for its RECV's completion");
        ours.close();
        Throwable thrown = reader.outcome();
        assertTrue(thrown instanceof AsynchronousCloseException, "the reader threw " + thrown);
        assertReleasedAndTheNextChannelWorks(ours);
    }

    @Test
    void aSendWaitingInTheKernelForRoomIsEndedByCloseFromAnotherThread() throws Exception {
        Pair pair = connect(false);
        AtomicLong writesBegun = new AtomicLong();
        AtomicLong bytesWritten = new AtomicLong();
        ByteBuffer src = ByteBuffer.allocateDirect(256 * 1024);
        // The peer reads nothing: the writer writes until its SEND waits for room that never comes.
        Actor writer = new Actor("writer", () -> {
            while (true) {
                writesBegun.incrementAndGet();
                bytesWritten.addAndGet(pair.ours().write(src.clear()));
            }
        });
        int tid = writer.begin();
        long[] seen = {-1, 0};
        awaitCondition(() -> "the writer waits in io_uring_enter for room, with no write begun for 200 ms: /proc says "
                + Actor.systemCall(tid) + " after " + writesBegun.get() + " writes", 20, () -> {
                    if (!waitingInIoUringEnter(tid) || writesBegun.get() != seen[0]) {
                        seen[0] = writesBegun.get();
                        seen[1] = System.nanoTime();
                        return false;
                    }
                    return System.nanoTime() - seen[1] > TimeUnit.MILLISECONDS.toNanos(200);
                });
        long begun = writesBegun.get();
        pair.ours().close();
        Throwable thrown = writer.outcome();
        assertTrue(thrown instanceof AsynchronousCloseException, "the writer threw " + thrown);
        assertEquals(begun, writesBegun.get(), "the write that waited is the one that threw");
        assertTrue(bytesWritten.get() > 0, "the writes before it filled the buffers: " + bytesWritten.get());
        assertReleasedAndTheNextChannelWorks(pair.ours());
    }

    @ParameterizedTest
    @EnumSource(value = Setting.class, names = {"WAITING", "POLLING", "SQPOLL"})
    void closeFromAnotherThreadAtAnyMomentOfReadingNeverCrashesAndEndsTheReaderAsClosed(Setting setting)
            throws Exception {
        SplittableRandom random = new SplittableRandom(SEED.value());
        ByteBuffer chunk = ByteBuffer.allocate(1000);
        for (int i = 0; i < 100; i++) {
            Pair pair = connect(setting);
            ByteBuffer dst = i % 2 == 0 ? ByteBuffer.allocateDirect(512) : ByteBuffer.allocate(512);
            AtomicLong reads = new AtomicLong();
            Actor reader = new Actor("reader " + i, () -> {
                while (true) {
                    if (pair.ours().read(dst.clear()) < 0) {
                        throw new AssertionError("end of stream: the peer never ends it");
                    }
                    reads.incrementAndGet();
                }
            });
            reader.begin();
            int sends = random.nextInt(20);
            for (int k = 0; k < sends; k++) {
                pair.peer().write(chunk.clear());
            }
            long spins = random.nextLong(200_000);
            closeAfter(spins, pair.ours());
            Throwable thrown = reader.outcome();
            assertTrue(thrown instanceof AsynchronousCloseException || thrown instanceof ClosedChannelException,
                    "reader " + i + " after " + reads.get() + " reads, " + sends + " sends and " + spins
                            + " spins threw " + thrown);
            assertTrue(pair.ours().toString().contains(" closed]"), "the ring was unmapped: " + pair.ours());
        }
        assertANewChannelWorks();
    }

    @ParameterizedTest
    @EnumSource(value = Setting.class, names = {"WAITING", "WAITING_ZERO_COPY", "POLLING_ZERO_COPY"})
    void closeFromAnotherThreadAtAnyMomentOfWritingNeverCrashesAndEndsTheWriterAsClosed(Setting setting)
            throws Exception {
        SplittableRandom random = new SplittableRandom(SEED.value());
        for (int i = 0; i < 100; i++) {
            Pair pair = connect(setting);
            // The peer reads until the end of stream that our close brings.
            CompletableFuture<Long> drained = CompletableFuture.supplyAsync(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(64 * 1024);
                long total = 0;
                try {
                    for (int n; (n = pair.peer().read(b.clear())) >= 0; ) {
                        total += n;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return total;
            });
            ByteBuffer src = ByteBuffer.allocateDirect(random.nextInt(1, 128 * 1024));
            AtomicLong written = new AtomicLong();
            Actor writer = new Actor("writer " + i, () -> {
                while (true) {
                    written.addAndGet(pair.ours().write(src.clear()));
                }
            });
            writer.begin();
            long spins = random.nextLong(200_000);
            closeAfter(spins, pair.ours());
            Throwable thrown = writer.outcome();
            assertTrue(thrown instanceof AsynchronousCloseException || thrown instanceof ClosedChannelException,
                    "writer " + i + " after " + written.get() + " bytes in writes of " + src.capacity() + " and "
                            + spins + " spins threw " + thrown);
            assertTrue(pair.ours().toString().contains(" closed]"), "the ring was unmapped: " + pair.ours());
            assertEquals(written.get(), drained.get(10, TimeUnit.SECONDS), "the peer got every byte a write counted");
        }
        assertANewChannelWorks();
    }

    /** Closes {@code channel} after {@code spins} spin-waits: a moment as random as the count. */
    private static void closeAfter(long spins, IoUringSocket channel) throws IOException {
        for (long k = 0; k < spins; k++) {
            Thread.onSpinWait();
        }
        channel.close();
    }

    @ParameterizedTest(name = "direct={0}")
    @ValueSource(booleans = {true, false})
    void aFailedWaitCancelsTheReceiveSoBytesSentAfterItLeaveTheCallersBufferAlone(boolean direct) throws Exception {
        CountDownLatch polling = new CountDownLatch(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // The first call comes only after the RECV was submitted and a look found no completion: it is in
        // flight. An interrupt then fails the wait, as a caller's strategy may; a wait past the deadline fails too.
        IdleStrategy failing = emptyLooks -> {
            polling.countDown();
            if (Thread.interrupted()) {
                throw new IllegalStateException("interrupted while polling");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion within 10 s, " + emptyLooks + " empty looks");
            }
            Thread.onSpinWait();
        };
        Pair pair = connect(builder -> builder.idleStrategy(failing));
        IoUringSocket ours = pair.ours();
        byte[] marker = new byte[64];
        Arrays.fill(marker, (byte) 0x5A);
        ByteBuffer dst = direct ? ByteBuffer.allocateDirect(64) : ByteBuffer.allocate(64);
        dst.put(marker).clear();
        // This thread reads, and stays alive after the failure: a thread's exit would cancel what it left in flight.
        Thread readingThread = Thread.currentThread();
        Actor interrupter = new Actor("interrupter", () -> {
            if (!polling.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the reader did not poll for its RECV's completion within 10 s");
            }
            readingThread.interrupt();
        });
        interrupter.begin();
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> ours.read(dst));
        assertEquals("interrupted while polling", thrown.getMessage());
        assertEquals(0, thrown.getSuppressed().length, Arrays.toString(thrown.getSuppressed()));
        Throwable failed = interrupter.outcome();
        if (failed != null) {
            throw new AssertionError("the interrupter", failed);
        }
        assertTrue(ours.isOpen(), "a cancelled receive that moved nothing leaves the channel open");
        assertEquals(0, dst.position());

        pair.peer().write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        // Nothing is in flight to take the bytes: the next read does, and a RECV left over would have
        // taken them first, into the failed read's buffer, leaving this one to wait until the deadline.
        ByteBuffer next = ByteBuffer.allocateDirect(8);
        while (next.position() < 3) {
            assertTrue(ours.read(next) > 0);
        }
        assertEquals(3, next.position());
        assertArrayEquals(new byte[] {1, 2, 3}, new byte[] {next.get(0), next.get(1), next.get(2)});
        byte[] after = new byte[64];
        dst.get(0, after);
        assertArrayEquals(marker, after, "the failed read's buffer is untouched");
    }

    @Test
    void aReadTheSingleIssuerRingRefusesLeavesNoReceiveForItsOwnersNextSubmission() throws Exception {
        Pair pair = connect(Setting.DEFER_TASKRUN); // SINGLE_ISSUER: this thread's ring
        IoUringSocket ours = pair.ours();
        Matcher ring = Pattern.compile("Ring\\[fd=(\\d+) ").matcher(ours.toString());
        assertTrue(ring.find(), ours.toString());
        byte[] marker = new byte[64];
        Arrays.fill(marker, (byte) 0x5A);
        ByteBuffer refusedBuffer = ByteBuffer.allocateDirect(64).put(marker).clear();
        // Another thread's io_uring_enter is refused before the kernel reads the RECV it published.
        AtomicReference<NativeIoException> refused = new AtomicReference<>();
        Actor other = new Actor("other", () -> refused.set(assertThrows(NativeIoException.class,
                () -> ours.read(refusedBuffer))));
        other.begin();
        Throwable failed = other.outcome();
        if (failed != null) {
            throw new AssertionError("the other thread", failed);
        }
        assertEquals("io_uring_enter failed: errno=17 (File exists) fd=" + ring.group(1)
                + " to_submit=1 min_complete=1 flags=0x1", refused.get().getMessage());
        assertEquals(0, refused.get().getSuppressed().length, "the RECV was taken back, not cancelled: "
                + Arrays.toString(refused.get().getSuppressed()));
        assertTrue(ours.isOpen(), "taken back, it moved nothing: the channel stays open");

        pair.peer().write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        pair.peer().shutdownOutput();
        // A RECV left in the queue would go with this thread's next submission, ahead of its own, and take
        // the bytes into the refused buffer; this read would then get the end of stream.
        ByteBuffer next = ByteBuffer.allocateDirect(8);
        while (next.position() < 3) {
            assertTrue(ours.read(next) > 0, "the bytes came before the end of stream: " + next.position() + " read");
        }
        assertArrayEquals(new byte[] {1, 2, 3}, new byte[] {next.get(0), next.get(1), next.get(2)});
        assertEquals(-1, ours.read(next.clear()));
        byte[] after = new byte[64];
        refusedBuffer.get(0, after);
        assertArrayEquals(marker, after, "the refused read's buffer is untouched");
    }

    @ParameterizedTest
    @EnumSource(value = Setting.class, names = {"WAITING", "POLLING", "POLLING_ZERO_COPY"})
    void roundTripsAllocateNothingOnceWarm(Setting setting) throws Exception {
        NativeFeatures.assumeCallsAllocateNothing();
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
