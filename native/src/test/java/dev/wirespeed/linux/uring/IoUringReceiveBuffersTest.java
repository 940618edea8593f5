package dev.wirespeed.linux.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.internal.uring.UringPoller;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The receive buffers an io_uring loop shares among its connections, against peers that send without
 * end and never read: the loop stops reading each once its replies reach the output limit, and what
 * each had received waits for it in the ring's buffers. Four times as many such peers as could take
 * every buffer at their cap hold nearly all of them (checked before going on), and an honest client
 * is still served.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IoUringReceiveBuffersTest {
    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @Test
    void peersThatSendAndNeverReadDoNotStarveTheOthersOfReceiveBuffers() throws Exception {
        IoUringTransport uring = IoUringTransport.create(); // 512 buffers; a connection holds 32 at most
        List<UringPoller> pollers = new CopyOnWriteArrayList<>();
        LoopTransport recording = new LoopTransport() {
            @Override
            public String name() {
                return uring.name();
            }

            @Override
            public Poller openPoller() throws IOException {
                Poller p = uring.openPoller();
                pollers.add((UringPoller) p);
                return p;
            }

            @Override
            public Listener listen(SocketAddress address, int backlog) throws IOException {
                return uring.listen(address, backlog);
            }
        };
        int buffers = 512;
        int attackers = 4 * buffers / uring.maxHeldBuffers(); // four times as many as could take every buffer
        List<SocketChannel> open = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body)).transport(recording)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).start()) {
            SocketAddress address = server.localAddresses().getFirst();
            ByteBuffer frames = ByteBuffer.allocate(64 * 1024);
            while (frames.remaining() >= 108) {
                frames.putInt(7).putInt(100).put(new byte[100]);
            }
            frames.flip();
            for (int i = 0; i < attackers; i++) {
                SocketChannel attacker = SocketChannel.open(address);
                open.add(attacker);
                Thread sender = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        while (true) {
                            attacker.write(frames.duplicate()); // blocks once the loop stops reading it
                        }
                    } catch (IOException closed) {
                        // the test closed it
                    }
                });
                senders.add(sender);
            }
            UringPoller poller = pollers.getFirst();
            await(() -> poller.receiveBuffersOut() >= buffers - uring.maxHeldBuffers(),
                    () -> "the attackers hold " + poller.receiveBuffersOut() + " of " + buffers + " receive buffers");
            System.out.println("IoUringReceiveBuffersTest: " + attackers + " peers that never read hold "
                    + poller.receiveBuffersOut() + " of the ring's " + buffers + " receive buffers");
            try (SocketChannel honest = SocketChannel.open(address)) {
                honest.configureBlocking(false);
                for (int i = 0; i < 100; i++) {
                    byte[] body = new byte[] {(byte) i, 1, 2, 3};
                    ByteBuffer out = ByteBuffer.allocate(12).putInt(i).putInt(4).put(body).flip();
                    while (out.hasRemaining()) {
                        honest.write(out);
                    }
                    ByteBuffer back = ByteBuffer.allocate(12);
                    int frame = i;
                    await(() -> {
                        try {
                            return honest.read(back) < 0 || !back.hasRemaining();
                        } catch (IOException e) {
                            throw new AssertionError(e);
                        }
                    }, () -> "no echo of frame " + frame + " for an honest client beside " + attackers
                            + " peers that never read: " + back.position() + " of 12 bytes; receive buffers out="
                            + poller.receiveBuffersOut());
                    assertArrayEquals(body, java.util.Arrays.copyOfRange(back.array(), 8, 12), "echo of frame " + i);
                }
            }
            assertNull(server.failure(), "the server failed");
        } finally {
            for (SocketChannel s : open) {
                s.close();
            }
            for (Thread t : senders) {
                t.join(10_000);
            }
        }
    }

    /** Waits for {@code condition}, 20 s at the most. */
    private static void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadline < 0, () -> what.get() + ", after 20 s");
            Thread.sleep(1);
        }
    }
}
