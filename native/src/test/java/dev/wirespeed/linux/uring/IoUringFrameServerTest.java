package dev.wirespeed.linux.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.FrameServerContract;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The server's contract on the io_uring transport, and its frames parsed where the ring received them. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
class IoUringFrameServerTest extends FrameServerContract {
    @BeforeEach
    void needsIoUring() {
        NativeFeatures.assumeIoUring();
    }

    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create();
    }

    @Override
    protected Optional<String> whyTheLoopMayAllocate() {
        return NativeFeatures.callsMayAllocate();
    }

    @Test
    void framesWithinOneReceiveAreHandedOverWhereTheyLieWithoutAnInputChunk() throws Exception {
        AtomicLong sum = new AtomicLong();
        AtomicBoolean copied = new AtomicBoolean();
        // No reply, so no output chunk: a pool that stays empty means no input chunk was taken either.
        try (FrameServer server = FrameServer.builder((connection, type, body) -> {
                    copied.compareAndSet(false, !body.isReadOnly() || !body.isDirect());
                    sum.addAndGet(body.get(body.position()) + type);
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .transport(IoUringTransport.create())
                .start();
                SocketChannel peer = SocketChannel.open(server.localAddresses().get(0))) {
            ByteBuffer frame = ByteBuffer.allocate(8 + 100);
            long expected = 0;
            for (int i = 0; i < 200; i++) {
                frame.clear().putInt(i).putInt(100).put((byte) (i % 100));
                frame.position(0).limit(frame.capacity());
                while (frame.hasRemaining()) {
                    peer.write(frame);
                }
                expected += i + i % 100;
                while (server.framesRead() < i + 1) { // each frame a receive of its own
                    Thread.onSpinWait();
                }
            }
            assertEquals(expected, sum.get());
            assertTrue(!copied.get(), "a body that is not a read-only direct view");
            assertEquals(0, server.pooledBytes(), "the loop took a chunk for input");
        }
    }
}
