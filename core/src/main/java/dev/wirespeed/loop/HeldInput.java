package dev.wirespeed.loop;

import dev.wirespeed.loop.Connection.Closer;
import java.util.Arrays;

/**
 * The connections whose TLS holds input that no readiness will announce (the poller sees the socket,
 * not what was read from it already): read at the next turn as a readiness would, until they hold none.
 *
 * <p>Thread safety: the loop's thread.
 */
final class HeldInput {
    private final FrameAssembler input;
    private final Closer closer;
    private Connection[] held = new Connection[8];
    private Connection[] spare = new Connection[8];
    private int count;

    HeldInput(FrameAssembler input, Closer closer) {
        this.input = input;
        this.closer = closer;
    }

    int count() {
        return count;
    }

    /** Puts {@code c} in the list if its TLS holds input; once. */
    void addIfHeld(Connection c) {
        if (!c.readPending && c.tls != null && c.tls.holdsInput()) {
            c.listedForRead(true);
            if (count == held.length) {
                held = Arrays.copyOf(held, count * 2);
            }
            held[count++] = c;
        }
    }

    /** Reads each connection listed, open and not paused, at loop time {@code now}. */
    void read(long now) {
        Connection[] batch = held;
        int n = count;
        held = spare; // a read that leaves input held puts its connection in the other list
        spare = batch;
        count = 0;
        for (int i = 0; i < n; i++) {
            Connection c = batch[i];
            batch[i] = null;
            c.listedForRead(false);
            if (c.state == Connection.State.OPEN && !c.paused) {
                try {
                    c.tls.beginTurn(); // only TLS holds input
                    input.readLent(c, c.lender, now);
                    addIfHeld(c);
                } catch (RuntimeException | Error e) {
                    closer.failed(c, e); // that connection alone: the others are read
                }
            }
        }
    }
}
