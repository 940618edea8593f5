package dev.wirespeed.lab.shm;

import dev.wirespeed.frame.FrameHandler;
import java.io.IOException;
import java.time.Duration;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * {@link Inbound#await} for the peers whose reader only polls: calls {@link Inbound#poll} again until
 * frames come, idling between empty calls as {@link Sleep#SPIN} or {@link Sleep#BACKOFF} says.
 *
 * <p>Thread safety: one thread at a time, as the end it waits on.
 */
final class Waits {
    private final Sleep sleep;
    private final IdleStrategy backoff = new BackoffIdleStrategy();

    /**
     * @throws IllegalArgumentException for a sleep other than {@link Sleep#SPIN} or {@link Sleep#BACKOFF}
     */
    Waits(Sleep sleep, String peer) {
        if (sleep != Sleep.SPIN && sleep != Sleep.BACKOFF) {
            throw new IllegalArgumentException("--sleep " + sleep + " is the shared ring's; " + peer + " takes "
                    + Sleep.SPIN + " or " + Sleep.BACKOFF);
        }
        this.sleep = sleep;
    }

    int await(Inbound in, FrameHandler handler, int limit, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        backoff.reset();
        for (int empty = 0;; empty++) {
            int n = in.poll(handler, limit);
            if (n != 0 || System.nanoTime() - deadline >= 0) {
                return n;
            }
            if (sleep == Sleep.BACKOFF) {
                backoff.idle();
            } else if ((empty & 7) == 7) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
