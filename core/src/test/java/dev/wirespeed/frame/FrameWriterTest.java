package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.ScriptedChannel;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FrameWriterTest {
    private static final long SEED = Long.getLong("wirespeed.test.seed", System.nanoTime());

    @Test
    void writesTheWireFormatByteForByte() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> 3, "three-bytes");
        FrameWriter writer = new FrameWriter(sink, 32, 1 << 20);
        byte[] pattern = SequenceStream.pattern(300);
        for (int i = 0; i < 50; i++) {
            int size = i * 7 % 300;
            if (i % 2 == 0) {
                writer.writeFrame(SequenceStream.type(i), pattern, SequenceStream.patternOffset(i), size);
            } else {
                writer.writeFrame(SequenceStream.type(i), ByteBuffer.wrap(pattern, SequenceStream.patternOffset(i), size));
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
        System.out.println("FrameWriterTest seed=" + SEED);
        SplittableRandom random = new SplittableRandom(SEED);
        ScriptedChannel sink = ScriptedChannel.sink(call -> random.nextInt(0, 5000), "random");
        FrameWriter writer = new FrameWriter(sink, 1024, 1 << 20);
        byte[] pattern = SequenceStream.pattern(70_000);
        int frames = 500;
        for (int i = 0; i < frames; i++) {
            int size = random.nextInt(0, 10) == 0 ? random.nextInt(0, 70_000) : random.nextInt(0, 300);
            writer.writeFrame(SequenceStream.type(i), pattern, SequenceStream.patternOffset(i), size);
        }
        writer.close();
        SequenceVerifier verifier = new SequenceVerifier();
        FrameReader reader = FrameReader.builder(ScriptedChannel.randomSplits(sink.written(), SEED, 999))
                .bufferCapacity(512).build();
        assertEquals(frames, reader.readFrames(verifier::verify));
    }

    @Test
    void refusesABodyLongerThanMaxFrameLengthAndWritesNothing() throws Exception {
        ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
        FrameWriter writer = new FrameWriter(sink, 64, 10);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> writer.writeFrame(1, new byte[11], 0, 11));
        assertEquals("frame too long to write: length=11 maxFrameLength=10 frame=0", e.getMessage());
        writer.flush();
        assertEquals(0, sink.written().length);
    }
}
