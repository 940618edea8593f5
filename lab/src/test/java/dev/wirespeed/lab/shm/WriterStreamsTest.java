package dev.wirespeed.lab.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.testkit.SequenceStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The many-writer stream's frames, and the reader's check of each writer's stream apart. */
class WriterStreamsTest {
    private static final byte[] PATTERN = SequenceStream.pattern(300);

    /** {@return frame {@code i} of a writer's stream, {@code length} bytes} */
    private static ByteBuffer frame(long i, int length) {
        ByteBuffer body = ByteBuffer.allocate(length + 16).position(16);
        WriterStreams.fill(body, PATTERN, i, length);
        return body;
    }

    @Test
    void aFrameHoldsItsIndexThenTheSequenceStreamsBytes() {
        ByteBuffer body = frame(300, 20);
        assertEquals(16, body.position());
        assertEquals(36, body.limit());
        assertEquals(300, body.getLong(16));
        for (int k = 8; k < 20; k++) {
            assertEquals(SequenceStream.bodyByte(300, k), body.get(16 + k), "byte " + k);
        }
    }

    @Test
    void interleavedStreamsOfThreeWritersPassEachInItsOrderAndTheirEndsAreNoted() throws IOException {
        WriterStreams.Check check = new WriterStreams.Check(3, true);
        List<String> handed = new ArrayList<>();
        FrameHandler then = (type, body) -> handed.add(type + ":" + body.getLong(body.position()));
        long[] next = new long[3];
        int[] order = {0, 1, 1, 2, 0, 2, 2, 1, 0};
        for (int w : order) {
            assertFalse(check.allEnded());
            check.onFrame(w, frame(next[w]++, 8 + w * 50), then);
        }
        assertTrue(check.allStarted());
        for (int w = 0; w < 3; w++) {
            check.onFrame(w, ByteBuffer.allocate(0), then);
        }
        assertTrue(check.allEnded());
        assertEquals(List.of("0:0", "1:0", "1:1", "2:0", "0:1", "2:1", "2:2", "1:2", "0:2"), handed);
        assertEquals(3, check.frames(2));
    }

    @Test
    void aWritersLostFrameIsNamedWithTheWriterAndTheFrameExpected() throws IOException {
        WriterStreams.Check check = new WriterStreams.Check(2, true);
        check.onFrame(1, frame(0, 100), (type, body) -> { });
        var e = assertThrows(WriterStreams.MismatchException.class, () -> check.onFrame(1, frame(2, 100),
                (type, body) -> { }));
        assertEquals("writer 1's frame 1 is not the one expected: length=100 index=2", e.getMessage());
    }

    @Test
    void aCorruptByteIsNamedWithItsPlaceAndBothValues() {
        WriterStreams.Check check = new WriterStreams.Check(1, true);
        ByteBuffer body = frame(0, 100);
        body.put(16 + 40, (byte) 7);
        var e = assertThrows(WriterStreams.MismatchException.class, () -> check.onFrame(0, body, (type, b) -> { }));
        assertEquals("writer 0's frame 0 byte 40 is corrupt: actual=7 expected=40", e.getMessage());
    }

    @Test
    void aFrameOfNoSuchWriterOrAfterItsWritersEndIsRefused() throws IOException {
        WriterStreams.Check check = new WriterStreams.Check(2, false);
        var none = assertThrows(WriterStreams.MismatchException.class, () -> check.onFrame(2, frame(0, 100),
                (type, body) -> { }));
        assertEquals("a frame of type=2 after [0, 0] frames of writers 0 to 1: no such writer", none.getMessage());
        check.onFrame(0, ByteBuffer.allocate(0), (type, body) -> { });
        var late = assertThrows(WriterStreams.MismatchException.class, () -> check.onFrame(0, frame(0, 100),
                (type, body) -> { }));
        assertEquals("writer 0 sent a frame of length=100 after its end, which followed its 0 frames",
                late.getMessage());
    }

    @Test
    void withoutVerifyingItHandsOnAnyBodyOfAKnownWriter() throws IOException {
        WriterStreams.Check check = new WriterStreams.Check(1, false);
        int[] handed = {0};
        check.onFrame(0, ByteBuffer.allocate(3), (type, body) -> handed[0]++);
        check.onFrame(0, frame(9, 100), (type, body) -> handed[0]++);
        assertEquals(2, handed[0]);
        assertEquals(2, check.frames(0));
    }
}
