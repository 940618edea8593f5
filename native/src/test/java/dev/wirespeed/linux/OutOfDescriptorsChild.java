package dev.wirespeed.linux;

import dev.wirespeed.linux.epoll.EpollTransport;
import dev.wirespeed.linux.uring.IoUringTransport;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A child process for {@link OutOfDescriptorsTest}: runs out of descriptors for real, with a server on
 * the transport its first argument names ({@code selector}, {@code epoll} or {@code io_uring}) listening,
 * and checks what the loop does. Its second argument says what takes the descriptors:
 *
 * <ul>
 *   <li>{@code files}: files opened until none is left; a listener of the transport's own is accepted
 *       from first, and its accept must fail with {@code EMFILE}, naming it.
 *   <li>{@code connections}: a flood of connections to the server, opened until none is left (this
 *       process holds both ends of each), which the loop accepts and holds.
 * </ul>
 *
 * Either way connections then wait in the server's backlog with no descriptor left to accept them: the
 * server's accept fails, and the loop must pause before failing again and not spin meanwhile (its
 * thread's CPU time over two failed accepts at most a quarter of the time that passes), nor fail more
 * than once per shortest pause; once the files are closed, or the flood's connections (the loop closing
 * its ends as they end), it accepts again: the connections that waited are served, and a new one. Exits
 * 0 when every check held; an {@link AssertionError} naming the values ends it otherwise.
 */
public final class OutOfDescriptorsChild {
    private static final String LOOP = "out-of-descriptors";
    /** Made while descriptors last: the first call loads a native library, a descriptor to open. */
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Peers left waiting in the backlog while no descriptor is left. */
    private static final int WAITING = 4;

    private OutOfDescriptorsChild() {
    }

    /** Runs the checks. @param args the transport's name, and what takes the descriptors */
    public static void main(String[] args) throws Exception {
        LoopTransport transport = switch (args[0]) {
            case "selector" -> null; // the server's default: the JDK's channels and Selector
            case "epoll" -> EpollTransport.create();
            case "io_uring" -> IoUringTransport.create();
            default -> throw new IllegalArgumentException("transport=" + args[0] + ": selector, epoll or io_uring");
        };
        switch (args[1]) {
            case "files" -> files(args[0], transport);
            case "connections" -> connections(transport);
            default -> throw new IllegalArgumentException("scenario=" + args[1] + ": files or connections");
        }
    }

    /** Files take the descriptors: see the class's documentation. */
    private static void files(String name, LoopTransport transport) throws Exception {
        SocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (FrameServer server = server(transport); Raw raw = Raw.listen(name, transport, loopback)) {
            SocketAddress address = server.localAddresses().getFirst();
            warm(address);
            Thread loop = loopThread();
            List<FileChannel> fillers = new ArrayList<>();
            SocketChannel peer;
            SocketChannel rawPeer;
            try {
                fill(fillers);
                fillers.removeLast().close(); // one, for a peer's socket: the accept finds none left
                rawPeer = SocketChannel.open(raw.address());
                raw.checkAcceptFails();

                fillers.removeLast().close();
                peer = SocketChannel.open(address); // waits in the backlog: the server's accept finds none left
                pausesWithoutSpinning(server, loop);
                check(server.connectionCount() == 0, "connectionCount=" + server.connectionCount() + " while out of "
                        + "descriptors");
            } finally {
                for (FileChannel f : fillers) {
                    f.close();
                }
            }
            rawPeer.close();
            try (SocketChannel served = peer) {
                await(() -> server.connectionCount() == 1, () -> "not accepted once descriptors came back: "
                        + "connectionCount=" + server.connectionCount() + " acceptFailures=" + server.acceptFailures());
                echo(served, 2);
            }
            try (SocketChannel next = SocketChannel.open(address)) {
                echo(next, 3);
            }
        }
    }

