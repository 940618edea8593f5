package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Seed;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ChannelReaderTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    static java.util.List<Function<byte[], ScriptedChannel>> channels() {
        return java.util.List.of(ScriptedChannel::whole, ScriptedChannel::oneByteAtATime,
                ScriptedChannel::zeroEveryOtherCall, data -> ScriptedChannel.randomSplits(data, SEED.value(), 7));
    }

    @ParameterizedTest
    @MethodSource("channels")
    void readsIntsAndLongsBigEndianAcrossRefills(Function<byte[], ScriptedChannel> channel) throws Exception {
        ByteBuffer data = ByteBuffer.allocate(12 * 1000);
        for (int i = 0; i < 1000; i++) {
            data.putInt(i * 31).putLong(i * 1_000_000_007L);
        }
        ChannelReader reader = new ChannelReader(channel.apply(data.array()), 13, 13);
        for (int i = 0; i < 1000; i++) {
            assertEquals(i * 31, reader.readInt());
            assertEquals(i * 1_000_000_007L, reader.readLong());
        }
        assertEquals(12_000, reader.offset());
        assertFalse(reader.request(1));
        assertTrue(reader.isEndOfStream());
    }

    @Test
    void requestReturnsFalseAndRequireThrowsAtEndOfStreamLeavingTheBytesReadable() throws Exception {
        ChannelReader reader = new ChannelReader(ScriptedChannel.oneByteAtATime(new byte[] {1, 2, 3}));
        assertFalse(reader.request(4));
        assertEquals(3, reader.available());
        EOFException e = assertThrows(EOFException.class, reader::readInt);
        assertEquals("end of stream: required=4 available=3 offset=0", e.getMessage());
        assertEquals(1, reader.readByte());
        assertEquals(1, reader.offset());
        assertTrue(reader.request(2));
    }

    @Test
    void viewIsZeroCopyReadOnlyAndReusedAcrossCalls() throws Exception {
        ChannelReader reader = new ChannelReader(ScriptedChannel.whole(new byte[] {10, 11, 12, 13, 14}));
        ByteBuffer first = reader.view(2);
        assertTrue(first.isDirect());
        assertTrue(first.isReadOnly());
        assertEquals(2, first.remaining());
        assertEquals(10, first.get(first.position()));
        ByteBuffer second = reader.view(3);
        assertSame(first, second);
        assertEquals(12, second.get());
        assertEquals(5, reader.offset());
    }

    @Test
    void viewAfterSkipConsumesBothAndShowsOnlyTheTail() throws Exception {
        ChannelReader reader = new ChannelReader(ScriptedChannel.oneByteAtATime(new byte[] {1, 2, 3, 4, 5, 6}), 4, 8);
        ByteBuffer tail = reader.view(2, 3);
        assertEquals(3, tail.remaining());
        assertEquals(3, tail.get(tail.position()));
        assertEquals(5, reader.offset());
        EOFException e = assertThrows(EOFException.class, () -> reader.view(1, 1));
        assertEquals("end of stream: required=2 available=1 offset=5", e.getMessage());
        assertEquals(5, reader.offset(), "nothing consumed at end of stream");
        assertThrows(IllegalArgumentException.class, () -> reader.view(-1, 1));
    }

    @Test
    void growsForRequestsLargerThanTheBufferButNotPastMaxCapacity() throws Exception {
        byte[] data = new byte[10_000];
        new SplittableRandom(SEED.value()).nextBytes(data);
        ChannelReader reader = new ChannelReader(ScriptedChannel.randomSplits(data, SEED.value(), 300), 100, 16_384);
        ByteBuffer view = reader.view(10_000);
        byte[] copy = new byte[10_000];
        view.get(copy);
        assertEquals(ByteBuffer.wrap(data), ByteBuffer.wrap(copy));
        assertTrue(reader.capacity() >= 10_000 && reader.capacity() <= 16_384);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.request(16_385));
        assertEquals("byteCount=16385 min=0 maxCapacity=16384", e.getMessage());
    }

    @Test
    void everyReadRefusesANegativeOrOversizedCountBeforeAnyIoNamingTheValues() throws Exception {
        ChannelReader reader = new ChannelReader(ScriptedChannel.whole(new byte[100]), 16, 64);
        assertTrue(reader.request(8));
        long offset = reader.offset();
        int available = reader.available();
        for (int bad : new int[] {-1, Integer.MIN_VALUE, 65, Integer.MAX_VALUE}) {
            String expected = "byteCount=" + bad + " min=0 maxCapacity=64";
            assertEquals(expected, assertThrows(IllegalArgumentException.class, () -> reader.request(bad)).getMessage());
            assertEquals(expected, assertThrows(IllegalArgumentException.class, () -> reader.require(bad)).getMessage());
            assertEquals(expected, assertThrows(IllegalArgumentException.class, () -> reader.skip(bad)).getMessage());
            assertEquals(expected, assertThrows(IllegalArgumentException.class, () -> reader.view(bad)).getMessage());
            assertEquals(expected, assertThrows(IllegalArgumentException.class, () -> reader.indexOf((byte) 0, bad))
                    .getMessage());
        }
        assertEquals("skip=-1 byteCount=1 min=0 maxCapacity=64",
                assertThrows(IllegalArgumentException.class, () -> reader.view(-1, 1)).getMessage());
        assertEquals("skip=1 byteCount=-1 min=0 maxCapacity=64",
                assertThrows(IllegalArgumentException.class, () -> reader.view(1, -1)).getMessage());
        assertEquals("skip=2147483647 byteCount=2147483647 min=0 maxCapacity=64", assertThrows(
                IllegalArgumentException.class, () -> reader.view(Integer.MAX_VALUE, Integer.MAX_VALUE)).getMessage());
        assertEquals("skip=60 byteCount=5 min=0 maxCapacity=64",
                assertThrows(IllegalArgumentException.class, () -> reader.view(60, 5)).getMessage());
        assertEquals(offset, reader.offset(), "nothing consumed");
        assertEquals(available, reader.available(), "nothing read");
    }

    @Test
    void indexOfLooksAheadWithoutConsumingAndStopsAtMaxBytes() throws Exception {
        byte[] data = "abc\ndef\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ChannelReader reader = new ChannelReader(ScriptedChannel.oneByteAtATime(data), 4, 64);
        assertEquals(3, reader.indexOf((byte) '\n', 64));
        assertEquals(0, reader.offset());
        reader.skip(4);
        assertEquals(-1, reader.indexOf((byte) '\n', 2));
        assertEquals(3, reader.indexOf((byte) '\n', 4));
        reader.skip(4);
        assertEquals(-1, reader.indexOf((byte) '\n', 64));
        assertEquals(0, reader.available());
    }

    @ParameterizedTest
    @MethodSource("channels")
    void countToEndCountsEveryOccurrence(Function<byte[], ScriptedChannel> channel) throws Exception {
        byte[] data = new byte[5000];
        SplittableRandom random = new SplittableRandom(SEED.value());
        long expected = 0;
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (random.nextInt(4) == 0 ? '\n' : 'x');
            expected += data[i] == '\n' ? 1 : 0;
        }
        ChannelReader reader = new ChannelReader(channel.apply(data), 64, 64);
        assertEquals(expected, reader.countToEnd((byte) '\n'));
        assertEquals(5000, reader.offset());
    }

    @Test
    void peekIntRefusesBytesThatAreNotBuffered() throws Exception {
        ChannelReader reader = new ChannelReader(ScriptedChannel.whole(new byte[] {0, 0, 0, 7, 1}));
        assertTrue(reader.request(5));
        assertEquals(7, reader.peekInt(0));
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> reader.peekInt(2));
        assertEquals("index=2 size=4 available=5", e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("channels")
    void indexOfFindsTheFirstOccurrenceWithinMaxBytesAtEveryDistanceWhateverTheSplits(
            Function<byte[], ScriptedChannel> channel) throws Exception {
        SplittableRandom random = new SplittableRandom(SEED.value());
        byte[] data = new byte[3000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (random.nextInt(40) == 0 ? '\n' : 'a' + random.nextInt(26));
        }
        ChannelReader reader = new ChannelReader(channel.apply(data), 16, 256);
        int at = 0;
        while (at < data.length) {
            int maxBytes = random.nextInt(0, 257);
            int expected = -1;
            for (int i = at; i < Math.min(data.length, at + maxBytes); i++) {
                if (data[i] == '\n') {
                    expected = i - at;
                    break;
                }
            }
            assertEquals(expected, reader.indexOf((byte) '\n', maxBytes),
                    "offset=" + at + " maxBytes=" + maxBytes + " seed=" + SEED.value());
            assertEquals(at, reader.offset(), "indexOf consumes nothing");
            int step = Math.min(data.length - at, 1 + random.nextInt(60));
            reader.skip(step);
            at += step;
        }
        assertEquals(-1, reader.indexOf((byte) '\n', 256));
        assertEquals(0, reader.available());
        assertTrue(reader.isEndOfStream());
    }

    @Test
    void aRequestTheBufferedBytesCoverMovesNothingInTheBuffer() throws Exception {
        byte[] data = new byte[64];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) i;
        }
        ChannelReader reader = new ChannelReader(ScriptedChannel.splitAt(data, 40), 64, 64);
        assertTrue(reader.request(40));
        assertEquals(40, reader.available());
        reader.skip(10);
        assertEquals(10, reader.index());
        assertTrue(reader.request(30), "exactly what is buffered");
        reader.require(30);
        reader.require(0);
        assertTrue(reader.request(0));
        assertEquals(10, reader.index(), "no compaction without a read");
        assertEquals(30, reader.available());
        assertEquals(10, reader.buffer().get(reader.index()));
        assertEquals(0x0A0B0C0D, reader.peekInt(0));
        assertEquals(0x1E1F202122232425L, reader.peekLong(20));
        assertTrue(reader.request(31), "one more: read");
        assertEquals(0, reader.index(), "compacted to the front by the read");
        assertEquals(54, reader.available());
        assertEquals(10, reader.offset());
        assertEquals(10, reader.readByte());
    }

    @Test
    void peeksRefuseANegativeIndexOrBytesPastTheBufferedNamingTheValues() throws Exception {
        ChannelReader reader = new ChannelReader(ScriptedChannel.whole(new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 1}));
        assertTrue(reader.request(9));
        assertEquals(9, reader.peekLong(0));
        assertEquals(0x0000000901L, reader.peekLong(1));
        assertEquals("index=2 size=8 available=9",
                assertThrows(IndexOutOfBoundsException.class, () -> reader.peekLong(2)).getMessage());
        assertEquals("index=-1 size=8 available=9",
                assertThrows(IndexOutOfBoundsException.class, () -> reader.peekLong(-1)).getMessage());
        assertEquals("index=-1 size=4 available=9",
                assertThrows(IndexOutOfBoundsException.class, () -> reader.peekInt(-1)).getMessage());
        assertEquals(0x0901, reader.peekInt(5));
        reader.skip(1);
        assertEquals(0x0000000901L, reader.peekLong(0));
        assertEquals("index=1 size=8 available=8",
                assertThrows(IndexOutOfBoundsException.class, () -> reader.peekLong(1)).getMessage());
    }

    @Test
    void theConstructorRefusesSizesOutOfRangeNamingThemAndTheLimit() {
        ScriptedChannel channel = ScriptedChannel.whole(new byte[0]);
        int max = ChannelReader.MAX_CAPACITY;
        assertEquals("capacity=0 maxCapacity=10 limit=" + max, assertThrows(IllegalArgumentException.class,
                () -> new ChannelReader(channel, 0, 10)).getMessage());
        assertEquals("capacity=11 maxCapacity=10 limit=" + max, assertThrows(IllegalArgumentException.class,
                () -> new ChannelReader(channel, 11, 10)).getMessage());
        assertEquals("capacity=1 maxCapacity=" + (max + 1) + " limit=" + max, assertThrows(IllegalArgumentException.class,
                () -> new ChannelReader(channel, 1, max + 1)).getMessage());
        assertEquals(1, new ChannelReader(channel, 1, 1).capacity(), "the smallest: one byte, never grown");
        assertEquals("channel", assertThrows(NullPointerException.class, () -> new ChannelReader(null)).getMessage());
        assertEquals("idle", assertThrows(NullPointerException.class,
                () -> new ChannelReader(channel, 1, 1, null)).getMessage());
    }

    @Test
    void itsStateReadsInItsNameAndCloseClosesTheChannelLeavingTheBufferedBytes() throws Exception {
        ScriptedChannel channel = ScriptedChannel.whole(new byte[] {1, 2, 3, 4, 5});
        ChannelReader reader = new ChannelReader(channel, 8, 16);
        assertEquals(1, reader.readByte());
        assertEquals("ChannelReader[offset=1 available=4 capacity=8 maxCapacity=16 endOfStream=false]", reader.toString());
        reader.close();
        assertFalse(channel.isOpen());
        assertEquals(2, reader.readByte(), "buffered before the close");
        assertEquals(3, reader.available());
        assertThrows(java.nio.channels.ClosedChannelException.class, () -> reader.require(4));
    }

    @Test
    void aReaderOverItsOwnBufferReadsBigEndianFromItsStartAndNeverGrows() throws Exception {
        ByteBuffer own = ByteBuffer.allocateDirect(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).position(5);
        ChannelReader reader = new ChannelReader(ScriptedChannel.whole(new byte[] {0, 0, 1, 2, 3, 4, 5, 6, 7}), own);
        assertEquals(0, reader.available());
        assertEquals(0x0102, reader.readInt(), "big-endian, from the buffer's start");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.require(9));
        assertEquals("byteCount=9 min=0 maxCapacity=8", e.getMessage());
        assertEquals(4, reader.available(), "the buffer's eight bytes, four of them read");
        assertEquals(8, reader.capacity());
    }

    @Test
    void skipsAndViewsReadWhatIsNotBufferedYetAndAnEndOfStreamConsumesNothing() throws Exception {
        byte[] data = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        ChannelReader reader = new ChannelReader(ScriptedChannel.oneByteAtATime(data), 4, 8);
        reader.skip(3);
        assertEquals(3, reader.readByte());
        ByteBuffer view = reader.view(0, 3);
        assertEquals(List.of((byte) 4, (byte) 5, (byte) 6), List.of(view.get(), view.get(), view.get()));
        assertEquals(0, reader.view(1, 0).remaining(), "an empty view after a skip");
        assertEquals(8, reader.offset());
        assertEquals(2, reader.view(0, 2).remaining());
        EOFException skip = assertThrows(EOFException.class, () -> reader.skip(1));
        assertEquals("end of stream: required=1 available=0 offset=10", skip.getMessage());
        EOFException one = assertThrows(EOFException.class, reader::readByte);
        assertEquals("end of stream: required=1 available=0 offset=10", one.getMessage());
        assertEquals(10, reader.offset());
    }

    @Test
    void aViewOfUpToMaxCapacityWithASkipIsReadWhenNotYetBuffered() throws Exception {
        byte[] data = new byte[8];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (10 + i);
        }
        ChannelReader reader = new ChannelReader(ScriptedChannel.oneByteAtATime(data), 2, 8);
        ByteBuffer view = reader.view(3, 5);
        assertEquals(5, view.remaining());
        assertEquals(13, view.get(view.position()));
        assertEquals(8, reader.offset());
    }

    @Test
    void afterTheEndARequestForMoreThanIsLeftIsRefusedWhereverTheReaderStands() throws Exception {
        ChannelReader reader = new ChannelReader(ScriptedChannel.whole(new byte[] {1, 2, 3}), 8, 8);
        assertFalse(reader.isEndOfStream());
        assertFalse(reader.request(4));
        assertTrue(reader.isEndOfStream());
        assertEquals(1, reader.readByte());
        assertFalse(reader.request(3), "two left");
        assertTrue(reader.request(2));
        assertEquals(2, reader.available());
    }

    @Test
    void countToEndCountsOnlyTheBytesNotYetConsumed() throws Exception {
        byte[] data = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
        ChannelReader reader = new ChannelReader(ScriptedChannel.whole(data), 64, 64);
        assertEquals(5, reader.readByte());
        assertEquals(5, reader.readByte());
        assertEquals(0, reader.countToEnd((byte) 0), "no byte past the stream's end is counted");
        assertEquals(10, reader.offset());
        ChannelReader fives = new ChannelReader(ScriptedChannel.whole(data), 64, 64);
        fives.skip(3);
        assertEquals(7, fives.countToEnd((byte) 5));
    }

    @Test
    void aFixedSizeReadLargerThanATinyMaxCapacityIsRefusedNamingIt() throws Exception {
        ChannelReader reader = new ChannelReader(ScriptedChannel.whole(new byte[16]), 4, 4);
        assertEquals("byteCount=8 min=0 maxCapacity=4",
                assertThrows(IllegalArgumentException.class, reader::readLong).getMessage());
        assertEquals(0, reader.readInt());
        assertEquals(1, new ChannelReader(ScriptedChannel.whole(new byte[0]), 1, ChannelReader.MAX_CAPACITY).capacity(),
                "the largest maxCapacity, allocated only as needed");
    }

    @Test
    void buffersAreDirectAndPageAligned() {
        ByteBuffer buffer = Buffers.allocate(1000);
        assertEquals(0, buffer.alignmentOffset(0, Buffers.PAGE_SIZE));
        assertEquals(1000, buffer.capacity());
        ByteBuffer one = Buffers.allocate(1);
        assertEquals(List.of(1, 0, true), List.of(one.capacity(), one.alignmentOffset(0, Buffers.PAGE_SIZE), one.isDirect()));
        assertEquals("capacity=" + (Buffers.MAX_CAPACITY + 1) + " min=1 max=" + Buffers.MAX_CAPACITY,
                assertThrows(IllegalArgumentException.class, () -> Buffers.allocate(Buffers.MAX_CAPACITY + 1)).getMessage());
    }
}
