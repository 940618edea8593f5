package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.io.spi.FileReadProvider;
import dev.wirespeed.testing.Seed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReadAll}'s side of {@link FileReadProvider}: the algorithm over a provider's open file,
 * given adversarial files (short reads, sizes that are no longer true, no size), and the choice of
 * provider. The Linux provider itself is tested in the native module.
 */
class ReadAllProviderTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    @TempDir
    Path dir;

    /**
     * An open file over {@code bytes} that says it has {@code size} bytes, reads at most
     * {@code max} per call (random amounts below that where {@code random} is given), and records
     * the largest read it was asked for and whether it was closed.
     */
    static final class FakeFile implements FileReadProvider.OpenFile {
        final byte[] bytes;
        final long size;
        final int max;
        final SplittableRandom random;
        int at;
        int largestAsked;
        int calls;
        boolean closed;

        FakeFile(byte[] bytes, long size, int max, SplittableRandom random) {
            this.bytes = bytes;
            this.size = size;
            this.max = max;
            this.random = random;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public int read(byte[] into, int offset, int length) throws IOException {
            if (closed) {
                throw new IOException("read after close");
            }
            calls++;
            largestAsked = Math.max(largestAsked, length);
            if (at == bytes.length) {
                return -1;
            }
            int most = Math.min(Math.min(length, max), bytes.length - at);
            int n = random == null ? most : 1 + random.nextInt(most);
            System.arraycopy(bytes, at, into, offset, n);
            at += n;
            return n;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void readsEveryByteWhateverTheFileSaysItsSizeIsAndHowShortItsReadsAre() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED.value());
        for (int length : ReadAllTest.LENGTHS) {
            byte[] bytes = ReadAllTest.data(length, random.nextLong());
            // The true size, none, one too few and many too few (grew), one too many and many too many (shrank).
            long[] sizes = {length, 0, length - 1L, length / 3, length + 1L, length * 2L + 5};
            for (long size : sizes) {
                if (size < 0) {
                    continue;
                }
                for (int max : new int[] {1 << 30, 4097, 1}) {
                    if (max == 1 && length > 70_000) {
                        continue; // a byte per call over a megabyte proves nothing more
                    }
                    FakeFile file = new FakeFile(bytes, size, max, max == 4097 ? random.split() : null);
                    byte[] read = ReadAll.readAll(file);
                    String what = "length=" + length + " size=" + size + " max=" + max + " seed=" + SEED.value();
                    assertArrayEquals(bytes, read, what);
                    assertTrue(file.largestAsked <= ReadAll.PROVIDER_WINDOW,
                            "a provider is asked for at most a window: " + file.largestAsked + " " + what);
                }
            }
        }
    }

    @Test
    void aFileOfTheSizeItSaidIsReadInWindowsThenOneReadFindsItsEnd() throws IOException {
        int length = 2 * ReadAll.PROVIDER_WINDOW + 5;
        FakeFile file = new FakeFile(ReadAllTest.data(length, SEED.value()), length, Integer.MAX_VALUE, null);
        byte[] read = ReadAll.readAll(file);
        assertEquals(length, read.length);
        assertEquals(3 + 1, file.calls, "three windows, then one read that finds the end");
    }

    @Test
    void aColdSetReadsTheEndOfAProvidersFileAndWhatItGrewBy() throws IOException {
        byte[] bytes = ReadAllTest.data(50_000, SEED.value());
        for (long size : new long[] {bytes.length, 20_000, ReadAll.CHUNK}) {
            ReadAllTest.emptyEverySlot();
            FakeFile file = new FakeFile(bytes, size, Integer.MAX_VALUE, null);
            assertArrayEquals(bytes, ReadAll.readAll(file), "size=" + size);
        }
        byte[] high = new byte[30_000];
        Arrays.fill(high, (byte) 0x80);
        ReadAllTest.emptyEverySlot();
        assertArrayEquals(high, ReadAll.readAll(new FakeFile(high, 10_000, Integer.MAX_VALUE, null)), "bytes >= 0x80");
    }

    @Test
    void anEmptyFileWithNoSizeIsTheSharedEmptyArray() throws IOException {
        assertSame(ReadAll.readAll(new FakeFile(new byte[0], 0, 1, null)),
                ReadAll.readAll(new FakeFile(new byte[0], 0, 1, null)));
    }

    @Test
    void aSizeLargerThanTheLargestArrayIsRefusedBeforeAnythingIsAllocated() {
        FakeFile file = new FakeFile(new byte[0], ReadAll.MAX_ARRAY_LENGTH + 1L, 1, null);
        IOException e = assertThrows(IOException.class, () -> ReadAll.readAll(file));
        assertTrue(e.getMessage().contains("length>=" + (ReadAll.MAX_ARRAY_LENGTH + 1L)), e.getMessage());
        assertEquals(0, file.calls);
    }

    /** A provider that records what it was asked, returning {@code opened} (null: it declines). */
    private static FileReadProvider provider(boolean usable, FileReadProvider.OpenFile opened) {
        return new FileReadProvider() {
            @Override
            public String name() {
                return usable ? "usable" : "unusable";
            }

            @Override
            public boolean usable() {
                return usable;
            }

            @Override
            public FileReadProvider.OpenFile open(Path file) {
                return opened;
            }
        };
    }

    @Test
    void theFirstUsableProviderIsChosenUnlessThePropertySaysFalse() {
        FileReadProvider unusable = provider(false, null);
        FileReadProvider usable = provider(true, null);
        FileReadProvider other = provider(true, null);
        assertSame(usable, ReadAll.find(null, List.of(unusable, usable, other)));
        assertSame(usable, ReadAll.find("true", List.of(usable)));
        assertNull(ReadAll.find("false", List.of(usable)));
        assertNull(ReadAll.find(null, List.of(unusable)));
        assertNull(ReadAll.find(null, List.of()));
    }

    @Test
    void aProviderThatCannotBeLoadedLeavesFilesToTheJdk() {
        Iterable<FileReadProvider> broken = () -> new Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public FileReadProvider next() {
                throw new ServiceConfigurationError("dev.wirespeed.io.spi.FileReadProvider: Provider x not found");
            }
        };
        assertNull(ReadAll.find(null, broken));
    }

    @Test
    void fileReadsNamesTheChosenProviderOrTheJdkWithWhyEachProviderFoundIsUnusable() {
        FileReadProvider unusable = provider(false, null);
        FileReadProvider usable = provider(true, null);
        assertEquals("", usable.unusableReason());
        assertEquals("not usable in this JVM", unusable.unusableReason());
        assertEquals("usable", ReadAll.report(null, usable, List.of(unusable, usable)));
        assertEquals("the JDK's FileChannel", ReadAll.report(null, null, List.of()));
        assertEquals("the JDK's FileChannel (wirespeed.fileReadProvider=false)",
                ReadAll.report("false", null, List.of(unusable)));
        assertEquals("the JDK's FileChannel (unusable: not usable in this JVM; unusable: not usable in this JVM)",
                ReadAll.report(null, null, List.of(unusable, unusable)));
        Iterable<FileReadProvider> brokenAfterOne = () -> new Iterator<>() {
            private boolean first = true;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public FileReadProvider next() {
                if (first) {
                    first = false;
                    return unusable;
                }
                throw new ServiceConfigurationError("Provider x not found");
            }
        };
        assertEquals("the JDK's FileChannel (unusable: not usable in this JVM; a provider could not be loaded: "
                + "Provider x not found)", ReadAll.report(null, null, brokenAfterOne));
        Iterable<FileReadProvider> broken = () -> new Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public FileReadProvider next() {
                throw new ServiceConfigurationError("Provider x not found");
            }
        };
        assertEquals("the JDK's FileChannel (a provider could not be loaded: Provider x not found)",
                ReadAll.report(null, null, broken));
    }

    @Test
    void withoutAPlatformModuleFilesAreReadThroughTheJdksChannel() throws IOException {
        // Core's tests have no provider on their path: the JDK's channel reads, and its errors are the JDK's.
        assertEquals("the JDK's FileChannel", ReadAll.fileReads());
        byte[] bytes = ReadAllTest.data(70_000, SEED.value());
        Path file = Files.write(dir.resolve("f"), bytes);
        assertArrayEquals(bytes, ReadAll.readAll(file));
        assertThrows(NoSuchFileException.class, () -> ReadAll.readAll(dir.resolve("missing")));
    }
}
