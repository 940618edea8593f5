package dev.wirespeed.lab.client;

/**
 * {@code client --read-timeout}: watches the frames a {@link Receiver} counts from a thread of its own,
 * and when no complete frame has arrived for the timeout, aborts the source so that the blocked read
 * returns. The reading thread pays nothing for it: the watchdog reads the receiver's count racily
 * (the reader stores it before every call into the channel, and a read that blocks is such a call)
 * and checks four times per timeout.
 */
public final class IdleWatchdog implements AutoCloseable {
    private final Thread thread;
    private volatile boolean fired;

    /**
     * Starts watching.
     *
     * @param receiver counts the frames
     * @param timeoutMillis how long without a complete frame before the source is aborted
     * @param source what is aborted
     */
    public IdleWatchdog(Receiver receiver, long timeoutMillis, Source source) {
        long step = Math.max(1, timeoutMillis / 4);
        thread = Thread.ofPlatform().daemon().name("read-timeout").start(() -> {
            long seen = -1;
            long since = System.nanoTime();
            try {
                while (true) {
                    Thread.sleep(step);
                    long frames = receiver.frames();
                    long now = System.nanoTime();
                    if (frames != seen) {
                        seen = frames;
                        since = now;
                    } else if (now - since >= timeoutMillis * 1_000_000L) {
                        fired = true;
                        source.abort();
                        return;
                    }
                }
            } catch (InterruptedException e) {
                // closed: the read ended first
            }
        });
    }

    /** {@return true if the timeout fired and the source was aborted} */
    public boolean fired() {
        return fired;
    }

    /** Stops watching. */
    @Override
    public void close() {
        thread.interrupt();
    }
}
