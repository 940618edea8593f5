package dev.wirespeed.linux.internal.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A system call by its number, with up to six arguments, each passed as a {@code long} (pointers as
 * addresses; a call that takes fewer ignores the rest): its result, or minus its {@code errno}. Made
 * through {@link LibC#STUB_6} where it is there, which returns minus the errno itself; else through
 * {@code syscall(2)}, with the errno captured into {@code capture}, which may be {@code null} where
 * {@link LibC#STUB_CALLS}. That flag is a constant, so the JIT compiles one of the two paths into each
 * caller and drops the other. Never through the C library's wrapper of the call: in the JVM's
 * multi-threaded process a wrapper that is a cancellation point adds two atomic updates of the thread's
 * cancellation state per call ({@link LibC}).
 */
public final class Syscalls {
    private Syscalls() {
    }

    /**
     * {@return a segment from {@code arena} for these calls' errno, where they capture it; else (where
     * {@link LibC#STUB_CALLS}) null, and nothing is allocated}
     */
    public static MemorySegment capture(Arena arena) {
        return LibC.STUB_CALLS ? null : LibC.captureSegment(arena);
    }

    /**
     * {@return a segment for these calls' errno that its holder keeps, from an automatic arena, where they
     * capture it; else null, and nothing is allocated}: for an object that makes calls for its whole life,
     * so that making it allocates no arena where none is needed
     */
    public static MemorySegment ownCapture() {
        return LibC.STUB_CALLS ? null : LibC.captureSegment(Arena.ofAuto());
    }

    /** {@return the call's result, or minus its errno} */
    public static long call(MemorySegment capture, long number, long a1, long a2, long a3, long a4, long a5,
            long a6) {
        try {
            if (LibC.STUB_CALLS) {
                return (long) LibC.STUB_6.invokeExact(number, a1, a2, a3, a4, a5, a6);
            }
            long n = (long) LibC.Fallback.SYSCALL_6.invokeExact(capture, number, a1, a2, a3, a4, a5, a6);
            return n >= 0 ? n : -LibC.errno(capture);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("system call " + number + " down-call failed", t);
        }
    }

    /**
     * {@link #call} as a critical call, which skips the thread-state changes around it: only for a call
     * that returns at once, as {@link LibC.Fallback#SYSCALL_6_CRITICAL} lists. A critical call that waits holds up
     * every safepoint of the JVM until it returns.
     */
    public static long callNow(MemorySegment capture, long number, long a1, long a2, long a3, long a4, long a5,
            long a6) {
        try {
            if (LibC.STUB_CALLS) {
                return (long) LibC.STUB_6_CRITICAL.invokeExact(number, a1, a2, a3, a4, a5, a6);
            }
            long n = (long) LibC.Fallback.SYSCALL_6_CRITICAL.invokeExact(capture, number, a1, a2, a3, a4, a5, a6);
            return n >= 0 ? n : -LibC.errno(capture);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("system call " + number + " down-call failed", t);
        }
    }
}
