package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.SteadyState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The steady state is garbage-free: once warm, no bytes allocated (by {@link SteadyState}'s rule: every
 * judged window of 10,000 operations allocates exactly nothing) when reading a frame per call, reading the
 * buffered frames per call, writing frames (a body copied from a buffer or an array, or claimed and
 * filled in place), echoing (each frame read written back, flushed when nothing is buffered, as an
 * echo server does) and relaying blocks (each block read written on as it is, flushed likewise). Everything runs on the test's thread, the one measured.
 */
class NoAllocationPerFrameTest {
    private static final int WARM = 200_000;
    private static final int BODY = 100;
    /** Frames handed over per {@code readFrames} call at most. */
    private static final int PER_CALL = 32;

    /** 4,096 frames of 100 bytes, replayed without end. */
    private static FrameReader reader() {
        ByteBuffer block = ByteBuffer.wrap(new Frames().sequence(0, 4096, BODY).toByteArray());
        return new FrameReader(new LoopingChannel(block));
    }

    /** {@return the operations run, warm-up included} */
    private static int assertAllocatesNothing(String what, SteadyState.Operation operation) throws Exception {
        return SteadyState.assertAllocatesNothingPerOperation(what, List.of(Thread.currentThread()), WARM, operation);
    }

    @Test
    void readingAFramePerCallAllocatesNothingOnceWarm() throws Exception {
        FrameReader reader = reader();
        long[] sum = {0};
        FrameHandler handler = (type, body) -> sum[0] += body.get(body.position()) + type;
        int operations = assertAllocatesNothing("readFrame calls", i -> {
            if (!reader.readFrame(handler)) {
                throw new AssertionError("end of stream at call " + i);
            }
        });
        assertEquals(operations, reader.frameCount());
        assertTrue(sum[0] != 0, "the handler saw no body");
    }

    @Test
    void readingTheBufferedFramesPerCallAllocatesNothingOnceWarm() throws Exception {
        FrameReader reader = reader();
        long[] sum = {0};
        FrameHandler handler = (type, body) -> sum[0] += body.get(body.position()) + type;
        int operations = assertAllocatesNothing("readFrames calls", i -> {
            if (reader.readFrames(handler, PER_CALL) == 0) {
                throw new AssertionError("end of stream at call " + i);
            }
        });
        assertTrue(reader.frameCount() >= operations, "frames read: " + reader.frameCount() + " calls: " + operations);
        assertTrue(sum[0] != 0, "the handler saw no body");
    }

    @Test
    void writingFramesAllocatesNothingOnceWarm() throws Exception {
        Discard out = new Discard();
        FrameWriter writer = FrameWriter.builder(out).build();
        ByteBuffer direct = ByteBuffer.allocateDirect(BODY);
        ByteBuffer heap = ByteBuffer.allocate(BODY);
        byte[] array = new byte[BODY];
        int operations = assertAllocatesNothing("writeFrame calls", i -> {
            switch (i % 3) {
                case 0 -> writer.writeFrame(i, direct.clear());
                case 1 -> writer.writeFrame(i, heap.clear());
                default -> writer.writeFrame(i, array, 0, BODY);
            }
        });
        writer.flush();
        assertEquals(operations, writer.frameCount());
        assertEquals((long) operations * (FrameFormat.HEADER_LENGTH + BODY), out.bytes, "every frame written");
    }

    @Test
    void claimingAndCommittingFramesAllocatesNothingOnceWarm() throws Exception {
        FrameWriter writer = FrameWriter.builder(new Discard()).build();
        int operations = assertAllocatesNothing("claim/commit pairs", i -> {
            writer.claim(i, BODY).putLong(i);
            writer.commit();
        });
        assertEquals(operations, writer.frameCount());
    }

    @Test
    void echoingFramesAllocatesNothingOnceWarm() throws Exception {
        FrameReader reader = reader();
        Discard out = new Discard();
        FrameWriter writer = FrameWriter.builder(out).bufferCapacity(64 * 1024).build();
        FrameHandler back = writer::writeFrame;
        assertAllocatesNothing("echo turns (readFrames, then flush when nothing is buffered)", i -> {
            if (reader.readFrames(back, PER_CALL) == 0) {
                throw new AssertionError("end of stream at turn " + i);
            }
            if (reader.available() == 0) {
                writer.flush();
            }
        });
        writer.flush();
        assertEquals(reader.frameCount() * (FrameFormat.HEADER_LENGTH + BODY), out.bytes, "every frame written back");
    }

    @Test
    void relayingBlocksAllocatesNothingOnceWarm() throws Exception {
        assertRelayAllocatesNothing("relay turns (readBlock into writeFrames, then flush when nothing is buffered)",
                (reader, writer) -> {
                    FrameBlockHandler relay = writer::writeFrames; // made once, not per turn
                    return () -> reader.readBlock(relay);
                });
    }

    @Test
    void relayBlockAllocatesNothingOnceWarm() throws Exception {
        assertRelayAllocatesNothing("relay turns (relayBlock, then flush when nothing is buffered)",
                (reader, writer) -> () -> reader.relayBlock(writer));
    }

    /** One relay turn: the frames it moved, 0 at the end of the stream. */
    @FunctionalInterface
    interface RelayStep {
        int relay() throws IOException;
    }

    private static void assertRelayAllocatesNothing(String what, BiFunction<FrameReader, FrameWriter, RelayStep> relayOf)
            throws Exception {
        FrameReader reader = FrameReader.builder(new LoopingChannel(
                ByteBuffer.wrap(new Frames().sequence(0, 4096, BODY).toByteArray()))).bufferCapacity(4 * 1024).build();
        Discard out = new Discard();
        FrameWriter writer = FrameWriter.builder(out).bufferCapacity(64 * 1024).build();
        RelayStep step = relayOf.apply(reader, writer);
        assertAllocatesNothing(what, i -> {
            if (step.relay() == 0) {
                throw new AssertionError("end of stream at turn " + i);
            }
            if (reader.available() == 0) {
                writer.flush();
            }
        });
        writer.flush();
        assertEquals(reader.frameCount(), writer.frameCount(), "every frame relayed");
        assertEquals(reader.offset(), out.bytes, "every byte relayed");
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

    /** Replays one block of bytes without end; allocates nothing per read. */
    private static final class LoopingChannel implements ReadableByteChannel {
        private final ByteBuffer block;

        LoopingChannel(ByteBuffer block) {
            this.block = block;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (!block.hasRemaining()) {
                block.rewind();
            }
            int n = Math.min(dst.remaining(), block.remaining());
            dst.put(dst.position(), block, block.position(), n);
            dst.position(dst.position() + n);
            block.position(block.position() + n);
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
