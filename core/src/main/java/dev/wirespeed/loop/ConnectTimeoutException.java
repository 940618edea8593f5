package dev.wirespeed.loop;

import java.io.Serial;
import java.net.ConnectException;

/**
 * A connect that {@link FrameClient} gave up at its {@code connectTimeout}: what the connection's handler
 * gets in {@link ConnectionHandler#onClose} and its future fails with. The message names the address and
 * the timeout.
 */
public final class ConnectTimeoutException extends ConnectException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates one.
     *
     * @param message the address and the timeout
     */
    public ConnectTimeoutException(String message) {
        super(message);
    }
}
