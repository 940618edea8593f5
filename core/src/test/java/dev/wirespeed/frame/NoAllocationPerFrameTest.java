package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Frames;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import org.junit.jupiter.api.Test;

/**
 * The steady state is garbage-free: less than one byte allocated per frame when reading a frame per
 * call, reading the buffered frames per call, writing frames (a body copied from a buffer or an array,
 * or claimed and filled in place) and echoing (each frame read written back, flushed when nothing is buffered, as an echo server does).
 */
class NoAllocationPerFrameTest {
    private static final int FRAMES = 1_000_000;
    private static final int BODY = 100;

    /** 4,096 frames of 100 bytes, replayed until {@link #FRAMES} frames were read. */
    private static FrameReader reader() {
        ByteBuffer block = ByteBuffer.wrap(new Frames().sequence(0, 4096, BODY).toByteArray());
        return new FrameReader(new LoopingChannel(block, (long) FRAMES * (FrameFormat.HEADER_LENGTH + BODY)));
    }

    @Test
    void readingAFramePerCallAllocatesLessThanOneBytePerFrame() throws Exception {
        FrameReader reader = reader();
        long[] sum = {0};
        FrameHandler handler = (type, body) -> sum[0] += body.get(body.position()) + type;
        long frames = 0;
        long before = allocated();
        while (reader.readFrame(handler)) {
            frames++;
        }
        assertLessThanAByteAFrame(allocated() - before, frames, "readFrame");
        assertTrue(sum[0] != 0);
    }

    @Test
    void readingTheBufferedFramesPerCallAllocatesLessThanOneBytePerFrame() throws Exception {
        FrameReader reader = reader();
        long[] sum = {0};
        FrameHandler handler = (type, body) -> sum[0] += body.get(body.position()) + type;
        long frames = 0;
        long before = allocated();
        for (int n; (n = reader.readFrames(handler, 1_000)) > 0; ) {
            frames += n;
        }
        assertLessThanAByteAFrame(allocated() - before, frames, "readFrames");
        assertTrue(sum[0] != 0);
    }

    @Test
    void writingFramesAllocatesLessThanOneBytePerFrame() throws Exception {
        FrameWriter writer = FrameWriter.builder(new Discard()).build();
        ByteBuffer direct = ByteBuffer.allocateDirect(BODY);
        ByteBuffer heap = ByteBuffer.allocate(BODY);
        byte[] array = new byte[BODY];
        long before = allocated();
        for (int i = 0; i < FRAMES; i++) {
            switch (i % 3) {
                case 0 -> writer.writeFrame(i, direct.clear());
                case 1 -> writer.writeFrame(i, heap.clear());
                default -> writer.writeFrame(i, array, 0, BODY);
            }
        }
        writer.flush();
        assertLessThanAByteAFrame(allocated() - before, FRAMES, "writeFrame");
    }

    @Test
    void claimingAndCommittingFramesAllocatesLessThanOneBytePerFrame() throws Exception {
        FrameWriter writer = FrameWriter.builder(new Discard()).build();
        int warm = 200_000;
        for (int i = 0; i < warm; i++) {
            writer.claim(i, BODY).putLong(i);
            writer.commit();
        }
        long before = allocated();
        for (int i = 0; i < FRAMES; i++) {
            writer.claim(i, BODY).putLong(i);
            writer.commit();
        }
        assertLessThanAByteAFrame(allocated() - before, FRAMES, "claim/commit");
        assertEquals(warm + FRAMES, writer.frameCount());
    }

    @Test
    void echoingFramesAllocatesLessThanOneBytePerFrame() throws Exception {
        FrameReader reader = reader();
        Discard out = new Discard();
        FrameWriter writer = FrameWriter.builder(out).bufferCapacity(64 * 1024).build();
        FrameHandler back = writer::writeFrame;
        long frames = 0;
        long before = allocated();
        for (int n; (n = reader.readFrames(back, Integer.MAX_VALUE)) > 0; ) {
            frames += n;
            if (reader.available() == 0) {
                writer.flush();
            }
        }
        writer.flush();
        assertLessThanAByteAFrame(allocated() - before, frames, "echo");
        assertEquals(frames * (FrameFormat.HEADER_LENGTH + BODY), out.bytes, "every frame written back");
    }

    private static void assertLessThanAByteAFrame(long allocated, long frames, String what) {
        assertEquals(FRAMES, frames, what + ": frames");
        assertTrue(allocated < frames, what + ": allocated " + allocated + " bytes for " + frames + " frames");
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /** Takes every byte and keeps none; counts them. */
    private static final class Discard implements WritableByteChannel {
        long bytes;

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            bytes += n;
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
