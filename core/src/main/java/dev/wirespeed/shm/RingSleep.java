package dev.wirespeed.shm;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * How a {@link RingReader} with nothing to read sleeps ({@link RingReader#take}), and how its {@link
 * RingWriter} wakes it: on a 32-bit word of the ring's header, which both processes map. The native
 * module's {@code dev.wirespeed.linux.Futex} sleeps in the kernel on the word itself until the writer
 * wakes it, so an idle reader uses no CPU and the first frame after an idle period wakes it at once;
 * {@link #polling()} needs no system call of its own, and sleeps in short steps instead.
 *
 * <p>Thread safety: an implementation says; a reader's and a writer's are each used by one thread.
 */
public interface RingSleep {
    /**
     * Sleeps while the 32-bit word {@code word} (native order) holds {@code expected}, until woken, for
     * {@code nanos} at the most; may return early for no reason (the caller looks again).
     *
     * @param word the word: 4 bytes of the ring's mapping
     * @param expected the value that means "asleep"
     * @param nanos the longest sleep, at least 1
     */
    void sleep(MemorySegment word, int expected, long nanos);

    /**
     * Wakes the process sleeping on {@code word}, if one is: the writer's call after it set the word
     * back.
     *
     * @param word the word a reader sleeps on
     */
    void wake(MemorySegment word);

    /**
     * {@return a sleep in steps of at most 50 microseconds ({@link LockSupport#parkNanos}), which wakes
     * by itself and so needs no wake: for a platform without the native module}
     */
    static RingSleep polling() {
        return PollingSleep.INSTANCE;
    }
}
