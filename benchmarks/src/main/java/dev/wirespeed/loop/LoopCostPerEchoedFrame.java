package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Question: with the kernel taken out, what does {@link FrameServer}'s loop cost per frame it
 * echoes, and how much of that is the reply?
 *
 * <p>The loop runs as in production, busy-polling on its own thread, over a transport that lives in
 * memory: every poll reports each of {@code connections} connections readable, each read hands over
 * {@value #FRAMES_PER_READ} frames of {@code bodySize} bytes (the lab's {@code many} experiment keeps 16
 * in flight per connection), and a write takes everything and keeps nothing. What is left is the
 * loop's own work: the poll's dispatch, the read's bookkeeping and chunk, the header parse, the
 * handler call with its view and, with {@code reply=writeFrame}, each frame written back and its send;
 * {@code reply=writeFrames} hands the handler each read's frames as one block ({@link BlockHandler}),
 * written back whole; {@code reply=relay} relays each block whole to another connection of the loop
 * ({@link Connection#relayBlock}; paired, as a gateway's two sides are), {@code reply=relayChecked}
 * the same by the other's {@link Connection#writeFrames}, which checks the block's frames again;
 * {@code reply=none} reads and drops. With {@code input=copy} the read's copy of the
 * frames into the chunk stands in for the kernel's copy and is counted; with {@code input=lend} the
 * connections lend their bytes in place, as the io_uring transport's do, and the loop parses them
 * there: the difference is what lending saves the loop. The benchmark thread waits for the loop's frame
 * count to pass the next {@value #BATCH} frames, so it needs a CPU of its own: pin to two.
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 0,1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main LoopCostPerEchoedFrame}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class LoopCostPerEchoedFrame {
    /** Frames each read hands over. */
    static final int FRAMES_PER_READ = 16;
    /** Frames per benchmark call. */
    static final int BATCH = 1_000_000;

    @Param({"1000"})
    int connections;

    @Param({"100"})
    int bodySize;

    @Param({"writeFrame", "writeFrames", "relay", "relayChecked", "none"})
    String reply;

    @Param({"copy", "lend"})
    String input;

    private FrameServer server;

    /** Starts one busy-polling loop over the memory transport and waits until it holds every connection. */
    @Setup
    public void setUp() throws IOException, InterruptedException {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        FrameWriter writer = new FrameWriter(Channels.newChannel(block));
        byte[] body = new byte[bodySize];
        for (int i = 0; i < FRAMES_PER_READ; i++) {
            Arrays.fill(body, (byte) i);
            writer.writeFrame(i, body, 0, bodySize);
        }
        writer.flush();
        ConnectionHandler handler = switch (reply) {
            case "writeFrame" -> (connection, type, b) -> connection.writeFrame(type, b);
            case "writeFrames" -> (BlockHandler) (connection, frames) -> connection.writeFrames(frames);
            case "relay" -> new PairRelay(connections, false);
            case "relayChecked" -> new PairRelay(connections, true);
            case "none" -> (connection, type, b) -> { };
            default -> throw new IllegalArgumentException(
                    "reply=" + reply + ": writeFrame, writeFrames, relay, relayChecked or none");
        };
        server = FrameServer.builder(handler)
                .bind(new InetSocketAddress(0))
                .transport(new MemoryTransport(connections, block.toByteArray(), switch (input) {
                    case "copy" -> false;
                    case "lend" -> true;
                    default -> throw new IllegalArgumentException("input=" + input + ": copy or lend");
                }))
                .busyPoll(IdleStrategy.busySpin())
                .threadName("loop-under-test")
                .start();
        while (server.connectionCount() < connections) {
            Thread.sleep(1);
        }
    }

    /** Stops the loop. */
    @TearDown
    public void tearDown() {
        server.close();
    }

    /**
     * {@return the loop's frame count} Waits while the loop echoes (or drops) the next {@value #BATCH} frames,
     * looking at the count every {@value #LOOK_NANOS} ns: a thread spinning on it would pull the count's cache
     * line from the loop's core at every look, and the loop would pay a miss at each store to it. A batch takes
     * milliseconds, so the frames past the target when it looks are a small fraction of the batch.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long loop() {
        long target = server.framesRead() + BATCH;
        long frames;
        while ((frames = server.framesRead()) < target) {
            LockSupport.parkNanos(LOOK_NANOS);
        }
        return frames;
    }

    /**
     * Relays each block whole to the connection paired with its own (numbers 1 and 2, 3 and 4, ...), as a
     * gateway between two peers on one loop does: a copy of the block into the other's output and its
     * send, where the echo's reply copies nothing.
     */
    static final class PairRelay implements BlockHandler {
        private final Connection[] byNumber;
        private final boolean checked;

        PairRelay(int connections, boolean checked) {
            this.byNumber = new Connection[connections + 2]; // numbers from 1, and an odd last one's pair, never opened
            this.checked = checked;
        }

        @Override
        public void onOpen(Connection connection) {
            byNumber[(int) connection.id()] = connection;
        }

        @Override
        public void onFrames(Connection connection, ByteBuffer frames) {
            int number = (int) connection.id();
            Connection other = byNumber[number % 2 == 1 ? number + 1 : number - 1];
            if (other == null) {
                return;
            }
            if (checked) {
                other.writeFrames(frames);
            } else {
                connection.relayBlock(other);
            }
        }
    }

    /** How long the benchmark's thread sleeps between looks at the loop's frame count. */
    static final long LOOK_NANOS = 20_000;

    /**
     * Connections that are always readable, each read the same block of frames (copied, or lent in
     * place), every write taken whole.
     */
    static final class MemoryTransport implements LoopTransport {
        private final int connections;
        private final byte[] block;
        private final boolean lend;
        /** The block, read-only, re-pointed at each lend: the loop uses one lent buffer at a time. */
        private final ByteBuffer lent;

        MemoryTransport(int connections, byte[] block, boolean lend) {
            this.connections = connections;
            this.block = block;
            this.lend = lend;
            this.lent = ByteBuffer.allocateDirect(block.length).put(block).flip().asReadOnlyBuffer();
        }

        @Override
        public String name() {
            return "memory";
        }

        @Override
        public Poller openPoller() {
            return new MemoryPoller();
        }

        @Override
        public Listener listen(SocketAddress address, int backlog) {
            return new MemoryListener();
        }

        final class MemoryListener implements Listener {
            int accepted;

            @Override
            public SocketAddress localAddress() {
                return new InetSocketAddress(0);
            }

            @Override
            public Endpoint accept() {
                if (accepted == connections) {
                    return null;
                }
                return lend ? new LendingMemoryEndpoint(accepted++) : new MemoryEndpoint(accepted++);
            }

            @Override
            public void close() {
            }
        }

        class MemoryEndpoint implements Endpoint {
            final int index;
            int offset;

            MemoryEndpoint(int index) {
                this.index = index;
            }

            @Override
            public int read(ByteBuffer dst) {
                int n = Math.min(dst.remaining(), block.length - offset);
                dst.put(block, offset, n);
                offset = (offset + n) % block.length;
                return n;
            }

            @Override
            public int write(ByteBuffer src) {
                int n = src.remaining();
                src.position(src.limit());
                return n;
            }

            @Override
            public SocketAddress remoteAddress() {
                return null;
            }

            @Override
            public void reset() {
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        }

        /** The block lent where it lies, from the offset the loop has consumed to. */
        final class LendingMemoryEndpoint extends MemoryEndpoint implements LendingEndpoint {
            LendingMemoryEndpoint(int index) {
                super(index);
            }

            @Override
            public ByteBuffer lend() {
                return lent.limit(block.length).position(offset);
            }

            @Override
            public void consume(int n) {
                offset = (offset + n) % block.length;
            }

            @Override
            public boolean ended() {
                return false; // the block is lent again for ever
            }
        }

        /** Reports the listener while it has connections to give, then every connection with its interest. */
        final class MemoryPoller implements Poller {
            private Object listener;
            private MemoryListener source;
            private Object[] attachments = new Object[0];
            private int[] interest = new int[0];

            @Override
            public void register(Endpoint endpoint, Object attachment, int ops) {
                int i = ((MemoryEndpoint) endpoint).index;
                if (i >= attachments.length) {
                    attachments = Arrays.copyOf(attachments, connections);
                    interest = Arrays.copyOf(interest, connections);
                }
                attachments[i] = attachment;
                interest[i] = ops;
            }

            @Override
            public void register(Listener l, Object attachment) {
                listener = attachment;
                source = (MemoryListener) l;
            }

            @Override
            public void interest(Listener l, int ops) {
                // its connections never fail to be accepted: the loop never stops watching it
            }

            @Override
            public void interest(Endpoint endpoint, int ops) {
                interest[((MemoryEndpoint) endpoint).index] = ops;
            }

            @Override
            public void deregister(Endpoint endpoint) {
                int i = ((MemoryEndpoint) endpoint).index;
                attachments[i] = null;
                interest[i] = 0;
            }

            @Override
            public int poll(long timeoutMillis, Ready ready) {
                int handed = 0;
                if (source != null && source.accepted < connections) {
                    ready.ready(listener, READ);
                    handed++;
                }
                for (int i = 0; i < attachments.length; i++) {
                    Object a = attachments[i];
                    if (a != null && interest[i] != 0) {
                        ready.ready(a, interest[i]);
                        handed++;
                    }
                }
                return handed;
            }

            @Override
            public void wakeup() {
            }

            @Override
            public void close() {
            }
        }
    }
}
