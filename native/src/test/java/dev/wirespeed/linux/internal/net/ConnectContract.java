package dev.wirespeed.linux.internal.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.RefusingPort;
import dev.wirespeed.testing.Seed;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link LoopTransport}'s outbound connections, driven by hand on the test thread through its poller
 * and endpoints, as a loop drives them ({@link LoopTransport#connect}, {@link Poller#CONNECT},
 * {@link Endpoint#finishConnect()}), against the JDK's blocking channels: connected over TCP (IPv4 and
 * IPv6) and Unix sockets, bytes both ways and the output shut; connects refused, naming the address; and
 * connects reset while under way, or before the poller has seen them, which leave nothing behind and the
 * poller working. A subclass names the transport, and tells whether its poller still holds anything of
 * the connections closed on it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ConnectContract {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    private static final int ECONNREFUSED = 111;
    private static final int ENOENT = 2;

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    /** What was handed over by the last {@link #poll}: each attachment's ops. */
    private final Map<Object, Integer> handed = new HashMap<>();
    /** Every attachment ever handed over. */
    private final Set<Object> reported = new HashSet<>();
    private Poller poller;

    /** {@return the transport under test} */
    protected abstract LoopTransport transport();

    /**
     * {@return whether {@code poller} holds nothing of the connections closed on it}: for a transport whose
     * kernel lets go of a closed connection in its own time (io_uring, where operations complete), whether
     * it has, and, once the poller is closed, whether it had before the poller freed their memory; true
     * where the kernel lets go at the close (the default). Descriptors are counted for every transport.
     *
     * @param poller the poller, open or closed
     */
    protected boolean holdsNothing(Poller poller) {
        return true;
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private Poller poller() throws IOException {
        if (poller == null) {
            poller = transport().openPoller();
            open.add(poller);
        }
        return poller;
    }

    private int poll(long timeoutMillis) throws IOException {
        handed.clear();
        return poller().poll(timeoutMillis, (attachment, ops) -> {
            handed.merge(attachment, ops, (a, b) -> a | b);
            reported.add(attachment);
        });
    }

    /** Begins a connect and registers it for its end; {@return the endpoint} */
    private Endpoint beginConnect(SocketAddress address) throws IOException {
        Endpoint e = transport().connect(address);
        open.add(e::reset);
        poller().register(e, e, Poller.CONNECT);
        return e;
    }

    /**
     * Polls until the poller reports {@code e}'s connect, at most {@code millis} (-1: no limit), and
     * finishes it; {@return whether it connected}
     */
    private boolean finishWhenReported(Endpoint e, long millis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (millis < 0 || System.nanoTime() - deadline < 0) {
            poll(10);
            Integer ops = handed.get(e);
            if (ops != null) {
                assertNotEquals(0, ops & (Poller.CONNECT | Poller.WRITE), "a connect reported as ops=" + ops);
                if (e.finishConnect()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Connects as a loop does: begun, reported, finished, then registered for reading. */
    private Endpoint connect(SocketAddress address) throws IOException {
        Endpoint e = beginConnect(address);
        assertTrue(finishWhenReported(e, -1));
        assertTrue(e.finishConnect(), "a connected endpoint finishes again");
        poller().interest(e, Poller.READ);
        return e;
    }

    @Test
    void connectsOverTcpAndExchangesBytesBothWays() throws Exception {
        exchange(listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50), 0);
    }

    @Test
    void connectsOverIpv6AndExchangesBytesBothWays() throws Exception {
        InetSocketAddress loopback6 = new InetSocketAddress(InetAddress.getByName("::1"), 0);
        ServerSocketChannel listener = ServerSocketChannel.open();
        open.add(listener);
        // Without IPv6 the JDK's channels are IPv4 ones, which refuse the address rather than fail to bind it.
        Exception refused = null;
        try {
            listener.bind(loopback6);
        } catch (IOException | UnsupportedAddressTypeException e) {
            refused = e;
        }
        Exception why = refused;
        Environment.assume(Feature.IPV6_LOOPBACK, why == null, () -> "no IPv6 loopback here, " + loopback6
                + " did not bind: " + why + " (net.ipv6.conf.lo.disable_ipv6=1, or a kernel without IPv6)");
        exchange(listener, 1);
    }

    @Test
    void connectsOverAUnixSocketAndExchangesBytesBothWays() throws Exception {
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)
                .bind(UnixDomainSocketAddress.of(dir.resolve("listening.sock")));
        open.add(listener);
        exchange(listener, 2);
    }

    /** Connects to {@code listener}, then sends and receives seeded bytes, and ends each direction in turn. */
    private void exchange(ServerSocketChannel listener, long salt) throws Exception {
        SocketAddress address = listener.getLocalAddress();
        Endpoint ours = connect(address);
        SocketChannel peer = listener.accept();
        open.add(peer);
        assertEquals(address, ours.remoteAddress(), ours.toString());
        long seed = SEED.value() + salt;
        byte[] toUs = random(seed, 100_000);
        byte[] toPeer = random(seed + 1, 100_000);
        CompletableFuture<Void> peerWrites = CompletableFuture.runAsync(() -> writeAll(peer, toUs));
        CompletableFuture<byte[]> peerReads = CompletableFuture.supplyAsync(() -> readExactly(peer, toPeer.length));
        ByteBuffer out = ByteBuffer.wrap(toPeer);
        ByteBuffer in = ByteBuffer.allocate(toUs.length);
        while (out.hasRemaining() || in.hasRemaining()) {
            if (out.hasRemaining()) {
                ours.write(out);
            }
            if (in.hasRemaining() && read(ours, in) < 0) {
                throw new AssertionError("end of stream after " + in.position() + " of " + toUs.length);
            }
            poll(10);
        }
        while (!peerReads.isDone()) {
            poll(10); // what is written may wait for a poll to be sent
        }
        peerWrites.get(30, TimeUnit.SECONDS);
        assertArrayEquals(toUs, in.array(), "the peer's bytes, received");
        assertArrayEquals(toPeer, peerReads.get(), "our bytes, sent");

        ours.shutdownOutput();
        CompletableFuture<Integer> peerSeesEnd = CompletableFuture.supplyAsync(() -> {
            try {
                return peer.read(ByteBuffer.allocate(1));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        while (!peerSeesEnd.isDone()) {
            poll(10);
        }
        assertEquals(-1, peerSeesEnd.get(), "the peer's read after our output was shut");
        peer.close();
        ByteBuffer rest = ByteBuffer.allocate(1);
        while (read(ours, rest) == 0) {
            poll(10);
        }
        assertEquals(-1, read(ours, rest), "our read after the peer closed");
        poller().deregister(ours);
        ours.close();
    }

    @Test
    void aConnectToAClosedPortFailsNamingTheAddress() throws Exception {
        try (RefusingPort refusing = new RefusingPort()) { // bound, not listening, for as long as the connect
            assertConnectFails(refusing.address(), ECONNREFUSED, "Connection refused");
        }
    }

    @Test
    void aConnectToAUnixPathThatDoesNotExistFailsNamingIt() throws Exception {
        assertConnectFails(UnixDomainSocketAddress.of(dir.resolve("nobody.sock")), ENOENT, "No such file or directory");
    }

    @Test
    void aConnectToAUnixSocketNobodyListensOnFailsNamingIt() throws Exception {
        UnixDomainSocketAddress stale = UnixDomainSocketAddress.of(dir.resolve("closed.sock"));
        ServerSocketChannel.open(StandardProtocolFamily.UNIX).bind(stale).close(); // the socket's file stays
        assertTrue(Files.exists(stale.getPath()), stale.toString());
        assertConnectFails(stale, ECONNREFUSED, "Connection refused");
    }

    /** A connect to {@code address} fails, either at once or when finished, with {@code errno}, naming the address. */
    private void assertConnectFails(SocketAddress address, int errno, String text) {
        NativeIoException e = assertThrows(NativeIoException.class, () -> {
            Endpoint ours = beginConnect(address);
            finishWhenReported(ours, -1);
        });
        String expected = Pattern.quote("connect failed: errno=" + errno + " (" + text + ") fd=") + "\\d+"
                + Pattern.quote(" remote=" + SocketAddresses.describe(address));
        assertTrue(e.getMessage().matches(expected), e.getMessage() + " should match " + expected);
        assertEquals(errno, e.errno(), e.getMessage());
    }

    @Test
    void aConnectResetWhileUnderWayLeavesNothingBehindAndThePollerGoesOn() throws Exception {
        // A listener that never accepts, its backlog of 1 full: the kernel drops the SYNs that come next.
        ServerSocketChannel full = listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
        // What this test opens, by what each descriptor is: other threads of the JVM may close theirs meanwhile.
        Set<String> before = openDescriptors();
        poll(0); // the poller's own descriptors, and a ring's, are counted from here
        List<Endpoint> queued = new ArrayList<>();
        Endpoint underWay = null;
        for (int i = 0; i < 8 && underWay == null; i++) {
            Endpoint e = beginConnect(full.getLocalAddress());
            if (finishWhenReported(e, 200)) {
                queued.add(e);
            } else {
                underWay = e;
            }
        }
        assertNotNull(underWay, "every connect to a listener whose backlog is full ended: " + queued.size());

        poller().deregister(underWay); // a connect timeout, as the loop does it
        underWay.reset();
        assertTrue(!underWay.isOpen(), underWay.toString());
        for (Endpoint e : queued) {
            poller().deregister(e);
            e.reset();
        }
        while (!holdsNothing(poller())) {
            poll(10);
        }
        poll(0);
        assertTrue(!reported.contains(underWay), "the reset connect was handed over: " + underWay);

        // The poller goes on: a connect after it is reported, and carries bytes.
        ServerSocketChannel listener = listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        Endpoint after = connect(listener.getLocalAddress());
        try (SocketChannel peer = listener.accept()) {
            peer.write(ByteBuffer.wrap(new byte[] {42}));
            ByteBuffer got = ByteBuffer.allocate(1);
            while (read(after, got) == 0) {
                poll(10);
            }
            assertEquals(42, got.get(0));
        }
        poller().deregister(after);
        after.reset();
        listener.close();

        poller.close();
        assertTrue(holdsNothing(poller), "closed before the kernel let go: " + poller);
        Set<String> left = new TreeSet<>(openDescriptors());
        left.removeAll(before);
        assertEquals(Set.of(), left, "descriptors opened by the poller and its connects, left after it closed");
    }

    @Test
    void aConnectResetBeforeAnyPollIsNeverReportedAndTheNextGoesWhereItWasSent() throws Exception {
        ServerSocketChannel abandoned = listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        ServerSocketChannel wanted = listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        poll(0);
        Set<String> before = openDescriptors();
        Endpoint reset = beginConnect(abandoned.getLocalAddress());
        poller().deregister(reset); // the client closed it at once: its connect may not have reached the kernel yet
        reset.reset();
        // Opened next, the socket would take the reset one's descriptor number, were it free.
        Endpoint next = connect(wanted.getLocalAddress());
        try (SocketChannel peer = acceptWithin(wanted, 10, next)) {
            assertEquals(1, next.write(ByteBuffer.wrap(new byte[] {7})));
            ByteBuffer got = ByteBuffer.allocate(1);
            peer.configureBlocking(false);
            while (got.hasRemaining()) {
                poll(10); // what is written may wait for a poll to be sent
                if (peer.read(got) < 0) {
                    throw new AssertionError("end of stream");
                }
            }
            assertEquals(7, got.get(0));
        }
        poller().deregister(next);
        next.reset();
        while (!holdsNothing(poller())) {
            poll(10);
        }
        assertTrue(!reported.contains(reset), "the reset connect was handed over: " + reset);
        Set<String> left = new TreeSet<>(openDescriptors());
        left.removeAll(before);
        assertEquals(Set.of(), left, "descriptors opened by the connects, left after their resets");
    }

    /** {@return the connection {@code listener} has from {@code ours}, which connected}; fails after {@code seconds} */
    private SocketChannel acceptWithin(ServerSocketChannel listener, long seconds, Endpoint ours) throws IOException {
        listener.configureBlocking(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        SocketChannel accepted;
        while ((accepted = listener.accept()) == null) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError(ours + " connected, yet " + listener.getLocalAddress()
                        + " has no connection after " + seconds + " s");
            }
            poll(10);
        }
        return accepted;
    }

    /** Reads what is there into {@code into} as a loop does, lending where it lends; {@return the count, or -1} */
    private static int read(Endpoint e, ByteBuffer into) throws IOException {
        if (!(e instanceof LendingEndpoint lender)) {
            return e.read(into);
        }
        ByteBuffer lent = lender.lend();
        if (lent == null) {
            return lender.ended() ? -1 : 0;
        }
        int n = Math.min(lent.remaining(), into.remaining());
        into.put(lent.slice(lent.position(), n));
        lender.consume(n);
        return n;
    }

    private ServerSocketChannel listen(SocketAddress address, int backlog) throws IOException {
        ServerSocketChannel listener = ServerSocketChannel.open().bind(address, backlog);
        open.add(listener);
        return listener;
    }

    private static byte[] random(long seed, int length) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
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

    /** {@return the process's open descriptors, each as {@code fd -> what it is} (a socket's inode, an epoll ...)} */
    private static Set<String> openDescriptors() throws IOException {
        Set<String> open = new TreeSet<>();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    open.add(fd.getFileName() + " -> " + Files.readSymbolicLink(fd));
                } catch (IOException closedMeanwhile) {
                    // closed between the listing and the look: not open
                }
            }
        }
        return open;
    }
}
