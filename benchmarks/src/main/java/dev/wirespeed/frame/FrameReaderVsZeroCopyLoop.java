package dev.wirespeed.frame;

import dev.wirespeed.testkit.SequenceStream;
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
 * Question: with the kernel taken out (the bytes come from memory), what does the library's
 * {@link FrameReader} cost per frame compared with the first article's fastest hand-written loop
 * (compact-on-demand {@code ensure()}, body as a re-pointed duplicate)? The lab measures both over
 * real sockets; this isolates the per-frame CPU cost that decides how soon a reader drains a socket.
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main FrameReaderVsZeroCopyLoop}
 *
 * <p>Results recorded so far: {@code benchmarks/RESULTS.md}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC"})
public class FrameReaderVsZeroCopyLoop {
    /** Frames per benchmark call: enough that per-call setup vanishes. */
    static final int FRAMES = 100_000;

    @Param({"100"})
    int bodySize;

    private ByteBuffer stream;
    private MemoryChannel channel;

    /** Builds the sequence stream of {@link #FRAMES} frames once. */
    @Setup
    public void setUp() {
        stream = ByteBuffer.allocateDirect(FRAMES * (bodySize + FrameFormat.HEADER_LENGTH));
        byte[] pattern = SequenceStream.pattern(bodySize);
        for (int i = 0; i < FRAMES; i++) {
            stream.putInt(SequenceStream.type(i)).putInt(bodySize).put(pattern, SequenceStream.patternOffset(i), bodySize);
        }
        stream.flip();
        channel = new MemoryChannel(stream);
    }

    /** {@return a checksum of what the frames held}; time per frame via {@link OperationsPerInvocation}. */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long frameReader() throws Exception {
        channel.rewind();
        FrameReader reader = new FrameReader(channel);
        long[] sum = {0};
        FrameHandler handler = (type, body) -> sum[0] += type + body.get(body.position() + body.remaining() - 1);
        while (reader.readFrame(handler)) {
            // one frame per call
        }
        return sum[0];
    }

    /** {@return the same checksum, read by the article's zero-copy loop} */
    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long articleZeroCopyLoop() throws Exception {
        channel.rewind();
        ByteBuffer buf = ByteBuffer.allocateDirect(512 * 1024);
        ByteBuffer msgBuf = buf.duplicate();
        byte[] type = new byte[4];
        buf.limit(0);
        long sum = 0;
        while (ensure(buf, 8)) {
            buf.get(type);
            int len = buf.getInt();
            ensure(buf, len);
            msgBuf.limit(buf.position() + len);
            msgBuf.position(buf.position());
            buf.position(buf.position() + len);
            sum += ((type[0] & 0xFF) << 24 | (type[1] & 0xFF) << 16 | (type[2] & 0xFF) << 8 | type[3] & 0xFF)
                    + msgBuf.get(msgBuf.position() + msgBuf.remaining() - 1);
        }
        return sum;
    }

    private boolean ensure(ByteBuffer buf, int len) throws java.io.IOException {
        if (buf.remaining() < len) {
            buf.compact();
            buf.flip();
            do {
                buf.position(buf.limit());
                buf.limit(buf.capacity());
                int n = channel.read(buf);
                buf.flip();
                if (n < 0) {
                    return false;
                }
            } while (buf.remaining() < len);
        }
        return true;
    }

    /** Serves the prepared stream from memory, 64 KiB per read (a typical loopback segment). */
    static final class MemoryChannel implements ReadableByteChannel {
        private final ByteBuffer source;

        MemoryChannel(ByteBuffer source) {
            this.source = source;
        }

        void rewind() {
            source.rewind();
        }

        @Override
        public int read(ByteBuffer dst) {
            if (!source.hasRemaining()) {
                return -1;
            }
            int n = Math.min(64 * 1024, Math.min(dst.remaining(), source.remaining()));
            dst.put(dst.position(), source, source.position(), n);
            dst.position(dst.position() + n);
            source.position(source.position() + n);
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
