package dev.wirespeed.io;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Counting a byte eight at a time in a {@code long} (SIMD within a register). Exact: unlike the
 * classic {@code (x - 0x01..) & ~x & 0x80..} test, the sum below cannot borrow across bytes.
 */
final class Swar {
    private static final long LOW_SEVEN = 0x7F7F_7F7F_7F7F_7F7FL;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private Swar() {
    }

    /** {@return a word holding {@code b} in each of its eight bytes} */
    static long broadcast(byte b) {
        return (b & 0xFFL) * 0x0101_0101_0101_0101L;
    }

    /** {@return how many of the eight bytes of {@code word} equal the byte {@code pattern} was made of} */
    static int count(long word, long pattern) {
        return Long.bitCount(matches(word, pattern));
    }

    /** {@return how many bytes of {@code segment} equal {@code b}, counted eight at a time, then the tail one by one} */
    static long count(MemorySegment segment, byte b) {
        long pattern = broadcast(b);
        long size = segment.byteSize();
        long count = 0;
        long i = 0;
        for (; i <= size - Long.BYTES; i += Long.BYTES) {
            count += count(segment.get(WORD, i), pattern);
        }
        for (; i < size; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, i) == b) {
                count++;
            }
        }
        return count;
    }

    /**
     * {@return the index (0 for the most significant byte) of the first byte of {@code word} equal to
     * the byte {@code pattern} was made of, or 8 if none is} For a word read big-endian, index 0 is the
     * byte first in memory.
     */
    static int firstBigEndian(long word, long pattern) {
        return Long.numberOfLeadingZeros(matches(word, pattern)) >>> 3;
    }

    /** {@return bit 7 of each byte of {@code word} set where that byte equals {@code pattern}'s, all else clear} */
    private static long matches(long word, long pattern) {
        long x = word ^ pattern; // a matching byte is now zero
        // Per byte: (low 7 bits + 0x7F) sets bit 7 unless the low bits are zero; OR-ing x adds bit 7 itself.
        long nonZero = ((x & LOW_SEVEN) + LOW_SEVEN) | x;
        return ~(nonZero | LOW_SEVEN);
    }
}
