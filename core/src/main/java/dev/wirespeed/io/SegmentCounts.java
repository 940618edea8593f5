package dev.wirespeed.io;

import java.lang.foreign.MemorySegment;

/**
 * Counting a byte in memory, the one way the library does it: with the Vector API where the JVM was
 * started with it and its vectors are at least 16 bytes wide, eight bytes at a time in a {@code long}
 * otherwise. {@link ByteCounts} (segments and files) and {@link ChannelReader#countToEnd} (a stream)
 * both count here.
 */
final class SegmentCounts {
    /**
     * Whether {@link #count} counts with the Vector API: where the JVM was started with
     * {@code --add-modules jdk.incubator.vector}, vectors are at least 16 bytes wide, and the system
     * property {@code wirespeed.vector} is not {@code false}.
     */
    static final boolean VECTOR = vectorUsable(System.getProperty("wirespeed.vector"),
            ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent());

    private SegmentCounts() {
    }

    /** {@return how many bytes of {@code segment} equal {@code b}} */
    static long count(MemorySegment segment, byte b) {
        return VECTOR ? VectorCounts.count(segment, b) : Swar.count(segment, b);
    }

    /**
     * {@return whether to count with vectors} {@link VectorCounts} is touched (and so loaded) only
     * where the module is there.
     */
    static boolean vectorUsable(String property, boolean modulePresent) {
        if ("false".equals(property) || !modulePresent) {
            return false;
        }
        return VectorCounts.lanes() >= 16;
    }
}
