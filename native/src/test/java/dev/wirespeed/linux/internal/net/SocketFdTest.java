package dev.wirespeed.linux.internal.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.testing.Seed;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link SocketFd}'s reads and writes by the address of a buffer's segment, the loops' path; the rest
 * of its contract is {@code NativeSocket}'s, tested there.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native path is Linux-only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SocketFdTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    private static ServerSocketChannel jdkServer() throws java.io.IOException {
        return ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    }

    @Test
    void buffersReadAndWrittenAtTheAddressTheirSegmentGivesAdvanceAsChannelsDo() throws Exception {
        try (ServerSocketChannel server = jdkServer();
                SocketFd socket = SocketFd.connect(server.getLocalAddress());
                SocketChannel peer = server.accept()) {
            byte[] sent = new byte[3000];
            new SplittableRandom(SEED.value()).nextBytes(sent);
            ByteBuffer out = ByteBuffer.allocateDirect(4096);
            java.lang.foreign.MemorySegment outMemory = java.lang.foreign.MemorySegment.ofBuffer(out);
            out.put(100, sent).position(100).limit(100 + sent.length); // bytes past index 0, as a chunk holds them
            while (out.hasRemaining()) {
                socket.write(out, outMemory);
            }
            assertEquals(100 + sent.length, out.position());
            ByteBuffer received = ByteBuffer.allocate(sent.length);
            while (received.hasRemaining()) {
                peer.read(received);
            }
            assertEquals(ByteBuffer.wrap(sent), received.flip());
            peer.write(received.rewind());
            ByteBuffer in = ByteBuffer.allocateDirect(4096);
            java.lang.foreign.MemorySegment inMemory = java.lang.foreign.MemorySegment.ofBuffer(in);
            in.position(7).limit(7 + sent.length);
            while (in.hasRemaining()) {
                assertTrue(socket.read(in, inMemory) > 0);
            }
            assertEquals(ByteBuffer.wrap(sent), in.flip().position(7), "the bytes landed at the buffer's position");
            assertEquals(0, socket.read(in.position(in.limit()), inMemory), "a full buffer reads nothing");
            ByteBuffer longer = ByteBuffer.allocateDirect(8192);
            IllegalArgumentException shorter = assertThrows(IllegalArgumentException.class,
                    () -> socket.read(longer, inMemory));
            assertTrue(shorter.getMessage().contains("does not span buffer=") && shorter.getMessage().contains(
                    "to its limit=8192"), shorter.getMessage());
            IllegalArgumentException readOnly = assertThrows(IllegalArgumentException.class,
                    () -> socket.read(in.clear(), inMemory.asReadOnly()));
            assertTrue(readOnly.getMessage().contains("readOnly=true"), readOnly.getMessage());
        }
    }

    @Test
    void aLoopsConnectIsNonBlockingWithNoDelayAndEndsOnceThePeerAccepts() throws Exception {
        try (ServerSocketChannel server = jdkServer();
                SocketFd socket = SocketFd.connectForLoop(server.getLocalAddress());
                SocketChannel peer = server.accept()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!socket.finishConnect()) {
                assertTrue(System.nanoTime() < deadline, "the connect did not end in 10 s: " + socket);
                Thread.onSpinWait();
            }
            int flags = Sys.check(Sys.fcntl(socket.fd(), Flags.F_GETFL, 0), "fcntl", "F_GETFL");
            assertEquals(Flags.O_NONBLOCK, flags & Flags.O_NONBLOCK, "non-blocking: " + socket);
            assertTrue(socket.getTcpNoDelay(), "TCP_NODELAY: " + socket);
            assertEquals(server.getLocalAddress(), socket.remoteAddress());
            assertTrue(peer.isConnected());
        }
    }
}
