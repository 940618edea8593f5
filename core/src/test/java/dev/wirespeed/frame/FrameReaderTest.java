package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Sequence;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameReaderTest {

    @Test
    void deliversFramesLargerThanItsBufferWhole() throws Exception {
        byte[] stream = new Frames().sequence(0, 3, 100_000).toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.randomSplits(stream, 7, 5000))
                .bufferCapacity(1024).build();
        Sequence.Checker verifier = new Sequence.Checker();
        assertEquals(3, reader.readFrames(verifier::check));
        assertEquals(3, verifier.frames());
    }

    @Test
    void acceptsAFrameOfExactlyMaxFrameLengthAndRefusesOneByteMore() throws Exception {
        byte[] ok = new Frames().frame(1, 10, new byte[10]).toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.whole(ok)).maxFrameLength(10).build();
        assertEquals(1, reader.readFrames((type, body) -> assertEquals(10, body.remaining())));

        byte[] tooLong = new Frames().frame(1, 10, new byte[10]).frame(2, 11, new byte[11]).toByteArray();
        FrameReader strict = FrameReader.builder(ScriptedChannel.whole(tooLong)).maxFrameLength(10).build();
        FrameTooLongException e = assertThrows(FrameTooLongException.class, () -> strict.readFrames((t, b) -> { }));
        assertEquals("frame too long: length=11 maxFrameLength=10 offset=18", e.getMessage());
        assertEquals(11, e.length());
        assertEquals(10, e.maxFrameLength());
        assertEquals(1, strict.frameCount());
    }

    @Test
    void refusesALengthOfTwoToTheThirtyOneMinusOneWithoutAllocatingForIt() throws Exception {
        byte[] stream = new Frames().header(5, Integer.MAX_VALUE).raw(new byte[64]).toByteArray();
        long heapBefore = threadAllocatedBytes();
        long directBefore = directMemoryUsed();
        FrameReader reader = FrameReader.builder(ScriptedChannel.whole(stream))
                .maxFrameLength(FrameFormat.MAX_MAX_FRAME_LENGTH).bufferCapacity(4096).build();
        FrameTooLongException e = assertThrows(FrameTooLongException.class, () -> reader.readFrame((t, b) -> { }));
        assertEquals("frame too long: length=2147483647 maxFrameLength=" + FrameFormat.MAX_MAX_FRAME_LENGTH
                + " offset=0", e.getMessage());
        assertTrue(threadAllocatedBytes() - heapBefore < 1 << 20, "heap allocated near the length");
        assertTrue(directMemoryUsed() - directBefore < 1 << 20, "direct memory allocated near the length");
    }

    @Test
    void growsOnlyAsTheBytesOfAnAnnouncedFrameArrive() throws Exception {
        // A peer announces 16 MiB and sends 10 bytes: the buffer must not jump to 16 MiB.
        byte[] stream = new Frames().header(1, 16 * 1024 * 1024).raw(new byte[10]).toByteArray();
        long directBefore = directMemoryUsed();
        FrameReader reader = FrameReader.builder(ScriptedChannel.whole(stream)).bufferCapacity(4096).build();
        TruncatedFrameException e = assertThrows(TruncatedFrameException.class, () -> reader.readFrame((t, b) -> { }));
        assertEquals("truncated frame: body bytes present=10 of length=16777216 offset=0", e.getMessage());
        assertEquals(List.of(10, 16777216, false, 0L), List.of(e.present(), e.expected(), e.inHeader(), e.offset()));
        assertTrue(directMemoryUsed() - directBefore < 64 * 1024, "buffer grew before bytes arrived");
    }

    @Test
    void givesTheHandlerAReadOnlyBigEndianViewOfExactlyTheBody() throws Exception {
        byte[] stream = new Frames().frame(0xCAFEBABE, 8, new byte[] {0, 0, 1, 2, 3, 4, 5, 6}).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(stream));
        List<String> seen = new ArrayList<>();
        assertTrue(reader.readFrame((type, body) -> {
            seen.add(Integer.toHexString(type) + " " + body.remaining() + " " + body.getInt(body.position()));
            assertTrue(body.isReadOnly());
            assertThrows(ReadOnlyBufferException.class, () -> body.put(body.position(), (byte) 9));
        }));
        assertEquals(List.of("cafebabe 8 258"), seen);
        assertFalse(reader.readFrame((type, body) -> { }));
    }

    @Test
    void aViewKeptPastItsHandlerFailsLoudlyWithCheckedViews() throws Exception {
        byte[] stream = new Frames().sequence(0, 2, 16).toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.whole(stream)).checkedViews(true).build();
        List<ByteBuffer> kept = new ArrayList<>();
        reader.readFrames((type, body) -> kept.add(body));
        assertEquals(2, kept.size());
        for (ByteBuffer stale : kept) {
            assertThrows(BufferUnderflowException.class, stale::get);
            assertThrows(IndexOutOfBoundsException.class, () -> stale.get(0));
        }
    }

    @Test
    void oneViewIsRepointedAtEveryFrameWithoutCheckedViews() throws Exception {
        byte[] stream = new Frames().sequence(0, 3, 16).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(stream));
        List<ByteBuffer> kept = new ArrayList<>();
        reader.readFrame((type, body) -> kept.add(body));
        reader.readFrames((type, body) -> kept.add(body), 2);
        assertEquals(3, kept.size());
        assertSame(kept.get(0), kept.get(1), "readFrame and readFrames re-point one view each, not one per frame");
        assertEquals(2, kept.get(2).get(kept.get(2).position()),
                "the batch's view shows the last frame handed out");
    }

    @Test
    void aBatchStopsAtMaxFramesAndAtTheBufferedFrames() throws Exception {
        byte[] stream = new Frames().sequence(0, 10, 8).toByteArray();
        ScriptedChannel channel = ScriptedChannel.scripted(stream, call -> 4 * 16, "four-frames-a-read");
        FrameReader reader = FrameReader.builder(channel).build();
        List<Integer> types = new ArrayList<>();
        FrameHandler record = (type, body) -> types.add(type);
        assertEquals(3, reader.readFrames(record, 3), "maxFrames");
        assertEquals(1, reader.readFrames(record, 100), "the fourth frame was the last buffered");
        assertEquals(4, reader.readFrames(record, 100), "a read of four more");
        assertEquals(2, reader.readFrames(record, 100));
        assertEquals(0, reader.readFrames(record, 100), "clean end");
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), types);
        assertEquals(10, reader.frameCount());
        assertEquals(stream.length, reader.offset());
    }

    @Test
    void aBatchRefusesMaxFramesBelowOne() {
        FrameReader reader = new FrameReader(ScriptedChannel.whole(new byte[0]));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.readFrames((t, b) -> { }, 0));
        assertEquals("maxFrames=0 min=1", e.getMessage());
    }

    @Test
    void aBatchPassesTheHandlersExceptionOnWithTheFramesBeforeItConsumed() throws Exception {
        byte[] stream = new Frames().sequence(0, 6, 4).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(stream));
        java.io.IOException stop = new java.io.IOException("stop");
        int[] seen = {0};
        assertEquals(stop, assertThrows(java.io.IOException.class, () -> reader.readFrames((t, b) -> {
            if (++seen[0] == 3) {
                throw stop;
            }
        }, 100)));
        assertEquals(3, reader.frameCount(), "the frame whose handler threw counts as delivered");
        assertEquals(3L * (FrameFormat.HEADER_LENGTH + 4), reader.offset());
        List<Integer> rest = new ArrayList<>();
        assertEquals(3, reader.readFrames((type, body) -> rest.add(type), 100));
        assertEquals(List.of(3, 4, 5), rest);
    }

    @Test
    void passesTheHandlersExceptionOnAndCountsTheFrameAsDelivered() throws Exception {
        byte[] stream = new Frames().sequence(0, 2, 4).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(stream));
        java.io.IOException stop = new java.io.IOException("stop");
        assertEquals(stop, assertThrows(java.io.IOException.class, () -> reader.readFrame((t, b) -> {
            throw stop;
        })));
        assertEquals(1, reader.frameCount());
        byte[] second = new byte[4];
        assertTrue(reader.readFrame((type, body) -> body.get(second)));
        assertArrayEquals(new byte[] {1, 2, 3, 4}, second);
    }

    @Test
    void refusesAMaxFrameLengthItCannotBuffer() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FrameReader.builder(ScriptedChannel.whole(new byte[0])).maxFrameLength(-1));
        assertEquals("maxFrameLength=-1 min=0 max=" + FrameFormat.MAX_MAX_FRAME_LENGTH, e.getMessage());
    }

    @Test
    void aFrameOfExactlyMaxFrameLengthGrowsASmallBufferToHoldItWithItsHeader() throws Exception {
        byte[] stream = new Frames().sequence(0, 2, 100).toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.oneByteAtATime(stream)).bufferCapacity(16)
                .maxFrameLength(100).build();
        Sequence.Checker verifier = new Sequence.Checker();
        assertEquals(2, reader.readFrames(verifier::check));
        assertEquals(2, verifier.frames());
    }

    @Test
    void aBatchAndABlockTakeEveryBufferedFrameUpToTheLastByteEvenAtTheLimitOrEmpty() throws Exception {
        // Lengths at the limit (10) and empty frames, the stream ending exactly at the last frame's end.
        byte[] stream = new Frames().frame(0, 10, new byte[10]).frame(1, 0, new byte[0]).frame(2, 10, new byte[10])
                .frame(3, 10, new byte[10]).frame(4, 0, new byte[0]).toByteArray();
        FrameReader batch = FrameReader.builder(ScriptedChannel.whole(stream)).maxFrameLength(10).build();
        List<Integer> types = new ArrayList<>();
        assertEquals(5, batch.readFrames((type, body) -> types.add(type), 100));
        assertEquals(List.of(0, 1, 2, 3, 4), types);
        assertEquals(5, batch.frameCount());
        assertEquals(stream.length, batch.offset());
        assertEquals(0, batch.readFrames((type, body) -> types.add(type), 100));

        FrameReader block = FrameReader.builder(ScriptedChannel.whole(stream)).maxFrameLength(10).build();
        int[] lengths = {0};
        assertEquals(5, block.readBlock(frames -> lengths[0] = frames.remaining()));
        assertEquals(stream.length, lengths[0]);
        assertEquals(5, block.frameCount());
        assertEquals(0, block.readBlock(frames -> lengths[0] = -1));
    }

    @Test
    void truncationsAndCorruptionsNameWhatWasPresentAndWhere() throws Exception {
        byte[] header = new Frames().frame(1, 2, new byte[2]).raw(new byte[] {0, 0, 0, 7, 0}).toByteArray();
        FrameReader truncated = new FrameReader(ScriptedChannel.oneByteAtATime(header));
        assertTrue(truncated.readFrame((type, body) -> { }));
        TruncatedFrameException inHeader = assertThrows(TruncatedFrameException.class,
                () -> truncated.readFrame((type, body) -> { }));
        assertEquals("truncated frame: header bytes present=5 of 8 offset=10", inHeader.getMessage());
        assertEquals(List.of(5, 8, true, 10L),
                List.of(inHeader.present(), inHeader.expected(), inHeader.inHeader(), inHeader.offset()));
        byte[] negative = new Frames().frame(1, 2, new byte[2]).header(3, -5).toByteArray();
        FrameReader corrupt = new FrameReader(ScriptedChannel.whole(negative));
        CorruptFrameException e = assertThrows(CorruptFrameException.class, () -> corrupt.readFrames((t, b) -> { }));
        assertEquals("corrupt frame: negative length: length=-5 offset=10", e.getMessage());
        assertEquals(-5, e.length());
        assertEquals(10, e.offset());
        assertEquals(0xFFFFFFFEL, FrameFormat.unsignedType(-2));
    }

    @Test
    void aBatchWithCheckedViewsStopsAtMaxFramesAndAtTheBufferedFramesAsWithout() throws Exception {
        byte[] stream = new Frames().sequence(0, 10, 8).toByteArray();
        for (boolean checked : new boolean[] {true, false}) {
            ScriptedChannel channel = ScriptedChannel.scripted(stream, call -> 4 * 16, "four-frames-a-read");
            FrameReader reader = FrameReader.builder(channel).checkedViews(checked).build();
            List<Integer> types = new ArrayList<>();
            FrameHandler record = (type, body) -> types.add(type);
            List<Integer> counts = List.of(reader.readFrames(record, 3), reader.readFrames(record, 1),
                    reader.readFrames(record, 100), reader.readFrames(record, 100), reader.readFrames(record, 100));
            assertEquals(List.of(3, 1, 4, 2, 0), counts, "checkedViews=" + checked);
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), types, "checkedViews=" + checked);
            assertEquals(10, reader.frameCount());
        }
    }

    @Test
    void readFramesToTheEndCountsOnlyTheFramesItDelivered() throws Exception {
        byte[] stream = new Frames().sequence(0, 5, 3).toByteArray();
        FrameReader reader = FrameReader.builder(ScriptedChannel.oneByteAtATime(stream)).bufferCapacity(16).build();
        assertTrue(reader.readFrame((type, body) -> { }));
        assertTrue(reader.readFrame((type, body) -> { }));
        assertEquals(3, reader.readFrames((type, body) -> { }));
        assertEquals(5, reader.frameCount());
        assertEquals(0, reader.readFrames((type, body) -> { }));
    }

    @Test
    void theBuilderTakesTheSmallestAndLargestSettings() {
        FrameReader.Builder builder = FrameReader.builder(ScriptedChannel.whole(new byte[0]));
        assertSame(builder, builder.bufferCapacity(1));
        assertSame(builder, builder.bufferCapacity(dev.wirespeed.io.ChannelReader.MAX_CAPACITY));
        assertSame(builder, builder.maxFrameLength(0));
        assertSame(builder, builder.maxFrameLength(FrameFormat.MAX_MAX_FRAME_LENGTH));
    }

    @Test
    void itsStateReadsInItsNameAndCloseClosesTheChannel() throws Exception {
        byte[] stream = new Frames().frame(1, 4, new byte[4]).frame(2, 4, new byte[4]).toByteArray();
        ScriptedChannel channel = ScriptedChannel.whole(stream);
        FrameReader reader = FrameReader.builder(channel).maxFrameLength(10).build();
        assertTrue(reader.readFrame((type, body) -> { }));
        assertEquals("FrameReader[frames=1 offset=12 maxFrameLength=10]", reader.toString());
        assertEquals(12, reader.available(), "the second frame, buffered");
        assertEquals(10, reader.maxFrameLength());
        reader.close();
        assertFalse(channel.isOpen());
    }

    @Test
    void theBuilderRefusesABufferCapacityOutOfRangeOrANullChannelNamingThem() {
        int max = dev.wirespeed.io.ChannelReader.MAX_CAPACITY;
        FrameReader.Builder builder = FrameReader.builder(ScriptedChannel.whole(new byte[0]));
        assertEquals("bufferCapacity=0 min=1 max=" + max,
                assertThrows(IllegalArgumentException.class, () -> builder.bufferCapacity(0)).getMessage());
        assertEquals("bufferCapacity=" + (max + 1) + " min=1 max=" + max,
                assertThrows(IllegalArgumentException.class, () -> builder.bufferCapacity(max + 1)).getMessage());
        assertEquals("channel", assertThrows(NullPointerException.class, () -> FrameReader.builder(null)).getMessage());
    }

    static long threadAllocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    static long directMemoryUsed() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }
}
