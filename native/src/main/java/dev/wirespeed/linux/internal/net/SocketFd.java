package dev.wirespeed.linux.internal.net;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.FdCalls;
import dev.wirespeed.linux.internal.sys.FdDirection;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import dev.wirespeed.loop.internal.SegmentIo;
import dev.wirespeed.loop.spi.Endpoint;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Objects;

/**
 * A connected stream socket's descriptor and the calls on it: what {@code NativeSocket} offers its
 * users, and the {@code epoll} loop's endpoint, which the loop reads and writes by the address of its
 * own buffers ({@link SegmentIo}). The contract of each call is {@code NativeSocket}'s; as an
 * endpoint, the loop puts it in non-blocking mode, or connects it so ({@link #connectForLoop},
 * {@link #finishConnect()}).
 *
 * <p>Thread safety: one reader and one writer at a time (each direction has its own errno capture and
 * copy buffer); {@link #close()} must not race with a call in another thread.
 */
public final class SocketFd implements Endpoint, SegmentIo {
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
    /**
     * The directions' errno captures, kept here so that a call reads them from this object, whose fields
     * it reads anyway, not from the direction's: null where {@link LibC#STUB_CALLS}, and then not read.
     */
    private final MemorySegment inCapture = in.capture;
    private final MemorySegment outCapture = out.capture;
    /** The native {@code msghdr} and {@code iovec}s of gathering writes, made on the first one. */
    private Gather gather;
    private volatile boolean open = true;
    /**
     * Blocking mode: {@code recv}, {@code send} and {@code sendmsg} through {@code FdCalls}' calls that may
     * wait; else through its {@code ...NonBlocking} ones, which pass {@code MSG_DONTWAIT} and are critical.
     */
    private boolean blocking = true;
    /** A connect under way, begun by {@link #connectForLoop}; false once it has ended well, and for other sockets. */
    private boolean connecting;
    /** The errno the connect failed with, kept for every later {@link #finishConnect()}; 0 while it has not. */
    private int connectErrno;

    /**
     * Owns {@code fd} from now on.
     *
     * @param fd a connected stream socket, blocking
     * @param remote its peer, or null where the kernel did not say
     * @param inet true for TCP, false for a Unix socket
     */
    public SocketFd(int fd, SocketAddress remote, boolean inet) {
        this(fd, remote, inet, true);
    }

    /** As above, for a socket whose descriptor is blocking or not as {@code blocking} says. */
    SocketFd(int fd, SocketAddress remote, boolean inet, boolean blocking) {
        this.fd = fd;
        this.remote = remote;
        this.inet = inet;
        if (!blocking) {
            mode(false);
        }
    }

