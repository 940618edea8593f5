package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Seed;
import java.nio.ByteBuffer;
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
}
