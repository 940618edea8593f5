package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.Affinity;
import dev.wirespeed.linux.NativeSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * Question: from what write size does an io_uring zero-copy send ({@code SEND_ZC}, waited for until
 * the kernel lets go of the buffer) move a stream faster than a copying {@code SEND} through the same
 * ring, and than {@code send(2)} on the socket itself; and did the kernel really avoid the copy?
 *
 * <p>One TCP loopback connection; the benchmark thread writes {@code size} bytes per call from one
 * direct buffer, blocking until the socket has taken them all, pinned to CPU 1; a thread of its own,
 * pinned to CPU 0, reads the other end into a 1 MiB buffer and drops the bytes. At the end of each
 * fork the zero-copy method prints how many of its sends the kernel reported copied: over loopback
 * the receiver is on this machine, where the kernel copies every one.
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 0,1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main SendZeroCopyVsSend}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class SendZeroCopyVsSend {
    @Param({"4096", "16384", "65536", "262144", "1048576"})
    int size;

    private ServerSocketChannel server;
    private SocketChannel peer;
    private NativeSocket socket;
    private IoUringSocket copying;
    private IoUringSocket zeroCopy;
    private ByteBuffer source;
    private Thread drain;

    /** Connects, starts the draining thread on CPU 0, and opens both rings on one socket. */
    @Setup
    public void setUp() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        socket = NativeSocket.connect(server.getLocalAddress());
        peer = server.accept();
        drain = Thread.ofPlatform().daemon().name("drain").start(() -> {
            try {
                Affinity.pinCurrentThread(cpus(0));
                ByteBuffer sink = ByteBuffer.allocateDirect(1 << 20);
                while (peer.read(sink.clear()) >= 0) {
                    // dropped
                }
            } catch (IOException e) {
                // the benchmark closed the connection
            }
        });
        // Both rings write the same socket; each call waits for its own operation, so they never interleave.
        copying = IoUringSocket.builder(socket).build();
        zeroCopy = IoUringSocket.builder(socket).zeroCopyFrom(1).build();
        source = ByteBuffer.allocateDirect(size);
        Affinity.pinCurrentThread(cpus(1));
    }

    /** {@return bytes written} Through the ring, each write one copying {@code SEND}. */
    @Benchmark
    public int ringSend() throws IOException {
        return writeAll(copying);
    }

    /** {@return bytes written} Through the ring, each write one {@code SEND_ZC}, waited for until its notification. */
    @Benchmark
    public int ringSendZeroCopy() throws IOException {
        return writeAll(zeroCopy);
    }

    /** {@return bytes written} {@code send(2)} on the socket, through FFM. */
    @Benchmark
    public int socketSend() throws IOException {
        return writeAll(socket);
    }

    private int writeAll(WritableByteChannel channel) throws IOException {
        ByteBuffer src = source.clear();
        int written = 0;
        while (src.hasRemaining()) {
            written += channel.write(src);
        }
        return written;
    }

    /** Says how many zero-copy sends the kernel copied, then closes everything. */
    @TearDown
    public void tearDown() throws IOException, InterruptedException {
        if (zeroCopy.zeroCopySends() > 0) {
            System.out.println("size=" + size + " zeroCopySends=" + zeroCopy.zeroCopySends() + " copiedByTheKernel="
                    + zeroCopy.copiedZeroCopySends());
        }
        zeroCopy.close(); // closes the socket too
        copying.close();
        drain.join(5_000);
        peer.close();
        server.close();
    }

    private static BitSet cpus(int cpu) {
        BitSet set = new BitSet();
        set.set(cpu);
        return set;
    }
}
