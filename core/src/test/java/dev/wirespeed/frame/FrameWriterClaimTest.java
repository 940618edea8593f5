package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.Sequence;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Frames written in place ({@code claim}, {@code commit}, {@code abort}) and large bodies written without a copy. */
class FrameWriterClaimTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    @Test
    void claimedFramesFilledInPlaceAreTheWireFormatWhateverTheSplitsAndMixedWithCopiedOnes() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED.value());
        ScriptedChannel sink = ScriptedChannel.sink(call -> call % 3 == 0 ? 0 : random.nextInt(1, 50), "stingy-" + SEED.value());
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(256).maxFrameLength(248).build();
        byte[] pattern = Sequence.pattern(248);
        Frames expected = new Frames();
        for (int i = 0; i < 400; i++) {
            int size = random.nextInt(0, 249);
            if (i % 3 == 0) {
                writer.writeFrame(i, pattern, Sequence.offset(i), size);
            } else {
                ByteBuffer body = writer.claim(i, size);
                assertEquals(size, body.remaining(), "seed " + SEED.value());
                if (i % 2 == 0) {
                    body.put(pattern, Sequence.offset(i), size); // relative puts
                } else {
                    for (int k = 0; k < size; k++) { // absolute puts, counted from the view's position
                        body.put(body.position() + k, pattern[Sequence.offset(i) + k]);
                    }
                }
                writer.commit();
            }
            expected.sequence(i, 1, size);
        }
        writer.flush();
        assertArrayEquals(expected.toByteArray(), sink.written(), "seed " + SEED.value());
        assertEquals(400, writer.frameCount());
        assertEquals(expected.toByteArray().length, writer.offset());
    }

    @Test
    void anAbortedClaimLeavesNothingAndTheViewIsReused() throws IOException {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(64).build();
        ByteBuffer first = writer.claim(7, 10);
        first.put(new byte[10]);
        writer.abort();
        ByteBuffer second = writer.claim(0, 3);
        assertSame(first, second, "one view, re-pointed");
        second.put(Sequence.pattern(3), Sequence.offset(0), 3);
        writer.commit();
        writer.flush();
        assertArrayEquals(new Frames().sequence(0, 1, 3).toByteArray(), sink.written());
        assertEquals(1, writer.frameCount());
    }

    @Test
    void everyOtherCallBetweenAClaimAndItsCommitIsRefusedNamingTheClaim() throws IOException {
        FrameWriter writer = FrameWriter.builder(ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole"))
                .bufferCapacity(64).build();
        assertEquals("commit without a claim: frame=0",
                assertThrows(IllegalStateException.class, writer::commit).getMessage());
        assertEquals("abort without a claim: frame=0", assertThrows(IllegalStateException.class, writer::abort).getMessage());
        writer.claim(1, 4);
        String outstanding = "a claimed frame of 12 bytes is not committed or aborted: frame=0";
        assertEquals(outstanding, assertThrows(IllegalStateException.class, () -> writer.claim(2, 4)).getMessage());
        assertEquals(outstanding, assertThrows(IllegalStateException.class, writer::flush).getMessage());
        assertEquals(outstanding, assertThrows(IllegalStateException.class,
                () -> writer.writeFrame(3, new byte[1], 0, 1)).getMessage());
        assertEquals(outstanding, assertThrows(IllegalStateException.class,
                () -> writer.writeFrame(3, ByteBuffer.allocate(1))).getMessage());
        writer.commit();
        writer.flush();
    }

    @Test
    void aClaimLongerThanTheBufferOrTheLimitIsRefusedNamingEveryValue() {
        FrameWriter writer = FrameWriter.builder(ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole"))
                .bufferCapacity(64).maxFrameLength(100).build();
        assertEquals("frame too long to claim: length=57 bufferCapacity=64 (header 8 bytes); write it with writeFrame",
                assertThrows(IllegalArgumentException.class, () -> writer.claim(0, 57)).getMessage());
        assertEquals("frame too long to write: length=101 maxFrameLength=100 frame=0",
                assertThrows(IllegalArgumentException.class, () -> writer.claim(0, 101)).getMessage());
        assertEquals("claim length=-1 min=0",
                assertThrows(IllegalArgumentException.class, () -> writer.claim(0, -1)).getMessage());
    }

    @Test
    void closeDropsAClaimThatWasNotCommitted() throws IOException {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(64).build();
        writer.writeFrame(0, Sequence.pattern(5), Sequence.offset(0), 5);
        writer.claim(1, 20).put(new byte[20]);
        writer.close();
        assertArrayEquals(new Frames().sequence(0, 1, 5).toByteArray(), sink.written());
    }

    /** A gathering sink that records the calls it gets and takes at most {@code perCall} bytes each. */
    private static final class GatheringSink implements GatheringByteChannel {
        final java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
        final List<String> calls = new ArrayList<>();
        final int perCall;

        GatheringSink(int perCall) {
            this.perCall = perCall;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long moved = 0;
            for (int i = offset; i < offset + length && moved < perCall; i++) {
                int n = (int) Math.min(srcs[i].remaining(), perCall - moved);
                byte[] bytes = new byte[n];
                srcs[i].get(bytes);
                written.writeBytes(bytes);
                moved += n;
            }
            calls.add("gathering " + moved);
            return moved;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(ByteBuffer src) {
            int n = Math.min(src.remaining(), perCall);
            byte[] bytes = new byte[n];
            src.get(bytes);
            written.writeBytes(bytes);
            calls.add("single " + n);
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

    @Test
    void aDirectBodyOfAtLeastTheBufferLeavesInGatheringWritesAfterTheFramesBeforeIt() throws IOException {
        GatheringSink sink = new GatheringSink(1_000);
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(256).build();
        byte[] pattern = Sequence.pattern(5_000);
        writer.writeFrame(0, pattern, Sequence.offset(0), 20);
        ByteBuffer big = ByteBuffer.allocateDirect(3_000).put(pattern, Sequence.offset(1), 3_000).flip();
        writer.writeFrame(1, big);
        writer.writeFrame(2, pattern, Sequence.offset(2), 30);
        writer.flush();
        assertArrayEquals(new Frames().sequence(0, 1, 20).sequence(1, 1, 3_000).sequence(2, 1, 30).toByteArray(),
                sink.written.toByteArray());
        // The 36 buffered bytes (frame 0 and frame 1's header) and the body: 3,036 bytes in gathering calls
        // of at most 1,000, then frame 2 on its own. The body was never copied into the 256-byte buffer.
        assertEquals(List.of("gathering 1000", "gathering 1000", "gathering 1000", "gathering 36", "single 38"),
                sink.calls);
        assertEquals(20 + 3_000 + 30 + 24, writer.offset());
    }
}
