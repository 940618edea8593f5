package dev.wirespeed.io;

import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Question: how long does counting the newlines of a cached file take with the buffering article's
 * four strategies (no buffering, {@code BufferedInputStream}, a manual 8 KiB buffer, a whole-file
 * buffer) and with the library's channel and mapped scans? On the article's CSV (10,000 lines of
 * {@code 0,1,...,9}) and on 1 GiB of the same lines; files on tmpfs where there is one, so that
 * "cached" means in memory. The per-byte strategies are skipped on 1 GiB (minutes per call).
 *
 * <p>Run: {@code java -cp "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main NewlineCountStrategies}.
 *
 * <p>Results recorded so far: {@code benchmarks/RESULTS.md}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseParallelGC"})
public class NewlineCountStrategies {
    private static final byte[] LINE = "0,1,2,3,4,5,6,7,8,9\n".getBytes(StandardCharsets.US_ASCII);

    /** Lines in the file: the article's CSV, or 1 GiB of them. */
    @Param({"10000", "53687091"})
    long lines;

    private Path file;

    /** Writes the file once, on tmpfs where there is one. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        file = Files.createTempFile(dir, "wirespeed-newlines-", ".csv");
        byte[] block = new byte[LINE.length * 4096];
        for (int i = 0; i < 4096; i++) {
            System.arraycopy(LINE, 0, block, i * LINE.length, LINE.length);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < lines; written += 4096) {
                out.write(block, 0, (int) Math.min(4096, lines - written) * LINE.length);
            }
        }
    }

    /** Deletes the file. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
    }

    /** {@return the count, one {@code read()} system call per byte} (CSV only) */
    @Benchmark
    public long noBuffering() throws IOException {
        if (lines > 10_000) {
            return -1;
        }
        try (InputStream in = new FileInputStream(file.toFile())) {
            return perByte(in);
        }
    }

    /** {@return the count through {@code BufferedInputStream.read()}} (CSV only) */
    @Benchmark
    public long bufferedInputStream() throws IOException {
        if (lines > 10_000) {
            return -1;
        }
        try (InputStream in = new BufferedInputStream(new FileInputStream(file.toFile()))) {
            return perByte(in);
        }
    }

    /** {@return the count with a manual 8 KiB buffer} */
    @Benchmark
    public long manual8KiB() throws IOException {
        return manual(8192);
    }

    /** {@return the count with one buffer as large as the file} */
    @Benchmark
    public long wholeFileBuffer() throws IOException {
        return manual((int) Math.min(Files.size(file), Integer.MAX_VALUE - 8));
    }

    /** {@return the library's count of a path: read below 1 MiB, mapped from 1 MiB on} */
    @Benchmark
    public long wirespeedCountPath() throws IOException {
        return ByteCounts.count(file, (byte) '\n');
    }

    /** {@return the library's count of a mapping made for the call} */
    @Benchmark
    public long wirespeedMapped() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            return ByteCounts.count(ReadAll.mapFile(file, arena), (byte) '\n');
        }
    }

    private long manual(int size) throws IOException {
        byte[] buffer = new byte[size];
        long count = 0;
        try (InputStream in = new FileInputStream(file.toFile())) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    private static long perByte(InputStream in) throws IOException {
        long count = 0;
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                count++;
            }
        }
        return count;
    }
}
