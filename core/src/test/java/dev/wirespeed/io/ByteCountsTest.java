package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.ScriptedChannel;
import dev.wirespeed.testing.Seed;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Counting equals a plain loop's count, at every size around word, buffer and mapping boundaries. */
class ByteCountsTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    @TempDir
    Path dir;

    static long plainCount(byte[] bytes, byte b) {
        long count = 0;
        for (byte x : bytes) {
            count += x == b ? 1 : 0;
        }
        return count;
    }

    /** Mostly newlines and a byte that differs from a newline in one bit, to catch borrows between bytes. */
    static byte[] text(int length, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            int r = random.nextInt(8);
            bytes[i] = (byte) (r == 0 ? '\n' : r == 1 ? '\n' ^ 1 : r == 2 ? 0 : r == 3 ? 0xFF : random.nextInt(256));
        }
        return bytes;
    }

    @TestFactory
    Stream<DynamicTest> countsEqualAPlainLoopAtEverySizeAroundTheBoundaries() {
        List<Integer> sizes = new ArrayList<>(List.of(0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65));
        for (int boundary : new int[] {64 * 1024, ChannelReader.DEFAULT_CAPACITY, (int) ByteCounts.MAP_THRESHOLD}) {
            for (int delta = -9; delta <= 9; delta += 3) {
                sizes.add(boundary + delta);
            }
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (int size : sizes) {
            tests.add(DynamicTest.dynamicTest(size + " bytes", () -> {
                byte[] bytes = text(size, SEED.value() + size);
                for (byte b : new byte[] {'\n', 0, (byte) 0xFF}) {
                    long expected = plainCount(bytes, b);
                    assertEquals(expected, ByteCounts.count(MemorySegment.ofArray(bytes), b), "segment, byte " + b);
                    assertEquals(expected, Swar.count(MemorySegment.ofArray(bytes), b), "SWAR, byte " + b);
                    assertEquals(expected, VectorCounts.count(MemorySegment.ofArray(bytes), b), "vector, byte " + b);
                    assertEquals(expected, new ChannelReader(ScriptedChannel.randomSplits(bytes, SEED.value(), 3000), 4096, 4096)
                            .countToEnd(b), "reader, byte " + b);
                    Path file = Files.write(dir.resolve("f" + size), bytes);
                    assertEquals(expected, ByteCounts.count(file, b), "file, byte " + b);
                    try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                        assertEquals(expected, ByteCounts.count(ReadAll.mapFile(file, arena), b), "mapped, byte " + b);
                    }
                }
            }));
        }
        return tests.stream();
    }

    @Test
    void theVectorPathIsTakenExactlyWhenTheModuleIsThereAndNotTurnedOff() {
        // The build runs the tests with --add-modules jdk.incubator.vector and without wirespeed.vector.
        assertTrue(ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent(), "the tests run with the module");
        assertEquals(VectorCounts.lanes() >= 16, SegmentCounts.VECTOR, "lanes=" + VectorCounts.lanes());
        assertEquals(VectorCounts.lanes() >= 16, SegmentCounts.vectorUsable("true", true));
        assertEquals(false, SegmentCounts.vectorUsable("false", true), "turned off");
        assertEquals(false, SegmentCounts.vectorUsable(null, false), "no module");
        assertEquals(false, SegmentCounts.vectorUsable("true", false), "no module, whatever the property");
    }

    @Test
    void theVectorCountIsExactAtEveryOffsetAndLengthAroundAVector() {
        byte[] bytes = text(4 * 64 + 16, SEED.value());
        for (int from = 0; from < 70; from++) {
            for (int length = 0; from + length <= bytes.length && length < 3 * 64; length++) {
                MemorySegment slice = MemorySegment.ofArray(bytes).asSlice(from, length);
                long expected = plainCount(java.util.Arrays.copyOfRange(bytes, from, from + length), (byte) '\n');
                assertEquals(expected, VectorCounts.count(slice, (byte) '\n'), "from " + from + " length " + length);
            }
        }
    }

    @Test
    void everyByteValueIsCountedExactlyInEveryPositionOfAWord() {
        for (int value = 0; value < 256; value++) {
            long pattern = Swar.broadcast((byte) value);
            for (int position = 0; position < 8; position++) {
                long word = ~pattern ^ (0xFFL << (8 * position)); // only byte `position` equals value
                word = (word & ~(0xFFL << (8 * position))) | ((value & 0xFFL) << (8 * position));
                int expected = 0;
                for (int k = 0; k < 8; k++) {
                    expected += ((word >>> (8 * k)) & 0xFF) == value ? 1 : 0;
                }
                assertEquals(expected, Swar.count(word, pattern), "value " + value + " position " + position);
            }
        }
    }

    @Test
    void theFirstMatchOfAWordIsFoundAtEveryPositionWhateverFollowsIt() {
        SplittableRandom random = new SplittableRandom(SEED.value());
        for (int value = 0; value < 256; value++) {
            long pattern = Swar.broadcast((byte) value);
            for (int trial = 0; trial < 64; trial++) {
                // Bytes equal to the value, one bit away from it, or random, in any mix.
                long word = 0;
                for (int k = 0; k < 8; k++) {
                    int r = random.nextInt(3);
                    int b = r == 0 ? value : r == 1 ? value ^ (1 << random.nextInt(8)) : random.nextInt(256);
                    word = (word << 8) | (b & 0xFF);
                }
                int expected = 8;
                for (int k = 0; k < 8; k++) { // k = 0 is the most significant byte
                    if (((word >>> (56 - 8 * k)) & 0xFF) == value) {
                        expected = k;
                        break;
                    }
                }
                assertEquals(expected, Swar.firstBigEndian(word, pattern),
                        "value " + value + " word " + Long.toHexString(word) + " seed=" + SEED.value());
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> indexOfEqualsAPlainLoopWhateverTheSplitsAndLimits() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int size : new int[] {0, 1, 7, 8, 9, 17, 100, 4095, 4096, 4097, 20_000}) {
            tests.add(DynamicTest.dynamicTest(size + " bytes", () -> {
                SplittableRandom random = new SplittableRandom(SEED.value() + size);
                for (int trial = 0; trial < 20; trial++) {
                    // Sparse matches, so that scans cross words, reads and refills before finding one.
                    byte[] bytes = new byte[size];
                    for (int i = 0; i < size; i++) {
                        bytes[i] = (byte) (random.nextInt(size / 4 + 2) == 0 ? '\n' : 'a' + random.nextInt(26));
                    }
                    int skip = size == 0 ? 0 : random.nextInt(size);
                    int maxBytes = random.nextInt(size + 2);
                    ChannelReader reader = new ChannelReader(ScriptedChannel.randomSplits(bytes, SEED.value() + trial, 50), 64, 1 << 16);
                    reader.require(skip);
                    reader.view(skip);
                    int expected = -1;
                    for (int i = skip; i < Math.min(size, skip + maxBytes); i++) {
                        if (bytes[i] == '\n') {
                            expected = i - skip;
                            break;
                        }
                    }
                    String what = "size=" + size + " skip=" + skip + " maxBytes=" + maxBytes + " seed=" + SEED.value();
                    assertEquals(expected, reader.indexOf((byte) '\n', maxBytes), what);
                    assertEquals(skip, reader.offset(), "consumed nothing: " + what);
                }
            }));
        }
        return tests.stream();
    }
}
