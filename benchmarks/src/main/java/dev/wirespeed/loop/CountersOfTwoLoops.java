package dev.wirespeed.loop;

import dev.wirespeed.loop.internal.LoopStats;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Question: do the counters of two loops of a group, made one after the other as an owner makes them,
 * slow each other's stores when the loops run on two cores? Each of two threads makes a loop's stores
 * of a read and a send ({@code framesRead}, {@code bytesRead}, {@code bytesWritten}, opaque, as the loop
 * makes them) into its own counters: the library's {@link LoopStats} ({@code padded}), and the same
 * counters without padding ({@code adjacent}, the layout before), two objects allocated back to back.
 *
 * <p>Run on two CPUs: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 0,1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main CountersOfTwoLoops}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC"})
public class CountersOfTwoLoops {
    /** The counters as they were: four longs, no padding. */
    static final class Adjacent {
        private static final VarHandle FRAMES_READ;
        private static final VarHandle BYTES_READ;
        private static final VarHandle BYTES_WRITTEN;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                FRAMES_READ = lookup.findVarHandle(Adjacent.class, "framesRead", long.class);
                BYTES_READ = lookup.findVarHandle(Adjacent.class, "bytesRead", long.class);
                BYTES_WRITTEN = lookup.findVarHandle(Adjacent.class, "bytesWritten", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        long framesRead;
        long bytesRead;
        long bytesWritten;
        long pooledBytes;

        void turn() {
            FRAMES_READ.setOpaque(this, framesRead + 16);
            BYTES_READ.setOpaque(this, bytesRead + 1728);
            BYTES_WRITTEN.setOpaque(this, bytesWritten + 1728);
        }
    }

    /** Two loops' counters of each kind, made one after the other. */
    @State(Scope.Group)
    public static class Loops {
        final LoopStats padded0 = new LoopStats();
        final LoopStats padded1 = new LoopStats();
        final Adjacent adjacent0 = new Adjacent();
        final Adjacent adjacent1 = new Adjacent();
    }

    /** {@return the counter} A turn's stores of loop 0, padded. */
    @Benchmark
    @Group("padded")
    @GroupThreads(1)
    public long padded0(Loops loops) {
        return turn(loops.padded0);
    }

    /** {@return the counter} A turn's stores of loop 1, padded. */
    @Benchmark
    @Group("padded")
    @GroupThreads(1)
    public long padded1(Loops loops) {
        return turn(loops.padded1);
    }

    /** {@return the counter} A turn's stores of loop 0, unpadded. */
    @Benchmark
    @Group("adjacent")
    @GroupThreads(1)
    public long adjacent0(Loops loops) {
        loops.adjacent0.turn();
        return loops.adjacent0.framesRead;
    }

    /** {@return the counter} A turn's stores of loop 1, unpadded. */
    @Benchmark
    @Group("adjacent")
    @GroupThreads(1)
    public long adjacent1(Loops loops) {
        loops.adjacent1.turn();
        return loops.adjacent1.framesRead;
    }

    private static long turn(LoopStats stats) {
        stats.framesRead(16);
        stats.bytesRead(1728);
        stats.bytesWritten(1728);
        return stats.framesRead();
    }
}
