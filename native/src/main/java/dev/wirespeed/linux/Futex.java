package dev.wirespeed.linux;

import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import dev.wirespeed.shm.RingSleep;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A shared ring's sleep on Linux's futex: the reader sleeps in the kernel on the word of the ring's
 * header ({@code FUTEX_WAIT}, shared between processes, not private), using no CPU until the writer
 * wakes it ({@code FUTEX_WAKE}) or its timeout passes; the writer's wake is a system call only when the
 * reader said it sleeps. Give one to the reader's {@link dev.wirespeed.shm.RingReader#take} and one to
 * the writer's {@link dev.wirespeed.shm.SharedRing#writer(RingSleep)}.
 *
 * <p>Allocates nothing per call.
 *
 * <p>Thread safety: one thread at a time (its timeout and errno capture are its own).
 */
public final class Futex implements RingSleep {
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final MemorySegment timeout;
    private final MemorySegment capture;

    private Futex() {
        Arena arena = Arena.ofAuto();
        this.timeout = arena.allocate(16, 8); // struct timespec: seconds, nanoseconds
        this.capture = LibC.captureSegment(arena);
    }

    /**
     * {@return a futex sleep, for one thread}
     *
     * @throws UnsupportedOperationException off Linux, or where the system calls are unavailable
     */
    public static Futex create() {
        LibC.checkSupported();
        return new Futex();
    }

    /**
     * {@inheritDoc} In the kernel, until woken, the word changed, a signal, or {@code nanos} passed.
     *
     * @throws java.io.UncheckedIOException with a {@link NativeIoException} naming the call and errno, if
     *     the kernel refuses the wait for another reason than those (a word the process may not read)
     */
    @Override
    public void sleep(MemorySegment word, int expected, long nanos) {
        timeout.set(ValueLayout.JAVA_LONG, 0, nanos / NANOS_PER_SECOND);
        timeout.set(ValueLayout.JAVA_LONG, 8, nanos % NANOS_PER_SECOND);
        long rc = Syscalls.call(capture, SyscallNumbers.FUTEX, word.address(), FUTEX_WAIT, expected,
                timeout.address(), 0, 0);
        if (rc < 0 && rc != -Errno.EAGAIN && rc != -Errno.EINTR && rc != -Errno.ETIMEDOUT) {
            throw new java.io.UncheckedIOException(new NativeIoException("futex", (int) -rc, "FUTEX_WAIT word="
                    + word + " expected=" + expected + " nanos=" + nanos));
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws java.io.UncheckedIOException with a {@link NativeIoException} naming the call and errno, if
     *     the kernel refuses
     */
    @Override
    public void wake(MemorySegment word) {
        long rc = Syscalls.call(capture, SyscallNumbers.FUTEX, word.address(), FUTEX_WAKE, 1, 0, 0, 0);
        if (rc < 0) {
            throw new java.io.UncheckedIOException(new NativeIoException("futex", (int) -rc, "FUTEX_WAKE word="
                    + word));
        }
    }
}
