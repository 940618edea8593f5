package dev.wirespeed.shm;

import dev.wirespeed.frame.FrameHandler;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The wait of a ring's reader that found nothing to read, for both kinds of ring ({@link RingReader#take},
 * {@link ManyToOneReader#take}): {@value RingReader#SPINS} more looks, calling again at once; then the
 * header's sleeping word set to 1 and a full fence (so that a writer committing after the reader's last look
 * finds the word and wakes it, see {@link SharedRing}), one more look, and sleeps of {@value
 * RingReader#CHECK_MILLIS} ms at the most, a look after each, until a frame came, the deadline passed or the
 * ring ended. The word is 0 again whenever the wait returns or throws.
 *
 * <p>Allocates nothing.
 */
final class RingWait {
    private static final long CHECK_NANOS = RingReader.CHECK_MILLIS * 1_000_000;

    /** A reader's side of the wait: its look, and whether its ring has ended. */
    interface Looks {
        /**
         * {@return the frames handed over, {@code limit} at most; 0 if none}
         *
         * @throws IOException what the reader's look throws
         */
        int read(FrameHandler handler, int limit) throws IOException;

        /**
         * {@return true where the ring has ended and every frame is read}: asked after a look, with the sleeping
         * word set, that found nothing; {@code slept} says whether a sleep came before that look
         *
         * @throws PeerGoneException where the ring's peer went away without closing its end
         */
        boolean ended(boolean slept) throws PeerGoneException;
    }

    private RingWait() {
    }

    /**
     * Waits as the class says, until {@code deadline} ({@link System#nanoTime}'s clock).
     *
     * @return the frames handed over; 0 if none came before the deadline; -1 where {@link Looks#ended} said so
     */
    static int await(Looks looks, FrameHandler handler, int limit, MemorySegment region, MemorySegment sleepWord,
            RingSleep sleep, long deadline) throws IOException {
        int n;
        for (int i = 0; i < RingReader.SPINS; i++) {
            Thread.onSpinWait();
            if ((n = looks.read(handler, limit)) > 0) {
                return n;
            }
        }
        boolean slept = false;
        try {
            while (true) {
                SharedRing.INT.setVolatile(region, SharedRing.SLEEPING_OFFSET, 1);
                VarHandle.fullFence(); // the word set before the ring is looked at: see SharedRing, ManyToOneRing
                n = looks.read(handler, limit);
                long left = deadline - System.nanoTime();
                if (n > 0 || left <= 0) {
                    return n;
                }
                if (looks.ended(slept)) {
                    return -1;
                }
                sleep.sleep(sleepWord, 1, Math.min(left, CHECK_NANOS));
                slept = true;
            }
        } finally {
            SharedRing.INT.setVolatile(region, SharedRing.SLEEPING_OFFSET, 0);
        }
    }
}
