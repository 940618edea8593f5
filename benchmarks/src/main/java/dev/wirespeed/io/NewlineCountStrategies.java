package dev.wirespeed.io;

import dev.wirespeed.contenders.ArticleCsv;
import dev.wirespeed.contenders.NewlineCountContender;
import java.io.IOException;
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
 * "cached" means in memory. The per-byte strategies are skipped on 1 GiB (minutes per call). The
 * contenders are the lab's {@code files} experiment's ({@link NewlineCountContender}): the same code,
 * measured two ways.
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
    /** Lines in the file: the article's CSV, or 1 GiB of them. */
    @Param({"10000", "53687091"})
    long lines;

    /** Who counts: every {@link NewlineCountContender}, by name. */
    @Param
    NewlineCountContender contender;

    private Path file;

    /** Writes the file once, on tmpfs where there is one. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        file = ArticleCsv.write(Files.createTempFile(dir, "wirespeed-newlines-", ".csv"), lines);
    }

    /** Deletes the file. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
    }

    /** {@return the count, or -1 for a per-byte contender on more than the article's CSV (skipped)} */
    @Benchmark
    public long count() throws IOException {
        if (contender.perByte() && lines > ArticleCsv.ARTICLE_LINES) {
            return -1;
        }
        return contender.count(file);
    }
}
