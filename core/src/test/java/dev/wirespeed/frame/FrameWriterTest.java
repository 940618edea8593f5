package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.Sequence;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FrameWriterTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    @Test
    void writesTheWireFormatByteForByte() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> 3, "three-bytes");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(32).maxFrameLength(1 << 20).build();
        byte[] pattern = Sequence.pattern(300);
        for (int i = 0; i < 50; i++) {
            int size = i * 7 % 300;
            if (i % 2 == 0) {
                writer.writeFrame(i, pattern, Sequence.offset(i), size);
            } else {
                writer.writeFrame(i, ByteBuffer.wrap(pattern, Sequence.offset(i), size));
            }
        }
        writer.flush();
        Frames expected = new Frames();
        for (int i = 0; i < 50; i++) {
            expected.sequence(i, 1, i * 7 % 300);
        }
        assertArrayEquals(expected.toByteArray(), sink.written());
        assertEquals(50, writer.frameCount());
    }

    @Test
    void whatTheWriterWritesTheReaderReadsBackWhateverTheSplits() throws Exception {
        SplittableRandom random = new SplittableRandom(SEED.value());
        ScriptedChannel sink = ScriptedChannel.sink(call -> random.nextInt(0, 5000), "random");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(1024).maxFrameLength(1 << 20).build();
        byte[] pattern = Sequence.pattern(70_000);
        int frames = 500;
        for (int i = 0; i < frames; i++) {
            int size = random.nextInt(0, 10) == 0 ? random.nextInt(0, 70_000) : random.nextInt(0, 300);
            writer.writeFrame(i, pattern, Sequence.offset(i), size);
        }
        writer.close();
        Sequence.Checker verifier = new Sequence.Checker();
        FrameReader reader = FrameReader.builder(ScriptedChannel.randomSplits(sink.written(), SEED.value(), 999))
                .bufferCapacity(512).build();
        assertEquals(frames, reader.readFrames(verifier::check));
    }

    @Test
    void refusesABodyLongerThanMaxFrameLengthAndWritesNothing() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(64).maxFrameLength(10).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> writer.writeFrame(1, new byte[11], 0, 11));
        assertEquals("frame too long to write: length=11 maxFrameLength=10 frame=0", e.getMessage());
        writer.flush();
        assertEquals(0, sink.written().length);
    }

    @Test
    void theBuilderRefusesSettingsOutOfRangeNamingThem() {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        assertEquals("bufferCapacity=0 min=1 max=" + dev.wirespeed.io.ChannelReader.MAX_CAPACITY,
                assertThrows(IllegalArgumentException.class, () -> FrameWriter.builder(sink).bufferCapacity(0)).getMessage());
        assertEquals("maxFrameLength=-1 min=0 max=" + FrameFormat.MAX_MAX_FRAME_LENGTH,
                assertThrows(IllegalArgumentException.class, () -> FrameWriter.builder(sink).maxFrameLength(-1)).getMessage());
        assertEquals("bufferCapacity=" + (dev.wirespeed.io.ChannelReader.MAX_CAPACITY + 1) + " min=1 max="
                + dev.wirespeed.io.ChannelReader.MAX_CAPACITY, assertThrows(IllegalArgumentException.class,
                () -> FrameWriter.builder(sink).bufferCapacity(dev.wirespeed.io.ChannelReader.MAX_CAPACITY + 1))
                .getMessage());
        assertEquals("channel", assertThrows(NullPointerException.class, () -> FrameWriter.builder(null)).getMessage());
        assertEquals("idle", assertThrows(NullPointerException.class, () -> FrameWriter.builder(sink).idleStrategy(null))
                .getMessage());
    }

    @Test
    void aFrameWithAnEmptyBodyCanBeClaimed() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(64).build();
        assertEquals(0, writer.claim(5, 0).remaining());
        writer.commit();
        writer.flush();
        assertArrayEquals(new Frames().frame(5, 0, new byte[0]).toByteArray(), sink.written());
        assertEquals(1, writer.frameCount());
    }

    @Test
    void theBuilderTakesTheSmallestAndLargestSettings() {
        FrameWriter.Builder builder = FrameWriter.builder(ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole"));
        assertSame(builder, builder.bufferCapacity(1));
        assertSame(builder, builder.bufferCapacity(dev.wirespeed.io.ChannelReader.MAX_CAPACITY));
        assertSame(builder, builder.maxFrameLength(0));
    }

    @Test
    void itsStateReadsInItsNameAndABodyOfExactlyMaxFrameLengthIsAccepted() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(64).maxFrameLength(10).build();
        byte[] body = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        writer.writeFrame(3, ByteBuffer.wrap(body));
        assertEquals("FrameWriter[frames=1 offset=18 maxFrameLength=10]", writer.toString());
        assertEquals("frame too long to write: length=11 maxFrameLength=10 frame=1", assertThrows(
                IllegalArgumentException.class, () -> writer.writeFrame(4, ByteBuffer.allocate(11))).getMessage());
        writer.close();
        assertArrayEquals(new Frames().frame(3, 10, body).toByteArray(), sink.written());
        assertFalse(sink.isOpen(), "closed with the writer");
    }
}
