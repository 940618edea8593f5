package dev.wirespeed.shm;

import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.Optional;

/**
 * One end's slot in a ring's header: the process that holds the end, as its id and its start time (so
 * that an id the system gave to another process since is not taken for it), 0 while no process holds
 * it, {@link #CLOSED} once the holder closed its end. A process takes an end that is free, closed, or
 * held by a process that is gone; not one a live process holds.
 *
 * <p>Thread safety: static, on the shared mapping; a slot changes by compare-and-set.
 */
final class Peer {
    /** The id of an end closed by its holder. */
    static final long CLOSED = -1;
    /** The slot's start time's offset after its id. */
    static final long START = 8;

    private Peer() {
    }

    /** {@return this process's start time, in milliseconds since the epoch, or 0 where the system does not say} */
    static long startMillis(ProcessHandle p) {
        return p.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    /**
     * Takes the end whose slot is at {@code slot} for this process.
     *
     * @throws IllegalStateException if a live process holds it, naming the process
     */
    static void take(MemorySegment region, long slot, String end, String where) {
        ProcessHandle me = ProcessHandle.current();
        while (true) {
            long holder = (long) SharedRing.LONG.getAcquire(region, slot);
            if (holder > 0 && (holder == me.pid() || alive(region, slot, holder))) {
                throw new IllegalStateException("the " + end + " of " + where + " is held by process " + holder
                        + (holder == me.pid() ? " (this one)" : ", which runs") + ": one " + end + " per ring");
            }
            region.set(java.lang.foreign.ValueLayout.JAVA_LONG, slot + START, startMillis(me));
            if (SharedRing.LONG.compareAndSet(region, slot, holder, me.pid())) {
                return;
            }
        }
    }

    /** Marks the end at {@code slot} closed by this process, which holds it. */
    static void close(MemorySegment region, long slot) {
        SharedRing.LONG.compareAndSet(region, slot, ProcessHandle.current().pid(), CLOSED);
    }

    /** {@return the id of the holder of the end at {@code slot}: 0 for none yet, {@link #CLOSED} once closed} */
    static long holder(MemorySegment region, long slot) {
        return (long) SharedRing.LONG.getAcquire(region, slot);
    }

    /** {@return whether process {@code pid}, the holder of the end at {@code slot}, still runs} */
    static boolean alive(MemorySegment region, long slot, long pid) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            return false;
        }
        long recorded = region.get(java.lang.foreign.ValueLayout.JAVA_LONG, slot + START);
        long start = startMillis(p.get());
        return recorded == 0 || start == 0 || Math.abs(start - recorded) < 1_000; // the same process, not a reused id
    }
}
