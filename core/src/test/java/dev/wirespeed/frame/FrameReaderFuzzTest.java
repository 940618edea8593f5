package dev.wirespeed.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.wirespeed.testing.JvmAgents;
import dev.wirespeed.testing.ScriptedChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Fuzzing the frame reader with Jazzer: any bytes, read through splits derived from the input, yield
 * frames and then a clean end or exactly one of the protocol's three errors, never another exception,
 * never a body longer than {@code maxFrameLength}, never more frames or bytes than the input holds,
 * and never direct memory beyond a few times the bytes that arrived, whatever a length field says. The input's first byte picks {@code maxFrameLength} (a limit below most lengths makes the
 * too-long error reachable); the rest is the wire stream.
 *
 * <p>{@code ./mvnw verify} fuzzes for 10 seconds (core's surefire sets {@code JAZZER_FUZZ}), starting
 * from the committed inputs under {@code src/test/resources/dev/wirespeed/frame/FrameReaderFuzzTestInputs/}
 * (the protocol's vectors among them), and replays any crash found before. The long run, ten minutes,
 * is {@link FrameReaderFuzzLong} (Jazzer fuzzes one test per run). Findings are written beside the
 * inputs and replayed from then on; the generated corpus goes to {@code core/.cifuzz-corpus/} (not
 * committed).
 *
 * <p>The build runs the fuzz tests (JUnit tag {@code jazzer}) in a JVM of their own (core's {@code pom.xml}):
 * Jazzer's agent instruments every class loaded after it, which the allocation tests must not measure.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FrameReaderFuzzTest {
    private static final int[] LIMITS = {0, 1, 7, 8, 100, 255, 4096, FrameFormat.DEFAULT_MAX_FRAME_LENGTH};

    /** The short run of every build. */
    @Order(1)
    @FuzzTest(maxDuration = "10s")
    void anyBytesGiveFramesThenACleanEndOrOneProtocolError(byte[] input) throws IOException {
        check(input);
    }

    /** The check that the other test JVM has no agent would miss one that it cannot see: it sees this one. */
    @Order(2)
    @Tag("jazzer") // runs in the fuzzing JVM, after the fuzz test
    @Test
    void jazzersAgentIsSeenInTheJvmThatFuzzed() {
        assertTrue(JvmAgents.instrumenting().isPresent(), "the fuzz test ran, yet no agent is seen");
    }

    static void check(byte[] input) throws IOException {
        int maxFrameLength = input.length == 0 ? FrameFormat.DEFAULT_MAX_FRAME_LENGTH
                : LIMITS[(input[0] & 0xFF) % LIMITS.length];
        byte[] stream = input.length == 0 ? input : Arrays.copyOfRange(input, 1, input.length);
        ScriptedChannel channel = ScriptedChannel.randomSplits(stream, Arrays.hashCode(stream), 1 + stream.length % 97);
        long directBefore = DIRECT.getTotalCapacity();
        FrameReader reader = FrameReader.builder(channel).maxFrameLength(maxFrameLength).bufferCapacity(64)
                .checkedViews(true).build();
        long[] delivered = new long[2];
        FrameHandler check = (type, body) -> {
            assertTrue(body.remaining() <= maxFrameLength, "body " + body.remaining() + " > " + maxFrameLength);
            int at = (int) (delivered[1] + FrameFormat.HEADER_LENGTH);
            assertEquals(ByteBuffer.wrap(stream, at, body.remaining()), body, "the body is the input's bytes");
            delivered[0]++;
            delivered[1] += FrameFormat.HEADER_LENGTH + body.remaining();
        };
        try {
            reader.readFrames(check);
            assertEquals(stream.length, delivered[1], "a clean end after every byte was a frame");
        } catch (CorruptFrameException | FrameTooLongException | TruncatedFrameException e) {
            assertEquals(delivered[1], reader.offset(), "the error's frame starts where the delivered ones end");
            assertTrue(e.getMessage().contains("offset=" + delivered[1]), e.getMessage());
        }
        assertTrue(delivered[1] <= stream.length, "no bytes invented");
        // Memory follows the bytes that arrived, never a length field: each buffer at most twice the
        // bytes it had to hold, doubling (so all of them at most 4x), plus a page of alignment slack and
        // page rounding per buffer. Collections in between only lower the figure.
        long grown = DIRECT.getTotalCapacity() - directBefore;
        long bound = 4L * (stream.length + FrameFormat.HEADER_LENGTH) + 32L * 2 * 4096;
        assertTrue(grown <= bound, "direct memory grew " + grown + " bytes for " + stream.length
                + " bytes of input (bound " + bound + ", maxFrameLength " + maxFrameLength + ")");
    }

    /** The JVM's pool of direct buffers, where the reader's buffers are. */
    private static final java.lang.management.BufferPoolMXBean DIRECT = java.lang.management.ManagementFactory
            .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
}
