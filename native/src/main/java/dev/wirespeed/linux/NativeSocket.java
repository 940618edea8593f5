package dev.wirespeed.linux;

import dev.wirespeed.loop.spi.Endpoint;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.GatheringByteChannel;

/**
 * A connected stream socket (TCP or Unix) that the library owns and reads and writes with
 * {@code recv(2)} and {@code send(2)} through the FFM API, without the JDK's {@code SocketChannel}
 * machinery (its locks, interrupt hooks and temporary buffers). It is a {@link ByteChannel}, so a
 * {@code ChannelReader}, {@code FrameReader} or {@code FrameWriter} of the core module reads and writes
 * it as any channel.
 *
 * <h2>Reads and writes</h2>
 * <ul>
 *   <li>{@link #read(ByteBuffer)} makes one {@code recv(2)} call for the buffer's remaining bytes and
 *       returns how many arrived; at end of stream it returns -1. {@link #write(ByteBuffer)} makes one
 *       {@code send(2)} call with {@code MSG_NOSIGNAL} (a peer that went away is an
 *       {@code EPIPE} exception, never a {@code SIGPIPE}) and may write fewer bytes than offered.
 *       {@link #write(ByteBuffer[], int, int)} gathers up to {@value #MAX_GATHER} direct buffers into
 *       one {@code sendmsg(2)} call, so that a frame's header and a large body leave without a copy.
 *   <li>Blocking mode (the default) waits in the kernel. In non-blocking mode
 *       ({@link #configureBlocking(boolean) configureBlocking(false)}) a call that would wait returns 0
 *       ({@code EAGAIN}), which is how a busy-polling reader spins.
 *   <li>A call interrupted by a signal ({@code EINTR}) is repeated. Java thread interrupts are
 *       <em>not</em> observed: unlike a {@code SocketChannel}, this socket is not interruptible.
 *       {@link #shutdownInput()} or a timeout at the peer is how a blocked reader is released.
 *   <li>Direct buffers are read and written in place, with no allocation per call (a buffer's address
 *       is looked up once and kept while the same buffer is passed again). Heap buffers go through
 *       one direct buffer per direction, owned by the socket, with one copy.
 *   <li>Any other failure throws a {@link NativeIoException} naming the call, {@code errno} and its
 *       text, and the socket's address, as in
 *       {@code "recv failed: errno=104 (Connection reset by peer) fd=7 remote=127.0.0.1:40000"}.
 * </ul>
 *
 * <h2>Closing</h2>
 * {@link #close()} closes the descriptor once; any later call throws {@link ClosedChannelException}.
 *
 * <h2>Thread safety</h2>
 * One thread may read while another writes (each direction has its own {@code errno} capture and
 * copy buffer). Two threads must not read (or write) at once. {@code close()} and
 * {@code configureBlocking} must not race with a read or write in another thread: a descriptor number
 * closed under a blocked call may be re-used by the kernel for another file. Release a blocked reader
 * with {@link #shutdownInput()} first.
 *
 * <p>Linux only: elsewhere every factory throws {@link UnsupportedOperationException}.
 */
public final class NativeSocket implements ByteChannel, GatheringByteChannel, Endpoint {
    static final int SOCK_STREAM = 1;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_LINGER = 13;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int MSG_NOSIGNAL = 0x4000;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 0x800;
    static final int EINTR = 4;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int SHUT_RD = 0;
    static final int SHUT_WR = 1;
    static final int SHUT_RDWR = 2;
    /** The most buffers one gathering write passes to the kernel; the rest wait for the next call. */
    public static final int MAX_GATHER = 16;
    /** Offsets in {@code struct msghdr} (64-bit Linux): {@code msg_iov} and {@code msg_iovlen}. */
    private static final long MSG_IOV = 16;
    private static final long MSG_IOVLEN = 24;
    private static final long MSGHDR_SIZE = 56;

    private final int fd;
    private final SocketAddress remote;
    private final boolean inet;
    private final FdDirection in = new FdDirection(true);
    private final FdDirection out = new FdDirection(true);
    /** The native {@code msghdr} and {@code iovec}s of gathering writes, made on the first one. */
    private Gather gather;
    private volatile boolean open = true;
    private boolean blocking = true;

