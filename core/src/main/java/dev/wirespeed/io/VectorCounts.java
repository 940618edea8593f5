package dev.wirespeed.io;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Counting a byte with the Vector API: one compare and one mask count per vector of the platform's
 * preferred width (32 bytes with AVX2). Loaded only where {@link SegmentCounts} found the incubating
 * module {@code jdk.incubator.vector} in the boot layer ({@code --add-modules jdk.incubator.vector});
 * nothing else in the library refers to it.
 */
final class VectorCounts {
    private static final VectorSpecies<Byte> SPECIES = ByteVector.SPECIES_PREFERRED;

    private VectorCounts() {
    }

    /** {@return the bytes of the preferred vector: below 16 the Vector API gains nothing on a {@code long}} */
    static int lanes() {
        return SPECIES.length();
    }

    /** {@return how many bytes of {@code segment} equal {@code b}} */
    static long count(MemorySegment segment, byte b) {
        long size = segment.byteSize();
        long count = 0;
        long i = 0;
        for (long bound = size - SPECIES.length(); i <= bound; i += SPECIES.length()) {
            count += ByteVector.fromMemorySegment(SPECIES, segment, i, ByteOrder.nativeOrder()).eq(b).trueCount();
        }
        return count + Swar.count(segment.asSlice(i), b);
    }
}
