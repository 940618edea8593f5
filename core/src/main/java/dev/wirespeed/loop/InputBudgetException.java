package dev.wirespeed.loop;

import java.io.IOException;
import java.io.Serial;

/**
 * A connection refused because keeping its partial frame would take its loop past the input budget
 * ({@link LoopGroup.Builder#inputBudget(long)}): what its handler gets in {@link
 * ConnectionHandler#onClose}. The connection is reset; the loop and its other connections go on. The
 * message names the budget, what the loop and the connection keep, the frame's length and stream
 * offset, the bytes of it that came and the buffer they would need.
 */
public final class InputBudgetException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates one.
     *
     * @param message the budget, what is kept, the frame and its offset
     */
    public InputBudgetException(String message) {
        super(message);
    }

    /**
     * {@return the exception for a connection keeping {@code held} bytes, whose partial frame of {@code
     * present} bytes would need a buffer of {@code size}}
     *
     * @param length the frame's length as its header announces it, or negative where the header has not all come
     */
    static InputBudgetException exceeded(long budget, long loopHeld, int held, long size, int present, int length,
            long offset) {
        String what = length < 0 ? "a frame header" : "a frame of length=" + length;
        return new InputBudgetException("inputBudget=" + budget + " exceeded: the loop keeps " + loopHeld
                + " bytes of partial frames and records, this connection " + held + "; " + what + " at offset="
                + offset + ", " + present + " bytes of it come, needs a buffer of " + size);
    }
}
