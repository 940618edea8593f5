package dev.wirespeed.linux.internal.sys;

import dev.wirespeed.linux.NativeSocket;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Question: what does one look at an empty, non-blocking TCP socket cost through each API a
 * busy-polling reader reads with: the library's bare down-call ({@code downCall}, as {@link DownCallVsC}'s
 * {@code library}), {@link NativeSocket#read(ByteBuffer)} ({@code nativeSocket}, the down-call with the
 * channel's own checks around it), the JDK's {@link SocketChannel#read(ByteBuffer)} ({@code socketChannel})
 * and a C loop of {@code recv(2)} through {@code syscall(2)} ({@code c}, {@link DownCallVsC}'s)? An empty
 * look is what a busy-polling reader repeats while it waits; on a CPU shared with its peer, what it costs
 * delays the peer's turn.
 *
 * <p>Each look asks for up to 4 KiB, into native memory, from a connected socket whose peer sends
 * nothing, and returns at once ({@code EAGAIN}: 0 from the channels).
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main EmptyLookPerApi}. Needs {@code cc} (or {@code CC}) for the C loop.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class EmptyLookPerApi {
    /** Looks per benchmark call, in Java and in the C loop alike. */
    static final int LOOKS = 1_000;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment capture = LibC.captureSegment(arena);
    private final MemorySegment memory = arena.allocate(4096, 4096);
    /** The channels' buffer: the JDK's own kind, so that its channel takes no memory session per call. */
    private final ByteBuffer direct = ByteBuffer.allocateDirect(4096);
    private final List<AutoCloseable> open = new ArrayList<>();
    private NativeSocket nativeSocket;
    private SocketChannel socketChannel;
    private MethodHandle cLoop;

    @Setup(Level.Trial)
    public void setUp() throws Throwable {
        ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        open.add(server);
        nativeSocket = NativeSocket.connect(server.getLocalAddress()).configureBlocking(false);
        open.add(nativeSocket);
        open.add(server.accept()); // kept open, sending nothing
        socketChannel = SocketChannel.open(server.getLocalAddress());
        socketChannel.configureBlocking(false);
        open.add(socketChannel);
        open.add(server.accept());
        cLoop = DownCallVsC.CDownCalls.load().loop(DownCallVsC.Shape.RECV, false);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** {@return the sum of the results} The library's critical down-call, {@code MSG_DONTWAIT}. */
    @Benchmark
    @OperationsPerInvocation(LOOKS)
    public long downCall() {
        long sum = 0;
        MemorySegment c = capture;
        int fd = nativeSocket.fd();
        long address = memory.address();
        long length = memory.byteSize();
        for (int k = 0; k < LOOKS; k++) {
            sum += FdCalls.recvNonBlocking(c, fd, address, length, 0);
        }
        return sum;
    }

    /** {@return the sum of the results} {@link NativeSocket#read(ByteBuffer)}, non-blocking. */
    @Benchmark
    @OperationsPerInvocation(LOOKS)
    public long nativeSocket() throws IOException {
        long sum = 0;
        NativeSocket socket = nativeSocket;
        ByteBuffer dst = direct;
        for (int k = 0; k < LOOKS; k++) {
            sum += socket.read(dst);
        }
        return sum;
    }

    /** {@return the sum of the results} The JDK's {@link SocketChannel#read(ByteBuffer)}, non-blocking. */
    @Benchmark
    @OperationsPerInvocation(LOOKS)
    public long socketChannel() throws IOException {
        long sum = 0;
        SocketChannel channel = socketChannel;
        ByteBuffer dst = direct;
        for (int k = 0; k < LOOKS; k++) {
            sum += channel.read(dst);
        }
        return sum;
    }

    /** {@return the C loop's sum} {@value #LOOKS} {@code recv(2)} calls in C, one down-call. */
    @Benchmark
    @OperationsPerInvocation(LOOKS)
    public long c() throws Throwable {
        return (long) cLoop.invokeExact(nativeSocket.fd(), memory, memory.byteSize(), (long) LOOKS);
    }
}
