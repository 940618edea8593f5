package dev.wirespeed.linux;

import dev.wirespeed.linux.internal.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;

/**
 * CPU affinity of the calling thread through {@code sched_setaffinity(2)} and
 * {@code sched_getaffinity(2)}, called with the Foreign Function and Memory API: no {@code taskset}
 * process, no {@code --add-opens}, no JNI library to ship.
 *
 * <p>Affinity is a property of the calling thread (the kernel's task), not of the JVM: pin the thread
 * that does the work. CPU numbers are the kernel's ({@code /sys/devices/system/cpu/cpuN}).
 *
 * <p>Thread safety: every method acts on the calling thread only and may be called from any thread.
 */
public final class Affinity {
    /** Bytes of the CPU mask passed to the kernel: room for 4096 CPUs. */
    private static final int MASK_BYTES = 512;

    private Affinity() {
    }

    /**
     * Pins the calling thread to the given CPUs.
     *
     * @param cpus the CPUs it may run on; not empty
     * @throws NativeIoException if the kernel refuses (for example {@code EINVAL} for CPUs that are
     *     offline or outside the process's cpuset)
     * @throws UnsupportedOperationException off Linux
     */
    public static void pinCurrentThread(BitSet cpus) throws NativeIoException {
        LibC.checkSupported();
        if (cpus.isEmpty() || cpus.length() > MASK_BYTES * Byte.SIZE) {
            throw new IllegalArgumentException("cpus=" + cpus + " must be non-empty and below "
                    + MASK_BYTES * Byte.SIZE);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, Long.BYTES);
            long[] words = cpus.toLongArray();
            for (int i = 0; i < words.length; i++) {
                mask.setAtIndex(ValueLayout.JAVA_LONG, i, words[i]);
            }
            MemorySegment capture = LibC.captureSegment(arena);
            int rc = (int) LibC.Cpus.SCHED_SETAFFINITY.invokeExact(capture, 0, (long) MASK_BYTES, mask);
            if (rc != 0) {
                throw new NativeIoException("sched_setaffinity", LibC.errno(capture), "cpus=" + cpus);
            }
        } catch (NativeIoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity down-call failed", t);
        }
    }

    /**
     * The CPUs the calling thread may run on.
     *
     * @return a new set
     * @throws NativeIoException if the kernel refuses
     * @throws UnsupportedOperationException off Linux
     */
    public static BitSet allowedCpus() throws NativeIoException {
        LibC.checkSupported();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, Long.BYTES);
            MemorySegment capture = LibC.captureSegment(arena);
            int rc = (int) LibC.Cpus.SCHED_GETAFFINITY.invokeExact(capture, 0, (long) MASK_BYTES, mask);
            if (rc < 0) {
                throw new NativeIoException("sched_getaffinity", LibC.errno(capture), "");
            }
            return BitSet.valueOf(mask.toArray(ValueLayout.JAVA_LONG));
        } catch (NativeIoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_getaffinity down-call failed", t);
        }
    }

    /**
     * The CPU the calling thread runs on now (it may move right after, unless pinned to one CPU).
     *
     * @return the CPU number
     * @throws NativeIoException if the call fails
     * @throws UnsupportedOperationException off Linux
     */
    public static int currentCpu() throws NativeIoException {
        LibC.checkSupported();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = LibC.captureSegment(arena);
            int cpu = (int) LibC.Cpus.SCHED_GETCPU.invokeExact(capture);
            if (cpu < 0) {
                throw new NativeIoException("sched_getcpu", LibC.errno(capture), "");
            }
            return cpu;
        } catch (NativeIoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_getcpu down-call failed", t);
        }
    }
}
