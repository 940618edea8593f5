package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
    void aViewKeptPastItsHandlerIsEmptiedEvenWithoutCheckedViews() throws Exception {
        byte[] stream = new Frames().sequence(0, 1, 16).toByteArray();
        FrameReader reader = new FrameReader(ScriptedChannel.whole(stream));
        ByteBuffer[] kept = new ByteBuffer[1];
        reader.readFrame((type, body) -> kept[0] = body);
        assertThrows(BufferUnderflowException.class, kept[0]::get);
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

    static long threadAllocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    static long directMemoryUsed() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }
}
