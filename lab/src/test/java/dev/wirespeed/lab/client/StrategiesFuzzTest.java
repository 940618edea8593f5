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
 * channel (the articles' clients and ours) must end cleanly or with one of the protocol's three
 * errors, never another exception, and every strategy must deliver the same number of frames. The
 * first input byte picks {@code maxFrameLength}; the rest is the stream. {@code ./mvnw verify} fuzzes
 * 10 s from the committed corpus (the protocol's vectors); the lab module's build runs it.
 */
class StrategiesFuzzTest {
    private static final int[] LIMITS = {0, 8, 100, 4096, 16 << 20};
    private static final List<Strategies> CHANNEL_STRATEGIES =
            Arrays.stream(Strategies.values()).filter(s -> s.supports(Transport.FILE)).toList();

    @Test
    void theCorpusHoldsEveryVectorWithTheDefaultAndATightLimit() throws Exception {
        TreeSet<String> expected = new TreeSet<>();
        for (Vectors vector : Vectors.all()) {
            String name = "vector-" + vector.file().replace(".bin", "");
            expected.add(name);
            expected.add(name + "-limit-100");
        }
        Path corpus = Path.of(StrategiesFuzzTest.class.getResource(
                "StrategiesFuzzTestInputs/everyStrategyEndsCleanlyOrWithOneProtocolErrorAfterTheSameFrames").toURI());
        try (Stream<Path> files = Files.list(corpus)) {
            assertEquals(expected, files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("vector-"))
                    .collect(Collectors.toCollection(TreeSet::new)));
        }
    }

    @FuzzTest(maxDuration = "10s")
    void everyStrategyEndsCleanlyOrWithOneProtocolErrorAfterTheSameFrames(byte[] input) throws IOException {
        int maxFrameLength = input.length == 0 ? 16 << 20 : LIMITS[(input[0] & 0xFF) % LIMITS.length];
        byte[] stream = input.length == 0 ? input : Arrays.copyOfRange(input, 1, input.length);
        long expectedFrames = -1;
        for (Strategies strategy : CHANNEL_STRATEGIES) {
            ScriptedChannel channel = ScriptedChannel.randomSplits(stream, Arrays.hashCode(stream), 1 + stream.length % 61);
            Receiver receiver = new Receiver(false, 1_000_000, 0, true, new PrintWriter(new StringWriter()));
            try {
                strategy.create().read(new StrategyContractTest.ScriptedSource(channel), receiver, maxFrameLength);
            } catch (CorruptFrameException | FrameTooLongException | TruncatedFrameException e) {
                assertTrue(e.getMessage().contains("offset=" + receiver.bytes()), strategy + ": " + e.getMessage());
            }
            if (expectedFrames < 0) {
                expectedFrames = receiver.frames();
            }
            assertTrue(receiver.frames() == expectedFrames, strategy + " delivered " + receiver.frames()
                    + " frames, the first strategy " + expectedFrames);
        }
    }
}
