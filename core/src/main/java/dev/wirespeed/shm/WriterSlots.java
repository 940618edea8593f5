package dev.wirespeed.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;

/**
 * The writer slots of a {@link ManyToOneRing}'s header, one per writer end: the process that holds it (as
 * a {@link Peer} slot: its id, then its start time) and the claim the writer announced last, its ring
 * position and bytes. A holder is 0 while no process ever held the slot, {@link Peer#CLOSED} once its
 * writer closed, {@code -2 - pid} while process {@code pid} takes it, else the holder's process id.
 *
 * <p>A slot is taken when it is free, closed, or held (or being taken) by a process that is gone, and
 * only once the claim it announced is resolved: none, or one the reader has passed ({@code claim <
 * head}). Until then the slot is the evidence of who made the claim the reader may be waiting at.
 *
 * <p>Thread safety: static, on the shared mapping; a slot's holder changes by compare-and-set.
 */
final class WriterSlots {
    private WriterSlots() {
    }

    /** {@return the header offset of slot {@code index}} */
    static long offset(int index) {
        return ManyToOneRing.SLOTS_OFFSET + (long) index * ManyToOneRing.SLOT_BYTES;
    }

    /** {@return the holder value of a slot process {@code pid} is taking} */
    static long taking(long pid) {
        return -2 - pid;
    }

    /**
     * Takes a slot for a writer of this process: the first free one.
     *
     * @return its index
     * @throws IllegalStateException if none is free, naming how many are held and how many wait for the
     *     reader
     */
    static int take(MemorySegment region, String where) {
        ProcessHandle me = ProcessHandle.current();
        long pid = me.pid();
        long start = Peer.startMillis(me);
        long head = (long) SharedRing.LONG.getAcquire(region, SharedRing.HEAD_OFFSET);
        int live = 0;
        int mine = 0;
        int unread = 0;
        for (int i = 0; i < ManyToOneRing.MAX_WRITERS; i++) {
            long slot = offset(i);
            while (true) {
                long holder = Peer.holder(region, slot);
                if (holder > 0 && Peer.alive(region, slot, holder) || holder < Peer.CLOSED && runs(-2 - holder)) {
                    live++;
                    mine += holder == pid || holder == taking(pid) ? 1 : 0;
                    break;
                }
                long claim = (long) SharedRing.LONG.getAcquire(region, slot + ManyToOneRing.CLAIM_AT);
                if (claim != ManyToOneRing.NO_CLAIM && claim >= head) {
                    unread++;
                    break; // its claim is the reader's evidence until the reader passes it
                }
                if (SharedRing.LONG.compareAndSet(region, slot, holder, taking(pid))) {
                    region.set(ValueLayout.JAVA_LONG, slot + Peer.START, start);
                    SharedRing.LONG.setRelease(region, slot + ManyToOneRing.CLAIM_AT, ManyToOneRing.NO_CLAIM);
                    SharedRing.LONG.setRelease(region, slot, pid);
                    return i;
                }
            }
        }
        throw new IllegalStateException("no writer slot free in " + where + ": all " + ManyToOneRing.MAX_WRITERS
                + " are taken, " + live + " by live processes (" + mine + " by this one), " + unread
                + " by closed or gone writers whose last claim the reader has not passed, at head=" + head);
    }

    /**
     * Gives slot {@code index} back, as its writer closes: with {@code claimResolved} (no claim open) the
     * slot may be taken again at once; without, it keeps its announced claim until the reader passes it.
     */
    static void close(MemorySegment region, int index, boolean claimResolved) {
        long slot = offset(index);
        if (claimResolved) {
            SharedRing.LONG.setRelease(region, slot + ManyToOneRing.CLAIM_AT, ManyToOneRing.NO_CLAIM);
        }
        Peer.close(region, slot);
    }

    /** {@return whether a process of id {@code pid} runs}: a slot being taken has no start time to compare yet */
    private static boolean runs(long pid) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        return p.isPresent() && p.get().isAlive();
    }
}