    /** Connects a blocking socket to {@code address}: {@code NativeSocket.connect}'s contract. */
    public static SocketFd connect(SocketAddress given) throws IOException {
        LibC.checkSupported();
        SocketAddress address = SocketAddresses.resolved(given); // a host name looked up once
        int family = SocketAddresses.family(address);
        int fd = Sys.check(Sys.socket(family), "socket", "family=" + family);
        boolean connected = false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sockaddr = SocketAddresses.encode(address, arena);
            MemorySegment capture = Syscalls.capture(arena);
            while (true) {
                long rc = Syscalls.call(capture, SyscallNumbers.CONNECT, fd, sockaddr.address(), sockaddr.byteSize(),
                        0, 0, 0);
                if (rc == 0) {
                    break;
                }
                int errno = (int) -rc;
                if (errno != Errno.EINTR) {
                    throw new NativeIoException("connect", errno, "fd=" + fd + " address="
                            + SocketAddresses.describe(address));
                }
            }
            connected = true;
            return new SocketFd(fd, address, family != SocketAddresses.AF_UNIX);
        } finally {
            if (!connected) {
                Sys.closeQuietly(fd);
            }
        }
    }

    /**
     * Opens a stream socket for {@code address}'s family, not yet connected, with {@code TCP_NODELAY} over TCP:
     * for a transport that connects it by other means (io_uring's {@code IORING_OP_CONNECT}), or for
     * {@link #connectForLoop}. Its {@link #remoteAddress()} is {@code address} from the start.
     *
     * @param address an {@code InetSocketAddress}, resolved, or a {@code UnixDomainSocketAddress}
     * @param nonBlocking true for {@code SOCK_NONBLOCK}
     * @throws NativeIoException if {@code socket} or {@code setsockopt} fails, naming the address
     */
    public static SocketFd open(SocketAddress address, boolean nonBlocking) throws IOException {
        LibC.checkSupported();
        int family = SocketAddresses.family(address);
        try (Arena arena = Arena.ofConfined()) {
            int fd = openDescriptor(address, family, nonBlocking, arena);
            return new SocketFd(fd, address, family != SocketAddresses.AF_UNIX, !nonBlocking);
        }
    }

    /**
     * Begins connecting a non-blocking socket to {@code address}, for an event loop: {@code TCP_NODELAY} set
     * over TCP, connected at once (as a Unix socket usually is) or with the connect under way, which
     * {@link #finishConnect()} ends once the socket is writable.
     *
     * @param address an {@code InetSocketAddress}, resolved, or a {@code UnixDomainSocketAddress}
     * @return the socket, non-blocking
     * @throws NativeIoException if no socket can be made, or the connect fails at once ({@code ENOENT} for a
     *     Unix socket's path that does not exist, {@code ECONNREFUSED} where nothing listens on it), naming
     *     the address
     */
    public static SocketFd connectForLoop(SocketAddress address) throws IOException {
        LibC.checkSupported();
        int family = SocketAddresses.family(address);
        try (Arena arena = Arena.ofConfined()) {
            int fd = openDescriptor(address, family, true, arena);
            boolean connecting;
            try {
                MemorySegment sockaddr = SocketAddresses.encode(address, arena);
                long rc = Syscalls.call(Syscalls.capture(arena), SyscallNumbers.CONNECT, fd, sockaddr.address(),
                        sockaddr.byteSize(), 0, 0, 0);
                connecting = rc != 0;
                // After EINTR a non-blocking connect goes on, as after EINPROGRESS: repeating it would say EALREADY.
                if (connecting && rc != -Errno.EINPROGRESS && rc != -Errno.EINTR) {
                    throw new NativeIoException("connect", (int) -rc, "fd=" + fd + " remote="
                            + SocketAddresses.describe(address));
                }
            } catch (IOException | RuntimeException e) {
                Sys.closeQuietly(fd);
                throw e;
            }
            // Made after the calls, so that what they leave behind does not lie between the socket and the
            // loop's connection object, made next: a turn reads both.
            SocketFd socket = new SocketFd(fd, address, family != SocketAddresses.AF_UNIX, false);
            socket.connecting = connecting;
            return socket;
        }
    }

    /**
     * {@return a stream socket's descriptor for {@code address}, of its {@code family}, {@code
     * SOCK_NONBLOCK} if {@code nonBlocking}, with {@code TCP_NODELAY} over TCP}, what the calls point
     * the kernel at taken from {@code arena}
     *
     * @throws NativeIoException if {@code socket} or {@code setsockopt} fails, naming the address
     */
    private static int openDescriptor(SocketAddress address, int family, boolean nonBlocking, Arena arena)
            throws IOException {
        Sys.Result opened = Sys.socket(family, nonBlocking ? Flags.SOCK_NONBLOCK : 0);
        if (opened.rc() < 0) {
            throw new NativeIoException("socket", opened.errno(), "family=" + family + " address="
                    + SocketAddresses.describe(address));
        }
        int fd = opened.rc();
        if (family != SocketAddresses.AF_UNIX) {
            try {
                Sys.setIntOption(fd, Flags.IPPROTO_TCP, Flags.TCP_NODELAY, 1, "TCP_NODELAY",
                        arena.allocate(ValueLayout.JAVA_INT));
            } catch (IOException | RuntimeException e) {
                Sys.closeQuietly(fd);
                throw e;
            }
        }
        return fd;
    }

    /**
     * Ends a connect that {@link #connectForLoop} began, once the socket was reported writable (or failed):
     * the socket's pending error ({@code SO_ERROR}), else whether it has a peer yet.
     *
     * @return true if connected (always, for an accepted socket); false if the connect goes on
     * @throws NativeIoException the connect's failure ({@code ECONNREFUSED}, {@code ETIMEDOUT}, ...), naming
     *     the address, at this and every later call
     * @throws ClosedChannelException if the socket is closed
     */
    @Override
    public boolean finishConnect() throws IOException {
        if (!connecting) {
            return true;
        }
        ensureOpen();
        if (connectErrno == 0) {
            connectErrno = Sys.getIntOption(fd, Flags.SOL_SOCKET, Flags.SO_ERROR, "SO_ERROR"); // read, it is cleared
        }
        if (connectErrno != 0) {
            throw new NativeIoException("connect", connectErrno, describe());
        }
        if (!Sys.hasPeer(fd)) {
            return false; // not the connect's end; a failure that came after SO_ERROR was read shows next time
        }
        connecting = false;
        return true;
    }

    public int fd() {
        return fd;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    /** {@return true for TCP, false for a Unix socket} */
    public boolean inet() {
        return inet;
    }

    public boolean isBlocking() {
        return blocking;
    }

    public void configureBlocking(boolean block) throws IOException {
        ensureOpen();
        Sys.setBlocking(fd, block);
        mode(block);
    }

    private void mode(boolean block) {
        blocking = block;
        in.noWait(!block);
    }

    public void setTcpNoDelay(boolean noDelay) throws IOException {
        ensureOpen();
        requireTcp();
        Sys.setIntOption(fd, Flags.IPPROTO_TCP, Flags.TCP_NODELAY, noDelay ? 1 : 0, "TCP_NODELAY");
    }

    public boolean getTcpNoDelay() throws IOException {
        ensureOpen();
        requireTcp();
        return Sys.getIntOption(fd, Flags.IPPROTO_TCP, Flags.TCP_NODELAY, "TCP_NODELAY") != 0;
    }

    private void requireTcp() throws IOException {
        if (!inet) {
            throw new IOException("TCP_NODELAY needs a TCP socket; fd=" + fd + " remote="
                    + SocketAddresses.describe(remote));
        }
    }

    public void setLinger(int seconds) throws IOException {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment linger = arena.allocate(8); // struct linger { int l_onoff; int l_linger; }
            linger.set(ValueLayout.JAVA_INT, 0, seconds >= 0 ? 1 : 0);
            linger.set(ValueLayout.JAVA_INT, 4, Math.max(0, seconds));
            Sys.setOption(fd, Flags.SOL_SOCKET, Flags.SO_LINGER, linger, "SO_LINGER", arena);
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read-only buffer: " + dst);
        }
        int position = dst.position();
        int remaining = dst.limit() - position;
        if (remaining == 0) {
            return 0;
        }
        if (!dst.isDirect()) {
            return (int) readResult(in.read(fd, dst));
        }
        // FdCalls straight from here, as in read(ByteBuffer, MemorySegment): a caller's loop that inlines
        // its reader, this socket and the down-call whole lets the JIT remove the linker's per-call segment.
        long at = in.address(dst) + position;
        long n = readResult(blocking ? FdCalls.recv(inCapture, fd, at, remaining, 0)
                : FdCalls.recvNonBlocking(inCapture, fd, at, remaining, 0));
        Reference.reachabilityFence(dst);
        if (n > 0) {
            dst.position(position + (int) n);
        }
        return (int) n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        ensureOpen();
        if (!src.hasRemaining()) {
            return 0;
        }
        if (!src.isDirect()) {
            return writeThroughCopy(src, src.remaining());
        }
        int position = src.position();
        long at = out.address(src) + position;
        int length = src.limit() - position;
        long n = sendResult(blocking ? FdCalls.send(outCapture, fd, at, length, Flags.MSG_NOSIGNAL)
                : FdCalls.sendNonBlocking(outCapture, fd, at, length, Flags.MSG_NOSIGNAL)); // as in read(ByteBuffer)
        Reference.reachabilityFence(src);
        if (n > 0) {
            src.position(position + (int) n);
        }
        return (int) n;
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
        // FdCalls straight from here: the loop's turn inlines this whole path, down-call included, which
        // lets the JIT remove the segment the linker slices from the errno capture per call.
        long at = memory.address() + position;
        int length = dst.limit() - position;
        long n = readResult(blocking ? FdCalls.recv(inCapture, fd, at, length, 0)
                : FdCalls.recvNonBlocking(inCapture, fd, at, length, 0));
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
        int position = src.position();
        long at = memory.address() + position;
        int length = src.limit() - position;
        long n = sendResult(blocking ? FdCalls.send(outCapture, fd, at, length, Flags.MSG_NOSIGNAL)
                : FdCalls.sendNonBlocking(outCapture, fd, at, length, Flags.MSG_NOSIGNAL));
        Reference.reachabilityFence(memory);
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

    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        ensureOpen();
        Gather gather = gather();
        int count = 0;
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
        }
        if (count == 0) {
            return 0;
        }
        gather.message.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, count);
        long n = blocking ? FdCalls.sendmsg(outCapture, fd, gather.message, Flags.MSG_NOSIGNAL)
                : FdCalls.sendmsgNonBlocking(outCapture, fd, gather.message, Flags.MSG_NOSIGNAL);
        Reference.reachabilityFence(srcs);
        if (n < 0) {
            if (n == -Errno.EAGAIN) {
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

    private Gather gather() {
        if (gather == null) {
            gather = new Gather();
        }
        return gather;
    }

    public void shutdownInput() throws IOException {
        ensureOpen();
        Sys.shutdown(fd, Flags.SHUT_RD);
    }

    @Override
    public void shutdownOutput() throws IOException {
        ensureOpen();
        Sys.shutdown(fd, Flags.SHUT_WR);
    }

    @Override
    public boolean isOpen() {
        return open;
    }

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
     * peer gets a reset; failures are ignored, the descriptor is released regardless.
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

    /** {@return the descriptor and the peer, for messages: {@code "fd=7 remote=127.0.0.1:40000"}} */
    public String describe() {
        return "fd=" + fd + " remote=" + SocketAddresses.describe(remote);
    }

    @Override
    public String toString() {
        return describe() + (open ? "" : " closed") + (blocking ? "" : " non-blocking")
                + (connecting ? " connecting" : "");
    }

    private long readAt(long address, long length) throws IOException {
        return readResult(in.receive(fd, address, length));
    }

    /** {@return a {@code recv(2)} result as a channel says it}: -1 at end of stream, 0 for {@code EAGAIN} */
    private long readResult(long n) throws IOException {
        if (n >= 0) {
            return n == 0 ? -1 : n; // 0 bytes for a non-empty buffer: the peer closed its side
        }
        if (n == -Errno.EAGAIN) {
            return 0;
        }
        throw failure("recv", (int) -n);
    }

    private long sendAt(long address, long length) throws IOException {
        return sendResult(blocking ? FdCalls.send(outCapture, fd, address, length, Flags.MSG_NOSIGNAL)
                : FdCalls.sendNonBlocking(outCapture, fd, address, length, Flags.MSG_NOSIGNAL));
    }

    /** {@return a {@code send(2)} result as a channel says it}: 0 for {@code EAGAIN} */
    private long sendResult(long n) throws IOException {
        if (n >= 0) {
            return n;
        }
        if (n == -Errno.EAGAIN) {
            return 0;
        }
        throw failure("send", (int) -n);
    }

    private int writeThroughCopy(ByteBuffer src, int remaining) throws IOException {
        ByteBuffer copy = out.threadCopyBuffer();
        int length = Math.min(remaining, copy.capacity());
        int position = src.position();
        copy.clear().put(0, src, position, length);
        long n = sendAt(out.threadCopyAddress(copy), length);
        if (n > 0) {
            src.position(position + (int) n);
        }
        return (int) n;
    }

    private IOException failure(String call, int errno) {
        if (errno == Errno.EBADF && !open) {
            return new ClosedChannelException();
        }
        return new NativeIoException(call, errno, describe());
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
