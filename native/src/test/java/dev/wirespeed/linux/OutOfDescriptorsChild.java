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
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A child process for {@link OutOfDescriptorsTest}: runs out of descriptors for real, with a server on
 * the transport its argument names ({@code epoll} or {@code io_uring}) listening, and checks what the
 * loop does: the listener's accept fails with {@code EMFILE} naming it, the loop does not spin while
 * descriptors lack, and the connection waiting is accepted and served once some come back. Exits 0
 * when every check held; an {@link AssertionError} naming the values ends it otherwise.
 */
public final class OutOfDescriptorsChild {
    private OutOfDescriptorsChild() {
    }

    /** Runs the checks. @param args the transport's name */
    public static void main(String[] args) throws Exception {
        LoopTransport transport = switch (args[0]) {
            case "epoll" -> EpollTransport.create();
            case "io_uring" -> IoUringTransport.create();
            default -> throw new IllegalArgumentException("transport=" + args[0] + ": epoll or io_uring");
        };
        SocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body)).transport(transport)
                .threadName("out-of-descriptors").bind(loopback).start();
                Listener raw = transport.listen(loopback, 16)) {
            SocketAddress address = server.localAddresses().getFirst();
            try (SocketChannel warm = SocketChannel.open(address)) {
                echo(warm, 1); // the classes of accepting and serving loaded while descriptors last
            }
            // Those of a failed accept too: a class file is a descriptor to open, from a directory.
            Class.forName("dev.wirespeed.loop.PausedListeners$Paused");
            check(new NativeIoException("accept4", 24, "warm-up").getMessage().contains("Too many open files"),
                    "strerror(24)");
            Thread loop = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("out-of-descriptors-0")).findFirst().orElseThrow();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();

            List<FileChannel> fillers = new ArrayList<>();
            SocketChannel peer;
            SocketChannel rawPeer;
            try {
                while (true) {
                    try {
                        fillers.add(FileChannel.open(Path.of("/dev/null")));
                    } catch (IOException full) {
                        break;
                    }
                }
                fillers.removeLast().close(); // one, for a peer's socket: the accept finds none left
                rawPeer = SocketChannel.open(raw.localAddress());
                NativeIoException e = expectThrows(raw);
                check(e.errno() == 24 && e.getMessage().startsWith("accept4 failed: errno=24 (Too many open files) fd="),
                        "the listener's accept failed with " + e);

                fillers.removeLast().close();
                peer = SocketChannel.open(address); // waits in the backlog: the server's accept finds none left
                await(() -> server.acceptFailures() >= 1, () -> "acceptFailures=" + server.acceptFailures());
                long wall = System.nanoTime();
                long cpu = threads.getThreadCpuTime(loop.threadId());
                await(() -> server.acceptFailures() >= 3, () -> "acceptFailures=" + server.acceptFailures());
                long wallMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - wall);
                long cpuMillis = TimeUnit.NANOSECONDS.toMillis(threads.getThreadCpuTime(loop.threadId()) - cpu);
                // 300 ms after the first failure; 250 at least after the moment this thread saw it
                check(wallMillis >= 250, "the second and third failed accepts came " + wallMillis + " ms after the "
                        + "first, not after pauses of 100 and 200 ms");
                check(cpuMillis <= wallMillis / 4, "the loop thread used " + cpuMillis + " ms of CPU in the " + wallMillis
                        + " ms from the first failed accept to the third: it spun");
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
        }
    }

    private static NativeIoException expectThrows(Listener raw) {
        try {
            raw.accept();
        } catch (NativeIoException e) {
            return e;
        } catch (IOException e) {
            throw new AssertionError("the accept failed, but not with a NativeIoException: " + e, e);
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
