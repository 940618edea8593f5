package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Seed;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ChannelWriterTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    @Test
    void writesNothingUntilTheBufferFillsOrFlush() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        ChannelWriter writer = new ChannelWriter(sink, 16);
        writer.writeInt(1);
        writer.writeLong(2);
        assertEquals(0, sink.calls());
        assertEquals(12, writer.buffered());
        writer.writeInt(3);
        writer.writeInt(4);
        assertEquals(1, sink.calls(), "a full buffer is written whole");
        assertEquals(16, sink.written().length);
        writer.flush();
        assertEquals(20, sink.written().length);
        assertEquals(20, writer.offset());
    }

    @Test
    void writesAPrefixedRecordWhetherItFitsOrStraddlesTheBuffer() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        ChannelWriter writer = new ChannelWriter(sink, 20);
        byte[] body = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        writer.write(0x0102030405060708L, body, 2, 5); // fits: 13 of 20 bytes
        writer.write(-1L, body, 0, 10); // straddles: 7 bytes left
        writer.flush();
        ByteBuffer expected = ByteBuffer.allocate(31).putLong(0x0102030405060708L).put(body, 2, 5).putLong(-1L).put(body);
        assertArrayEquals(expected.array(), sink.written());
        assertEquals(31, writer.offset());
        assertEquals(IndexOutOfBoundsException.class, org.junit.jupiter.api.Assertions.assertThrows(
                IndexOutOfBoundsException.class, () -> writer.write(0L, body, 8, 3)).getClass());
        assertEquals(31, writer.offset(), "nothing accepted from a bad range");
    }

    @Test
    void finishesPartialWritesAndZeroByteWrites() throws Exception {
        SplittableRandom random = new SplittableRandom(SEED.value());
        ScriptedChannel sink = ScriptedChannel.sink(call -> call % 2 == 0 ? 0 : random.nextInt(1, 40), "stingy");
        ChannelWriter writer = new ChannelWriter(sink, 64);
        byte[] expected = new byte[10_000];
        random.nextBytes(expected);
        int at = 0;
        while (at < expected.length) {
            int n = Math.min(expected.length - at, random.nextInt(0, 200));
            if (random.nextBoolean()) {
                writer.write(expected, at, n);
            } else {
                ByteBuffer direct = ByteBuffer.allocateDirect(n).put(expected, at, n).flip();
                writer.write(direct);
                assertEquals(0, direct.remaining());
            }
            at += n;
        }
        writer.flush();
        assertArrayEquals(expected, sink.written());
    }

    @Test
    void integersThatStraddleTheBufferLeaveBigEndianByteForByte() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        ChannelWriter writer = new ChannelWriter(sink, 10);
        writer.writeByte((byte) 0x7F);
        writer.writeLong(0x0102030405060708L); // fits: 9 of 10
        writer.writeInt(0x11121314); // straddles: 1 byte left, then a write, then 3 of 10
        writer.writeLong(0x2122232425262728L); // straddles: 7 left, then a write, then 1 of 10
        writer.writeByte((byte) 0x33);
        writer.writeByte((byte) 0x34);
        writer.writeByte((byte) 0x35);
        writer.writeInt(0x41424344); // fits: 8 of 10
        assertEquals(2, sink.calls(), "two whole buffers");
        assertEquals(8, writer.buffered());
        assertEquals(28, writer.offset(), "20 written, 8 buffered");
        writer.flush();
        ByteBuffer expected = ByteBuffer.allocate(28).put((byte) 0x7F).putLong(0x0102030405060708L).putInt(0x11121314)
                .putLong(0x2122232425262728L).put((byte) 0x33).put((byte) 0x34).put((byte) 0x35).putInt(0x41424344);
        assertArrayEquals(expected.array(), sink.written());
        assertEquals(28, writer.offset());
        assertEquals(0, writer.buffered());
    }

    @Test
    void aHeapSourceLongerThanTheBufferIsCopiedThroughItInWholeBuffers() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        ChannelWriter writer = new ChannelWriter(sink, 16);
        byte[] bytes = new byte[50];
        new SplittableRandom(SEED.value()).nextBytes(bytes);
        writer.writeByte((byte) 1);
        ByteBuffer src = ByteBuffer.wrap(bytes, 5, 45);
        writer.write(src);
        assertEquals(50, src.position());
        assertEquals(2, sink.calls(), "two whole buffers of 16; 14 bytes wait");
        assertEquals(14, writer.buffered());
        writer.flush();
        byte[] expected = new byte[46];
        expected[0] = 1;
        System.arraycopy(bytes, 5, expected, 1, 45);
        assertArrayEquals(expected, sink.written());
    }

    @Test
    void aDirectSourceThatFitsIsBufferedAndOneOfAWholeBufferGoesStraightOutAfterWhatIsBuffered() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        ChannelWriter writer = new ChannelWriter(sink, 16);
        ByteBuffer fits = ByteBuffer.allocateDirect(16);
        writer.write(fits);
        assertEquals(List.of(0, 16), List.of(sink.calls(), writer.buffered()), "exactly the free room: buffered");
        writer.flush();
        writer.writeInt(7);
        ByteBuffer whole = ByteBuffer.allocateDirect(16).put(0, (byte) 9);
        writer.write(whole);
        assertEquals(List.of(3, 0), List.of(sink.calls(), writer.buffered()),
                "the 4 buffered bytes, then the 16 from where they lie");
        assertEquals(36, sink.written().length);
        assertEquals(9, sink.written()[20]);
        writer.flush();
        assertEquals(3, sink.calls(), "a flush with nothing buffered writes nothing");
    }

    @Test
    void anEmptyClaimCanBeCommitted() throws Exception {
        ChannelWriter writer = new ChannelWriter(ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole"), 16);
        assertEquals(0, writer.claim(0).remaining());
        assertEquals("commit length=1 claimed=0",
                assertThrows(IllegalStateException.class, () -> writer.commit(1)).getMessage());
        writer.commit(0);
        assertEquals("commit length=0 without a claim",
                assertThrows(IllegalStateException.class, () -> writer.commit(0)).getMessage());
    }

    @Test
    void aGatheringWriteThatTakesNothingIdlesAndCountsTheEmptyWritesInARow() throws Exception {
        java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
        int[] calls = {0};
        java.nio.channels.GatheringByteChannel stingy = new java.nio.channels.GatheringByteChannel() {
            @Override
            public long write(ByteBuffer[] srcs, int offset, int length) {
                if (calls[0]++ % 3 != 2) {
                    return 0; // two empty writes, then 10 bytes
                }
                long moved = 0;
                for (int i = offset; i < offset + length && moved < 10; i++) {
                    int n = (int) Math.min(srcs[i].remaining(), 10 - moved);
                    byte[] bytes = new byte[n];
                    srcs[i].get(bytes);
                    written.writeBytes(bytes);
                    moved += n;
                }
                return moved;
            }

            @Override
            public long write(ByteBuffer[] srcs) {
                return write(srcs, 0, srcs.length);
            }

            @Override
            public int write(ByteBuffer src) {
                return (int) write(new ByteBuffer[] {src}, 0, 1);
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        List<Integer> idled = new ArrayList<>();
        ChannelWriter writer = new ChannelWriter(stingy, 16, idled::add);
        writer.writeInt(0x01020304);
        byte[] body = new byte[16];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (10 + i);
        }
        writer.write(ByteBuffer.allocateDirect(16).put(body).flip());
        assertEquals(List.of(1, 2, 1, 2), idled, "two empty gathering writes before each of the two that moved bytes");
        ByteBuffer expected = ByteBuffer.allocate(20).putInt(0x01020304).put(body);
        assertArrayEquals(expected.array(), written.toByteArray());
        assertEquals(20, writer.offset());
    }

    @Test
    void aClaimIsFilledInPlaceAndCountsOnlyWhatIsCommitted() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        ChannelWriter writer = new ChannelWriter(sink, 16);
        writer.writeInt(0x01020304);
        ByteBuffer room = writer.claim(12);
        assertEquals(4, room.position());
        assertEquals(16, room.limit());
        room.putInt(0x05060708);
        writer.commit(4);
        assertEquals(8, writer.buffered());
        assertEquals(0, sink.calls(), "it fitted: nothing written");
        ByteBuffer full = writer.claim(16);
        assertEquals(1, sink.calls(), "did not fit: what was buffered went first");
        assertEquals(0, full.position());
        full.put(0, (byte) 9);
        writer.commit(0);
        assertEquals(0, writer.buffered(), "a claim committed empty is dropped");
        writer.writeByte((byte) 10);
        writer.flush();
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 10}, sink.written());
    }

    @Test
    void claimsAndCommitsOutOfRangeAreRefusedNamingTheirValues() throws Exception {
        ChannelWriter writer = new ChannelWriter(ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole"), 16);
        assertEquals("claim length=-1 min=0 capacity=16",
                assertThrows(IllegalArgumentException.class, () -> writer.claim(-1)).getMessage());
        assertEquals("claim length=17 min=0 capacity=16",
                assertThrows(IllegalArgumentException.class, () -> writer.claim(17)).getMessage());
        assertEquals("commit length=0 without a claim",
                assertThrows(IllegalStateException.class, () -> writer.commit(0)).getMessage());
        writer.claim(4);
        assertEquals("commit length=5 claimed=4",
                assertThrows(IllegalStateException.class, () -> writer.commit(5)).getMessage());
        assertEquals("commit length=-1 claimed=4",
                assertThrows(IllegalStateException.class, () -> writer.commit(-1)).getMessage());
        writer.commit(4);
        assertEquals("commit length=4 without a claim",
                assertThrows(IllegalStateException.class, () -> writer.commit(4)).getMessage());
        assertEquals(4, writer.offset());
    }

    @Test
    void closeFlushesThenClosesTheChannelEvenWhenTheFlushFails() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        ChannelWriter writer = new ChannelWriter(sink, 16);
        writer.writeInt(7);
        assertEquals("ChannelWriter[offset=4 buffered=4 capacity=16]", writer.toString());
        writer.close();
        assertArrayEquals(new byte[] {0, 0, 0, 7}, sink.written());
        assertFalse(sink.isOpen());

        boolean[] closed = {false};
        WritableByteChannel failing = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                throw new IOException("refused: remaining=" + src.remaining());
            }

            @Override
            public boolean isOpen() {
                return !closed[0];
            }

            @Override
            public void close() {
                closed[0] = true;
            }
        };
        ChannelWriter broken = new ChannelWriter(failing, 16);
        broken.writeLong(1L);
        assertEquals("refused: remaining=8", assertThrows(IOException.class, broken::close).getMessage());
        assertTrue(closed[0], "closed though the flush failed");
        assertEquals(8, broken.buffered(), "what the channel did not take stays buffered");
    }

    @Test
    void theConstructorRefusesANullChannelOrIdleStrategyAndABadCapacity() {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        assertEquals("channel", assertThrows(NullPointerException.class, () -> new ChannelWriter(null)).getMessage());
        assertEquals("idle", assertThrows(NullPointerException.class, () -> new ChannelWriter(sink, 16, null)).getMessage());
        assertEquals("capacity=0 min=1 max=" + Buffers.MAX_CAPACITY,
                assertThrows(IllegalArgumentException.class, () -> new ChannelWriter(sink, 0)).getMessage());
        assertEquals(ChannelWriter.DEFAULT_CAPACITY, new ChannelWriter(sink).capacity());
    }
}
