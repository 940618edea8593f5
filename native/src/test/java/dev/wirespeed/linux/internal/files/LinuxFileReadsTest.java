package dev.wirespeed.linux.internal.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.io.ReadAll;
import dev.wirespeed.io.spi.FileReadProvider;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Seed;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Linux file provider: the bytes it reads, through {@link ReadAll} and by hand, whether its
 * copy went straight into the array (pages in memory) or through its buffer (not in memory, not a
 * regular file), files that change while open, what it leaves to the JDK, and what it allocates.
 */
class LinuxFileReadsTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();
    private static final LinuxFileReads PROVIDER = new LinuxFileReads();
    /** Lengths around pages, the native buffer, the window and the core's window doubling. */
    private static final int[] LENGTHS = {1, 4095, 4096, 4097, 8191, 65535, 65536, 65537, 262143, 262144, 262145,
        524288, 524289, (1 << 20) + 3};

    @TempDir
    Path dir;

    @BeforeEach
    void onlyWhereUsable() {
        // cachestat(2) is Linux 6.5's; the provider also needs native access, which the build grants.
        Environment.assume(Feature.CACHESTAT, PROVIDER.usable(), PROVIDER::unusableReason);
    }

    private static byte[] data(int length, long seed) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    private static LinuxFileReads.Opened open(Path file) throws IOException {
        FileReadProvider.OpenFile open = PROVIDER.open(file);
        assertNotNull(open, "opened " + file);
        return assertInstanceOf(LinuxFileReads.Opened.class, open);
    }

    /** Reads {@code open} to its end, {@code chunk} bytes asked per call, checking every call's bound. */
    private static byte[] readToEnd(FileReadProvider.OpenFile open, int chunk) throws IOException {
        byte[] into = new byte[chunk];
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        int n;
        while ((n = open.read(into, 0, chunk)) >= 0) {
            assertTrue(n >= 1 && n <= Math.min(chunk, LinuxFileReads.WINDOW), "n=" + n + " asked=" + chunk);
            all.write(into, 0, n);
        }
        return all.toByteArray();
    }

    @Test
    void readAllFindsThisProviderAndReadsEveryLengthThroughIt() throws IOException {
        assertEquals(PROVIDER.name(), ReadAll.fileReads(), "ServiceLoader finds the provider on the class path");
        SplittableRandom random = new SplittableRandom(SEED.value());
        for (int length : LENGTHS) {
            byte[] bytes = data(length, random.nextLong());
            Path file = Files.write(dir.resolve("f" + length), bytes);
            assertArrayEquals(bytes, ReadAll.readAll(file), "length=" + length);
            try (LinuxFileReads.Opened open = open(file)) {
                assertEquals(length >= LinuxFileReads.SMALL, open.critical(),
                        "a file just written is in the page cache, so all but small ones are read straight into the array: length="
                        + length);
                assertEquals(length, open.size());
                assertArrayEquals(bytes, readToEnd(open, 1 << 20), "length=" + length);
            }
        }
        assertEquals(0, ReadAll.readAll(Files.write(dir.resolve("empty"), new byte[0])).length);
    }

    /** {@code posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)}: the kernel drops the file's clean pages. */
    @SuppressWarnings("restricted")
    private static void dropFromPageCache(Path file) throws Throwable {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true); // only clean pages are dropped
        }
        Linker linker = Linker.nativeLinker();
        MethodHandle fadvise = linker.downcallHandle(linker.defaultLookup().find("posix_fadvise").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = LibC.captureSegment(arena);
            int fd = (int) LibC.Files.OPEN.invokeExact(capture, arena.allocateFrom(file.toString()), 0);
            assertTrue(fd >= 0, "open errno=" + LibC.errno(capture));
            try {
                assertEquals(0, (int) fadvise.invokeExact(fd, 0L, 0L, 4));
            } finally {
                Sys.close(fd);
            }
        }
    }

    @Test
    void aFileNotAllInMemoryIsReadThroughTheBufferAndStillWhole() throws Throwable {
        String store = Files.getFileStore(dir).type();
        Environment.assume(Feature.DISK_TMPDIR, !store.equals("tmpfs"), () -> "java.io.tmpdir="
                + System.getProperty("java.io.tmpdir") + " is on " + store + ", which keeps every page in memory");
        byte[] bytes = data(300_001, SEED.value());
        Path file = Files.write(dir.resolve("cold"), bytes);
        dropFromPageCache(file);
        try (LinuxFileReads.Opened open = open(file)) {
            assertFalse(open.critical(), "dropped pages are not in memory");
            assertArrayEquals(bytes, readToEnd(open, 1 << 20));
        }
        dropFromPageCache(file);
        assertArrayEquals(bytes, ReadAll.readAll(file));
    }

    @Test
    void aFileThatGrowsOrShrinksWhileOpenIsReadAsItIsNow() throws IOException {
        byte[] first = data(100_000, SEED.value());
        byte[] more = data(70_000, SEED.value() + 1);
        Path file = Files.write(dir.resolve("grows"), first);
        try (LinuxFileReads.Opened open = open(file)) {
            byte[] head = new byte[first.length];
            int at = 0;
            while (at < head.length) {
                at += open.read(head, at, head.length - at);
            }
            Files.write(file, more, StandardOpenOption.APPEND);
            byte[] all = new byte[first.length + more.length];
            System.arraycopy(head, 0, all, 0, at);
            System.arraycopy(readToEnd(open, 8192), 0, all, at, more.length);
            byte[] expected = Arrays.copyOf(first, all.length);
            System.arraycopy(more, 0, expected, first.length, more.length);
            assertArrayEquals(expected, all);
        }
        Files.write(file, first);
        try (LinuxFileReads.Opened open = open(file)) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(40_000);
            }
            assertEquals(first.length, open.size(), "the size when opened");
            assertArrayEquals(Arrays.copyOf(first, 40_000), readToEnd(open, 1 << 20));
        }
    }

    @Test
    void aSmallFileThatGrowsOrShrinksBeforeItsOneReadIsReadAsItIsThen() throws IOException {
        byte[] first = data(5000, SEED.value());
        byte[] more = data(20_000, SEED.value() + 1);
        Path file = Files.write(dir.resolve("small"), first);
        try (LinuxFileReads.Opened open = open(file)) {
            assertFalse(open.critical());
            Files.write(file, more, StandardOpenOption.APPEND);
            byte[] expected = Arrays.copyOf(first, first.length + more.length);
            System.arraycopy(more, 0, expected, first.length, more.length);
            // The one read asks for the size plus one byte: it gets that byte, so the end is not taken as seen.
            assertArrayEquals(expected, readToEnd(open, first.length));
        }
        Files.write(file, first);
        try (LinuxFileReads.Opened open = open(file)) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(1234);
            }
            assertArrayEquals(Arrays.copyOf(first, 1234), readToEnd(open, first.length));
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aPipeAndAProcFileHaveNoSizeAndAreReadToTheirEnd() throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mkfifo.waitFor());
        byte[] bytes = data(200_000, SEED.value());
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(bytes);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertArrayEquals(bytes, ReadAll.readAll(fifo), "a pipe, read as the JDK would: blocking until its writer ends");
        writer.get(10, TimeUnit.SECONDS);

        try (LinuxFileReads.Opened open = open(Path.of("/proc/self/status"))) {
            assertEquals(0, open.size());
            assertFalse(open.critical());
        }
        String status = new String(ReadAll.readAll(Path.of("/proc/self/status")), StandardCharsets.US_ASCII);
        assertTrue(status.startsWith("Name:") && status.contains("\nPid:"), status);
    }

    @Test
    void whatCannotBeOpenedIsLeftToTheJdkWhichReportsItsOwnError() throws IOException {
        Path missing = dir.resolve("missing");
        assertNull(PROVIDER.open(missing));
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> ReadAll.readAll(missing));
        assertEquals(missing.toString(), e.getFile());
        assertNull(PROVIDER.open(dir.resolve("x".repeat(5000))), "longer than PATH_MAX");
        IOException directory = assertThrows(IOException.class, () -> ReadAll.readAll(dir));
        assertTrue(directory.getMessage().contains("Is a directory"), directory.getMessage());
    }

    @Test
    void aNameOutsideAsciiIsPassedInTheJdksEncoding() throws IOException {
        String encoding = System.getProperty("sun.jnu.encoding");
        Environment.assume(Feature.UTF8_FILE_NAMES, encoding.equals("UTF-8"), () -> "sun.jnu.encoding=" + encoding
                + " cannot name a file outside ASCII: run under a UTF-8 locale (LANG=C.UTF-8)");
        Path file = dir.resolve("naïve-файл");
        byte[] bytes = data(5000, SEED.value());
        Files.write(file, bytes);
        try (LinuxFileReads.Opened open = open(file)) {
            assertArrayEquals(bytes, readToEnd(open, 4096));
        }
    }

    @Test
    void aReadAfterCloseFailsAndASecondCloseDoesNothing() throws IOException {
        Path file = Files.write(dir.resolve("closed"), data(10, SEED.value()));
        LinuxFileReads.Opened open = open(file);
        open.close();
        open.close();
        IOException e = assertThrows(IOException.class, () -> open.read(new byte[10], 0, 10));
        assertTrue(e.getMessage().contains("file=" + file), e.getMessage());
    }

    @Test
    void manyThreadsAtOnceEachGetTheirOwnFile() throws Exception {
        int threads = 6;
        List<Path> files = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(SEED.value());
        for (int i = 0; i < 12; i++) {
            byte[] bytes = data(1 + random.nextInt(300_000), random.nextLong());
            contents.add(bytes);
            files.add(Files.write(dir.resolve("t" + i), bytes));
        }
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = random.nextLong();
            running.add(CompletableFuture.runAsync(() -> {
                SplittableRandom mine = new SplittableRandom(seed);
                for (int k = 0; k < 200; k++) {
                    int i = mine.nextInt(files.size());
                    try {
                        assertArrayEquals(contents.get(i), ReadAll.readAll(files.get(i)), "file " + i);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            }, runnable -> Thread.ofPlatform().start(runnable)));
        }
        for (CompletableFuture<Void> future : running) {
            future.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWarmReadAllocatesLessThanTheJdkAndAtMostTheLengthAnd16KiB() throws IOException {
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        // The claim is about a warm read: the segments of the critical reads cost nothing once compiled.
        // So WARM calls of each first, then the average over MEASURED calls of each, bound once.
        int warm = 20_000;
        int measured = 2_000;
        for (int length : new int[] {8191, 65536, 262145}) {
            Path file = Files.write(dir.resolve("a" + length), data(length, SEED.value()));
            long array = 16 + ((length + 7) & ~7L);
            for (int call = 0; call < warm; call++) {
                ReadAll.readAll(file);
                Files.readAllBytes(file);
            }
            long ours = 0;
            long jdk = 0;
            for (int call = 0; call < measured; call++) {
                long before = bean.getThreadAllocatedBytes(id);
                ReadAll.readAll(file);
                long mid = bean.getThreadAllocatedBytes(id);
                Files.readAllBytes(file);
                long after = bean.getThreadAllocatedBytes(id);
                ours += mid - before;
                jdk += after - mid;
            }
            double oursPerCall = (double) ours / measured;
            double jdkPerCall = (double) jdk / measured;
            System.out.printf("LinuxFileReadsTest length=%d bytes per call ours=%.1f jdk=%.1f array=%d%n", length,
                    oursPerCall, jdkPerCall, array);
            assertTrue(oursPerCall < jdkPerCall, "length=" + length + " ours=" + oursPerCall + " jdk=" + jdkPerCall);
            assertTrue(oursPerCall <= array + 16 * 1024, "at most the length and 16 KiB: length=" + length + " ours="
                    + oursPerCall);
        }
    }
}
