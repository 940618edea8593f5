package dev.wirespeed.linux;

/**
 * A child process for {@link NativePipeTest}: switches its standard input to non-blocking mode, says
 * so, and waits to be stopped with the channel still open, as a reader busy-polling stdin would be.
 */
public final class NonBlockingStdinChild {
    private NonBlockingStdinChild() {
    }

    /** Runs until killed. @param args ignored */
    public static void main(String[] args) throws Exception {
        NativePipe in = NativePipe.stdin().configureBlocking(false);
        System.out.println("non-blocking: " + in);
        System.out.flush();
        Thread.sleep(60_000);
    }
}
