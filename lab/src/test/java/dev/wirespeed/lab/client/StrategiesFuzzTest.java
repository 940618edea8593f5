package dev.wirespeed.lab.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.wirespeed.frame.CorruptFrameException;
import dev.wirespeed.frame.FrameTooLongException;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Vectors;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing the client's decode paths with Jazzer: the same bytes through every strategy that reads a
 * channel (the articles' clients and ours) must deliver exactly the frames the input holds (types and
 * bodies, checked against a decoding written from the protocol) and then end cleanly where the input
 * does, or with the one protocol error the input calls for at the offset where its frames end. The
 * first input byte picks {@code maxFrameLength}; the rest is the stream. {@code ./mvnw verify} fuzzes
 * 10 s from the committed corpus (the protocol's vectors); the lab module's build runs it.
 */
class StrategiesFuzzTest {
    private static final int[] LIMITS = {0, 8, 100, 4096, 16 << 20};
    private static final List<Strategies> CHANNEL_STRATEGIES =
            Arrays.stream(Strategies.values()).filter(s -> s.supports(Transport.FILE)).toList();

    @Test
    void theCorpusHoldsEveryVectorWithTheDefaultAndATightLimit() throws Exception {
        Path corpus = Path.of(StrategiesFuzzTest.class.getResource(
                "StrategiesFuzzTestInputs/everyStrategyEndsCleanlyOrWithOneProtocolErrorAfterTheSameFrames").toURI());
        try (Stream<Path> files = Files.list(corpus)) {
            assertEquals(Vectors.fuzzCorpusNames(), files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("vector-"))
                    .collect(Collectors.toCollection(TreeSet::new)));
        }
    }

    @FuzzTest(maxDuration = "10s")
    void everyStrategyEndsCleanlyOrWithOneProtocolErrorAfterTheSameFrames(byte[] input) throws IOException {
        int maxFrameLength = input.length == 0 ? 16 << 20 : LIMITS[(input[0] & 0xFF) % LIMITS.length];
        byte[] stream = input.length == 0 ? input : Arrays.copyOfRange(input, 1, input.length);
        Decoded expected = Decoded.of(stream, maxFrameLength);
        for (Strategies strategy : CHANNEL_STRATEGIES) {
            ScriptedChannel channel = ScriptedChannel.randomSplits(stream, Arrays.hashCode(stream), 1 + stream.length % 61);
            Receiver receiver = new Receiver(expected.check(strategy), 1_000_000, 0, true,
                    new PrintWriter(new StringWriter()));
            IOException thrown = null;
            try {
                strategy.create().read(new StrategyContractTest.ScriptedSource(channel), receiver, maxFrameLength);
            } catch (CorruptFrameException | FrameTooLongException | TruncatedFrameException e) {
                thrown = e;
            }
            assertEquals(expected.frames().size(), receiver.frames(), strategy + ": frames delivered");
            if (expected.error() == null) {
                assertEquals(null, thrown, strategy + ": a clean end");
            } else {
                assertTrue(thrown != null && thrown.getClass() == expected.error(), strategy + ": expected "
                        + expected.error().getSimpleName() + " at offset " + expected.end() + ", got " + thrown);
                assertTrue(thrown.getMessage().contains("offset=" + expected.end()), strategy + ": " + thrown.getMessage());
            }
        }
    }

    /**
     * The input decoded from the protocol's own words, independently of every strategy: the frames it
     * holds, and then a clean end or the first error (negative length, length over the limit, the stream
     * ending inside a header or a body) at the offset where the frames end.
     */
    record Decoded(List<byte[]> frames, List<Integer> types, Class<? extends IOException> error, long end) {
        static Decoded of(byte[] stream, int maxFrameLength) {
            List<byte[]> frames = new java.util.ArrayList<>();
            List<Integer> types = new java.util.ArrayList<>();
            ByteBuffer in = ByteBuffer.wrap(stream);
            while (in.hasRemaining()) {
                int at = in.position();
                if (in.remaining() < 8) {
                    return new Decoded(frames, types, TruncatedFrameException.class, at);
                }
                int type = in.getInt();
                int length = in.getInt();
                if (length < 0) {
                    return new Decoded(frames, types, CorruptFrameException.class, at);
                }
                if (length > maxFrameLength) {
                    return new Decoded(frames, types, FrameTooLongException.class, at);
                }
                if (in.remaining() < length) {
                    return new Decoded(frames, types, TruncatedFrameException.class, at);
                }
                byte[] body = new byte[length];
                in.get(body);
                frames.add(body);
                types.add(type);
            }
            return new Decoded(frames, types, null, stream.length);
        }

        /** {@return a check that every frame a strategy delivers is the next one decoded, type and body} */
        FrameCheck check(Strategies strategy) {
            return new FrameCheck() {
                private int next;

                @Override
                public void check(int type, byte[] body, int offset, int length) {
                    check(type, ByteBuffer.wrap(body, offset, length));
                }

                @Override
                public void check(int type, ByteBuffer body) {
                    assertTrue(next < frames.size(), strategy + " delivered a frame past the " + frames.size() + " held");
                    assertEquals(types.get(next), type, strategy + ": type of frame " + next);
                    assertEquals(ByteBuffer.wrap(frames.get(next)), body.duplicate(), strategy + ": body of frame " + next);
                    next++;
                }
            };
        }
    }
}
