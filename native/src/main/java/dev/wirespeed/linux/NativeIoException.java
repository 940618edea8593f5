package dev.wirespeed.linux;

import dev.wirespeed.linux.internal.sys.Errno;
import java.io.IOException;
import java.io.Serial;

/**
 * A system call failed: the exception keeps the call's name and {@code errno}, and its message gives
 * the C library's text for it, as in {@code "sched_setaffinity failed: errno=22 (Invalid argument)"}.
 */
public final class NativeIoException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The failed call. @serial */
    private final String call;
    /** The errno it set. @serial */
    private final int errno;

    /**
     * An exception for {@code call} failing with {@code errno}.
     *
     * @param call the system call's name
     * @param errno the errno it set
     * @param detail what the call was given, {@code name=value} pairs, or empty
     */
    public NativeIoException(String call, int errno, String detail) {
        super(call + " failed: errno=" + errno + " (" + Errno.strerror(errno) + ")"
                + (detail.isEmpty() ? "" : " " + detail));
        this.call = call;
        this.errno = errno;
    }

    /** {@return the name of the system call that failed} */
    public String call() {
        return call;
    }

    /** {@return the errno the call set} */
    public int errno() {
        return errno;
    }
}
