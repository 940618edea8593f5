package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Frames;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import org.junit.jupiter.api.Test;

/** The steady state of reading frames is garbage-free: less than one byte allocated per frame. */
class NoAllocationPerFrameTest {
    private static final int FRAMES = 1_000_000;

    @Test
    void readingAMillionFramesAllocatesLessThanOneBytePerFrame() throws Exception {
        // 4,096 frames of 100 bytes, replayed by a channel that allocates nothing itself.
        ByteBuffer block = ByteBuffer.wrap(new Frames().sequence(0, 4096, 100).toByteArray());
        LoopingChannel channel = new LoopingChannel(block, (long) FRAMES * 108);
        FrameReader reader = new FrameReader(channel);
        long[] sum = {0};
        FrameHandler handler = (type, body) -> sum[0] += body.get(body.position()) + type;

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        long frames = reader.readFrames(handler);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertEquals(FRAMES, frames);
        assertTrue(sum[0] != 0);
        assertTrue(allocated < FRAMES, "allocated " + allocated + " bytes for " + FRAMES + " frames");
    }

    /** Replays one block of bytes until {@code total} bytes were read; allocates nothing per read. */
    private static final class LoopingChannel implements ReadableByteChannel {
        private final ByteBuffer block;
        private long left;

        LoopingChannel(ByteBuffer block, long total) {
            this.block = block;
            this.left = total;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (left == 0) {
                return -1;
            }
            if (!block.hasRemaining()) {
                block.rewind();
            }
            int n = (int) Math.min(left, Math.min(dst.remaining(), block.remaining()));
            dst.put(dst.position(), block, block.position(), n);
            dst.position(dst.position() + n);
            block.position(block.position() + n);
            left -= n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
