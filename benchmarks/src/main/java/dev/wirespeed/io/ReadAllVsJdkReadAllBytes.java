package dev.wirespeed.io;

import java.io.IOException;
import java.io.InputStream;
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
 * the bytes allocated per call ({@code gc.alloc.rate.norm}).
 *
 * <p>Run: {@code java -cp "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main ReadAllVsJdkReadAllBytes -prof gc}.
 *
 * <p>2026-11-22, project VM (2 vCPUs, Temurin 25.0.3), {@code taskset -c 1}, nothing else running,
 * every length, {@code -f 2 -wi 2 -i 4 -w 1 -r 1 -prof gc}, at commit b227fb8 (chunks and file probe
 * kept between calls); ops/s and {@code gc.alloc.rate.norm}:
 * <pre>
 * length    | stream ops/s: JDK     ours     ours/JDK | B/op JDK     ours    | file ops/s: JDK      ours     ours/JDK | B/op JDK    ours
 *      8191 |    351495    838336   2.39x |      24608       8232 |    316704    330254   1.04x |      8696      8584
 *      8192 |    344948    852801   2.47x |      24608       8232 |    327059    340188   1.04x |      8696      8584
 *      8193 |    344487    855035   2.48x |      24616       8240 |    323576    325799   1.01x |      8704      8592
 *     16383 |    256296    436846   1.70x |      32800      16424 |    212238    218854   1.03x |     16888     16776
 *     16384 |    256827    431843   1.68x |      32800      16424 |    213772    220029   1.03x |     16888     16776
 *     16385 |    160971    428048   2.66x |      49336      16432 |    117169    217862   1.86x |     16896     16784
 *     32767 |     96008    146624   1.53x |      82088      32808 |    101458    136814   1.35x |     33272     33160
 *     32768 |     95498    145130   1.52x |      82088      32808 |    107393    136260   1.27x |     33272     33160
 *     32769 |     95522    144441   1.51x |      82120      32816 |    110543    137355   1.24x |     33272     33168
 *     65535 |     51398     68621   1.34x |     147656      65576 |     56606     62931   1.11x |     66040     65928
 *     65536 |     51300     71119   1.39x |     147656      65576 |     62118     61921   1.00x |     66040     65928
 *     65537 |     50387     69984   1.39x |     147688      65584 |     49276     61696   1.25x |     66048     65928
 *    131071 |     26940     35009   1.30x |     278792     131112 |     29410     32923   1.12x |    131576    131456
 *    131072 |     26808     34807   1.30x |     278792     131112 |     29302     32814   1.12x |    131568    131456
 *    131073 |     26993     36879   1.37x |     278824     131120 |     29847     33123   1.11x |    131576    131472
 *    262143 |     13475     18225   1.35x |     541248     262184 |     16565     17970   1.08x |    262648    262536
 *    262144 |     13435     18077   1.35x |     541248     262184 |     17128     17872   1.04x |    262640    262520
 *    262145 |     13403     17594   1.31x |     541280     262192 |     17732     17650   1.00x |    262656    262536
 *   1048576 |      2872      4397   1.53x |    2115562    1048617 |      3239      4212   1.30x |   1049067   1048962
 *  67108864 |        21        20   0.97x |  134350275  133266709 |         6         8   1.33x |  67110417  67110241
 * </pre>
 * Streams: 1.30x-2.66x the JDK at every length of the thread's table and at 1 MiB, allocating only the
 * result. At 64 MiB this run had ours at 0.97x (21 +- 14 against 20 +- 14 ops/s): ours then still
 * cleared the chunks past the kept 1 MiB before dropping them, a 64 MiB memset. Without it
 * ({@code -p length=67108864 -f 4 -wi 3 -i 5}, streams only): ours 30.0 +- 3.1, JDK 26.0 +- 8.2 ops/s
 * (1.15x); before, in the same setting, 20.4 +- 5.2 against 27.3 +- 8.1.
 *
 * <p>Files: at least level everywhere (1.00x-1.86x), allocating ~110 bytes less than the JDK. The
 * JDK's file rows swing between forks (16,385: 117,169 +- 158,321 ops/s), so the large ratios there
 * are partly its bad forks; the lab's interleaved, paired blocks put 32 KiB-256 KiB files at 0.95x-1.16x
 * across runs (both make the same copies; ours one system call fewer; one run found 32,768 bytes
 * slower, 0.95x), small files at 1.04x-1.12x, 1 MiB at 1.16x-1.33x (read in 256 KiB windows).
 *
 * <p>Files through the native provider ({@code LinuxFileReads}: {@code read(2)} straight into the
 * array), files only, same settings, at commit 9619fb7 (its segment per array kept; since then made
 * at the call and 1 MiB windows, rechecked at 262,145 and 64 MiB: 262,472 and 67,110,385 B/op
 * against the JDK's 262,660 and 67,110,586):
 * <pre>
 * length    | file ops/s: JDK        ours    ours/JDK | B/op JDK   ours
 *      8191 |  262705 +- 252033  350078 +- 92025  1.33x |   8696     8296
 *     16384 |  156685 +- 130724  229838 +- 37380  1.47x |  16888    16456
 *     32768 |  114500 +-  83594  142489 +- 29830  1.24x |  33272    32944
 *     65536 |   56563 +-  33538   89085 +- 14862  1.57x |  66032    65712
 *    131072 |   36476 +-  16235   49384 +-  6201  1.35x | 131576   131248
 *    262144 |   16536 +-   8550   25439 +-  2455  1.54x | 262648   262320
 *   1048576 |    3187 +-    982    5414 +-  1303  1.70x | 1049083 1048894
 * </pre>
 * Every length of the table: 1.24x-1.98x; the JDK's forks swing widely, so the lab's paired blocks
 * are the measure (32 KiB level there, 64 KiB-1 MiB 1.05x-1.61x).
 *
 * <p>Before this run the stream path allocated a fresh first chunk per call and probed it: 0.95x-0.98x
 * the JDK at 8,191, 65,537 and 262,145 bytes in a 3-fork run, where both made the same allocations.
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

    /** {@return the JDK's read of a stream of unknown size} */
    @Benchmark
    public byte[] jdkStream() throws IOException {
        return stream(data).readAllBytes();
    }

    /** {@return ours, same stream} */
    @Benchmark
    public byte[] wirespeedStream() throws IOException {
        return ReadAll.readAll(stream(data));
    }

    /** {@return the JDK's read of a file} */
    @Benchmark
    public byte[] jdkFile() throws IOException {
        return Files.readAllBytes(file);
    }

    /** {@return ours, same file} */
    @Benchmark
    public byte[] wirespeedFile() throws IOException {
        return ReadAll.readAll(file);
    }

    /** A stream of unknown size that does not override {@code readAllBytes}. */
    static InputStream stream(byte[] data) {
        return new InputStream() {
            private int at;

            @Override
            public int read() {
                return at < data.length ? data[at++] & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) {
                    return 0;
                }
                if (at == data.length) {
                    return -1;
                }
                int n = Math.min(len, data.length - at);
                System.arraycopy(data, at, b, off, n);
                at += n;
                return n;
            }
        };
    }
}
