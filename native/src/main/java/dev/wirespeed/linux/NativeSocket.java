package dev.wirespeed.linux;

import dev.wirespeed.linux.internal.net.FdPassing;
import dev.wirespeed.linux.internal.net.SocketFd;
import dev.wirespeed.linux.internal.sys.LibC;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * <h2>Memory files</h2>
 * Over a Unix socket, {@link #sendMemoryFile} hands a {@link MemoryFile} to the peer (the home of a
 * shared ring with no name: the peer maps the same memory), and {@link #receiveMemoryFile} takes one.
 * Each is one byte on the stream, which carries the descriptor ({@code SCM_RIGHTS}); the receiver
 * refuses anything else a peer could send in its place: a byte with no descriptor or more than one, a
 * file that is not a memory file, or one whose size is not sealed. Bytes written with the other calls
 * and memory files are one stream: the receiver takes a memory file where the sender sent one.
 *
 * <h2>Closing</h2>
 * {@link #close()} closes the descriptor once; any later call throws {@link ClosedChannelException}.
 *
 * <h2>Thread safety</h2>
 * One thread may read while another writes (each direction has its own {@code errno} capture and
 * copy buffer). Two threads must not read (or write) at once: {@link #receiveMemoryFile} is a read and
 * {@link #sendMemoryFile} a write. {@code close()} and
 * {@code configureBlocking} must not race with a read or write in another thread: a descriptor number
 * closed under a blocked call may be re-used by the kernel for another file. Release a blocked reader
 * with {@link #shutdownInput()} first.
 *
 * <p>Linux only: elsewhere every factory throws {@link UnsupportedOperationException}.
 */
public final class NativeSocket implements ByteChannel, GatheringByteChannel {
    /** The most buffers one gathering write passes to the kernel; the rest wait for the next call. */
    public static final int MAX_GATHER = SocketFd.MAX_GATHER;

    private final SocketFd socket;

    NativeSocket(SocketFd socket) {
        this.socket = socket;
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
        return new NativeSocket(SocketFd.connect(address));
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
        return socket.fd();
    }

    /** {@return the address this socket is connected to, or null where the kernel did not say (accepted Unix sockets)} */
    public SocketAddress remoteAddress() {
        return socket.remoteAddress();
    }

    /** {@return whether calls wait in the kernel (true) or return 0 instead of waiting (false)} */
    public boolean isBlocking() {
        return socket.isBlocking();
    }

    /**
     * Switches between blocking and non-blocking mode ({@code O_NONBLOCK}).
     *
     * @param block true to wait in the kernel, false to return 0 where a call would wait
     * @return this socket
     * @throws IOException if {@code fcntl} fails, or the socket is closed
     */
    public NativeSocket configureBlocking(boolean block) throws IOException {
        socket.configureBlocking(block);
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
        socket.setTcpNoDelay(noDelay);
        return this;
    }

    /**
     * {@return whether Nagle's algorithm is off}
     *
     * @throws IOException if {@code getsockopt} fails, the socket is closed, or it is not TCP
     */
    public boolean getTcpNoDelay() throws IOException {
        return socket.getTcpNoDelay();
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
        socket.setLinger(seconds);
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
        return socket.read(dst);
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
        return socket.write(src);
    }

    /**
     * Reads into native memory: one {@code recv(2)} call for up to {@code segment.byteSize()} bytes.
     *
     * @param segment native memory (not a heap segment)
     * @return bytes read, 0 as for {@link #read(ByteBuffer)}, or -1 at end of stream
     * @throws IllegalArgumentException if {@code segment} is a heap segment
     * @throws IOException as {@link #read(ByteBuffer)}
     */
    public long read(MemorySegment segment) throws IOException {
        return socket.read(segment);
    }

    /**
     * Writes from native memory: one {@code send(2)} call for up to {@code segment.byteSize()} bytes.
     *
     * @param segment native memory (not a heap segment)
     * @return bytes written, or 0 as for {@link #write(ByteBuffer)}
     * @throws IllegalArgumentException if {@code segment} is a heap segment
     * @throws IOException as {@link #write(ByteBuffer)}
     */
    public long write(MemorySegment segment) throws IOException {
        return socket.write(segment);
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
        return socket.write(srcs, offset, length);
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
        return socket.write(srcs, 0, srcs.length);
    }

    /**
     * Hands {@code file} to the peer of this Unix socket: one byte (0) with the file's descriptor ({@code
     * sendmsg(2)} with {@code SCM_RIGHTS} and {@code MSG_NOSIGNAL}). The peer then holds the file as this
     * process does; this one keeps its own descriptor, which it may close at once.
     *
     * @param file a memory file whose size is sealed ({@link MemoryFile#sealSize()}), as the receiver requires
     * @return true if sent; false only in non-blocking mode, where the socket's send buffer is full
     * @throws IllegalStateException if {@code file}'s size is not sealed, naming it
     * @throws ClosedChannelException if this socket or {@code file} is closed
     * @throws IOException if this is a TCP socket, which would send the byte and drop the descriptor,
     *     naming it
     * @throws NativeIoException if {@code sendmsg} fails: {@code EPIPE} once the peer closed
     */
    public boolean sendMemoryFile(MemoryFile file) throws IOException {
        ensureOpen();
        requireUnix("sendMemoryFile");
        if (!file.isSizeSealed()) {
            throw new IllegalStateException("a memory file is handed over with its size sealed, so that the peer "
                    + "may map it: " + file + " is not; call sealSize() first");
        }
        return FdPassing.send(socket, file.fd());
    }

    /**
     * Takes the memory file the peer sent with {@link #sendMemoryFile}: one byte and the descriptor that
     * came with it ({@code recvmsg(2)} with {@code MSG_CMSG_CLOEXEC}, so that it is close-on-exec from the
     * start), checked to be a memory file whose size is sealed ({@code fcntl(F_GET_SEALS)} has {@code
     * F_SEAL_SHRINK} and {@code F_SEAL_GROW}): its size cannot change under a mapping of it. What it holds is
     * not checked here: {@code SharedRing.open(file.channel())} checks its size against the ring's header, its
     * magic and the rest. The caller owns the file and closes it.
     *
     * @return the file; or null only in non-blocking mode, where nothing has come
     * @throws java.io.EOFException if the peer closed the socket before sending a byte
     * @throws IOException refusing what came instead of one memory file with its size sealed, naming it: a
     *     byte with no descriptor; with more than one; with its control data cut short (more descriptors
     *     than the buffer takes, {@code MSG_CTRUNC}) or of another kind; a descriptor of a file that is not a
     *     memory file (it takes no seals), or whose size is not sealed. Every descriptor that came is closed
     *     before the exception is thrown. Also if this is a TCP socket, which carries no descriptors.
     * @throws ClosedChannelException if this socket is closed
     * @throws NativeIoException if {@code recvmsg} fails
     */
    public MemoryFile receiveMemoryFile() throws IOException {
        ensureOpen();
        requireUnix("receiveMemoryFile");
        int fd = FdPassing.receive(socket);
        return fd < 0 ? null : MemoryFile.received(fd);
    }

    /**
     * Shuts the reading side down ({@code shutdown(SHUT_RD)}): a read blocked in another thread returns
     * end of stream.
     *
     * @throws IOException if {@code shutdown} fails or the socket is closed
     */
    public void shutdownInput() throws IOException {
        socket.shutdownInput();
    }

    /**
     * Shuts the writing side down ({@code shutdown(SHUT_WR)}): the peer reads end of stream once it has
     * read what was sent.
     *
     * @throws IOException if {@code shutdown} fails or the socket is closed
     */
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    /**
     * Closes the descriptor; later calls throw {@link ClosedChannelException}. Closing twice does
     * nothing.
     *
     * @throws NativeIoException if {@code close} fails
     */
    @Override
    public void close() throws IOException {
        socket.close();
    }

    @Override
    public String toString() {
        return "NativeSocket[" + socket + "]";
    }

    private void requireUnix(String call) throws IOException {
        if (socket.inet()) {
            throw new IOException(call + " needs a Unix socket, which carries descriptors; " + socket.describe()
                    + " is TCP");
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!socket.isOpen()) {
            throw new ClosedChannelException();
        }
    }
}
