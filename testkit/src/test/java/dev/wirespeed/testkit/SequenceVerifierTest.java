package dev.wirespeed.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class SequenceVerifierTest {

    @Test
    void acceptsTheSequenceStreamAsArraysAndAsBuffers() throws Exception {
        SequenceVerifier verifier = new SequenceVerifier();
        byte[] pattern = SequenceStream.pattern(10_000);
        for (int i = 0; i < 600; i++) {
            int size = i * 37 % 10_000;
            if (i % 2 == 0) {
                verifier.verify(i, pattern, SequenceStream.patternOffset(i), size);
            } else {
                verifier.verify(i, ByteBuffer.allocateDirect(size)
                        .put(pattern, SequenceStream.patternOffset(i), size).flip());
            }
        }
        assertEquals(600, verifier.framesVerified());
    }

    @Test
    void namesTheFrameOfALostFrame() throws Exception {
        SequenceVerifier verifier = new SequenceVerifier();
        verifier.verify(0, new byte[] {0, 1}, 0, 2);
        SequenceMismatchException e = assertThrows(SequenceMismatchException.class,
                () -> verifier.verify(2, new byte[] {2}, 0, 1));
        assertEquals("frame 1 is not the expected frame: type=2 expected=1 offset=10", e.getMessage());
        assertEquals(-1, e.byteIndex());
    }

    @Test
    void namesTheFrameByteAndOffsetOfACorruptByte() throws Exception {
        SequenceVerifier verifier = new SequenceVerifier();
        verifier.verify(0, ByteBuffer.wrap(new byte[] {0, 1, 2}));
        SequenceMismatchException e = assertThrows(SequenceMismatchException.class,
                () -> verifier.verify(1, ByteBuffer.wrap(new byte[] {1, 2, 9, 4})));
        assertEquals("frame 1 byte 2 is corrupt: actual=9 expected=3 offset=21", e.getMessage());
        assertEquals(21, e.offset());
    }
}