    /** A flood of connections takes the descriptors: see the class's documentation. */
    private static void connections(LoopTransport transport) throws Exception {
        try (FrameServer server = server(transport)) {
            SocketAddress address = server.localAddresses().getFirst();
            warm(address);
            Thread loop = loopThread();
            List<SocketChannel> flood = new ArrayList<>();
            List<FileChannel> fillers = new ArrayList<>();
            // Sockets opened now and connected once the flood took the rest, to wait in the backlog: several,
            // so that a descriptor the JVM holds for a moment (reading /proc, say) while the loop accepts, given
            // back after, cannot let the loop's next accept empty the backlog.
            List<SocketChannel> waiting = new ArrayList<>();
            for (int i = 0; i < WAITING; i++) {
                waiting.add(SocketChannel.open());
            }
            long start = System.nanoTime(); // before the first failed accept
            try {
                while (true) {
                    try {
                        flood.add(SocketChannel.open(address));
                    } catch (IOException full) {
                        check(String.valueOf(full.getMessage()).contains("Too many open files"), "connection "
                                + flood.size() + " of the flood failed, but not for want of a descriptor: " + full);
                        break;
                    }
                }
                await(() -> server.connectionCount() == flood.size() || server.acceptFailures() >= 1,
                        () -> "the server accepted " + server.connectionCount() + " of the flood's " + flood.size()
                                + " connections, and no accept failed");
                fill(fillers); // any descriptor a moment's holder gave back since the flood's last failed
                for (SocketChannel w : waiting) {
                    w.connect(address); // waits in the backlog: none left to accept it
                }
                pausesWithoutSpinning(server, loop);
                // The loop holds the flood's connections but those that wait in the backlog (as many as the flood
                // connected ahead of the loop's accepts): the flood's ends, both in this process, took the 512.
                int held = server.connectionCount();
                check(flood.size() + held >= 400, "a flood of " + flood.size() + " connections, " + held
                        + " accepted, took " + (flood.size() + held) + " of the 512 descriptors");
                System.out.println("connections: a flood of " + flood.size() + " connections, " + held + " of them "
                        + "accepted, took the descriptors");
            } finally {
                for (SocketChannel s : flood) {
                    s.close(); // the flood ends: the loop reads each one's end, and closes its own
                }
                for (FileChannel f : fillers) {
                    f.close();
                }
            }
            try (SocketChannel next = SocketChannel.open(address)) {
                echo(next, 2); // accepted once descriptors came back, after what waited in the backlog
            }
            for (SocketChannel w : waiting) {
                try (SocketChannel served = w) {
                    echo(served, 3);
                }
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long failures = server.acceptFailures();
            System.out.println("connections: accepting failed " + failures + " times in the " + millis + " ms from the "
                    + "flood's start to being served again");
            // The first failure came after start, and each after it a pause of 100 ms at least after the one before.
            check(failures <= 1 + millis / 100, "accepting failed " + failures + " times in " + millis + " ms: more "
                    + "often than once per shortest pause (100 ms)");
            await(() -> server.connectionCount() == 0, () -> "connectionCount=" + server.connectionCount()
                    + " once the flood and its peers closed");
        }
    }

    /** Opens {@code /dev/null} into {@code fillers} until no descriptor is left. */
    private static void fill(List<FileChannel> fillers) {
        while (true) {
            try {
                fillers.add(FileChannel.open(Path.of("/dev/null")));
            } catch (IOException full) {
                return;
            }
        }
    }

    /**
     * Waits for the server's first failed accept, then for two more, and checks the loop paused before
     * them and did not spin meanwhile. Sound whatever this thread's delays: if {@code n} accepts had
     * failed when it looked, the {@code n+1}th failed after it looked, and the {@code n+2}th a whole pause
     * after that one (the server's documented pause: 100 ms after the first failure, doubling at each, to
     * 1 s).
     */
    private static void pausesWithoutSpinning(FrameServer server, Thread loop) throws InterruptedException {
        await(() -> server.acceptFailures() >= 1, () -> "acceptFailures=" + server.acceptFailures());
        long wall = System.nanoTime();
        long cpu = THREADS.getThreadCpuTime(loop.threadId());
        long seen = server.acceptFailures(); // read after wall: the next failure came after it
        await(() -> server.acceptFailures() >= seen + 2, () -> "acceptFailures=" + server.acceptFailures()
                + ", " + seen + " when first seen");
        long wallMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - wall);
        long cpuMillis = TimeUnit.NANOSECONDS.toMillis(THREADS.getThreadCpuTime(loop.threadId()) - cpu);
        long pauseMillis = Math.min(100L << Math.min(seen, 10), 1000); // after failure seen+1
        check(wallMillis >= pauseMillis, "failed accepts " + (seen + 1) + " and " + (seen + 2) + " came within "
                + wallMillis + " ms of this thread seeing " + seen + ", not after a pause of " + pauseMillis + " ms");
        check(cpuMillis <= wallMillis / 4, "the loop thread used " + cpuMillis + " ms of CPU in the " + wallMillis
                + " ms from failed accept " + seen + " to " + (seen + 2) + ": it spun");
    }

