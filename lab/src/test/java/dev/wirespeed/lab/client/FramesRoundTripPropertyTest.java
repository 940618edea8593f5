package dev.wirespeed.lab.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.testkit.SequenceStream;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.testing.ScriptedChannel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Any frames the library's writer writes, through any buffer size, split arbitrarily by the channel
 * (zero-byte reads included), are read back identical by every strategy that reads a channel. jqwik
 * shrinks a failure to a smallest case and prints every run's seed ({@code seed = ...} in its report);
 * {@code @Property(seed = "...")} replays one, and jqwik retries the last failing sample first by itself.
 */
class FramesRoundTripPropertyTest {

    @Provide
    Arbitrary<Strategies> channelStrategies() {
        return Arbitraries.of(Arrays.stream(Strategies.values()).filter(s -> s.supports(Transport.FILE)).toList());
    }

    @Property(tries = 1000)
    void framesWrittenAndSplitAnyhowReadBackIdentical(
            @ForAll("channelStrategies") Strategies strategy,
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 5000) Integer> bodySizes,
            @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 700) Integer> splits,
            @ForAll @IntRange(min = 1, max = 10_000) int writerBuffer) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] pattern = SequenceStream.pattern(5000);
        long expectedBytes = 0;
        try (FrameWriter writer = FrameWriter.builder(Channels.newChannel(bytes)).bufferCapacity(writerBuffer).maxFrameLength(5000).build()) {
            for (int frame = 0; frame < bodySizes.size(); frame++) {
                int size = bodySizes.get(frame);
                writer.writeFrame(SequenceStream.type(frame), pattern, SequenceStream.patternOffset(frame), size);
                expectedBytes += FrameFormat.HEADER_LENGTH + size;
            }
        }
        List<Integer> script = new ArrayList<>(splits);
        if (script.stream().allMatch(n -> n == 0)) {
            script.add(1); // a channel that never moves a byte is not a split but a hang
        }
        ScriptedChannel channel = ScriptedChannel.scripted(bytes.toByteArray(),
                call -> script.get(call % script.size()), "splits " + script);
        Receiver receiver = new Receiver(true, 1_000_000, 0, true, new PrintWriter(new StringWriter()));
        strategy.create().read(new StrategyContractTest.ScriptedSource(channel), receiver, 5000);
        assertEquals(bodySizes.size(), receiver.frames(), strategy + " via " + channel);
        assertEquals(expectedBytes, receiver.bytes(), strategy + " via " + channel);
    }
}
