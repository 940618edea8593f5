package dev.wirespeed.io;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
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
 * Question: would the Vector API count a byte faster than the library's SWAR loop (eight bytes per
 * {@code long}, {@link ByteCounts#count(MemorySegment, byte)})? Newlines in the CSV's lines held in
 * native memory: 16 KiB (in L1), 1 MiB (in L2) and 64 MiB (in memory), so that the scan, not the file
 * system, is measured. Two vector forms: a mask count per vector ({@code trueCount}, what
 * {@link VectorCounts} does), and per-lane byte counters summed every 127 vectors. A plain byte loop
 * is the floor.
 *
 * <p>The Vector API is an incubator module in JDK 25: a library using it makes every user add
 * {@code --add-modules jdk.incubator.vector} and see a warning at start-up. So the library counts with
 * SWAR unless the JVM was started with the module ({@code SegmentCounts.VECTOR}).
 *
 * <p>Run: {@code java -cp "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main NewlineCountSwarVsVector} (the forks add the module themselves).
 *
 * <p>Results recorded so far: {@code benchmarks/RESULTS.md}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class NewlineCountSwarVsVector {
    private static final VectorSpecies<Byte> SPECIES = ByteVector.SPECIES_PREFERRED;
    private static final byte NEWLINE = '\n';

    @Param({"16384", "1048576", "67108864"})
    int size;

    private Arena arena;
    private MemorySegment data;
    private long expected;

    /** Fills native memory with the CSV's lines and counts them once, plainly, to check the others. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        data = arena.allocate(size, 64);
        byte[] line = "0,1,2,3,4,5,6,7,8,9\n".getBytes(StandardCharsets.US_ASCII);
        for (long i = 0; i < size; i++) {
            data.set(ValueLayout.JAVA_BYTE, i, line[(int) (i % line.length)]);
        }
        expected = plainLoop();
        for (long count : new long[] {swar(), vectorMaskCount(), vectorLaneCounters()}) {
            if (count != expected) {
                throw new IllegalStateException("count " + count + " != " + expected + " at size " + size);
            }
        }
    }

    /** Frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** {@return the library's SWAR count: eight bytes per {@code long}} */
    @Benchmark
    public long swar() {
        return Swar.count(data, NEWLINE);
    }

    /** {@return a count of one byte at a time} */
    @Benchmark
    public long plainLoop() {
        long count = 0;
        for (long i = 0; i < data.byteSize(); i++) {
            if (data.get(ValueLayout.JAVA_BYTE, i) == NEWLINE) {
                count++;
            }
        }
        return count;
    }

    /** {@return a count of the matching lanes of each vector} */
    @Benchmark
    public long vectorMaskCount() {
        long count = 0;
        long i = 0;
        long bound = data.byteSize() - SPECIES.length();
        for (; i <= bound; i += SPECIES.length()) {
            count += ByteVector.fromMemorySegment(SPECIES, data, i, ByteOrder.nativeOrder()).eq(NEWLINE).trueCount();
        }
        return count + tail(i);
    }

    /** {@return a count kept in one byte counter per lane, summed every 127 vectors} */
    @Benchmark
    public long vectorLaneCounters() {
        long count = 0;
        long i = 0;
        long bound = data.byteSize() - SPECIES.length();
        ByteVector one = ByteVector.broadcast(SPECIES, (byte) 1);
        while (i <= bound) {
            ByteVector lanes = ByteVector.zero(SPECIES);
            for (int n = 0; n < 127 && i <= bound; n++, i += SPECIES.length()) {
                VectorMask<Byte> match = ByteVector.fromMemorySegment(SPECIES, data, i, ByteOrder.nativeOrder()).eq(NEWLINE);
                lanes = lanes.add(one, match);
            }
            // A byte sum of the lanes would wrap: widen each quarter of them to ints first.
            for (int part = 0; part < 4; part++) {
                count += ((IntVector) lanes.convert(VectorOperators.B2I, part)).reduceLanes(VectorOperators.ADD);
            }
        }
        return count + tail(i);
    }

    private long tail(long from) {
        long count = 0;
        for (long i = from; i < data.byteSize(); i++) {
            if (data.get(ValueLayout.JAVA_BYTE, i) == NEWLINE) {
                count++;
            }
        }
        return count;
    }
}
