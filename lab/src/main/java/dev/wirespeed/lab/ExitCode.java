package dev.wirespeed.lab;

/** The exit codes of the {@code wirespeed} command; scripts and the lab rely on them. */
public final class ExitCode {
    /** Success. */
    public static final int OK = 0;
    /** A bad command line (picocli's usage error code). */
    public static final int USAGE = 2;
    /** The input broke the wire format: negative length, too long, truncated. */
    public static final int BAD_INPUT = 3;
    /** {@code --verify} found a frame that is not the expected one. */
    public static final int VERIFY_FAILED = 4;
    /** An I/O failure: refused, reset, closed early by the peer. */
    public static final int IO_FAILURE = 5;

    private ExitCode() {
    }
}
