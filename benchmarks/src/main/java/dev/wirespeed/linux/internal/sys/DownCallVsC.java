package dev.wirespeed.linux.internal.sys;

import dev.wirespeed.benchmark.CLibrary;
import dev.wirespeed.linux.NativePipe;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.linux.internal.uring.Ring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Question: what does one system call cost through the library's FFM down-calls, against the same
 * call made by C in a loop, for each call shape the library's hot paths make?
 *
 * <p>Each shape is a call that returns at once and changes nothing: {@code recv} of a connected,
 * non-blocking TCP socket that has nothing ({@code EAGAIN}); {@code send} of 0 bytes on it;
 * {@code read} of an empty non-blocking pipe ({@code EAGAIN}); {@code write} of 0 bytes to a non-blocking pipe;
 * {@code epoll_wait} of an empty set with a zero timeout; {@code io_uring_enter} with nothing to
 * submit and nothing to wait for. So what is measured is the call's way in and out of the kernel and
 * the kernel's first checks, which is what a busy-polling reader pays per empty look.
 *
 * <ul>
 *   <li>{@code library}: the call as the library makes it on a non-blocking descriptor:
 *       {@code FdCalls.recvNonBlocking} and {@code sendNonBlocking} (which pass {@code MSG_DONTWAIT}),
 *       {@code readNonBlocking} and {@code writeNonBlocking} for a pipe it made ({@code NativePipe.open()}),
 *       {@code epollWaitNow} (a zero timeout), {@code Syscalls.callNow} of {@code io_uring_enter}: each a
 *       critical call through {@code LibC.STUB_6_CRITICAL} (the system call stub, which returns minus the
 *       errno and so captures none) where the JVM has it, else through {@code syscall(2)} with {@code errno} captured into a kept
 *       segment, as the library makes every call that cannot wait. Run with
 *       {@code -jvmArgsAppend -Dwirespeed.syscallStub=false} for the second.
 *   <li>{@code waiting}: the same calls through the library's handles that may wait, as it makes them on
 *       a blocking descriptor (and made them all before): the thread-state change around each call.
 *   <li>{@code critical}: the same system call through {@code syscall(2)} linked here with
 *       {@code Linker.Option.critical(false)} beside the capture, called in the loop without the library's
 *       code around it: a bare critical down-call with the errno captured, the library's form without
 *       the stub.
 *   <li>{@code c}: {@value #CALLS} of the same calls in a C loop ({@code downcalls.c}, compiled with the
 *       system's {@code cc -O2} at setup), called once through FFM, so that its own down-call is spread
 *       over them; each through {@code syscall(2)}, which is what a single-threaded C program's wrapper
 *       amounts to, as the lab's C programs are.
 *   <li>{@code cLibc}: the C loop through the C library's wrappers, in this multi-threaded process: each
 *       call a cancellation point, bracketed by two atomic updates of the thread's cancellation type. What
 *       the library's calls paid before they went through {@code syscall(2)}.
 * </ul>
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main DownCallVsC}. Needs {@code cc} (or {@code CC}) and, for {@code io_uring_enter},
 * a kernel with io_uring; setup fails saying which is missing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class DownCallVsC {
    /** Calls per benchmark call, in Java and in the C loop alike. */
    static final int CALLS = 1_000;

    /** A system call the library makes on a hot path. */
    public enum Shape {
        /** {@code recv(2)} of an empty non-blocking socket. */
        RECV,
        /** {@code send(2)} of 0 bytes. */
        SEND,
        /** {@code read(2)} of an empty non-blocking pipe. */
        READ,
        /** {@code write(2)} of 0 bytes to a pipe. */
        WRITE,
        /** {@code epoll_wait(2)} of an empty set, zero timeout. */
        EPOLL_WAIT,
        /** {@code io_uring_enter(2)}: nothing to submit, nothing to wait for. */
        IO_URING_ENTER
    }

    @Param
    Shape shape;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment capture = LibC.captureSegment(arena);
    private final MemorySegment buffer = arena.allocate(4096, 4096);
    private final MemorySegment events = arena.allocate(16L * 64, 8);
    private long address;
    private int fd;
    private long length;
    /** The shape's handle linked with {@code critical(false)} and the errno capture; its C loop. */
    private MethodHandle critical;
    private MethodHandle cLoop;
    private MethodHandle cLibcLoop;
    private final List<AutoCloseable> open = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp() throws Throwable {
        address = buffer.address();
        switch (shape) {
            case RECV, SEND -> {
                ServerSocketChannel server = ServerSocketChannel.open()
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                open.add(server);
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress()).configureBlocking(false);
                open.add(socket);
                SocketChannel peer = server.accept(); // kept open, sending nothing
                open.add(peer);
                fd = socket.fd();
                length = shape == Shape.RECV ? buffer.byteSize() : 0;
            }
            case READ, WRITE -> {
                NativePipe.Ends pipe = NativePipe.open();
                open.add(pipe.source());
                open.add(pipe.sink());
                pipe.source().configureBlocking(false);
                pipe.sink().configureBlocking(false);
                fd = shape == Shape.READ ? pipe.source().fd() : pipe.sink().fd();
                length = shape == Shape.READ ? buffer.byteSize() : 0;
            }
            case EPOLL_WAIT -> {
                fd = (int) Syscalls.call(capture, SyscallNumbers.EPOLL_CREATE1, 0, 0, 0, 0, 0, 0);
                if (fd < 0) {
                    throw new IllegalStateException("epoll_create1 errno=" + -fd);
                }
                int epfd = fd;
                open.add(() -> Sys.closeQuietly(epfd));
                length = 64;
                address = events.address();
            }
            case IO_URING_ENTER -> {
                Ring ring = Ring.open(Ring.Params.of(2, 0, 0, -1, 1000, "DownCallVsC"));
                open.add(ring);
                fd = ring.fd();
                length = 0; // no flags: neither GETEVENTS nor a wake-up
            }
            default -> throw new AssertionError(shape);
        }
        critical = criticalHandle();
        cLoop = CDownCalls.load().loop(shape, false);
        cLibcLoop = CDownCalls.load().loop(shape, true);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** {@return {@code syscall(2)} with six arguments, linked again with {@code critical(false)}, as the library's} */
    @SuppressWarnings("restricted") // links a C library function, as LibC does
    private static MethodHandle criticalHandle() {
        Linker linker = Linker.nativeLinker();
        ValueLayout.OfLong j = ValueLayout.JAVA_LONG;
        return linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(),
                FunctionDescriptor.of(j, j, j, j, j, j, j, j), Linker.Option.firstVariadicArg(1),
                Linker.Option.critical(false), Linker.Option.captureCallState("errno"));
    }

    /** {@return the shape's system call number} */
    private long number() {
        return switch (shape) {
            case RECV -> SyscallNumbers.RECVFROM;
            case SEND -> SyscallNumbers.SENDTO;
            case READ -> SyscallNumbers.READ;
            case WRITE -> SyscallNumbers.WRITE;
            case EPOLL_WAIT -> SyscallNumbers.EPOLL_PWAIT;
            case IO_URING_ENTER -> SyscallNumbers.IO_URING_ENTER;
        };
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public long library() throws Throwable {
        long sum = 0;
        MemorySegment c = capture;
        int f = fd;
        long a = address;
        long n = length;
        switch (shape) {
            case RECV -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.recvNonBlocking(c, f, a, n, 0);
                }
            }
            case SEND -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.sendNonBlocking(c, f, a, n, Flags.MSG_NOSIGNAL);
                }
            }
            case READ -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.readNonBlocking(c, f, a, n);
                }
            }
            case WRITE -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.writeNonBlocking(c, f, a, n);
                }
            }
            case EPOLL_WAIT -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.epollWaitNow(c, f, a, (int) n);
                }
            }
            case IO_URING_ENTER -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += Syscalls.callNow(c, SyscallNumbers.IO_URING_ENTER, f, 0, 0, n, 0, 0);
                }
            }
            default -> throw new AssertionError(shape);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public long waiting() throws Throwable {
        long sum = 0;
        MemorySegment c = capture;
        int f = fd;
        long a = address;
        long n = length;
        switch (shape) {
            case RECV -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.recv(c, f, a, n, 0);
                }
            }
            case SEND -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.send(c, f, a, n, Flags.MSG_NOSIGNAL);
                }
            }
            case READ -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.read(c, f, a, n);
                }
            }
            case WRITE -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.write(c, f, a, n);
                }
            }
            case EPOLL_WAIT -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += FdCalls.epollWait(c, f, a, (int) n, 0);
                }
            }
            case IO_URING_ENTER -> {
                for (int k = 0; k < CALLS; k++) {
                    sum += Syscalls.call(c, SyscallNumbers.IO_URING_ENTER, f, 0, 0, n, 0, 0);
                }
            }
            default -> throw new AssertionError(shape);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public long critical() throws Throwable {
        long sum = 0;
        MemorySegment c = capture;
        MethodHandle h = critical;
        long number = number();
        long f = fd;
        long a = address;
        long n = length;
        // the arguments of each shape's call, as the library passes them: send's flags (epoll_pwait's
        // timeout, 0, in the same place), epoll_pwait's signal set size
        long x = shape == Shape.SEND ? Flags.MSG_NOSIGNAL : 0;
        long y = shape == Shape.EPOLL_WAIT ? 8 : 0;
        if (shape == Shape.IO_URING_ENTER) {
            for (int k = 0; k < CALLS; k++) {
                sum += (long) h.invokeExact(c, number, f, 0L, 0L, n, 0L, 0L);
            }
        } else {
            for (int k = 0; k < CALLS; k++) {
                sum += (long) h.invokeExact(c, number, f, a, n, x, 0L, y);
            }
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public long c() throws Throwable {
        MemorySegment target = shape == Shape.EPOLL_WAIT ? events : buffer;
        return (long) cLoop.invokeExact(fd, target, length, (long) CALLS);
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public long cLibc() throws Throwable {
        MemorySegment target = shape == Shape.EPOLL_WAIT ? events : buffer;
        return (long) cLibcLoop.invokeExact(fd, target, length, (long) CALLS);
    }

    /** {@code downcalls.c}, compiled into a temporary library once per JVM. */
    static final class CDownCalls {
        private static CDownCalls loaded;
        private final SymbolLookup lookup;

        private CDownCalls(SymbolLookup lookup) {
            this.lookup = lookup;
        }

        static synchronized CDownCalls load() throws IOException, InterruptedException {
            if (loaded == null) {
                loaded = new CDownCalls(CLibrary.compile(DownCallVsC.class, "downcalls.c"));
            }
            return loaded;
        }

        /**
         * {@return the C loop of {@code shape}: {@code long f(int fd, void *buf, long arg, long n)}, through the
         * C library's wrapper if {@code libc} and there is one ({@code io_uring_enter} has none)}
         */
        @SuppressWarnings("restricted") // links the library's functions
        MethodHandle loop(Shape shape, boolean libc) {
            String name = "downcalls_" + shape.name().toLowerCase(java.util.Locale.ROOT)
                    + (libc && shape != Shape.IO_URING_ENTER ? "_libc" : "");
            Linker linker = Linker.nativeLinker();
            return linker.downcallHandle(lookup.find(name).orElseThrow(() -> new IllegalStateException("no " + name)),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        }
    }
}
