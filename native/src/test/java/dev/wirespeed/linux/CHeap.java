package dev.wirespeed.linux;

import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * The C heap's bytes in use, from glibc's {@code mallinfo2}: OpenSSL's memory, and the loop's direct
 * buffers (an {@code Arena}'s segments and {@code allocateDirect}'s buffers are {@code malloc}'s too).
 *
 * <p>Thread safety: stateless.
 */
public final class CHeap {
    private static final StructLayout MALLINFO = MemoryLayout.structLayout(ValueLayout.JAVA_LONG.withName("arena"),
            ValueLayout.JAVA_LONG.withName("ordblks"), ValueLayout.JAVA_LONG.withName("smblks"),
            ValueLayout.JAVA_LONG.withName("hblks"), ValueLayout.JAVA_LONG.withName("hblkhd"),
            ValueLayout.JAVA_LONG.withName("usmblks"), ValueLayout.JAVA_LONG.withName("fsmblks"),
            ValueLayout.JAVA_LONG.withName("uordblks"), ValueLayout.JAVA_LONG.withName("fordblks"),
            ValueLayout.JAVA_LONG.withName("keepcost"));

    @SuppressWarnings("restricted")
    private static final Optional<MethodHandle> MALLINFO2 = Linker.nativeLinker().defaultLookup().find("mallinfo2")
            .map(f -> Linker.nativeLinker().downcallHandle(f, FunctionDescriptor.of(MALLINFO)));

    private CHeap() {
    }

    /** Goes on where glibc's {@code mallinfo2} (2.33 and later) is there to read. */
    public static void assumeMeasurable() {
        Environment.assume(Feature.MALLINFO2, MALLINFO2.isPresent(),
                "glibc's mallinfo2 (2.33 and later) is not in this C library: the C heap is not measured");
    }

    /** {@return the C heap's bytes in use: {@code uordblks + hblkhd}} */
    public static long inUse() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = (MemorySegment) MALLINFO2.orElseThrow().invokeExact((SegmentAllocator) arena);
            return info.get(ValueLayout.JAVA_LONG, 7 * 8) + info.get(ValueLayout.JAVA_LONG, 4 * 8);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("mallinfo2 failed", t);
        }
    }

    /**
     * {@return the least of {@code readings} readings {@code millis} ms apart}: the JVM's own use of the
     * C heap (a compilation's arena) comes and goes; what a test's objects hold stays
     */
    public static long settledInUse(int readings, long millis) throws InterruptedException {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < readings; i++) {
            if (i > 0) {
                Thread.sleep(millis);
            }
            least = Math.min(least, inUse());
        }
        return least;
    }
}
