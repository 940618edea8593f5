package dev.wirespeed.loop;

import dev.wirespeed.loop.Connection.Closer;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A loop's connections that are not open yet, each under a deadline: connecting ({@code connectTimeout})
 * or in their TLS handshake ({@code handshakeTimeout}). {@code opening[0, count)}, each knowing its slot
 * ({@code c.openSlot}) and its deadline ({@code c.openDeadline}, loop time).
 *
 * <p>Thread safety: the loop's thread.
 */
final class Openings {
    private Connection[] opening = new Connection[8];
    private int count;

    int count() {
        return count;
    }

    /** Watches {@code c} until {@link #remove}; its deadline is {@code c.openDeadline}. */
    void add(Connection c) {
        if (count == opening.length) {
            opening = Arrays.copyOf(opening, count * 2);
        }
        c.openingAt(count);
        opening[count++] = c;
    }

    /** Stops watching {@code c}: it opened, or closed. */
    void remove(Connection c) {
        int slot = c.openSlot;
        Connection last = opening[--count];
        opening[slot] = last;
        last.openingAt(slot);
        opening[count] = null;
    }

    /** {@return the handshake of {@code owner} with the earliest deadline, the oldest, or null if none} */
    Connection oldestHandshake(Owner owner) {
        Connection oldest = null;
        for (int i = 0; i < count; i++) {
            Connection c = opening[i];
            if (c.owner == owner && c.state == Connection.State.HANDSHAKING
                    && (oldest == null || c.openDeadline - oldest.openDeadline < 0)) {
                oldest = c;
            }
        }
        return oldest;
    }

    /** {@return the earliest deadline, or {@link Long#MAX_VALUE} if none} */
    long earliest() {
        long wake = Long.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            wake = Math.min(wake, opening[i].openDeadline);
        }
        return wake;
    }

    /** Resets, through {@code closer}, the connects and handshakes past their deadline at {@code now}. */
    void expire(long now, Closer closer) {
        for (int i = count - 1; i >= 0; i--) {
            if (i >= count) {
                continue; // a close's handler closed others
            }
            Connection c = opening[i];
            if (now - c.openDeadline >= 0) {
                closer.closeNow(c, c.state == Connection.State.CONNECTING
                        ? new ConnectTimeoutException("connect to " + c.remoteAddress() + " timed out: connectTimeout="
                                + TimeUnit.NANOSECONDS.toMillis(c.owner.connectTimeoutNanos) + " ms")
                        : new SocketTimeoutException("TLS handshake not done within handshakeTimeout="
                                + TimeUnit.NANOSECONDS.toMillis(c.owner.handshakeNanos) + " ms: " + c), true);
            }
        }
    }
}
