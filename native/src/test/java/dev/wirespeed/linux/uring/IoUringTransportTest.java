package dev.wirespeed.linux.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wirespeed.linux.Actor;
import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.uring.UringPoller;
import dev.wirespeed.loop.internal.TakesOutput;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.Poller;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.SteadyState;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link IoUringTransport}'s poller driven by hand on the test thread, where the contract suites
 * cannot look: receive buffers running out and a connection at its cap (bytes arrive whole and in
 * order all the same, read or lent), more completions than the completion queue holds, a reset peer, descriptors
 * released on close with operations in flight, a wake-up from another thread, a bounded wait, a
 * kernel without an operation, and no allocation per turn. Peers are JDK sockets.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IoUringTransportTest {
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

    /** A poller, its listener, and the connections accepted from it in order. */
    private final class Harness {
        final Poller poller;
        final Listener listener;
        final List<Endpoint> accepted = new ArrayList<>();
        /** The ops each attachment was last handed with, this poll. */
        final Map<Object, Integer> handed = new HashMap<>();

        Harness(IoUringTransport transport) throws IOException {
            this(transport, transport.openPoller());
        }

        /** A harness of {@code poller}, made by hand for {@code transport}. */
        Harness(IoUringTransport transport, Poller poller) throws IOException {
            this.poller = poller;
            open.add(poller);
            listener = transport.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            open.add(listener);
            poller.register(listener, listener);
        }

        SocketChannel connect() throws IOException {
            SocketChannel peer = SocketChannel.open(listener.localAddress());
            peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            open.add(peer);
            int before = accepted.size();
            while (accepted.size() == before) {
                poll(100);
            }
            return peer;
        }

        /** One poll: accepts what waits and records what was handed over. */
        int poll(long timeoutMillis) throws IOException {
            handed.clear();
            return poller.poll(timeoutMillis, (attachment, ops) -> {
                if (attachment == listener) {
                    try {
                        for (Endpoint e; (e = listener.accept()) != null; ) {
                            open.add(e);
                            poller.register(e, e, Poller.READ);
                            accepted.add(e);
                        }
                    } catch (IOException x) {
                        throw new AssertionError(x);
                    }
                } else {
                    handed.merge(attachment, ops, (a, b) -> a | b);
                }
            });
        }

        /** Polls until {@code endpoint} is ready to read, then reads once into {@code into}; {@return the count} */
        int readWhenReady(Endpoint endpoint, ByteBuffer into) throws IOException {
            while (true) {
                int n = endpoint.read(into);
                if (n != 0) {
                    return n;
                }
                poll(100);
            }
        }
    }

    private static byte[] random(long seed, int length) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void bytesArriveWholeAndInOrderWhenBuffersRunOutAndConnectionsReachTheirCap() throws Exception {
        // Two buffers of 64 bytes: one connection takes both (its cap), the other's receive runs out.
        Harness h = new Harness(IoUringTransport.create().receiveBuffers(2, 64));
        SocketChannel first = h.connect();
        SocketChannel second = h.connect();
        long seed = SEED.value();
        byte[] a = random(seed, 50_000);
        byte[] b = random(seed + 1, 50_000);
        CompletableFuture<Void> writers = CompletableFuture.allOf(
                CompletableFuture.runAsync(() -> writeAll(first, a)), CompletableFuture.runAsync(() -> writeAll(second, b)));
        // Read as a loop does, a little of each per turn: the buffers go round between the two.
        ByteBuffer gotA = ByteBuffer.allocateDirect(a.length);
        ByteBuffer gotB = ByteBuffer.allocate(b.length);
        while (gotA.position() < a.length || gotB.position() < b.length) {
            h.accepted.get(0).read(gotA.limit(Math.min(a.length, gotA.position() + 100)));
            h.accepted.get(1).read(gotB.limit(Math.min(b.length, gotB.position() + 77)));
            h.poll(10);
        }
        writers.get(30, TimeUnit.SECONDS);
        assertArrayEquals(a, bytes(gotA.flip()));
        assertArrayEquals(b, bytes(gotB.flip()));
    }

    /**
     * Sixty-four connections whose bytes all wait while four receive buffers are out: nearly every receive
     * finds the ring empty at once (checked before anything is read). Then, read a turn at a time, every
     * connection gets all its bytes in order, and a receive armed again for a buffer given back finds the
     * ring empty all the same at most once for each buffer given back: the starved ones are armed one per
     * buffer, oldest first. Armed all at once whenever any buffer came back, all but the few that took one
     * found the ring empty again, over and over.
     */
    @Test
    void starvedReceivesAreArmedOnePerBufferGivenBackAndEveryConnectionIsServedInFull() throws Exception {
        IoUringTransport transport = IoUringTransport.create().receiveBuffers(4, 64); // two held at most each
        Harness h = new Harness(transport);
        UringPoller poller = (UringPoller) h.poller;
        int connections = 64;
        List<SocketChannel> peers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            peers.add(h.connect());
        }
        long seed = SEED.value();
        byte[][] sent = new byte[connections][];
        for (int i = 0; i < connections; i++) {
            sent[i] = random(seed + i, 1_000); // 16 buffers' worth: each connection starves many times
            writeAll(peers.get(i), sent[i]);
        }
        // Nothing read: no buffer comes back, so every receive ends for want of one but those of the (two at
        // most) connections at their cap of two buffers, whose receives are cancelled instead.
        int starving = connections - transport.receiveBufferCount() / transport.maxHeldBuffers();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (poller.starvedReceives() < starving) {
            assertTrue(System.nanoTime() - deadline < 0, poller.starvedReceives() + " of " + connections
                    + " connections waiting for a receive buffer after 10 s; at least " + starving + " were to");
            h.poll(10);
        }
        ByteBuffer[] got = new ByteBuffer[connections];
        for (int i = 0; i < connections; i++) {
            got[i] = ByteBuffer.allocate(sent[i].length);
        }
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int left = connections; left > 0; ) {
            int unserved = left;
            assertTrue(System.nanoTime() - deadline < 0, () -> unserved + " connections not served in full after 30 s;"
                    + " waiting for a buffer: " + poller.starvedReceives() + ", buffers out: "
                    + poller.receiveBuffersOut());
            left = 0;
            for (int i = 0; i < connections; i++) {
                assertTrue(h.accepted.get(i).read(got[i]) >= 0, "end of stream at connection " + i);
                left += got[i].hasRemaining() ? 1 : 0;
            }
            h.poll(10);
        }
        for (int i = 0; i < connections; i++) {
            assertArrayEquals(sent[i], got[i].array(), "the bytes connection " + i + " was sent, in order");
        }
        long recycled = poller.receiveBuffersRecycled();
        long again = poller.receivesStarvedAgain();
        assertTrue(again <= recycled, again + " receives armed again for a buffer given back found the ring empty, "
                + "for " + recycled + " buffers given back (receives that found it empty: "
                + poller.receiveStarvations() + ")");
    }

    @Test
    void lentBytesAreReceivedInPlaceInOrderAndEachBufferGoesBackWhenConsumed() throws Exception {
        // Two buffers of 64 bytes for 20,000 bytes: only consuming what was lent lets the receive go on.
        Harness h = new Harness(IoUringTransport.create().receiveBuffers(2, 64));
        SocketChannel peer = h.connect();
        long seed = SEED.value();
        SplittableRandom pieces = new SplittableRandom(seed);
        byte[] sent = random(seed, 20_000);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> writeAll(peer, sent));
        LendingEndpoint e = (LendingEndpoint) h.accepted.get(0);
        ByteBuffer got = ByteBuffer.allocate(sent.length);
        while (got.hasRemaining()) {
            ByteBuffer lent = e.lend();
            if (lent == null) {
                h.poll(10);
                continue;
            }
            assertTrue(lent.isReadOnly() && lent.isDirect() && lent.hasRemaining(), lent.toString());
            assertSame(lent, e.lend(), "a second lend before consume");
            int n = 1 + pieces.nextInt(lent.remaining()); // some of it: the next lend starts after
            got.put(lent.slice(lent.position(), n));
            e.consume(n);
        }
        writer.get(30, TimeUnit.SECONDS);
        assertArrayEquals(sent, got.array());
        assertNull(e.lend(), "nothing more was sent");
        IllegalArgumentException over = assertThrows(IllegalArgumentException.class, () -> e.consume(1));
        assertTrue(over.getMessage().startsWith("n=1 lent=0 "), over.getMessage());
    }

    @Test
    void moreCompletionsThanTheQueueHoldsAreAllDelivered() throws Exception {
        // Queues of 2 and 4 entries, 24 connections each sending at once: completions overflow into the kernel.
        Harness h = new Harness(IoUringTransport.create().rings(2, 4));
        List<SocketChannel> peers = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            peers.add(h.connect());
        }
        for (int i = 0; i < peers.size(); i++) {
            writeAll(peers.get(i), random(i, 1_000));
        }
        for (int i = 0; i < peers.size(); i++) {
            ByteBuffer got = ByteBuffer.allocate(1_000);
            while (got.hasRemaining()) {
                h.readWhenReady(h.accepted.get(i), got);
            }
            assertArrayEquals(random(i, 1_000), got.array(), "connection " + i);
        }
    }

    @Test
    void writesAreSentInOrderThroughASendBufferSmallerThanThem() throws Exception {
        Harness h = new Harness(IoUringTransport.create().sendLimit(4096));
        SocketChannel peer = h.connect();
        Endpoint ours = h.accepted.get(0);
        byte[] sent = random(7, 300_000);
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> readExactly(peer, sent.length));
        ByteBuffer src = ByteBuffer.wrap(sent);
        h.poller.interest(ours, Poller.READ | Poller.WRITE);
        while (src.hasRemaining()) {
            if (ours.write(src) == 0) {
                h.poll(100); // the send buffer is full until a send completes
            }
        }
        while (!received.isDone()) {
            h.poll(10);
        }
        assertArrayEquals(sent, received.get());
    }

    /**
     * The writes of many connections in one turn share the poller's copy buffers, one after the other,
     * each sent from its own part and in order: a burst of small writes (a thousand handshakes' flights)
     * takes a few buffers, not one each, and a buffer whose parts are all sent is free again.
     */
    @Test
    void smallWritesOfManyConnectionsInOneTurnShareTheCopyBuffers() throws Exception {
        Harness h = new Harness(IoUringTransport.create()); // copy buffers of the send limit, 64 KiB
        UringPoller poller = (UringPoller) h.poller;
        int connections = 40;
        List<SocketChannel> peers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            SocketChannel peer = h.connect();
            peer.configureBlocking(false);
            peers.add(peer);
        }
        SplittableRandom random = new SplittableRandom(SEED.value());
        // Each burst: three writes a connection, none polled between; the first, 40,000-60,000 bytes, fits one
        // buffer; the second, 80,000-120,000, two (a part left over at a buffer's end is under 1,000 bytes).
        for (int perWrite : new int[] {500, 1_000}) {
            byte[][] sent = new byte[connections][];
            int total = 0;
            for (int i = 0; i < connections; i++) {
                sent[i] = random(random.nextLong(), 3 * perWrite - random.nextInt(perWrite));
                total += sent[i].length;
            }
            for (int w = 0; w < 3; w++) {
                for (int i = 0; i < connections; i++) {
                    int from = Math.min(w * perWrite, sent[i].length);
                    int length = Math.min(perWrite, sent[i].length - from);
                    ByteBuffer src = ByteBuffer.wrap(sent[i], from, length);
                    assertEquals(length, h.accepted.get(i).write(src), "write " + w + " of connection " + i);
                }
            }
            assertEquals(perWrite == 500 ? 1 : 2, poller.copyBuffersInUse(), total + " bytes written by " + connections
                    + " connections in one turn, in buffers of 64 KiB");
            ByteBuffer[] got = new ByteBuffer[connections];
            for (int i = 0; i < connections; i++) {
                got[i] = ByteBuffer.allocate(sent[i].length);
            }
            for (int left = connections; left > 0; ) {
                h.poll(10);
                left = 0;
                for (int i = 0; i < connections; i++) {
                    if (peers.get(i).read(got[i]) < 0) {
                        throw new AssertionError("end of stream at connection " + i);
                    }
                    left += got[i].hasRemaining() ? 1 : 0;
                }
            }
            for (int i = 0; i < connections; i++) {
                assertArrayEquals(sent[i], got[i].array(), "the bytes connection " + i + " wrote, in order");
            }
            // The parts come back as their sends complete, and with them every buffer.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (poller.copyBuffersInUse() > 0) {
                assertTrue(System.nanoTime() - deadline < 0, poller.copyBuffersInUse() + " copy buffers in use 10 s "
                        + "after every byte arrived");
                h.poll(10);
            }
        }
    }

    /**
     * The copy buffers' slabs but the first, once unused for the poller's unused time, are given back,
     * and a poller that waits without a limit meanwhile wakes for it: an idle loop gives its memory back
     * too. A watchdog wakes the poller after 20 s, and the test fails if that is what ended the wait.
     *
     * <p>A slab is given back only by a poll once it is due, and none empties before the writes that take its
     * buffers: so none can have been given back by a poll that ended less than the unused time after them.
     * The unused time is 1 s, where the writes and the polls until their sends complete take a few ms, and
     * the test judges "kept" and "woke for it" only where its clock shows it may: a run slow enough to have
     * reached the unused time (a stall of a second) is skipped, saying so, as it can tell nothing.
     */
    @Test
    void copyBuffersUnusedForTheTimeAreGivenBackWhileThePollerWaitsWithoutLimit() throws Exception {
        IoUringTransport transport = IoUringTransport.create();
        long unusedNanos = TimeUnit.SECONDS.toNanos(1);
        UringPoller poller = new UringPoller(transport.ringOptions(IoUringSupport.kernel()).params(), 512, 8192,
                transport.maxHeldBuffers(), 65_536, unusedNanos);
        Harness h = new Harness(transport, poller);
        int connections = 40; // a write of 40,000 bytes each: a buffer each, in 3 slabs of 16
        List<SocketChannel> peers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            SocketChannel peer = h.connect();
            peer.configureBlocking(false);
            peers.add(peer);
        }
        long beforeWrites = System.nanoTime(); // no slab emptied before this: the writes take every buffer
        for (Endpoint e : h.accepted) {
            assertEquals(40_000, e.write(ByteBuffer.allocate(40_000)));
        }
        long slab = 16 * 65_536;
        assertEquals(3 * slab, poller.copyBufferBytes());
        // The sends complete in these polls; the peers read meanwhile, so that no full socket buffer holds one
        // back. The polls stop once no buffer is in use: after the last, nothing can give a slab back.
        ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (poller.copyBuffersInUse() > 0) {
            assertTrue(System.nanoTime() - deadline < 0, poller.copyBuffersInUse() + " copy buffers in use after 10 s");
            h.poll(0);
            for (SocketChannel peer : peers) {
                assertTrue(peer.read(sink.clear()) >= 0, "end of stream at a peer");
            }
        }
        long sent = System.nanoTime() - beforeWrites;
        assumeTrue(sent < unusedNanos, () -> "the writes and their sends took " + TimeUnit.NANOSECONDS.toMillis(sent)
                + " ms, the unused time or more: a slab given back in them may have been due, so this run cannot "
                + "tell one given back too soon");
        assertEquals(3 * slab, poller.copyBufferBytes(), "kept until unused for 1 s: the last poll began less than "
                + TimeUnit.NANOSECONDS.toMillis(sent) + " ms after the writes");
        AtomicBoolean watchdog = new AtomicBoolean();
        Thread wakes = Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(20_000);
                watchdog.set(true);
                poller.wakeup();
            } catch (InterruptedException ended) {
                // the wait ended on its own
            }
        });
        poller.poll(-1, (attachment, ops) -> { }); // no limit but the copy buffers' unused time
        wakes.interrupt();
        if (watchdog.get()) {
            // A slab given back as the wait began was due already: this thread came to the wait a second late,
            // and a wait with no slab left to give back has no limit. Only a wait that began before gives
            // back nothing at its start.
            assumeTrue(poller.copyBufferBytes() == 3 * slab, () -> "the wait began after a slab was due, "
                    + poller.copyBufferBytes() + " bytes of slabs left: whether it would have woken is not known");
        }
        assertFalse(watchdog.get(), "the wait without a limit went on until the watchdog's wake-up after 20 s");
        // Slabs emptied in different polls are due at different times: poll, each wait bounded by the next
        // slab's time, until only the first is held.
        long trimmed = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (poller.copyBufferBytes() > slab) {
            assertTrue(System.nanoTime() - trimmed < 0, poller.copyBufferBytes() + " bytes of slabs held 10 s after "
                    + "the wait");
            poller.poll(100, (attachment, ops) -> { });
        }
        assertEquals(slab, poller.copyBufferBytes(), "the later slabs given back, the first kept");
    }

    /**
     * An idle loop, polling without a limit, gives back every spare slab of copy buffers within the unused
     * time after its last buffer came back, however their times fall: two slabs emptied some 200 ms apart
     * each end a wait of their own, where a poll that gave the first back went on to wait without a limit,
     * keeping the second. A watchdog wakes the poller at the deadline, the unused time and 2 s after the
     * test saw the last buffer back, so that a wait that keeps a slab ends, and fails the test.
     */
    @Test
    void anIdleLoopGivesBackEverySpareSlabWithinTheUnusedTimeAfterItsLastBuffer() throws Exception {
        IoUringTransport transport = IoUringTransport.create();
        long unusedNanos = TimeUnit.SECONDS.toNanos(1);
        UringPoller poller = new UringPoller(transport.ringOptions(IoUringSupport.kernel()).params(), 512, 8192,
                transport.maxHeldBuffers(), 65_536, unusedNanos);
        Harness h = new Harness(transport, poller);
        List<SocketChannel> peers = new ArrayList<>();
        for (int i = 0; i < 48; i++) {
            SocketChannel peer = h.connect();
            peer.configureBlocking(false);
            peers.add(peer);
        }
        // A write of 40,000 bytes takes a buffer of 64 KiB of its own, from the first slab with one free: 48 of
        // them take three slabs; 32 more, once those are back, the first two again, which leaves the third
        // unused since the first writes' sends and the second since the second's.
        writeAndAwaitCopyBuffers(h, peers, 48);
        long firstBack = System.nanoTime();
        long apart = TimeUnit.MILLISECONDS.toNanos(200);
        for (long left; (left = apart - (System.nanoTime() - firstBack)) > 0; ) {
            h.poll(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))); // spaces the slabs' times; nothing is due
        }
        writeAndAwaitCopyBuffers(h, peers, 32);
        long allBack = System.nanoTime(); // every slab's last buffer came back before this
        long slab = 16 * 65_536;
        long deadline = allBack + unusedNanos + TimeUnit.SECONDS.toNanos(2);
        Thread watchdog = Thread.ofPlatform().daemon().start(() -> {
            try {
                for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                    Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
                poller.wakeup();
            } catch (InterruptedException ended) {
                // every slab was given back in time
            }
        });
        try {
            while (poller.copyBufferBytes() > slab) {
                assertTrue(System.nanoTime() - deadline < 0, poller.copyBufferBytes() / slab + " slabs held, the unused "
                        + "time and 2 s after their last buffers came back, by a loop polling without a limit");
                poller.poll(-1, (attachment, ops) -> { });
            }
        } finally {
            watchdog.interrupt();
        }
        assertEquals(slab, poller.copyBufferBytes(), "the later slabs given back, the first kept");
    }

    /**
     * Writes 40,000 bytes on each of the first {@code n} connections, then polls, the peers reading, until
     * every copy buffer is back; fails after 10 s.
     */
    private static void writeAndAwaitCopyBuffers(Harness h, List<SocketChannel> peers, int n) throws IOException {
        UringPoller poller = (UringPoller) h.poller;
        for (int i = 0; i < n; i++) {
            assertEquals(40_000, h.accepted.get(i).write(ByteBuffer.allocate(40_000)), "write on connection " + i);
        }
        ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (poller.copyBuffersInUse() > 0) {
            assertTrue(System.nanoTime() - deadline < 0, poller.copyBuffersInUse() + " copy buffers in use after 10 s");
            h.poll(0);
            for (SocketChannel peer : peers) {
                assertTrue(peer.read(sink.clear()) >= 0, "end of stream at a peer");
            }
        }
    }

    /**
     * A connection takes the loop's buffers while their sizes together are under the send limit, however
     * few bytes each has to send: a chunk handed over with a few bytes is a whole chunk held. Counted by
     * bytes, it took chunks of 16 KiB holding 100 bytes each until 64 KiB of bytes waited, some 650 of
     * them, 10 MiB of the loop's memory.
     */
    @Test
    void aConnectionTakesBuffersWhileTheirSizesAreUnderTheSendLimitHoweverFewBytesTheyHold() throws Exception {
        Harness h = new Harness(IoUringTransport.create()); // a send limit of 64 KiB
        SocketChannel peer = h.connect();
        TakesOutput ours = (TakesOutput) h.accepted.get(0);
        List<Object> returned = new ArrayList<>();
        int taken = 0;
        for (int i = 0; i < 100; i++) { // no poll between: nothing completes meanwhile
            ByteBuffer chunk = ByteBuffer.allocateDirect(16 * 1024);
            chunk.put(0, new byte[100], 0, 100).limit(100);
            if (!ours.take(chunk, MemorySegment.ofBuffer(chunk), chunk, returned::add)) {
                break;
            }
            taken++;
        }
        assertEquals(4, taken, "chunks of 16 KiB taken, 100 bytes each, under a send limit of 64 KiB");
        peer.configureBlocking(false); // the sends go one after the other, each submitted by a poll
        ByteBuffer got = ByteBuffer.allocate(400);
        while (got.hasRemaining()) {
            h.poll(10);
            peer.read(got);
        }
        while (returned.size() < taken) {
            h.poll(10);
        }
        ByteBuffer one = ByteBuffer.allocateDirect(16 * 1024).limit(1);
        assertTrue(ours.take(one, MemorySegment.ofBuffer(one), one, returned::add), "room again once they came back");
    }

    @Test
    void aPeerThatResetsMidFrameFailsTheReadNamingRecvAndTheError() throws Exception {
        Harness h = new Harness(IoUringTransport.create());
        SocketChannel peer = h.connect();
        peer.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 100, 0, 0, 0, 1, 9, 9}));
        peer.setOption(StandardSocketOptions.SO_LINGER, 0);
        peer.close();
        Endpoint ours = h.accepted.get(0);
        ByteBuffer into = ByteBuffer.allocate(64);
        NativeIoException e = assertThrows(NativeIoException.class, () -> {
            while (true) {
                if (ours.read(into) < 0) {
                    throw new AssertionError("an orderly end, not a reset: " + into);
                }
                h.poll(100);
            }
        });
        assertTrue(e.getMessage().startsWith("recv"), e.getMessage());
        assertEquals(104, e.errno(), e.getMessage()); // ECONNRESET
    }

    @Test
    void closingWithOperationsInFlightReleasesEveryDescriptor() throws Exception {
        long before = openDescriptors();
        IoUringTransport transport = IoUringTransport.create().receiveBuffers(8, 4096);
        Poller poller = transport.openPoller();
        Listener listener = transport.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        poller.register(listener, listener);
        List<SocketChannel> peers = new ArrayList<>();
        List<Endpoint> ours = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            peers.add(SocketChannel.open(listener.localAddress()));
        }
        while (ours.size() < peers.size()) {
            poller.poll(100, (attachment, ops) -> {
                try {
                    for (Endpoint e; (e = listener.accept()) != null; ) {
                        poller.register(e, e, Poller.READ);
                        ours.add(e);
                    }
                } catch (IOException x) {
                    throw new AssertionError(x);
                }
            });
        }
        // Some hold received bytes, one has output the peer never reads; every receive is armed.
        for (int i = 0; i < 8; i++) {
            peers.get(i).write(ByteBuffer.wrap(new byte[5_000]));
        }
        ByteBuffer big = ByteBuffer.allocateDirect(1 << 16);
        for (int i = 0; i < 1_000; i++) { // 64 MB offered: the peer's socket fills and a send stays in flight
            ours.get(14).write(big.clear());
            poller.poll(0, (attachment, ops) -> { });
        }
        for (int i = 0; i < ours.size(); i++) {
            poller.deregister(ours.get(i));
            if (i % 2 == 0) {
                ours.get(i).close();
            } else {
                ours.get(i).reset();
            }
        }
        poller.close();
        listener.close();
        for (SocketChannel peer : peers) {
            peer.configureBlocking(true);
            ByteBuffer sink = ByteBuffer.allocate(1 << 16);
            try {
                while (peer.read(sink.clear()) >= 0) {
                    // each peer reads what was sent, then the end or a reset
                }
            } catch (IOException reset) {
                // a reset is an end too
            }
            peer.close();
        }
        assertEquals(before, openDescriptors(), "descriptors open before the poller and after it closed");
    }

    @Test
    void aSendLeftUnsubmittedByAResetNeverReachesTheSocketThatTakesItsDescriptorNumber() throws Exception {
        Harness h = new Harness(IoUringTransport.create());
        h.connect();
        Endpoint reset = h.accepted.get(0);
        reset.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4})); // prepared; the next poll submits it
        h.poller.deregister(reset);
        reset.reset();
        // The next peer's socket takes the lowest free descriptor number: the reset one's, had it been closed.
        SocketChannel peer = h.connect();
        Endpoint next = h.accepted.get(1);
        peer.shutdownOutput();
        ByteBuffer got = ByteBuffer.allocate(64);
        while (h.readWhenReady(next, got) > 0) {
            // until the end of the peer's stream
        }
        assertEquals(0, got.position(), "bytes the peer never sent");
    }

    @Test
    void aWakeupFromAnotherThreadEndsAWaitWithoutLimit() throws Exception {
        Harness h = new Harness(IoUringTransport.create());
        AtomicBoolean woken = new AtomicBoolean();
        AtomicBoolean endedAfterWakeup = new AtomicBoolean();
        AtomicInteger handed = new AtomicInteger(-1);
        Actor waiter = new Actor("waiter", () -> {
            h.poll(0); // the ring is opened on this thread
            handed.set(h.poll(-1));
            endedAfterWakeup.set(woken.get());
        });
        int tid = waiter.begin();
        // Asleep in io_uring_enter for at least one completion: the wait without limit is under way.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!waitingForCompletions(tid)) {
            assertTrue(System.nanoTime() - deadline < 0, "the poller did not wait in io_uring_enter within 10 s: "
                    + "/proc says " + Actor.systemCall(tid) + ", ended=" + !waiter.isAlive());
            Thread.sleep(1);
        }
        woken.set(true);
        h.poller.wakeup();
        assertNull(waiter.outcome());
        assertEquals(0, handed.get());
        assertTrue(endedAfterWakeup.get(), "the wait without limit ended before the wake-up");
    }

    /** Whether thread {@code tid} sleeps in {@code io_uring_enter} waiting for at least one completion. */
    private static boolean waitingForCompletions(int tid) {
        String[] call = Actor.systemCall(tid).split(" ");
        return call[0].equals(Long.toString(SyscallNumbers.IO_URING_ENTER)) && call.length > 3
                && !call[3].equals("0x0");
    }

    @Test
    void aBoundedWaitEndsWithNothingHandedOver() throws Exception {
        Harness h = new Harness(IoUringTransport.create());
        assertEquals(0, h.poll(20));
        assertTrue(h.handed.isEmpty(), h.handed.toString());
    }

    @Test
    void aKernelWithoutAnOperationIsRefusedNamingIt() {
        IoUringSupport masked = IoUringSupport.kernel().without(IoUring.Op.RECV);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> IoUringTransport.create(masked));
        assertTrue(e.getMessage().contains("lacks [RECV]"), e.getMessage());
    }

    @Test
    void ringSetupsReachTheRingAndImpossibleOnesAreRefusedByName() throws Exception {
        Harness sqPoll = new Harness(IoUringTransport.create().sqPoll(-1, 10));
        sqPoll.poll(0); // opens the ring
        int sqPollBit = IoUring.Setup.SQPOLL.bit();
        assertTrue((ringFlags(sqPoll.poller) & sqPollBit) != 0, sqPoll.poller.toString());
        Harness chosen = new Harness(IoUringTransport.create());
        chosen.poll(0);
        int deferred = IoUring.Setup.SINGLE_ISSUER.bit() | IoUring.Setup.DEFER_TASKRUN.bit();
        assertEquals(deferred, ringFlags(chosen.poller) & deferred, "the default where the kernel takes it: " + chosen.poller);
        Harness interrupt = new Harness(IoUringTransport.create().setup());
        interrupt.poll(0);
        assertEquals(0, ringFlags(interrupt.poller) & ~0x8, "no setup flags but CQSIZE (0x8): " + interrupt.poller);

        IllegalArgumentException deferWithSqPoll = assertThrows(IllegalArgumentException.class, () -> IoUringTransport
                .create().sqPoll(0, 10).setup(IoUring.Setup.SINGLE_ISSUER, IoUring.Setup.DEFER_TASKRUN));
        assertTrue(deferWithSqPoll.getMessage().endsWith("with SQPOLL (cpu=0): the kernel takes DEFER_TASKRUN only "
                + "without SQPOLL"), deferWithSqPoll.getMessage());
        IllegalArgumentException alone = assertThrows(IllegalArgumentException.class,
                () -> IoUringTransport.create().setup(IoUring.Setup.DEFER_TASKRUN));
        assertEquals("setup=[DEFER_TASKRUN]: DEFER_TASKRUN needs SINGLE_ISSUER", alone.getMessage());
        IllegalArgumentException sq = assertThrows(IllegalArgumentException.class,
                () -> IoUringTransport.create().setup(IoUring.Setup.SQPOLL));
        assertEquals("setup=[SQPOLL]: SQPOLL is set by sqPoll(cpu, idleMillis)", sq.getMessage());
        IoUringSupport kernel = IoUringSupport.kernel();
        java.util.Set<IoUring.Setup> flags = java.util.EnumSet.copyOf(kernel.setupFlags());
        flags.remove(IoUring.Setup.COOP_TASKRUN);
        IoUringSupport masked = new IoUringSupport(true, "", kernel.features(), flags, kernel.operations());
        UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                () -> IoUringTransport.create().setup(masked, IoUring.Setup.COOP_TASKRUN));
        assertEquals("io_uring setup flag COOP_TASKRUN is not accepted by this kernel", refused.getMessage());
    }

    /** {@return the setup flags of the poller's ring, as its description shows them} */
    private static int ringFlags(Poller poller) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("flags=0x([0-9a-f]+)").matcher(poller.toString());
        assertTrue(m.find(), poller.toString());
        return Integer.parseInt(m.group(1), 16);
    }

    @Test
    void echoTurnsAllocateNothingOnceWarm() throws Exception {
        NativeFeatures.assumeCallsAllocateNothing();
        Harness h = new Harness(IoUringTransport.create());
        SocketChannel peer = h.connect();
        peer.configureBlocking(false);
        ByteBuffer message = ByteBuffer.allocateDirect(100);
        ByteBuffer back = ByteBuffer.allocateDirect(100);
        ByteBuffer chunk = ByteBuffer.allocateDirect(4096);
        Poller.Ready echo = (attachment, ops) -> {
            try {
                chunk.clear();
                ((Endpoint) attachment).read(chunk);
                chunk.flip();
                ((Endpoint) attachment).write(chunk);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        };
        // The poller is driven on this thread, and so is the peer, a JDK socket whose calls are counted too.
        SteadyState.assertAllocatesNothingPerOperation("echoes, the peer's calls included",
                List.of(Thread.currentThread()), 0, i -> {
                    peer.write(message.clear());
                    back.clear();
                    while (back.hasRemaining()) {
                        h.poller.poll(0, echo); // reads what came and echoes it, or submits the echo
                        if (peer.read(back) < 0) {
                            throw new AssertionError("end of stream at echo " + i);
                        }
                    }
                });
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static void writeAll(SocketChannel channel, byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                channel.write(b);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] readExactly(SocketChannel channel, int length) {
        try {
            ByteBuffer b = ByteBuffer.allocate(length);
            while (b.hasRemaining()) {
                if (channel.read(b) < 0) {
                    throw new AssertionError("end of stream after " + b.position() + " of " + length);
                }
            }
            return b.array();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static long openDescriptors() throws IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
