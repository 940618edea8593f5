package dev.wirespeed.frame;

import dev.wirespeed.io.ChannelWriter;
import dev.wirespeed.testkit.SequenceStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
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
 * Question: with the kernel taken out (the channel discards what it is given), what does the
 * library's {@link FrameWriter} cost per frame, copying a body ({@code writeFrame}) or filling it in
 * place ({@code claim}/{@code commit}), against the lab's C writer's loop (its header stores and a
 * {@code memcpy} of the body into a 512 KiB buffer, emptied when full; compiled at setup, see
 * {@link CLoops}) and against the same stores written in Java ({@code rawStores}); can a Java copy
 * of a small body beat the JVM's copy stub ({@code longLoop}, {@code segmentCopy}, {@code byteLoop},
 * {@code arrayLongs}); and does a buffer written through a memory segment with one capacity check
 * ({@code segmentStores}) close the gap once the buffer is emptied by a call, as a writer's is
 * ({@code segmentStoresDraining}, against {@code channelWriter}, the library's buffer alone); and does a
 * heap array for the buffer, copied into by {@code System.arraycopy} with one capacity check a frame
 * ({@code arrayStoresDraining}), do better than either?
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main FrameWriterVsRawStores}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class FrameWriterVsRawStores {
    /** Frames per benchmark call: enough that per-call setup vanishes. */
    static final int FRAMES = 100_000;

    @Param({"100"})
    int bodySize;

    private byte[] pattern;
    private FrameWriter copying;
    private FrameWriter buffers;
    private ByteBuffer heapBody;
    private ByteBuffer directBody;
    private FrameWriter inPlace;
    private ByteBuffer raw;
    private CLoops cLoops;
    private MemorySegment cBuffer;
    private MemorySegment cPattern;
    private MemorySegment cNext;
    private MemorySegment heapPattern;
    private MemorySegment rawSegment;
    private ByteBuffer rawNative;
    private ChannelWriter channelWriter;
    private SegmentWriter segmentWriter;
    private ArrayWriter arrayWriter;

    /** The body array read 8 bytes at a time in the machine's order. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** A channel that takes everything and keeps nothing: the writer's cost without the kernel's. */
    static final class Discard implements WritableByteChannel {
        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
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

    /** Builds the writers, the raw buffer and the body pattern once. */
    @Setup
    public void setUp() throws java.io.IOException, InterruptedException {
        pattern = SequenceStream.pattern(bodySize);
        cLoops = CLoops.compile();
        cBuffer = Arena.global().allocate(512 * 1024, 4096);
        cPattern = CLoops.copyOf(pattern);
        cNext = Arena.global().allocate(ValueLayout.JAVA_LONG);
        copying = new FrameWriter(new Discard());
        buffers = new FrameWriter(new Discard());
        heapBody = ByteBuffer.wrap(pattern);
        directBody = ByteBuffer.allocateDirect(pattern.length).put(0, pattern);
        inPlace = new FrameWriter(new Discard());
        raw = ByteBuffer.allocateDirect(512 * 1024);
        heapPattern = MemorySegment.ofArray(pattern);
        rawSegment = MemorySegment.ofBuffer(raw);
        rawNative = raw.duplicate().order(ByteOrder.nativeOrder());
        channelWriter = new ChannelWriter(new Discard());
        segmentWriter = new SegmentWriter(MemorySegment.ofBuffer(ByteBuffer.allocateDirect(512 * 1024)));
        arrayWriter = new ArrayWriter(new byte[512 * 1024]);
    }

    /** Big-endian 8 bytes at any offset: a frame's header. */
    static final ValueLayout.OfLong HEADER = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * A writer's buffer kept as a memory segment and a position of its own: one capacity check per
     * frame, then a header store and a body copy that the segment checks. {@link #write} restarts
     * at the buffer's front in line when it is full; {@link #writeDraining} calls a method the
     * compiler may not inline there, as a real writer calls its channel.
     */
    static final class SegmentWriter {
        private final MemorySegment buffer;
        private final long capacity;
        private long position;
        private long drains;

        SegmentWriter(MemorySegment buffer) {
            this.buffer = buffer;
            this.capacity = buffer.byteSize();
        }

        void write(long header, byte[] body, int offset, int length) {
            long p = position;
            if (capacity - p < FrameFormat.HEADER_LENGTH + (long) length) {
                p = 0; // where the buffer would be written out
            }
            store(p, header, body, offset, length);
        }

        void writeDraining(long header, byte[] body, int offset, int length) {
            long p = position;
            if (capacity - p < FrameFormat.HEADER_LENGTH + (long) length) {
                p = drain();
            }
            store(p, header, body, offset, length);
        }

        private void store(long p, long header, byte[] body, int offset, int length) {
            buffer.set(HEADER, p, header);
            MemorySegment.copy(body, offset, buffer, ValueLayout.JAVA_BYTE, p + FrameFormat.HEADER_LENGTH, length);
            position = p + FrameFormat.HEADER_LENGTH + length;
        }

        @CompilerControl(CompilerControl.Mode.DONT_INLINE)
        long drain() {
            drains++;
            return 0;
        }
    }

    /** A frame's header stored big-endian into a byte array at any index. */
    static final VarHandle ARRAY_HEADER = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /**
     * A writer's buffer kept as a heap array and a position: one capacity check per frame, the
     * header stored through a byte-array view and the body copied by {@code System.arraycopy}
     * between arrays, emptied by a call the compiler may not inline.
     */
    static final class ArrayWriter {
        private final byte[] buffer;
        private int position;
        private long drains;

        ArrayWriter(byte[] buffer) {
            this.buffer = buffer;
        }

        void writeDraining(long header, byte[] body, int offset, int length) {
            byte[] b = buffer;
            int p = position;
            if (b.length - p < FrameFormat.HEADER_LENGTH + length) {
                p = drain();
            }
            ARRAY_HEADER.set(b, p, header);
            System.arraycopy(body, offset, b, p + FrameFormat.HEADER_LENGTH, length);
            position = p + FrameFormat.HEADER_LENGTH + length;
        }

        @CompilerControl(CompilerControl.Mode.DONT_INLINE)
        int drain() {
            drains++;
            return 0;
        }
    }

    /** {@return the last position} An {@link ArrayWriter}: a heap buffer emptied by a call. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long arrayStoresDraining() {
        ArrayWriter writer = arrayWriter;
        byte[] body = pattern;
        int size = bodySize;
        for (int i = 0; i < FRAMES; i++) {
            writer.writeDraining((long) i << 32 | size, body, SequenceStream.patternOffset(i), size);
        }
        return writer.position;
    }

    /** {@return the offset} The library's {@link ChannelWriter} alone: a header and a body a call. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long channelWriter() throws Exception {
        ChannelWriter writer = channelWriter;
        byte[] body = pattern;
        int size = bodySize;
        for (int i = 0; i < FRAMES; i++) {
            writer.write((long) i << 32 | size, body, SequenceStream.patternOffset(i), size);
        }
        return writer.offset();
    }

    /** {@return the last position} A {@link SegmentWriter} that empties its buffer in line. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long segmentStores() {
        SegmentWriter writer = segmentWriter;
        byte[] body = pattern;
        int size = bodySize;
        for (int i = 0; i < FRAMES; i++) {
            writer.write((long) i << 32 | size, body, SequenceStream.patternOffset(i), size);
        }
        return writer.position;
    }

    /** {@return the last position} A {@link SegmentWriter} that empties its buffer by a call. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long segmentStoresDraining() {
        SegmentWriter writer = segmentWriter;
        byte[] body = pattern;
        int size = bodySize;
        for (int i = 0; i < FRAMES; i++) {
            writer.writeDraining((long) i << 32 | size, body, SequenceStream.patternOffset(i), size);
        }
        return writer.position;
    }

    /** {@return the last stream offset} The library's writer, the body copied from an array. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long writeFrame() throws Exception {
        FrameWriter writer = copying;
        byte[] body = pattern;
        int size = bodySize;
        for (int i = 0; i < FRAMES; i++) {
            writer.writeFrame(i, body, SequenceStream.patternOffset(i), size);
        }
        return writer.offset();
    }

    /**
     * {@return the last stream offset} The library's writer, the body a {@code ByteBuffer} over the same
     * bytes as {@link #writeFrame}'s array (re-pointed a frame, as a reader's body view is): heap or direct.
     */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long writeFrameBuffer(BodyKind kind) throws Exception {
        FrameWriter writer = buffers;
        ByteBuffer body = kind.direct ? directBody : heapBody;
        int size = bodySize;
        for (int i = 0; i < FRAMES; i++) {
            int offset = SequenceStream.patternOffset(i);
            body.limit(offset + size).position(offset);
            writer.writeFrame(i, body);
        }
        return writer.offset();
    }

    /** Where {@link #writeFrameBuffer}'s body lies. */
    @State(Scope.Thread)
    public static class BodyKind {
        /** Heap ({@code false}) or direct ({@code true}). */
        @Param({"false", "true"})
        boolean direct;
    }

    /** {@return the last stream offset} The library's writer, the body filled in place. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long claimCommit() throws Exception {
        FrameWriter writer = inPlace;
        byte[] body = pattern;
        int size = bodySize;
        for (int i = 0; i < FRAMES; i++) {
            writer.claim(i, size).put(body, SequenceStream.patternOffset(i), size);
            writer.commit();
        }
        return writer.offset();
    }

    /** {@return bytes stored} The C writer's loop, compiled by {@code cc -O2}, one downcall per call. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long cLoop() throws Throwable {
        return (long) cLoops.write.invokeExact(cBuffer, cBuffer.byteSize(), cPattern, bodySize, (long) FRAMES, cNext);
    }

    /** {@return the buffer's position} The C writer's stores in Java: a header store and a body copy, the buffer emptied when full. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public int rawStores() {
        ByteBuffer buf = raw;
        byte[] body = pattern;
        int size = bodySize;
        int frame = FrameFormat.HEADER_LENGTH + size;
        for (int i = 0; i < FRAMES; i++) {
            int position = buf.position();
            if (buf.capacity() - position < frame) {
                buf.clear(); // what a write of the whole buffer leaves
                position = 0;
            }
            buf.putLong(position, (long) i << 32 | size);
            buf.put(position + FrameFormat.HEADER_LENGTH, body, SequenceStream.patternOffset(i), size);
            buf.position(position + frame);
        }
        return buf.position();
    }

    /**
     * {@return the buffer's position} {@link #rawStores}, the body copied 8 bytes at a time through memory
     * segments rather than by the JVM's copy stub: whether a Java loop beats the stub's call for a small body.
     */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public int longLoop() {
        ByteBuffer buf = raw;
        MemorySegment dst = rawSegment;
        MemorySegment src = heapPattern;
        int size = bodySize;
        int frame = FrameFormat.HEADER_LENGTH + size;
        for (int i = 0; i < FRAMES; i++) {
            int position = buf.position();
            if (buf.capacity() - position < frame) {
                buf.clear();
                position = 0;
            }
            buf.putLong(position, (long) i << 32 | size);
            long from = SequenceStream.patternOffset(i);
            long to = position + FrameFormat.HEADER_LENGTH;
            int k = 0;
            for (; k <= size - 8; k += 8) {
                dst.set(ValueLayout.JAVA_LONG_UNALIGNED, to + k, src.get(ValueLayout.JAVA_LONG_UNALIGNED, from + k));
            }
            for (; k < size; k++) {
                dst.set(ValueLayout.JAVA_BYTE, to + k, src.get(ValueLayout.JAVA_BYTE, from + k));
            }
            buf.position(position + frame);
        }
        return buf.position();
    }

    /**
     * {@return the buffer's position} {@link #rawStores}, the body copied by {@code MemorySegment.copy}
     * between segments made once (the JDK copies bodies under 64 bytes in Java, larger ones by its stub).
     */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public int segmentCopy() {
        ByteBuffer buf = raw;
        MemorySegment dst = rawSegment;
        MemorySegment src = heapPattern;
        int size = bodySize;
        int frame = FrameFormat.HEADER_LENGTH + size;
        for (int i = 0; i < FRAMES; i++) {
            int position = buf.position();
            if (buf.capacity() - position < frame) {
                buf.clear();
                position = 0;
            }
            buf.putLong(position, (long) i << 32 | size);
            MemorySegment.copy(src, SequenceStream.patternOffset(i), dst, position + FrameFormat.HEADER_LENGTH, size);
            buf.position(position + frame);
        }
        return buf.position();
    }

    /**
     * {@return the buffer's position} {@link #rawStores}, the body copied a byte at a time, a loop C2 may
     * vectorise.
     */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public int byteLoop() {
        ByteBuffer buf = raw;
        MemorySegment dst = rawSegment;
        byte[] body = pattern;
        int size = bodySize;
        int frame = FrameFormat.HEADER_LENGTH + size;
        for (int i = 0; i < FRAMES; i++) {
            int position = buf.position();
            if (buf.capacity() - position < frame) {
                buf.clear();
                position = 0;
            }
            buf.putLong(position, (long) i << 32 | size);
            int from = SequenceStream.patternOffset(i);
            long to = position + FrameFormat.HEADER_LENGTH;
            for (int k = 0; k < size; k++) {
                dst.set(ValueLayout.JAVA_BYTE, to + k, body[from + k]);
            }
            buf.position(position + frame);
        }
        return buf.position();
    }

    /**
     * {@return the buffer's position} {@link #rawStores}, the body copied 8 bytes at a time from the array
     * (a {@code VarHandle} view) into the buffer by absolute {@code putLong}s in the machine's order, the
     * last 8 bytes overlapping the loop's as {@code memcpy} does: no call in the loop at all (bodies of at
     * least 8 bytes).
     */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public int arrayLongs() {
        ByteBuffer buf = raw;
        ByteBuffer out = rawNative;
        byte[] body = pattern;
        int size = bodySize;
        int frame = FrameFormat.HEADER_LENGTH + size;
        for (int i = 0; i < FRAMES; i++) {
            int position = buf.position();
            if (buf.capacity() - position < frame) {
                buf.clear();
                position = 0;
            }
            buf.putLong(position, (long) i << 32 | size);
            int from = SequenceStream.patternOffset(i);
            int to = position + FrameFormat.HEADER_LENGTH;
            for (int k = 0; k < size - Long.BYTES; k += Long.BYTES) {
                out.putLong(to + k, (long) LONGS.get(body, from + k));
            }
            out.putLong(to + size - Long.BYTES, (long) LONGS.get(body, from + size - Long.BYTES));
            buf.position(position + frame);
        }
        return buf.position();
    }
}
