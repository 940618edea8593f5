package dev.wirespeed.lab.client;

import dev.wirespeed.testkit.SequenceMismatchException;
import dev.wirespeed.testkit.SequenceVerifier;
import java.nio.ByteBuffer;

/**
 * What a {@link Receiver} checks every frame against: the sequence stream with {@code --verify}, or
 * a test's expected frames. A check reads the body and leaves its position and limit as they were.
 *
 * <p>Thread safety: used by the one reading thread.
 */
public interface FrameCheck {
    /**
     * Checks a frame whose body is {@code length} bytes of {@code body} from {@code offset}.
     *
     * @param type the type field
     * @param body the array
     * @param offset the body's first byte
     * @param length the body's length
     * @throws SequenceMismatchException if the frame is not the expected one (which frame, which byte)
     */
    void check(int type, byte[] body, int offset, int length) throws SequenceMismatchException;

    /**
     * Checks a frame whose body is {@code body}'s bytes from position to limit.
     *
     * @param type the type field
     * @param body the body
     * @throws SequenceMismatchException if the frame is not the expected one (which frame, which byte)
     */
    void check(int type, ByteBuffer body) throws SequenceMismatchException;

    /** {@return a check of every frame against the sequence stream, from frame 0} */
    static FrameCheck sequence() {
        SequenceVerifier verifier = new SequenceVerifier();
        return new FrameCheck() {
            @Override
            public void check(int type, byte[] body, int offset, int length) throws SequenceMismatchException {
                verifier.verify(type, body, offset, length);
            }

            @Override
            public void check(int type, ByteBuffer body) throws SequenceMismatchException {
                verifier.verify(type, body);
            }
        };
    }
}
