package dev.wirespeed.io;

import dev.wirespeed.contenders.ReadAllContender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
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
 * Question: at every length of the JDK-8193832 thread's table (and 1 MiB, 64 MiB), is
 * {@link ReadAll#readAll} at least as fast as JDK 25's {@code InputStream.readAllBytes()} on a stream
 * of unknown size, and as {@code Files.readAllBytes} on a cached file? Run with {@code -prof gc} for
 * the bytes allocated per call ({@code gc.alloc.rate.norm}). The contenders are the lab's {@code readall}
 * experiment's ({@link ReadAllContender}): the same code, measured two ways.
 *
 * <p>Run: {@code java -cp "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main ReadAllVsJdkReadAllBytes -prof gc}.
 *
 * <p>Results recorded so far: {@code benchmarks/RESULTS.md}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// The launcher's flags: with native access the native module's file provider is usable, as in the lab.
@Fork(value = 2, jvmArgsAppend = {"-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class ReadAllVsJdkReadAllBytes {
    @Param({"8191", "8192", "8193", "16383", "16384", "16385", "32767", "32768", "32769", "65535", "65536", "65537",
        "131071", "131072", "131073", "262143", "262144", "262145", "1048576", "67108864"})
    int length;

    /** Who reads: every {@link ReadAllContender}, by name. */
    @Param
    ReadAllContender contender;

    private byte[] data;
    private Path file;

    /** Random bytes of {@link #length}, and the same bytes in a temporary file. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        data = new byte[length];
        new SplittableRandom(length).nextBytes(data);
        file = Files.write(Files.createTempFile("wirespeed-readall-", ".bin"), data);
    }

    /** Deletes the file. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
    }

    /** {@return every byte, read by the contender: of a stream of unknown size over the data, or of the file} */
    @Benchmark
    public byte[] readAll() throws IOException {
        return contender.read(data, file);
    }
}
