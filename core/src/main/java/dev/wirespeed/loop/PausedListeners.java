package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loop's listeners that it stopped watching after accepting failed (out of descriptors, say), each
 * until its deadline (loop time), when it is watched again. Few and rare: a list, allocated only then.
 *
 * <p>Thread safety: the loop's thread.
 */
final class PausedListeners {
    private record Paused(Listener listener, long until) {
    }

    private final List<Paused> paused = new ArrayList<>(2);

    int count() {
        return paused.size();
    }

    /** Stops watching {@code listener} until {@code until}, loop time. */
    void pause(Listener listener, long until, Poller poller) throws IOException {
        poller.interest(listener, 0);
        paused.removeIf(p -> p.listener == listener);
        paused.add(new Paused(listener, until));
    }

    /** {@return the earliest deadline, or {@link Long#MAX_VALUE} if none} */
    long earliest() {
        long wake = Long.MAX_VALUE;
        for (int i = 0; i < paused.size(); i++) {
            wake = Math.min(wake, paused.get(i).until);
        }
        return wake;
    }

    /** Watches again the listeners whose deadline has come at {@code now}. */
    void resume(long now, Poller poller) throws IOException {
        for (int i = paused.size() - 1; i >= 0; i--) {
            Paused p = paused.get(i);
            if (now - p.until >= 0) {
                paused.remove(i);
                poller.interest(p.listener, Poller.READ);
            }
        }
    }
}
