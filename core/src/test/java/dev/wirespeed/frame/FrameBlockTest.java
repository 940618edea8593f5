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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Frames a block at a time: {@link FrameReader#readBlock} hands over the whole frames buffered, and
 * {@link FrameWriter#writeFrames} takes whole frames as they are, checked first. The reader's outcome on
 * every wire vector and channel is {@link FrameReaderContractTest}'s; here, what the two do together and
 * what each refuses.
 */
class FrameBlockTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    /** One turn of a relay: at least one frame from the reader to the writer, or 0 at a clean end. */
    @FunctionalInterface
    interface RelayTurn {
        int relay(FrameReader reader, FrameWriter writer) throws IOException;
    }

    @Test
    void aRelayOfBlocksCopiesTheStreamWhateverTheSplits() throws Exception {
        assertARelayCopiesTheStream((reader, writer) -> reader.readBlock(writer::writeFrames));
    }

    @Test
    void relayBlockCopiesTheStreamWhateverTheSplits() throws Exception {
        assertARelayCopiesTheStream(FrameReader::relayBlock);
    }

    @Test
    void relayBlockChecksAgainstASmallerLimitOfTheWritersToo() throws Exception {
        // every frame within the writer's limit, the reader's the larger: checked twice, relayed whole
        SplittableRandom random = new SplittableRandom(SEED.value());
        Frames stream = new Frames();
        for (int i = 0; i < 200; i++) {
            int size = random.nextInt(0, 101);
            stream.frame(i, size, new byte[size]);
        }
        byte[] bytes = stream.toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.randomSplits(bytes, SEED.value(), 500)).build();
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = FrameWriter.builder(sink).maxFrameLength(100).build();
        while (reader.relayBlock(writer) > 0) {
            // the work is in relayBlock
        }
        writer.flush();
        assertArrayEquals(bytes, sink.written());
        assertEquals(200, writer.frameCount());
    }

    @Test
    void relayBlockRefusesAFrameOverTheWritersSmallerLimitNamingItAndWritesNoneOfItsBlock() throws Exception {
        byte[] bytes = new Frames().sequence(0, 2, 10).header(9, 101).raw(new byte[101]).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(bytes));
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = FrameWriter.builder(sink).maxFrameLength(100).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.relayBlock(writer));
        assertEquals("frame too long to relay: length=101 the writer's maxFrameLength=100 (the reader's 16777216)"
                + " offset=36 frame=2", e.getMessage());
        writer.flush();
        assertEquals(0, sink.written().length, "nothing of the block written");
        assertEquals(0, writer.frameCount());
        assertEquals(3, reader.frameCount(), "the block counts as read");
        assertEquals(bytes.length, reader.offset());
        assertEquals(0, reader.relayBlock(writer), "then a clean end");
    }

    @Test
    void aFrameTooLongToRelayIsNamedAtItsStreamOffsetAfterFramesReadOneByOne() throws Exception {
        byte[] bytes = new Frames().sequence(0, 2, 10).header(9, 101).raw(new byte[101]).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(bytes));
        FrameWriter writer = FrameWriter.builder(ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole"))
                .maxFrameLength(100).build();
        assertTrue(reader.readFrame((type, body) -> { }));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.relayBlock(writer));
        assertEquals("frame too long to relay: length=101 the writer's maxFrameLength=100 (the reader's 16777216)"
                + " offset=36 frame=2", e.getMessage());
    }

    @Test
    void relayBlockStopsBeforeABadLengthAndTheNextCallReportsItAtItsOffset() throws Exception {
        byte[] bytes = new Frames().sequence(0, 2, 5).header(9, -3).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(bytes));
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = new FrameWriter(sink);
        assertEquals(2, reader.relayBlock(writer));
        CorruptFrameException e = assertThrows(CorruptFrameException.class, () -> reader.relayBlock(writer));
        assertEquals(26, e.offset());
        writer.flush();
        assertArrayEquals(Arrays.copyOf(bytes, 26), sink.written(), "the two good frames, nothing after");
        assertEquals(2, writer.frameCount());
    }

    @Test
    void relayBlockReadsNothingWhileTheWriterHasAClaim() throws Exception {
        byte[] bytes = new Frames().sequence(0, 3, 10).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(bytes));
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = new FrameWriter(sink);
        writer.claim(7, 4);
        assertThrows(IllegalStateException.class, () -> reader.relayBlock(writer));
        assertEquals(0, reader.offset(), "nothing read");
        assertEquals(0, reader.frameCount());
        writer.abort();
        assertEquals(3, reader.relayBlock(writer));
        writer.flush();
        assertArrayEquals(bytes, sink.written());
    }

    @Test
    void aWriteThatFailsInARelayCountsTheBlockAsReadAndNoneOfItsFramesAsWritten() throws Exception {
        byte[] bytes = new Frames().sequence(0, 3, 10).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(bytes));
        IOException broken = new IOException("broken pipe");
        WritableByteChannel failing = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                throw broken;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        FrameWriter writer = FrameWriter.builder(failing).bufferCapacity(16).build(); // the block does not fit: written at once
        assertSame(broken, assertThrows(IOException.class, () -> reader.relayBlock(writer)));
        assertEquals(3, reader.frameCount(), "the block counts as read");
        assertEquals(bytes.length, reader.offset());
        assertEquals(0, writer.frameCount(), "none of its frames as written");
    }

    private static void assertARelayCopiesTheStream(RelayTurn turn) throws Exception {
        SplittableRandom random = new SplittableRandom(SEED.value());
        byte[] pattern = Sequence.pattern(70_000);
        Frames stream = new Frames();
        int frames = 2_000;
        for (int i = 0; i < frames; i++) {
            int size = random.nextInt(0, 50) == 0 ? random.nextInt(0, 70_000) : random.nextInt(0, 300);
            stream.frame(i, size, Arrays.copyOfRange(pattern, Sequence.offset(i), Sequence.offset(i) + size));
        }
        byte[] bytes = stream.toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.randomSplits(bytes, SEED.value(), 3_000))
                .bufferCapacity(1024).build();
        ScriptedChannel sink = ScriptedChannel.sink(call -> random.nextInt(0, 5_000), "random");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(2048).build();
        int blocks = 0;
        while (turn.relay(reader, writer) > 0) {
            blocks++;
            if (reader.available() == 0) {
                writer.flush();
            }
        }
        writer.flush();
        assertArrayEquals(bytes, sink.written(), "the stream relayed byte for byte");
        assertEquals(frames, reader.frameCount());
        assertEquals(frames, writer.frameCount());
        assertEquals(bytes.length, reader.offset());
        assertEquals(bytes.length, writer.offset());
        assertTrue(blocks < frames, "blocks of several frames: " + blocks + " blocks for " + frames + " frames");
    }

    @Test
    void aBlockIsTheWholeFramesBufferedAndEndsBeforeAPartialOne() throws Exception {
        byte[] bytes = new Frames().sequence(0, 3, 10).toByteArray(); // 3 frames of 18 bytes
        // the first read brings two frames and half the third, the second the rest
        FrameReader reader = FrameReader.builder(ScriptedChannel.splitAt(bytes, 45)).build();
        List<Integer> sizes = new ArrayList<>();
        FrameBlockHandler sizer = frames -> sizes.add(frames.remaining());
        assertEquals(2, reader.readBlock(sizer));
        assertEquals(1, reader.readBlock(sizer));
        assertEquals(0, reader.readBlock(sizer), "a clean end");
        assertEquals(List.of(36, 18), sizes);
        assertEquals(3, reader.frameCount());
        assertEquals(bytes.length, reader.offset());
    }

    @Test
    void aBadLengthEndsTheBlockAndTheNextCallReportsItAtItsOffset() throws Exception {
        byte[] bytes = new Frames().sequence(0, 2, 5).header(9, -3).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(bytes));
        int[] seen = {0};
        assertEquals(2, reader.readBlock(frames -> seen[0] += frames.remaining()));
        assertEquals(26, seen[0], "the two good frames");
        CorruptFrameException e = assertThrows(CorruptFrameException.class, () -> reader.readBlock(frames -> seen[0]++));
        assertEquals(26, e.offset());
        assertEquals(26, seen[0], "nothing after the good frames was handed over");
        assertEquals(e.getMessage(), assertThrows(CorruptFrameException.class, () -> reader.readBlock(frames -> seen[0]++))
                .getMessage(), "the same problem again");
    }

    @Test
    void aLengthOverTheLimitEndsTheBlockThoughItsBodyIsThere() throws Exception {
        byte[] bytes = new Frames().sequence(0, 2, 10).header(9, 101).raw(new byte[101]).toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.whole(bytes)).maxFrameLength(100).build();
        int[] seen = {0};
        assertEquals(2, reader.readBlock(frames -> seen[0] += frames.remaining()));
        assertEquals(36, seen[0], "the two good frames, not the long one");
        FrameTooLongException e = assertThrows(FrameTooLongException.class, () -> reader.readBlock(frames -> seen[0]++));
        assertEquals(36, e.offset());
        assertEquals(36, seen[0]);
    }

    @Test
    void aHandlerThatThrowsHasItsBlockCountedAndTheReaderGoesOnAfterIt() throws Exception {
        byte[] bytes = new Frames().sequence(0, 4, 10).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.splitAt(bytes, 36));
        IOException thrown = new IOException("handler");
        assertSame(thrown, assertThrows(IOException.class, () -> reader.readBlock(frames -> {
            throw thrown;
        })));
        assertEquals(2, reader.frameCount(), "the block was delivered");
        assertEquals(36, reader.offset());
        Sequence.Checker checker = new Sequence.Checker();
        for (int i = 0; i < 2; i++) {
            checker.check(i, ByteBuffer.wrap(Sequence.pattern(10), Sequence.offset(i), 10));
        }
        assertEquals(2, reader.readBlock(frames -> FrameReaderContractTest.walk(frames, checker::check)));
    }

    @Test
    void checkedViewsEmptyTheBlockWhenTheHandlerReturns() throws Exception {
        byte[] bytes = new Frames().sequence(0, 3, 10).toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.whole(bytes)).checkedViews(true).build();
        ByteBuffer[] kept = new ByteBuffer[1];
        assertEquals(3, reader.readBlock(frames -> {
            assertEquals(bytes.length, frames.remaining());
            kept[0] = frames;
        }));
        assertEquals(0, kept[0].remaining(), "emptied on return");
        assertTrue(kept[0].isReadOnly());
    }

    @Test
    void writeFramesRefusesBytesThatAreNotWholeFramesNamingWhereAndWritesNothing() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = FrameWriter.builder(sink).maxFrameLength(100).build();
        ByteBuffer good = ByteBuffer.wrap(new Frames().sequence(0, 2, 10).toByteArray()); // 36 bytes
        assertRefused(writer, frames(good, new Frames().raw(new byte[] {1, 2, 3}).toByteArray()),
                "not whole frames: a header of 8 bytes at index 36 has 3 before the limit=39 (position=0)");
        assertRefused(writer, frames(good, new Frames().header(1, 101).toByteArray()),
                "not whole frames: length=101 at index 36 outside 0..maxFrameLength=100 (position=0 limit=44)");
        assertRefused(writer, frames(good, new Frames().header(1, -1).toByteArray()),
                "not whole frames: length=-1 at index 36 outside 0..maxFrameLength=100 (position=0 limit=44)");
        assertRefused(writer, frames(good, new Frames().header(1, 20).raw(new byte[19]).toByteArray()),
                "not whole frames: the body of length=20 at index 44 runs past the limit=63 (position=0)");
        ByteBuffer offset = frames(new Frames().raw(new byte[5]).toByteArray(), good.array()).position(5);
        assertRefused(writer, offset.limit(offset.limit() - 1),
                "not whole frames: the body of length=10 at index 31 runs past the limit=40 (position=5)");
        writer.flush();
        assertEquals(0, sink.written().length, "nothing written");
        assertEquals(0, writer.frameCount());
        assertEquals(0, writer.writeFrames(ByteBuffer.allocate(0)), "no frames is whole frames");
    }

    @Test
    void writeFramesCopiesTheFramesAsTheyAreAndMovesThePosition() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> 7, "seven-bytes");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(16).build();
        byte[] bytes = new Frames().sequence(0, 5, 30).toByteArray();
        ByteBuffer frames = ByteBuffer.allocate(bytes.length + 6).position(3).put(bytes).flip().position(3);
        frames.order(ByteOrder.LITTLE_ENDIAN); // the fields are read big-endian whatever the buffer's order
        assertEquals(5, writer.writeFrames(frames));
        assertEquals(frames.limit(), frames.position());
        writer.writeFrame(5, ByteBuffer.wrap(Sequence.pattern(30), Sequence.offset(5), 30));
        writer.flush();
        assertArrayEquals(new Frames().sequence(0, 6, 30).toByteArray(), sink.written());
        assertEquals(6, writer.frameCount());
    }

    @Test
    void aDirectBlockOfAtLeastTheBufferIsWrittenFromWhereItLies() throws Exception {
        List<ByteBuffer> given = new ArrayList<>();
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        WritableByteChannel channel = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) {
                given.add(src);
                int n = src.remaining();
                byte[] chunk = new byte[n];
                src.get(chunk);
                written.write(chunk, 0, n);
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        FrameWriter writer = FrameWriter.builder(channel).bufferCapacity(64).build();
        byte[] bytes = new Frames().sequence(0, 10, 20).toByteArray();
        ByteBuffer block = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        writer.writeFrame(99, new byte[3], 0, 3);
        assertEquals(10, writer.writeFrames(block));
        writer.flush();
        assertTrue(given.stream().anyMatch(b -> b == block), "the block itself went to the channel: " + given);
        byte[] expected = new Frames().frame(99, 3, new byte[3]).raw(bytes).toByteArray();
        assertArrayEquals(expected, written.toByteArray());
        assertEquals(11, writer.frameCount());
    }

    @Test
    void writeFramesWhileAClaimIsOutstandingIsRefused() throws Exception {
        FrameWriter writer = FrameWriter.builder(ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole")).build();
        writer.claim(1, 4);
        assertEquals("a claimed frame of 12 bytes is not committed or aborted: frame=0",
                assertThrows(IllegalStateException.class, () -> writer.writeFrames(ByteBuffer.allocate(0))).getMessage());
    }

    @Test
    void checkWholeFramesCountsThemWithoutMovingTheBuffer() {
        ByteBuffer frames = ByteBuffer.wrap(new Frames().sequence(0, 3, 0).sequence(3, 2, 50).toByteArray());
        assertEquals(5, FrameFormat.checkWholeFrames(frames, 50));
        assertEquals(0, frames.position());
        assertEquals(frames.capacity(), frames.limit());
        assertEquals(0, FrameFormat.checkWholeFrames(frames.position(frames.limit()), 0));
    }

    private static void assertRefused(FrameWriter writer, ByteBuffer frames, String message) {
        int position = frames.position();
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> writer.writeFrames(frames)).getMessage());
        assertEquals(position, frames.position(), "the position did not move");
    }

    private static ByteBuffer frames(ByteBuffer first, byte[] then) {
        return frames(Arrays.copyOfRange(first.array(), 0, first.limit()), then);
    }

    private static ByteBuffer frames(byte[] first, byte[] then) {
        return ByteBuffer.allocate(first.length + then.length).put(first).put(then).flip();
    }
}
