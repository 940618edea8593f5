package dev.wirespeed.lab.client;

import dev.wirespeed.lab.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Vectors;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The contract every client strategy keeps, whatever the source does: every wire vector gives the
 * outcome of its INDEX.tsv line (frames, or the protocol's error with its offset and the frames
 * before it), with whole reads, one byte per read, zero bytes every other read, the stream split at
 * every offset, and seeded random splits. Sequence vectors are verified frame by frame.
 */
class StrategyContractTest {
    private static final long SEED = Long.getLong("wirespeed.test.seed", System.nanoTime());

    @TestFactory
    Stream<DynamicTest> everyStrategyGivesEveryVectorsOutcomeThroughEveryChannel() {
        System.out.println("StrategyContractTest seed=" + SEED + " (replay: -Dwirespeed.test.seed=" + SEED + ")");
        List<DynamicTest> tests = new ArrayList<>();
        for (Strategies strategy : Strategies.values()) {
            if (!strategy.supports(Transport.FILE)) {
                continue; // sockets only: covered by EndToEndTest
            }
            for (Vectors vector : Vectors.all()) {
                byte[] bytes = vector.bytes();
                List<Function<byte[], ScriptedChannel>> channels = new ArrayList<>(List.of(
                        ScriptedChannel::whole, ScriptedChannel::oneByteAtATime, ScriptedChannel::zeroEveryOtherCall));
                for (int r = 0; r < 3; r++) {
                    long seed = SEED + r;
                    channels.add(data -> ScriptedChannel.randomSplits(data, seed, 1 + (int) (seed & 127)));
                }
                for (Function<byte[], ScriptedChannel> channel : channels) {
                    tests.add(DynamicTest.dynamicTest(strategy + " " + vector + " via " + channel.apply(bytes),
                            () -> assertOutcome(strategy, vector, channel.apply(bytes))));
                }
                if (bytes.length <= 4096) {
                    tests.add(DynamicTest.dynamicTest(strategy + " " + vector + " split at every offset", () -> {
                        for (int split = 0; split <= bytes.length; split++) {
                            assertOutcome(strategy, vector, ScriptedChannel.splitAt(bytes, split));
                        }
                    }));
                }
            }
        }
        return tests.stream();
    }

    static void assertOutcome(Strategies strategy, Vectors vector, ScriptedChannel channel) throws IOException {
        boolean verify = vector.file().startsWith("seq-");
        Receiver receiver = new Receiver(verify, 1_000_000, 0, true, new PrintWriter(new StringWriter()));
        String where = strategy + " " + vector + " via " + channel;
        if (vector.isClean()) {
            strategy.create().read(new ScriptedSource(channel), receiver, FrameFormat.DEFAULT_MAX_FRAME_LENGTH);
            assertEquals(vector.frames(), receiver.frames(), where);
            assertEquals(vector.bytes().length, receiver.bytes(), where);
            return;
        }
        IOException e = assertThrows(IOException.class, () -> strategy.create()
                .read(new ScriptedSource(channel), receiver, FrameFormat.DEFAULT_MAX_FRAME_LENGTH), where);
        assertEquals(vector.expectedMessage(), e.getMessage(), where);
        assertEquals(vector.framesBeforeError(), receiver.frames(), where + ": frames before the error");
    }

    /**
     * A source over one scripted channel: the channel itself, or a blocking stream over it (a stream
     * must not return 0 bytes, so the zero-byte reads of the script are retried, as a blocking read
     * would wait).
     */
    static final class ScriptedSource implements Source {
        private final ReadableByteChannel channel;

        ScriptedSource(ReadableByteChannel channel) {
            this.channel = channel;
        }

        @Override
        public InputStream stream() {
            return new InputStream() {
                @Override
                public int read() throws IOException {
                    byte[] one = new byte[1];
                    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    if (len == 0) {
                        return 0;
                    }
                    int n;
                    do {
                        n = channel.read(ByteBuffer.wrap(b, off, len));
                    } while (n == 0);
                    return n;
                }
            };
        }

        @Override
        public InputStream rawStream() {
            return stream();
        }

        @Override
        public ReadableByteChannel channel() {
            return channel;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