    NativeSocket(int fd, SocketAddress remote, boolean inet) {
        this.fd = fd;
        this.remote = remote;
        this.inet = inet;
    }

    /**
     * Connects a blocking socket to {@code address}.
     *
     * @param address an {@link InetSocketAddress} (TCP, IPv4 or IPv6) or a
     *     {@link java.net.UnixDomainSocketAddress}
     * @return the connected socket, blocking, with Nagle's algorithm on (as the kernel sets it)
     * @throws NativeIoException if {@code socket} or {@code connect} fails, e.g.
     *     {@code ECONNREFUSED}, naming the address
     * @throws IOException if the host name cannot be resolved
     * @throws UnsupportedOperationException off Linux
     */
    public static NativeSocket connect(SocketAddress address) throws IOException {
        LibC.checkSupported();
        int family = SocketAddresses.family(address);
        int fd = Sys.check(Sys.socket(family), "socket", "family=" + family);
        boolean connected = false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sockaddr = SocketAddresses.encode(address, arena);
            MemorySegment capture = LibC.captureSegment(arena);
            while (true) {
                int rc = (int) LibC.CONNECT.invokeExact(capture, fd, sockaddr, (int) sockaddr.byteSize());
                if (rc == 0) {
                    break;
                }
                int errno = LibC.errno(capture);
                if (errno != EINTR) {
                    throw new NativeIoException("connect", errno, "fd=" + fd + " address=" + describe(address));
                }
            }
            connected = true;
            return new NativeSocket(fd, address, family != SocketAddresses.AF_UNIX);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("connect down-call failed", t);
        } finally {
            if (!connected) {
                Sys.closeQuietly(fd);
            }
        }
    }

    /**
     * {@return whether this platform has the native path}: Linux on a 64-bit JVM; elsewhere the
     * factories throw {@link UnsupportedOperationException}
     */
    public static boolean isSupported() {
        return LibC.LINUX && ValueLayout.ADDRESS.byteSize() == Long.BYTES;
    }

    /** {@return the file descriptor} Valid until {@link #close()}; do not close it behind the socket's back. */
    public int fd() {
        return fd;
    }

    /** {@return the address this socket is connected to, or null where the kernel did not say (accepted Unix sockets)} */
    public SocketAddress remoteAddress() {
        return remote;
    }

    /** {@return whether calls wait in the kernel (true) or return 0 instead of waiting (false)} */
    public boolean isBlocking() {
        return blocking;
    }

    /**
     * Switches between blocking and non-blocking mode ({@code O_NONBLOCK}).
     *
     * @param block true to wait in the kernel, false to return 0 where a call would wait
     * @return this socket
     * @throws IOException if {@code fcntl} fails, or the socket is closed
     */
    public NativeSocket configureBlocking(boolean block) throws IOException {
        ensureOpen();
        Sys.setBlocking(fd, block, "fd=" + fd);
        blocking = block;
        return this;
    }

    /**
     * Turns Nagle's algorithm off (true) or on (false): {@code TCP_NODELAY}. Latency-sensitive
     * request/response traffic wants it off.
     *
     * @param noDelay true to send small segments at once
     * @return this socket
     * @throws IOException if {@code setsockopt} fails, the socket is closed, or it is not TCP
     */
    public NativeSocket setTcpNoDelay(boolean noDelay) throws IOException {
        ensureOpen();
        if (!inet) {
            throw new IOException("TCP_NODELAY needs a TCP socket; fd=" + fd + " remote=" + describe(remote));
        }
        Sys.setIntOption(fd, IPPROTO_TCP, TCP_NODELAY, noDelay ? 1 : 0, "TCP_NODELAY");
        return this;
    }

    /**
     * {@return whether Nagle's algorithm is off}
     *
     * @throws IOException if {@code getsockopt} fails, the socket is closed, or it is not TCP
     */
    public boolean getTcpNoDelay() throws IOException {
        ensureOpen();
        if (!inet) {
            throw new IOException("TCP_NODELAY needs a TCP socket; fd=" + fd + " remote=" + describe(remote));
        }
        return Sys.getIntOption(fd, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY") != 0;
    }

    /**
     * Sets {@code SO_LINGER}: with {@code seconds == 0}, {@link #close()} discards unsent data and resets
     * the connection ({@code RST}) instead of closing it in order.
     *
     * @param seconds how long close waits for unsent data, or -1 to turn lingering off (the default)
     * @return this socket
     * @throws IOException if {@code setsockopt} fails or the socket is closed
     */
    public NativeSocket setLinger(int seconds) throws IOException {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment linger = arena.allocate(8); // struct linger { int l_onoff; int l_linger; }
            linger.set(ValueLayout.JAVA_INT, 0, seconds >= 0 ? 1 : 0);
            linger.set(ValueLayout.JAVA_INT, 4, Math.max(0, seconds));
            Sys.setOption(fd, SOL_SOCKET, SO_LINGER, linger, "SO_LINGER", arena);
        }
        return this;
    }

    /**
     * Reads what the socket has, up to {@code dst.remaining()} bytes, in one {@code recv(2)} call.
     *
     * @param dst where to put the bytes; its position advances by the count
     * @return the number of bytes read; 0 if {@code dst} has no room or, in non-blocking mode, nothing
     *     is there yet; -1 at end of stream
     * @throws ClosedChannelException if the socket is closed
     * @throws NativeIoException if {@code recv} fails (a reset connection, say)
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read-only buffer: " + dst);
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        return (int) readResult(in.read(fd, dst));
    }

    /**
     * Writes what the socket takes, up to {@code src.remaining()} bytes, in one {@code send(2)} call.
     *
     * @param src the bytes; its position advances by the count
     * @return the number of bytes written; 0 if {@code src} is empty or, in non-blocking mode, the
     *     socket's send buffer is full
     * @throws ClosedChannelException if the socket is closed
     * @throws NativeIoException if {@code send} fails ({@code EPIPE} when the peer has gone, say)
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        ensureOpen();
        if (!src.hasRemaining()) {
            return 0;
        }
        if (!src.isDirect()) {
            return writeThroughCopy(src, src.remaining());
        }
        int n = sendFrom(src, out.address(src));
        Reference.reachabilityFence(src);
        return n;
    }

    /**
     * Reads as {@link #read(ByteBuffer)}, at the address {@code memory} gives for {@code dst}'s position:
     * no lookup of the buffer's address, so nothing is allocated whichever buffer comes.
     *
     * @param dst a direct buffer; its position advances by the count
     * @param memory the native segment over {@code dst}'s bytes from index 0, at least to its limit
     * @throws IllegalArgumentException if {@code memory} is a heap or read-only segment, or shorter than {@code dst}'s limit
     */
    @Override
    public int read(ByteBuffer dst, MemorySegment memory) throws IOException {
        ensureOpen();
        if (!dst.hasRemaining()) {
            return 0;
        }
        checkSpans(dst, memory, true);
        int position = dst.position();
        long n = readAt(memory.address() + position, dst.limit() - position);
        Reference.reachabilityFence(memory);
        if (n > 0) {
            dst.position(position + (int) n);
        }
        return (int) n;
    }

    /**
     * Writes as {@link #write(ByteBuffer)}, from the address {@code memory} gives for {@code src}'s
     * position: no lookup of the buffer's address, so nothing is allocated whichever buffer comes.
     *
     * @param src a direct buffer; its position advances by the count
     * @param memory the native segment over {@code src}'s bytes from index 0, at least to its limit
     * @throws IllegalArgumentException if {@code memory} is a heap segment, or shorter than {@code src}'s limit
     */
    @Override
    public int write(ByteBuffer src, MemorySegment memory) throws IOException {
        ensureOpen();
        if (!src.hasRemaining()) {
            return 0;
        }
        checkSpans(src, memory, false);
        int n = sendFrom(src, memory.address());
        Reference.reachabilityFence(memory);
        return n;
    }

    /** One {@code send(2)} of {@code src}'s remaining bytes, its index 0 at {@code base}; the position advances by the count. */
    private int sendFrom(ByteBuffer src, long base) throws IOException {
        int position = src.position();
        long n = sendAt(base + position, src.limit() - position);
        if (n > 0) {
            src.position(position + (int) n);
        }
        return (int) n;
    }

    private static void checkSpans(ByteBuffer buffer, MemorySegment memory, boolean written) {
        if (!memory.isNative() || memory.byteSize() < buffer.limit() || (written && memory.isReadOnly())) {
            throw new IllegalArgumentException("memory=" + memory + " native=" + memory.isNative() + " readOnly="
                    + memory.isReadOnly() + " does not span buffer=" + buffer + " to its limit=" + buffer.limit());
        }
    }

    /**
     * Reads into native memory: one {@code recv(2)} call for up to {@code segment.byteSize()} bytes.
     *
     * @param segment native memory (not a heap segment)
     * @return bytes read, 0 as for {@link #read(ByteBuffer)}, or -1 at end of stream
     * @throws IOException as {@link #read(ByteBuffer)}
     */
    public long read(MemorySegment segment) throws IOException {
        ensureOpen();
        requireNative(segment);
        if (segment.byteSize() == 0) {
            return 0;
        }
        long n = readAt(segment.address(), segment.byteSize());
        Reference.reachabilityFence(segment);
        return n;
    }

    /**
     * Writes from native memory: one {@code send(2)} call for up to {@code segment.byteSize()} bytes.
     *
     * @param segment native memory (not a heap segment)
     * @return bytes written, or 0 as for {@link #write(ByteBuffer)}
     * @throws IOException as {@link #write(ByteBuffer)}
     */
    public long write(MemorySegment segment) throws IOException {
        ensureOpen();
        requireNative(segment);
        if (segment.byteSize() == 0) {
            return 0;
        }
        long n = sendAt(segment.address(), segment.byteSize());
        Reference.reachabilityFence(segment);
        return n;
    }

    /**
     * Writes what the socket takes from {@code srcs[offset]} to {@code srcs[offset + length - 1]}, in
     * order: where the buffers are direct, up to {@value #MAX_GATHER} of them in one {@code sendmsg(2)}
     * call; where one is a heap buffer, the direct ones before it, or that buffer alone through
     * {@link #write(ByteBuffer)}. Positions advance by what was written.
     *
     * @param srcs the buffers
     * @param offset the first buffer
     * @param length how many buffers
     * @return the number of bytes written; 0 if none remain or, in non-blocking mode, the send buffer is full
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} are outside {@code srcs}
     * @throws ClosedChannelException if the socket is closed
     * @throws NativeIoException if {@code sendmsg} fails
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, srcs.length);
        ensureOpen();
        Gather gather = gather();
        int count = 0;
        long total = 0;
        for (int i = offset; i < offset + length && count < MAX_GATHER; i++) {
            ByteBuffer src = srcs[i];
            if (!src.hasRemaining()) {
                continue;
            }
            if (!src.isDirect()) {
                if (count == 0) {
                    return write(src);
                }
                break;
            }
            gather.iov.setAtIndex(ValueLayout.JAVA_LONG, 2L * count, gather.address(count, src) + src.position());
            gather.iov.setAtIndex(ValueLayout.JAVA_LONG, 2L * count + 1, src.remaining());
            count++;
            total += src.remaining();
        }
        if (count == 0) {
            return 0;
        }
        gather.message.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, count);
        long n = FdCalls.sendmsg(out.capture, fd, gather.message, MSG_NOSIGNAL);
        Reference.reachabilityFence(srcs);
        if (n < 0) {
            if (n == -EAGAIN) {
                return 0;
            }
            throw failure("sendmsg", (int) -n);
        }
        long left = n;
        for (int i = offset; i < offset + length && left > 0; i++) {
            ByteBuffer src = srcs[i];
            int step = (int) Math.min(left, src.remaining());
            src.position(src.position() + step);
            left -= step;
        }
        return n;
    }

    /**
     * Writes what the socket takes from every buffer of {@code srcs}, in order; see
     * {@link #write(ByteBuffer[], int, int)}.
     *
     * @param srcs the buffers
     * @return the number of bytes written
     * @throws IOException as {@link #write(ByteBuffer[], int, int)}
     */
    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    private Gather gather() {
        if (gather == null) {
            gather = new Gather();
        }
        return gather;
    }

    /**
     * Shuts the reading side down ({@code shutdown(SHUT_RD)}): a read blocked in another thread returns
     * end of stream.
     *
     * @throws IOException if {@code shutdown} fails or the socket is closed
     */
    public void shutdownInput() throws IOException {
        ensureOpen();
        Sys.shutdown(fd, SHUT_RD);
    }

    /**
     * Shuts the writing side down ({@code shutdown(SHUT_WR)}): the peer reads end of stream once it has
     * read what was sent.
     *
     * @throws IOException if {@code shutdown} fails or the socket is closed
     */
    @Override
    public void shutdownOutput() throws IOException {
        ensureOpen();
        Sys.shutdown(fd, SHUT_WR);
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /**
     * Closes the descriptor; later calls throw {@link ClosedChannelException}. Closing twice does
     * nothing.
     *
     * @throws NativeIoException if {@code close} fails
     */
    @Override
    public void close() throws IOException {
        if (!open) {
            return;
        }
        open = false;
        Sys.close(fd);
    }

    /**
     * Closes at once: for TCP with {@code SO_LINGER} 0 first, so that unsent bytes are dropped and the
     * peer gets a reset; failures are ignored, the descriptor is released regardless. For a
     * {@link EpollTransport} loop.
     */
    @Override
    public void reset() {
        if (!open) {
            return;
        }
        try {
            if (inet) {
                setLinger(0);
            }
        } catch (IOException ignored) {
            // a socket that refuses the option is broken already: closing it is all that is left
        }
        open = false;
        Sys.closeQuietly(fd);
    }

    @Override
    public String toString() {
        return "NativeSocket[fd=" + fd + " remote=" + describe(remote) + (open ? "" : " closed")
                + (blocking ? "" : " non-blocking") + "]";
    }

    static String describe(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && !inet.isUnresolved()) {
            String host = inet.getAddress().getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }

    private long readAt(long address, long length) throws IOException {
        return readResult(in.receive(fd, address, length));
    }

    /** {@return a {@code recv(2)} result as a channel says it}: -1 at end of stream, 0 for {@code EAGAIN} */
    private long readResult(long n) throws IOException {
        if (n >= 0) {
            return n == 0 ? -1 : n; // 0 bytes for a non-empty buffer: the peer closed its side
        }
        if (n == -EAGAIN) {
            return 0;
        }
        throw failure("recv", (int) -n);
    }

    private long sendAt(long address, long length) throws IOException {
        long n = FdCalls.send(out.capture, fd, address, length, MSG_NOSIGNAL);
        if (n >= 0) {
            return n;
        }
        if (n == -EAGAIN) {
            return 0;
        }
        throw failure("send", (int) -n);
    }

    private int writeThroughCopy(ByteBuffer src, int remaining) throws IOException {
        ByteBuffer copy = out.copyBuffer();
        int length = Math.min(remaining, copy.capacity());
        int position = src.position();
        copy.clear().put(0, src, position, length);
        long n = sendAt(out.address(copy), length);
        if (n > 0) {
            src.position(position + (int) n);
        }
        return (int) n;
    }

    private IOException failure(String call, int errno) {
        if (errno == EBADF && !open) {
            return new ClosedChannelException();
        }
        return new NativeIoException(call, errno, "fd=" + fd + " remote=" + describe(remote));
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }

    private static void requireNative(MemorySegment segment) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("a heap segment cannot be passed to a system call: " + segment);
        }
    }

    /**
     * A gathering write's native state: a zeroed {@code msghdr} whose {@code msg_iov} points at
     * {@link #MAX_GATHER} {@code iovec}s, and the address of each slot's last buffer, looked up once
     * per buffer.
     */
    private static final class Gather {
        final MemorySegment message;
        final MemorySegment iov;
        private final ByteBuffer[] buffers = new ByteBuffer[MAX_GATHER];
        private final long[] bases = new long[MAX_GATHER];

        Gather() {
            Arena arena = Arena.ofAuto();
            message = arena.allocate(MSGHDR_SIZE, Long.BYTES);
            iov = arena.allocate(16L * MAX_GATHER, Long.BYTES);
            message.set(ValueLayout.ADDRESS, MSG_IOV, iov);
        }

        long address(int slot, ByteBuffer direct) {
            if (buffers[slot] != direct) {
                bases[slot] = MemorySegment.ofBuffer(direct.duplicate().clear()).address();
                buffers[slot] = direct;
            }
            return bases[slot];
        }
    }
}
