package dev.wirespeed.linux.internal.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.NativePipe;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.linux.uring.IoUring;
import dev.wirespeed.linux.uring.IoUringSupport;
import dev.wirespeed.testing.SteadyState;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * {@link Ring}: operations through the ring and back with their user data, a full submission queue,
 * completions beyond the completion queue, pipes and sockets, cancellation, the setup modes and the
 * probe. Skipped, with the reason, where the machine has no usable io_uring.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingTest {
    private static final int EINVAL = 22;
    private static final int ECANCELED = 125;
    private static final int ECONNRESET = 104;
    private static final int MSG_NOSIGNAL = 0x4000;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final Arena arena = Arena.ofConfined();

    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        arena.close();
    }

    /** Opens a ring with {@code options}, as the library's own callers do, and closes it after the test. */
    private Ring ring(IoUring.Options options) throws IOException {
        Ring ring = open(options);
        open.add(ring);
        return ring;
    }

    private static Ring open(IoUring.Options options) throws IOException {
        int setup = 0;
        for (IoUring.Setup flag : options.setup()) {
            setup |= flag.bit();
        }
        return Ring.open(Ring.Params.of(options.entries(), options.cqEntries(), setup, options.sqThreadCpu(),
                options.sqThreadIdleMillis(), options.toString()));
    }

    /** Completions by user data, each user data once. */
    private static final class Results implements Ring.Completion {
        final Map<Long, Integer> byUserData = new HashMap<>();
        final List<Long> order = new ArrayList<>();

        @Override
        public void complete(long userData, int result, int flags) {
            Integer earlier = byUserData.put(userData, result);
            assertEquals(null, earlier, "user data " + userData + " completed twice");
            order.add(userData);
        }

        int result(long userData) {
            Integer r = byUserData.get(userData);
            assertTrue(r != null, "no completion for user data " + userData + "; have " + byUserData);
            return r;
        }
    }

    /** Reaps until {@code userData} has completed, entering the kernel to wait: at most 10 s. */
    private static int await(Ring ring, Results results, long userData) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!results.byUserData.containsKey(userData)) {
            assertTrue(System.nanoTime() < deadline, "user data " + userData + " did not complete within 10 s");
            if (ring.complete(results) == 0) {
                ring.submitAndWait(1);
            }
        }
        return results.result(userData);
    }

    @Test
    void operationsComeBackWithTheirUserData() throws IOException {
        Ring ring = ring(IoUring.options().entries(8));
        assertEquals(8, ring.submissionEntries());
        assertEquals(16, ring.completionEntries());
        assertTrue(ring.nop(11));
        assertTrue(ring.nop(12));
        assertTrue(ring.nop(13));
        assertEquals(3, ring.pending());
        assertEquals(3, ring.submitAndWait(3));
        assertEquals(0, ring.pending());
        Results results = new Results();
        assertEquals(3, ring.complete(results));
        assertEquals(List.of(11L, 12L, 13L), results.order);
        assertEquals(Map.of(11L, 0, 12L, 0, 13L, 0), results.byUserData);
        assertEquals(0, ring.complete(results), "a completion was handed over twice");
    }

    @Test
    void aFullSubmissionQueuePreparesNothingAndLongerRunsGoInTurns() throws IOException {
        Ring ring = ring(IoUring.options().entries(4));
        for (int i = 0; i < 4; i++) {
            assertTrue(ring.nop(i));
        }
        assertFalse(ring.nop(4), "a fifth entry in a queue of four");
        assertEquals(4, ring.pending());
        Results results = new Results();
        int operations = 1_000;
        long next = 4;
        ring.submit();
        while (results.byUserData.size() < operations) {
            while (next < operations && ring.nop(next)) {
                next++;
            }
            ring.submit();
            ring.complete(results);
        }
        BitSet seen = new BitSet();
        results.byUserData.keySet().forEach(k -> seen.set(Math.toIntExact(k)));
        assertEquals(operations, seen.cardinality());
        assertEquals(operations, seen.nextClearBit(0));
    }

    @Test
    void completionsBeyondTheCompletionQueueAreHeldThenAllReaped() throws IOException {
        Ring ring = ring(IoUring.options().entries(4).cqEntries(4));
        assertEquals(4, ring.completionEntries());
        int operations = 40;
        for (int i = 0; i < operations; i += 4) {
            for (int k = 0; k < 4; k++) {
                assertTrue(ring.nop(i + k));
            }
            assertEquals(4, ring.submit(), "the kernel holds what the completion queue has no room for");
        }
        Results results = new Results();
        assertEquals(operations, ring.complete(results), "ten times what the completion queue holds");
        assertEquals(operations, results.byUserData.size());
        assertEquals(0, ring.droppedCompletions());
    }

    @Test
    void writesAndReadsThroughAPipe() throws IOException {
        Ring ring = ring(IoUring.options());
        NativePipe.Ends pipe = NativePipe.open();
        open.add(pipe.source());
        open.add(pipe.sink());
        byte[] sent = new byte[5_000];
        new SplittableRandom(7).nextBytes(sent);
        MemorySegment out = arena.allocate(sent.length);
        MemorySegment.copy(sent, 0, out, ValueLayout.JAVA_BYTE, 0, sent.length);
        MemorySegment in = arena.allocate(8_192);
        assertTrue(ring.write(pipe.sink().fd(), out.address(), sent.length, -1, 1));
        Results results = new Results();
        assertEquals(sent.length, await(ring, results, 1));
        int have = 0;
        for (long id = 2; have < sent.length; id++) {
            assertTrue(ring.read(pipe.source().fd(), in.address() + have, (int) in.byteSize() - have, -1, id));
            int n = await(ring, results, id);
            assertTrue(n > 0, "read " + n);
            have += n;
        }
        assertEquals(sent.length, have);
        assertArrayEquals(sent, in.asSlice(0, have).toArray(ValueLayout.JAVA_BYTE));
    }

    /** A connected pair: the library's socket, whose descriptor the ring uses, and the JDK's peer. */
    private record Pair(NativeSocket ours, SocketChannel peer) {
    }

    private Pair connect() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            NativeSocket ours = NativeSocket.connect(server.getLocalAddress());
            open.add(ours);
            SocketChannel peer = server.accept();
            open.add(peer);
            return new Pair(ours, peer);
        }
    }

    @Test
    void sendsAndReceivesOverTcpThenSeesTheEndOfStream() throws IOException {
        Ring ring = ring(IoUring.options());
        Pair pair = connect();
        MemorySegment out = arena.allocate(100);
        for (int i = 0; i < 100; i++) {
            out.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        Results results = new Results();
        assertTrue(ring.send(pair.ours().fd(), out.address(), 100, MSG_NOSIGNAL, 1));
        assertEquals(100, await(ring, results, 1));
        ByteBuffer got = ByteBuffer.allocate(100);
        while (got.hasRemaining()) {
            pair.peer().read(got);
        }
        assertArrayEquals(out.toArray(ValueLayout.JAVA_BYTE), got.array());

        MemorySegment in = arena.allocate(1_000);
        assertTrue(ring.recv(pair.ours().fd(), in.address(), 1_000, 0, 2));
        ring.submit(); // in flight before the bytes exist
        pair.peer().write(ByteBuffer.wrap(new byte[] {9, 8, 7, 6, 5}));
        assertEquals(5, await(ring, results, 2));
        assertArrayEquals(new byte[] {9, 8, 7, 6, 5}, in.asSlice(0, 5).toArray(ValueLayout.JAVA_BYTE));

        assertTrue(ring.recv(pair.ours().fd(), in.address(), 1_000, 0, 3));
        ring.submit();
        pair.peer().close();
        assertEquals(0, await(ring, results, 3), "the end of stream");
    }

    @Test
    void aReceiveOfAResetConnectionFailsWithConnectionReset() throws IOException {
        Ring ring = ring(IoUring.options());
        Pair pair = connect();
        MemorySegment in = arena.allocate(64);
        assertTrue(ring.recv(pair.ours().fd(), in.address(), 64, 0, 1));
        ring.submit();
        pair.peer().setOption(StandardSocketOptions.SO_LINGER, 0);
        pair.peer().close();
        assertEquals(-ECONNRESET, await(ring, new Results(), 1));
    }

    @Test
    void aReceiveInFlightIsCancelled() throws IOException {
        Ring ring = ring(IoUring.options());
        Pair pair = connect();
        MemorySegment in = arena.allocate(64);
        assertTrue(ring.recv(pair.ours().fd(), in.address(), 64, 0, 1));
        ring.submit();
        Results results = new Results();
        assertEquals(0, ring.complete(results), "a receive with nothing to receive completed");
        assertTrue(ring.cancel(1, 2));
        assertEquals(0, await(ring, results, 2), "the cancellation");
        assertEquals(-ECANCELED, await(ring, results, 1), "the cancelled receive");
    }

    /** Every completion in order, multishot ones included: user data, result, flags. */
    private static final class Events implements Ring.Completion {
        final List<long[]> all = new ArrayList<>();

        @Override
        public void complete(long userData, int result, int flags) {
            all.add(new long[] {userData, result, flags});
        }

        /** Reaps until there are {@code n} completions in all, entering the kernel to wait: at most 10 s. */
        long[] awaitNth(Ring ring, int n) throws IOException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (all.size() < n) {
                assertTrue(System.nanoTime() < deadline, "completion " + n + " did not come within 10 s; have "
                        + all.size());
                if (ring.complete(this) == 0) {
                    ring.submitAndWait(1);
                }
            }
            return all.get(n - 1);
        }
    }

    private static int bufferId(long[] event) {
        assertTrue((event[2] & Ring.CQE_F_BUFFER) != 0, "no buffer in flags 0x" + Long.toHexString(event[2]));
        return (int) (event[2] >>> Ring.CQE_BUFFER_SHIFT);
    }

    private static byte[] bytes(BufferRing buffers, int id, int length) {
        return buffers.memory().asSlice((long) id * buffers.size(), length).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void aMultishotReceiveFillsProvidedBuffersUntilTheEndOfStream() throws IOException {
        Ring ring = ring(IoUring.options());
        BufferRing buffers = BufferRing.register(ring, 1, 4, 64);
        open.add(buffers);
        Pair pair = connect();
        assertTrue(ring.recvMultishot(pair.ours().fd(), buffers, 7));
        ring.submit();
        Events events = new Events();
        byte[][] sent = {"first arrival".getBytes(), "the second, a little longer".getBytes()};
        for (int i = 0; i < sent.length; i++) {
            pair.peer().write(ByteBuffer.wrap(sent[i]));
            long[] e = events.awaitNth(ring, i + 1);
            assertEquals(7, e[0]);
            assertEquals(sent[i].length, e[1]);
            assertTrue((e[2] & Ring.CQE_F_MORE) != 0, "the receive stopped after arrival " + i);
            int id = bufferId(e);
            assertArrayEquals(sent[i], bytes(buffers, id, sent[i].length));
            buffers.recycle(id);
        }
        pair.peer().close();
        long[] end = events.awaitNth(ring, 3);
        assertEquals(0, end[1], "the end of stream");
        assertEquals(0, end[2] & Ring.CQE_F_MORE, "more completions promised after the end of stream");
    }

    @Test
    void takingEveryBufferEndsTheReceiveWithEnobufsAndRecyclingLetsItResume() throws IOException {
        int enobufs = 105;
        Ring ring = ring(IoUring.options());
        BufferRing buffers = BufferRing.register(ring, 2, 2, 16);
        open.add(buffers);
        Pair pair = connect();
        assertTrue(ring.recvMultishot(pair.ours().fd(), buffers, 1));
        ring.submit();
        Events events = new Events();
        int[] taken = new int[2];
        for (int i = 0; i < 2; i++) {
            pair.peer().write(ByteBuffer.wrap(new byte[16]).put(0, (byte) (i + 1)));
            long[] e = events.awaitNth(ring, i + 1);
            assertEquals(16, e[1]);
            taken[i] = bufferId(e);
            assertEquals(i + 1, bytes(buffers, taken[i], 16)[0]);
        }
        assertTrue(taken[0] != taken[1], "one buffer handed out twice: " + taken[0]);
        pair.peer().write(ByteBuffer.wrap(new byte[16]).put(0, (byte) 3));
        long[] out = events.awaitNth(ring, 3);
        assertEquals(-enobufs, out[1]);
        assertEquals(0, out[2] & Ring.CQE_F_MORE, "the receive goes on without a buffer");
        buffers.recycle(taken[0]);
        buffers.recycle(taken[1]);
        assertTrue(ring.recvMultishot(pair.ours().fd(), buffers, 2));
        long[] resumed = events.awaitNth(ring, 4);
        assertEquals(2, resumed[0]);
        assertEquals(16, resumed[1], "the bytes that waited in the socket");
        assertEquals(3, bytes(buffers, bufferId(resumed), 16)[0]);
    }

    @Test
    void aBufferGroupRegisteredTwiceIsRefusedNamingIt() throws IOException {
        int eexist = 17;
        Ring ring = ring(IoUring.options());
        open.add(BufferRing.register(ring, 3, 2, 16));
        NativeIoException e = assertThrows(NativeIoException.class, () -> BufferRing.register(ring, 3, 4, 32));
        assertEquals(eexist, e.errno());
        assertTrue(e.getMessage().contains("IORING_REGISTER_PBUF_RING group=3 count=4 size=32"), e.getMessage());
        IllegalArgumentException notAPowerOfTwo = assertThrows(IllegalArgumentException.class,
                () -> BufferRing.register(ring, 4, 3, 16));
        assertEquals("count=3 must be a power of two from 1 to 32768", notAPowerOfTwo.getMessage());
    }

    @Test
    void aDeferredTaskRunRingCompletesWhenItsThreadAsks() throws IOException {
        NativeFeatures.assumeIoUringAccepts(IoUring.Setup.DEFER_TASKRUN);
        Ring ring = ring(IoUring.options().with(IoUring.Setup.SINGLE_ISSUER, IoUring.Setup.DEFER_TASKRUN));
        Pair pair = connect();
        MemorySegment in = arena.allocate(64);
        assertTrue(ring.recv(pair.ours().fd(), in.address(), 64, 0, 1));
        ring.submit();
        pair.peer().write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        Results results = new Results();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (results.byUserData.isEmpty()) { // complete() runs the deferred work itself: no submitAndWait here
            assertTrue(System.nanoTime() < deadline, "the receive did not complete within 10 s");
            ring.complete(results);
        }
        assertEquals(3, results.result(1));
    }

    @Test
    void aCooperativeRingDeliversCompletionsToAThreadThatOnlyPolls() throws IOException {
        NativeFeatures.assumeIoUringAccepts(IoUring.Setup.TASKRUN_FLAG);
        Ring ring = ring(IoUring.options().with(IoUring.Setup.COOP_TASKRUN, IoUring.Setup.TASKRUN_FLAG));
        Pair pair = connect();
        MemorySegment in = arena.allocate(64);
        assertTrue(ring.recv(pair.ours().fd(), in.address(), 64, 0, 1));
        ring.submit();
        pair.peer().write(ByteBuffer.wrap(new byte[] {4, 5}));
        Results results = new Results();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (results.byUserData.isEmpty()) { // polling, as a spinning reader does: never waiting in the kernel
            assertTrue(System.nanoTime() < deadline, "the receive did not complete within 10 s");
            ring.complete(results);
        }
        assertEquals(2, results.result(1));
    }

    @Test
    void deferredTaskRunWithoutASingleIssuerIsRefusedNamingTheOptions() {
        NativeIoException e = assertThrows(NativeIoException.class,
                () -> ring(IoUring.options().entries(4).with(IoUring.Setup.DEFER_TASKRUN)));
        assertEquals(EINVAL, e.errno());
        assertTrue(e.getMessage().contains("entries=4 setup=[DEFER_TASKRUN] flags=0x2000"), e.getMessage());
    }

    @Test
    void aSubmissionPollingThreadTakesOperationsAndIsWokenAfterItSleeps() throws Exception {
        NativeFeatures.assumeIoUringAccepts(IoUring.Setup.SQPOLL);
        Ring ring = ring(IoUring.options().entries(8).sqPoll(0, 10));
        Results results = new Results();
        assertTrue(ring.nop(1));
        ring.submit();
        assertEquals(0, await(ring, results, 1));
        // Idle for 10 ms, the kernel thread says it sleeps (IORING_SQ_NEED_WAKEUP): the next submission must
        // wake it, or it never completes.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ring.submissionThreadAsleep()) {
            assertTrue(System.nanoTime() < deadline, "the polling thread, idle=10 ms, did not sleep within 10 s");
            Thread.sleep(1);
        }
        assertTrue(ring.nop(2));
        ring.submit();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!results.byUserData.containsKey(2L)) { // posted by the kernel thread: no call waits for it
            assertTrue(System.nanoTime() < deadline, "a submission to a sleeping polling thread did not complete "
                    + "within 10 s: not woken");
            ring.complete(results);
        }
        assertEquals(0, results.result(2));
    }

    @Test
    void theProbeFindsTheOperationsAndFeaturesThisLibraryUses() {
        IoUringSupport kernel = IoUringSupport.kernel();
        for (IoUring.Op op : List.of(IoUring.Op.NOP, IoUring.Op.READ, IoUring.Op.WRITE, IoUring.Op.SEND,
                IoUring.Op.RECV, IoUring.Op.ASYNC_CANCEL)) {
            assertTrue(kernel.supports(op), op + " missing from " + kernel.operations());
        }
        assertTrue((kernel.features() & Ring.FEAT_NODROP) != 0, "features=0x" + Integer.toHexString(kernel.features()));
        assertTrue(kernel.accepts(IoUring.Setup.SINGLE_ISSUER) || !kernel.accepts(IoUring.Setup.DEFER_TASKRUN),
                "DEFER_TASKRUN accepted where SINGLE_ISSUER, which it needs, was not");
    }

    @Test
    void aClosedRingRefusesEveryCallNamingItself() throws IOException {
        Ring ring = open(IoUring.options().entries(2));
        ring.close();
        ring.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ring.nop(1));
        assertTrue(e.getMessage().startsWith("closed: Ring[fd="), e.getMessage());
        assertThrows(IllegalStateException.class, ring::submit);
        assertThrows(IllegalStateException.class, () -> ring.complete((u, r, f) -> { }));
    }

    @Test
    void preparingSubmittingAndReapingAllocateNothing() throws Exception {
        NativeFeatures.assumeCallsAllocateNothing();
        Ring ring = ring(IoUring.options().entries(64));
        long[] sum = new long[1];
        long[] batches = new long[1];
        Ring.Completion counting = (userData, result, flags) -> sum[0] += userData;
        // One operation is a batch, as a ring is used: 16 entries prepared, one submission that waits for
        // their 16 completions, one reap. A single entry would measure the same calls with a batch of one.
        SteadyState.assertAllocatesNothingPerOperation("batches of 16 NOPs prepared, submitted and reaped",
                List.of(Thread.currentThread()), 0, i -> {
                    for (int k = 0; k < 16; k++) {
                        ring.nop(k);
                    }
                    ring.submitAndWait(16);
                    if (ring.complete(counting) != 16) {
                        throw new AssertionError("batch " + i + ": not 16 completions");
                    }
                    batches[0]++;
                });
        assertEquals(batches[0] * 120, sum[0], "the user data of every completion, 0 to 15 a batch");
    }
}
