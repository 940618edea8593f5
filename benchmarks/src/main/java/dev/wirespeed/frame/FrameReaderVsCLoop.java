package dev.wirespeed.frame;

import dev.wirespeed.testkit.SequenceStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
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
 * Question: with the kernel and the copy taken out (the frames are already in the reader's buffer),
 * what does the library's {@link FrameReader} cost per frame, one frame per call, a batch of the
 * buffered frames per call, or the buffered frames as one block per call (walked by its handler),
 * against the lab's C reader's loop, that loop written in Java, and that Java loop plus the body view
 * the library's {@link FrameHandler} receives?
 *
 * <p>The buffer holds a whole number of frames of the sequence stream. The reader is given a channel
 * that fills the buffer once and afterwards only reports it full again, so each refill costs the
 * reader's compact-and-read bookkeeping but no copy. The C loop ({@code frameloop.c}, the inner loop of
 * {@code ceiling.c}) is compiled with the system's {@code cc -O2} when the benchmark starts and called
 * through FFM once per benchmark call; each call parses {@value #FRAMES} frames, so the downcall's own
 * cost is spread thin (see {@link CLoops}). All count frames and add up their bytes, as the lab's readers do.
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main FrameReaderVsCLoop}. Needs {@code cc} on the path (or {@code CC} set) for the
 * C loop; without one, {@code cLoop} fails at setup with a message saying so.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class FrameReaderVsCLoop {
    /** Frames per benchmark call. */
    static final int FRAMES = 1 << 16;

    /** The buffer is the largest whole number of frames that fits in the reader's default size. */
    private static final int TARGET_BUFFER = 512 * 1024;

    @Param({"16", "100", "1000"})
    int bodySize;

    private ByteBuffer block;
    private ByteBuffer readOnlyView;
    private FrameReader reader;
    private FrameHandler handler;
    private FrameBlockHandler blockHandler;
    private MethodHandle cLoop;
    private MemorySegment cBytes;
    /** What the handler adds to: bytes of the frames delivered, header included. */
    long bytes;

    /** Builds the block of frames, the reader over it, and the C loop. */
    @Setup
    public void setUp() throws IOException, InterruptedException {
        block = sequenceBlock(bodySize, TARGET_BUFFER);
        readOnlyView = block.asReadOnlyBuffer();
        reader = FrameReader.builder(new FilledChannel(block)).bufferCapacity(block.capacity()).build();
        handler = (type, body) -> bytes += body.remaining() + FrameFormat.HEADER_LENGTH;
        blockHandler = frames -> {
            int end = frames.limit();
            long sum = 0;
            for (int at = frames.position(); at < end; ) {
                int frame = FrameFormat.HEADER_LENGTH + FrameFormat.length(frames, at);
                sum += frame;
                at += frame;
            }
            bytes += sum;
        };
        cLoop = CLoops.compile().parse;
        cBytes = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG);
    }

    /**
     * {@return a direct buffer of the sequence stream's first frames}, as many {@code bodySize}-byte
     * frames as fit in {@code targetBytes}, from position 0 to its limit
     */
    static ByteBuffer sequenceBlock(int bodySize, int targetBytes) {
        int frameLength = FrameFormat.HEADER_LENGTH + bodySize;
        int frames = targetBytes / frameLength;
        ByteBuffer block = ByteBuffer.allocateDirect(frames * frameLength);
        byte[] pattern = SequenceStream.pattern(bodySize);
        for (int i = 0; i < frames; i++) {
            block.putInt(SequenceStream.type(i)).putInt(bodySize).put(pattern, SequenceStream.patternOffset(i), bodySize);
        }
        return block.flip();
    }

    /** {@return bytes delivered} The library's reader, one {@code readFrame} per frame. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long frameReader() throws IOException {
        FrameReader r = reader;
        FrameHandler h = handler;
        for (int i = 0; i < FRAMES; i++) {
            r.readFrame(h);
        }
        return bytes;
    }

    /** {@return bytes delivered} The library's reader, frames already buffered delivered in one call. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long frameReaderBatches() throws IOException {
        FrameReader r = reader;
        FrameHandler h = handler;
        for (int i = 0; i < FRAMES; ) {
            i += r.readFrames(h, FRAMES - i);
        }
        return bytes;
    }

    /**
     * {@return bytes delivered} The library's reader, the frames buffered handed over as one block per
     * call, which the handler walks header by header as the C loop does.
     */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long frameReaderBlocks() throws IOException {
        FrameReader r = reader;
        FrameBlockHandler h = blockHandler;
        for (int i = 0; i < FRAMES; ) {
            i += r.readBlock(h);
        }
        return bytes;
    }

    /** {@return bytes parsed} The C reader's loop, written in Java over the same buffer. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long javaLoop() {
        ByteBuffer buf = block;
        int have = buf.capacity();
        int pos = 0;
        long sum = 0;
        for (int done = 0; done < FRAMES; ) {
            if (have - pos < FrameFormat.HEADER_LENGTH) {
                pos = 0;
                continue;
            }
            int len = buf.getInt(pos + 4);
            if (len < 0 || len > have - FrameFormat.HEADER_LENGTH) {
                throw new IllegalStateException("length=" + len + " at=" + pos);
            }
            if (have - pos < FrameFormat.HEADER_LENGTH + len) {
                pos = 0;
                continue;
            }
            pos += FrameFormat.HEADER_LENGTH + len;
            done++;
            sum += FrameFormat.HEADER_LENGTH + len;
        }
        return sum;
    }

    /**
     * {@return bytes delivered} The Java loop plus what the library's API adds to it: the body as a
     * re-pointed read-only view, handed to the same handler. The floor for any reader with this API.
     */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long javaLoopWithView() throws IOException {
        ByteBuffer buf = block;
        ByteBuffer view = readOnlyView;
        FrameHandler h = handler;
        int have = buf.capacity();
        int pos = 0;
        for (int done = 0; done < FRAMES; ) {
            if (have - pos < FrameFormat.HEADER_LENGTH) {
                pos = 0;
                continue;
            }
            long header = buf.getLong(pos);
            int len = (int) header;
            if (len < 0 || len > have - FrameFormat.HEADER_LENGTH) {
                throw new IllegalStateException("length=" + len + " at=" + pos);
            }
            if (have - pos < FrameFormat.HEADER_LENGTH + len) {
                pos = 0;
                continue;
            }
            int start = pos + FrameFormat.HEADER_LENGTH;
            pos = start + len;
            done++;
            h.onFrame((int) (header >>> 32), view.limit(pos).position(start));
        }
        return bytes;
    }

    /** {@return bytes parsed} The C reader's loop, compiled by {@code cc -O2}, one downcall per call. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long cLoop() throws Throwable {
        long done = (long) cLoop.invokeExact(MemorySegment.ofBuffer(block), (long) block.capacity(), (long) FRAMES, cBytes);
        if (done != FRAMES) {
            throw new IllegalStateException("C loop parsed " + done + " of " + FRAMES + " frames");
        }
        return cBytes.get(ValueLayout.JAVA_LONG, 0);
    }

    /**
     * Fills a reader's buffer with the block once, then reports it filled again on every read without
     * copying: the frames are still there, since a reader that has consumed whole frames compacts
     * nothing. Refuses a read that would need the bytes moved.
     */
    static final class FilledChannel implements ReadableByteChannel {
        private final ByteBuffer block;
        private ByteBuffer filled;

        FilledChannel(ByteBuffer block) {
            this.block = block;
        }

        @Override
        public int read(ByteBuffer dst) {
            int n = block.capacity();
            if (dst.position() != 0 || dst.remaining() != n) {
                throw new IllegalStateException("read into position=" + dst.position() + " remaining="
                        + dst.remaining() + ", expected 0 and " + n);
            }
            if (dst != filled) {
                dst.put(block.duplicate());
                filled = dst;
            } else {
                dst.position(n);
            }
            return n;
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
