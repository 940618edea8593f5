package dev.wirespeed.frame;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Question: with the kernel taken out (the frames are already in the reader's buffer, and the writer's
 * channel discards what it is given), what does a relay cost per frame when it moves frames one call
 * each ({@link FrameReader#readFrames(FrameHandler, int)} into {@link FrameWriter#writeFrame(int,
 * ByteBuffer)}) against a block per call ({@link FrameReader#readBlock} into
 * {@link FrameWriter#writeFrames}), and against a block per call relayed by the reader
 * ({@link FrameReader#relayBlock})? All copy every byte once, into the writer's buffer; the block
 * relay through a handler checks each header twice (the reader, then the writer), {@code relayBlock}
 * once, and both copy once a block.
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main RelayFrameByFrameVsByBlock}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC"})
public class RelayFrameByFrameVsByBlock {
    /** Frames per benchmark call. */
    static final int FRAMES = 1 << 16;

    /** The reader's buffer holds the largest whole number of frames that fits in 64 KiB. */
    private static final int TARGET_BUFFER = 64 * 1024;

    @Param({"16", "100", "1000"})
    int bodySize;

    private FrameReader reader;
    private FrameWriter writer;
    private FrameHandler perFrame;
    private FrameBlockHandler perBlock;

    /** Builds the block of frames, the reader over it, and the writer to nowhere. */
    @Setup
    public void setUp() {
        ByteBuffer block = FrameReaderVsCLoop.sequenceBlock(bodySize, TARGET_BUFFER);
        reader = FrameReader.builder(new FrameReaderVsCLoop.FilledChannel(block)).bufferCapacity(block.capacity()).build();
        writer = FrameWriter.builder(new FrameWriterVsRawStores.Discard()).build();
        perFrame = writer::writeFrame;
        perBlock = writer::writeFrames;
    }

    /** {@return bytes accepted by the writer} A frame a call: {@code readFrames} into {@code writeFrame}. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long frameByFrame() throws IOException {
        FrameReader r = reader;
        FrameHandler h = perFrame;
        for (int i = 0; i < FRAMES; ) {
            i += r.readFrames(h, FRAMES - i);
        }
        return writer.offset();
    }

    /** {@return bytes accepted by the writer} A block a call: {@code readBlock} into {@code writeFrames}. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long byBlock() throws IOException {
        FrameReader r = reader;
        FrameBlockHandler h = perBlock;
        for (int i = 0; i < FRAMES; ) {
            i += r.readBlock(h);
        }
        return writer.offset();
    }

    /** {@return bytes accepted by the writer} A block a call, each header checked once: {@code relayBlock}. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long relayBlock() throws IOException {
        FrameReader r = reader;
        FrameWriter w = writer;
        for (int i = 0; i < FRAMES; ) {
            i += r.relayBlock(w);
        }
        return w.offset();
    }
}
