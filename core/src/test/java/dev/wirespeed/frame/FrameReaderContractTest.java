package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.Sequence;
import dev.wirespeed.testing.Vectors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every wire vector gives exactly the outcome of its INDEX.tsv line through the frame reader, whatever
 * the channel does: whole reads, one byte per read, zero bytes every other read, the stream split at
 * every offset, seeded random splits; with the default buffer and with a tiny one that must grow; and
 * read a frame per call ({@link FrameReader#readFrame}), a batch per call
 * ({@link FrameReader#readFrames(FrameHandler, int)}), a block per call ({@link FrameReader#readBlock}),
 * or a block per call relayed to a writer ({@link FrameReader#relayBlock}), whose output is then read.
 */
class FrameReaderContractTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    /** The ways a reader is driven: a frame per call, the buffered frames per call, a block per call, or relayed. */
    enum Delivery {
        ONE {
            @Override
            int read(FrameReader reader, FrameHandler handler) throws IOException {
                return reader.readFrame(handler) ? 1 : 0;
            }
        },
        BATCH {
            @Override
            int read(FrameReader reader, FrameHandler handler) throws IOException {
                return reader.readFrames(handler, 5);
            }
        },
        BLOCK {
            @Override
            int read(FrameReader reader, FrameHandler handler) throws IOException {
                long framesBefore = reader.frameCount();
                long offsetBefore = reader.offset();
                int[] walked = {-1};
                int n = reader.readBlock(frames -> {
                    assertTrue(frames.isReadOnly(), "a block is read-only");
                    assertEquals(framesBefore, reader.frameCount(), "inside the handler, the count before the block");
                    assertEquals(offsetBefore, reader.offset(), "inside the handler, the offset before the block");
                    walked[0] = walk(frames, handler);
                });
                assertEquals(n == 0 ? -1 : n, walked[0], "frames returned against frames in the block");
                return n;
            }
        },
        RELAY {
            @Override
            int read(FrameReader reader, FrameHandler handler) throws IOException {
                // a small buffer, so that a block larger than it leaves in a write of its own
                ScriptedChannel sink = ScriptedChannel.sink(call -> Integer.MAX_VALUE, "whole");
                FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(64).maxFrameLength(reader.maxFrameLength()).build();
                long offsetBefore = reader.offset();
                int n = reader.relayBlock(writer);
                writer.flush();
                byte[] written = sink.written();
                assertEquals(reader.offset() - offsetBefore, written.length, "the block's bytes written, and only those");
                assertEquals(n, writer.frameCount(), "frames written against frames relayed");
                if (n > 0) {
                    assertEquals(n, walk(ByteBuffer.wrap(written), handler), "frames returned against frames written");
                }
                return n;
            }
        };

        /** Delivers at least one frame, or returns 0 at a clean end. */
        abstract int read(FrameReader reader, FrameHandler handler) throws IOException;

        long readAll(FrameReader reader, FrameHandler handler) throws IOException {
            long frames = 0;
            for (int n; (n = read(reader, handler)) > 0; ) {
                frames += n;
            }
            return frames;
        }
    }

    /** Hands each frame of a block to {@code handler}; {@return how many}, after checking they end at its limit. */
    static int walk(ByteBuffer frames, FrameHandler handler) throws IOException {
        int count = 0;
        int at = frames.position();
        while (at < frames.limit()) {
            long header = frames.getLong(at);
            int length = FrameFormat.length(header);
            int start = at + FrameFormat.HEADER_LENGTH;
            assertTrue(length >= 0 && length <= frames.limit() - start, "a whole frame at " + at + ": length=" + length);
            handler.onFrame(FrameFormat.type(header), frames.duplicate().limit(start + length).position(start));
            at = start + length;
            count++;
        }
        assertEquals(frames.limit(), at, "the block ends where its last frame does");
        assertTrue(count > 0, "a block holds at least one frame");
        return count;
    }

    @TestFactory
    Stream<DynamicTest> everyVectorGivesItsOutcomeThroughEveryChannel() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Vectors vector : Vectors.all()) {
            byte[] bytes = vector.bytes();
            List<Function<byte[], ScriptedChannel>> channels = new ArrayList<>(List.of(
                    ScriptedChannel::whole, ScriptedChannel::oneByteAtATime,
                    ScriptedChannel::zeroEveryOtherCall));
            for (int r = 0; r < 8; r++) {
                long seed = SEED.value() + r;
                channels.add(data -> ScriptedChannel.randomSplits(data, seed, 1 + (int) (seed & 63)));
            }
            for (Delivery delivery : Delivery.values()) {
                for (Function<byte[], ScriptedChannel> channel : channels) {
                    for (int capacity : new int[] {16, 4096, 512 * 1024}) {
                        ScriptedChannel probe = channel.apply(bytes);
                        tests.add(DynamicTest.dynamicTest(vector + " via " + probe + " buffer=" + capacity + " " + delivery,
                                () -> assertOutcome(vector, channel.apply(bytes), capacity, delivery)));
                    }
                }
                tests.add(DynamicTest.dynamicTest(vector + " split at every offset " + delivery, () -> {
                    int step = bytes.length <= 4096 ? 1 : 97;
                    for (int split = 0; split <= bytes.length; split += step) {
                        assertOutcome(vector, ScriptedChannel.splitAt(bytes, split), 64, delivery);
                    }
                }));
            }
        }
        return tests.stream();
    }

    static void assertOutcome(Vectors vector, ReadableByteChannel channel, int capacity, Delivery delivery)
            throws IOException {
        FrameReader reader = FrameReader.builder(channel).bufferCapacity(capacity).build();
        boolean sequence = vector.file().startsWith("seq-");
        Sequence.Checker verifier = new Sequence.Checker();
        long[] frames = {0};
        FrameHandler handler = (type, body) -> {
            frames[0]++;
            if (sequence) {
                verifier.check(type, body);
            }
        };
        if (vector.isClean()) {
            assertEquals(vector.frames(), delivery.readAll(reader, handler), vector + " via " + channel);
            assertEquals(vector.frames(), reader.frameCount());
            assertEquals(vector.bytes().length, reader.offset());
            assertEquals(0, delivery.read(reader, handler), "a clean end stays clean");
            return;
        }
        IOException e = assertThrows(IOException.class, () -> delivery.readAll(reader, handler));
        assertEquals(vector.expectedMessage(), e.getMessage(), vector + " via " + channel);
        assertEquals(vector.framesBeforeError(), frames[0], "frames delivered before the error");
        switch (vector.errorKind()) {
            case "negative-length" -> assertEquals(vector.errorOffset(), ((CorruptFrameException) e).offset());
            case "too-long" -> assertEquals(vector.errorOffset(), ((FrameTooLongException) e).offset());
            case "truncated-header" -> assertTrue(((TruncatedFrameException) e).inHeader());
            case "truncated-body" -> assertEquals(false, ((TruncatedFrameException) e).inHeader());
            default -> throw new AssertionError(vector.errorKind());
        }
        IOException again = assertThrows(IOException.class, () -> delivery.read(reader, handler));
        assertEquals(e.getMessage(), again.getMessage(), "the same problem is reported again");
    }
}