    private static FrameServer server(LoopTransport transport) throws IOException {
        FrameServer.Builder b = FrameServer.builder((c, type, body) -> c.writeFrame(type, body)).threadName(LOOP)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        if (transport != null) {
            b.transport(transport);
        }
        return b.start();
    }

    /**
     * Loads, while descriptors last, the classes of accepting, serving and failing to accept, the loop's
     * and this one's: a class file is a descriptor to open.
     */
    private static void warm(SocketAddress address) throws Exception {
        try (SocketChannel warm = SocketChannel.open(address)) {
            echo(warm, 1);
        }
        THREADS.getThreadCpuTime(Thread.currentThread().threadId());
        // Those of a failed accept too: a class file is a descriptor to open, from a directory.
        Class.forName("dev.wirespeed.loop.PausedListeners$Paused");
        check(new NativeIoException("accept4", 24, "warm-up").getMessage().contains("Too many open files"),
                "strerror(24)");
    }

    private static Thread loopThread() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(LOOP + "-0")).findFirst()
                .orElseThrow();
    }

    /** A listener of the transport's own (the JDK's for the selector), accepted from directly. */
    private interface Raw extends AutoCloseable {
        SocketAddress address();

        /** Accepts, which must fail for want of a descriptor, saying so. */
        void checkAcceptFails();

        @Override
        void close() throws IOException;

        static Raw listen(String name, LoopTransport transport, SocketAddress loopback) throws IOException {
            if (transport == null) {
                ServerSocketChannel channel = ServerSocketChannel.open().bind(loopback, 16);
                return new Raw() {
                    @Override
                    public SocketAddress address() {
                        try {
                            return channel.getLocalAddress();
                        } catch (IOException e) {
                            throw new AssertionError(e);
                        }
                    }

                    @Override
                    public void checkAcceptFails() {
                        IOException e = expectThrows(channel::accept);
                        check("Too many open files".equals(e.getMessage()), "the " + name + " listener's accept "
                                + "failed with " + e);
                    }

                    @Override
                    public void close() throws IOException {
                        channel.close();
                    }
                };
            }
            Listener listener = transport.listen(loopback, 16);
            return new Raw() {
                @Override
                public SocketAddress address() {
                    return listener.localAddress();
                }

                @Override
                public void checkAcceptFails() {
                    IOException e = expectThrows(listener::accept);
                    check(e instanceof NativeIoException n && n.errno() == 24
                            && e.getMessage().startsWith("accept4 failed: errno=24 (Too many open files) fd="),
                            "the " + name + " listener's accept failed with " + e);
                }

                @Override
                public void close() throws IOException {
                    listener.close();
                }
            };
        }
    }

    /** {@return the failure of {@code accept}}, which must fail (a Callable: the JDK's, loaded already) */
    private static IOException expectThrows(Callable<?> accept) {
        try {
            accept.call();
        } catch (IOException e) {
            return e;
        } catch (Exception e) {
            throw new AssertionError("the accept failed, but not with an IOException: " + e, e);
        }
        throw new AssertionError("an accept succeeded with no descriptor left");
    }

    private static void echo(SocketChannel peer, int type) throws IOException {
        peer.write(ByteBuffer.allocate(9).putInt(type).putInt(1).put((byte) type).flip());
        ByteBuffer back = ByteBuffer.allocate(9);
        while (back.hasRemaining()) {
            check(peer.read(back) >= 0, "the server closed before echoing frame type=" + type);
        }
        check(back.flip().getInt() == type, "echoed " + back);
    }

    private static void check(boolean held, String otherwise) {
        if (!held) {
            throw new AssertionError(otherwise);
        }
    }

    /** Waits for {@code condition}, 20 s at the most. */
    private static void await(BooleanSupplier condition, Supplier<String> what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            check(System.nanoTime() - deadline < 0, what.get() + ", after 20 s");
            Thread.sleep(1);
        }
    }
}
