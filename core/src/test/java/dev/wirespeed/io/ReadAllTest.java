package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.ScriptedChannel;
import java.io.ByteArrayInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

class ReadAllTest {
    private static final long SEED = Long.getLong("wirespeed.test.seed", System.nanoTime());
    /** The review thread's lengths, the chunk boundaries around them, and larger ones. */
    static final int[] LENGTHS = {0, 1, 8191, 8192, 8193, 16383, 16384, 16385, 32767, 32768, 32769, 65535, 65536,
        65537, 131071, 131072, 131073, 262143, 262144, 262145, 1 << 20};

    @TempDir
    Path dir;

    static byte[] data(int length, long seed) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    /** An InputStream of unknown size that does not override readAllBytes, reading at most {@code max} per call. */
    static InputStream stream(byte[] bytes, int max) {
        return new InputStream() {
            private int at;

            @Override
            public int read() {
                return at < bytes.length ? bytes[at++] & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) {
                    return 0;
                }
                if (at == bytes.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, max), bytes.length - at);
                System.arraycopy(bytes, at, b, off, n);
                at += n;
                return n;
            }
        };
    }

    @TestFactory
    Stream<DynamicTest> returnsIdenticalBytesForEveryLengthFromEverySource() {
        System.out.println("ReadAllTest seed=" + SEED);
        List<DynamicTest> tests = new ArrayList<>();
        for (int length : LENGTHS) {
            byte[] expected = data(length, SEED + length);
            tests.add(DynamicTest.dynamicTest(length + " bytes", () -> {
                assertArrayEquals(expected, ReadAll.readAll(stream(expected, Integer.MAX_VALUE)), "stream");
                assertArrayEquals(expected, ReadAll.readAll(stream(expected, 1 + length / 7)), "short reads");
                assertArrayEquals(expected, ReadAll.readAll(new ByteArrayInputStream(expected)), "byte array");
                assertArrayEquals(expected, ReadAll.readAll(ScriptedChannel.zeroEveryOtherCall(expected)), "channel");
                assertArrayEquals(expected, ReadAll.readAll(ScriptedChannel.randomSplits(expected, SEED, 5000)), "splits");
                Path file = Files.write(dir.resolve("f" + length), expected);
                assertArrayEquals(expected, ReadAll.readAll(file), "path");
                try (FileInputStream in = new FileInputStream(file.toFile())) {
                    assertArrayEquals(expected, ReadAll.readAll(in), "file stream");
                }
                ByteBuffer view = ReadAll.readAllAsBuffer(stream(expected, 4096));
                assertTrue(view.isReadOnly());
                assertEquals(ByteBuffer.wrap(expected), view);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment mapped = ReadAll.mapFile(file, arena);
                    assertArrayEquals(expected, mapped.toArray(ValueLayout.JAVA_BYTE), "mapped");
                }
            }));
        }
        tests.add(DynamicTest.dynamicTest("one byte per read", () -> {
            byte[] expected = data(40_000, SEED);
            assertArrayEquals(expected, ReadAll.readAll(stream(expected, 1)));
            assertArrayEquals(expected, ReadAll.readAll(ScriptedChannel.oneByteAtATime(expected)));
        }));
        return tests.stream();
    }

    @Test
    void readsTheRestOfAFileThatGrowsWhileReadAndOnlyWhatIsLeftOfOneThatShrinks() throws Exception {
        byte[] bytes = data(100_000, SEED);
        assertArrayEquals(bytes, ReadAll.readAll(new Lying(bytes, 30_000)), "grew after size() said 30,000");
        assertArrayEquals(bytes, ReadAll.readAll(new Lying(bytes, 99_999)), "grew by one byte");
        assertArrayEquals(bytes, ReadAll.readAll(new Lying(bytes, 250_000)), "shrank below what size() said");
    }

    @Test
    void refusesAnInputLongerThanTheLargestArrayWithAClearError() {
        IOException e = assertThrows(IOException.class, () -> ReadAll.readAll(new Lying(new byte[10], 3_000_000_000L)));
        assertEquals("input longer than the largest array: length>=3000000000 max=2147483639; read it with a "
                + "ChannelReader or map it (ReadAll.mapFile)", e.getMessage());
    }

    @Test
    void aViewOfAnInputThatFitsOneChunkIsTheChunkItselfWithoutACopy() throws Exception {
        byte[] bytes = data(1000, SEED);
        ByteBuffer view = ReadAll.readAllAsBuffer(stream(bytes, 100));
        assertEquals(1000, view.remaining());
        assertEquals(ReadAll.CHUNK, view.capacity(), "the chunk, not a trimmed copy");
    }

    @Test
    void allocatesNoMoreThanTheJdksReadAllBytesAtEveryLength() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int warm = 0; warm < 3; warm++) {
            for (int length : LENGTHS) {
                byte[] bytes = data(length, length);
                ReadAll.readAll(stream(bytes, Integer.MAX_VALUE));
                stream(bytes, Integer.MAX_VALUE).readAllBytes();
            }
        }
        StringBuilder table = new StringBuilder("length ours jdk\n");
        for (int length : LENGTHS) {
            byte[] bytes = data(length, length);
            InputStream a = stream(bytes, Integer.MAX_VALUE);
            InputStream b = stream(bytes, Integer.MAX_VALUE);
            long t0 = threads.getCurrentThreadAllocatedBytes();
            byte[] ours = ReadAll.readAll(a);
            long t1 = threads.getCurrentThreadAllocatedBytes();
            byte[] jdk = b.readAllBytes();
            long t2 = threads.getCurrentThreadAllocatedBytes();
            assertArrayEquals(jdk, ours);
            table.append(length).append(' ').append(t1 - t0).append(' ').append(t2 - t1).append('\n');
            assertTrue(t1 - t0 <= t2 - t1, "length " + length + ": ours " + (t1 - t0) + " > jdk " + (t2 - t1) + "\n" + table);
            if (length == ReadAll.CHUNK) { // probed, not a second chunk: the chunk and its header only
                assertTrue(t1 - t0 < ReadAll.CHUNK + 64, "exactly one chunk: ours " + (t1 - t0) + "\n" + table);
            }
        }
        System.out.println("ReadAllTest allocation (bytes):\n" + table);
    }

    /**
     * A seekable channel over fixed bytes whose first size() says {@code claimed} and later ones the
     * truth: a file that grew or shrank after it was asked its size.
     */
    private static final class Lying implements SeekableByteChannel {
        private final byte[] bytes;
        private final long claimed;
        private int position;
        private boolean asked;

        Lying(byte[] bytes, long claimed) {
            this.bytes = bytes;
            this.claimed = claimed;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (position == bytes.length) {
                return -1;
            }
            int n = Math.min(dst.remaining(), bytes.length - position);
            dst.put(bytes, position, n);
            position += n;
            return n;
        }

        @Override
        public long size() {
            if (asked) {
                return bytes.length;
            }
            asked = true;
            return claimed;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public SeekableByteChannel position(long newPosition) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int write(ByteBuffer src) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SeekableByteChannel truncate(long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
