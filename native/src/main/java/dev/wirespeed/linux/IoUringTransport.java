package dev.wirespeed.linux;

import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.net.SocketAddress;

/**
 * The io_uring transport of {@link dev.wirespeed.loop.FrameServer}: each loop reads and writes its
 * connections through an {@link IoUring} of its own, all through FFM, with one {@code io_uring_enter}
 * per turn in place of {@code epoll_wait} and a {@code recv(2)} and a {@code send(2)} per connection:
 *
 * <pre>{@code
 * FrameServer.builder(handler).bind(address).transport(IoUringTransport.create()).start();
 * }</pre>
 *
 * <h2>Receiving</h2>
 * Each connection has one multishot receive in flight into the loop's {@link IoUringBufferRing},
 * shared by all the loop's connections, so that memory does not grow with their number. Bytes wait
 * in their buffers until the loop reads the connection: it parses the frames where they lie (the
 * connections are {@link dev.wirespeed.loop.spi.LendingEndpoint}s), hands each body to the handler as
 * a view of the buffer, copies only a frame that continues into the next buffer, and gives each buffer
 * back once its frames are handled. A connection holds at most {@link #maxHeldBuffers()} buffers; past that, or while
 * the loop does not want to read it (its output over the server's limit), its receive is cancelled, so
 * that the socket's own buffer and TCP's flow control hold the peer back. When every buffer is taken
 * a receive ends with {@code ENOBUFS}, and is armed again once a buffer comes back: backpressure, not
 * an error.
 *
 * <h2>Sending</h2>
 * A write copies into a send buffer of the connection's, taken from the loop's pool while it has bytes
 * to send and given back when they are sent, and prepares one {@code SEND}; the sends prepared in a
 * turn reach the kernel together in the loop's next {@code io_uring_enter}. A connection has one send
 * in flight; what a short send left is sent next. A write takes nothing while the send buffer is full,
 * and the connection is ready for writing when a send completes.
 *
 * <h2>Closing</h2>
 * A graceful close sends what the send buffer holds, then closes the descriptor; a reset drops it and
 * closes with {@code SO_LINGER} 0. Either way the connection's operations are cancelled, and the kernel
 * releases the socket when the last of them completes, within the loop's next turn.
 *
 * <h2>Waiting</h2>
 * A loop waits in {@code io_uring_enter}, which submits the turn's sends and receives in the same call
 * (or, when the loop busy-polls, does not wait); another thread wakes it through an {@code eventfd}
 * the ring polls. Listening sockets are polled through the ring and accepted with {@code accept4(2)}.
 * Each ring is opened on its loop's thread, with {@code SINGLE_ISSUER} and {@code DEFER_TASKRUN} where
 * the kernel accepts them, so that completion work runs only when the loop asks for completions (else
 * with {@code COOP_TASKRUN} and {@code TASKRUN_FLAG}, where the kernel flags the work for the loop).
 * Accepted sockets stay in blocking mode, as io_uring waits for a blocking socket's readiness itself
 * and returns {@code EAGAIN} for a non-blocking one.
 *
 * <p>Needs Linux 6.0 (multishot receive, buffer rings). {@link #create()} checks what it can ask the
 * kernel and says what is missing, so that a caller can fall back to {@link EpollTransport}.
 *
 * <p>Thread safety: immutable; safe from any thread. Its pollers and connections are confined to their
 * loop, but for {@link Poller#wakeup()}.
 */
public final class IoUringTransport implements LoopTransport {
    static final int DEFAULT_BUFFER_COUNT = 512;
    static final int DEFAULT_BUFFER_SIZE = 8192;
    static final int DEFAULT_SEND_BUFFER_SIZE = 65_536;
    /** Room for a turn's sends, re-armed receives and cancellations of several hundred connections before a submit. */
    static final int DEFAULT_SQ_ENTRIES = 1024;
    static final int DEFAULT_CQ_ENTRIES = 8192;

    private final int bufferCount;
    private final int bufferSize;
    private final int sendBufferSize;
    private final int sqEntries;
    private final int cqEntries;

    private IoUringTransport(int bufferCount, int bufferSize, int sendBufferSize, int sqEntries, int cqEntries) {
        this.bufferCount = bufferCount;
        this.bufferSize = bufferSize;
        this.sendBufferSize = sendBufferSize;
        this.sqEntries = sqEntries;
        this.cqEntries = cqEntries;
    }

    /**
     * {@return the transport, with {@value #DEFAULT_BUFFER_COUNT} receive buffers of
     * {@value #DEFAULT_BUFFER_SIZE} bytes per loop and send buffers of {@value #DEFAULT_SEND_BUFFER_SIZE} bytes}
     *
     * @throws UnsupportedOperationException off Linux, where io_uring is unavailable or disabled, or
     *     where the kernel lacks an operation the transport needs, saying which
     */
    public static IoUringTransport create() {
        return create(IoUringSupport.kernel());
    }

    /** As {@link #create()}, judged by {@code support} (a probe masked by a test, say). */
    static IoUringTransport create(IoUringSupport support) {
        LibC.checkSupported();
        support.require(IoUring.Op.RECV, IoUring.Op.SEND, IoUring.Op.POLL_ADD, IoUring.Op.ASYNC_CANCEL);
        return new IoUringTransport(DEFAULT_BUFFER_COUNT, DEFAULT_BUFFER_SIZE, DEFAULT_SEND_BUFFER_SIZE,
                DEFAULT_SQ_ENTRIES, DEFAULT_CQ_ENTRIES);
    }

    /**
     * {@return a transport like this one whose loops each receive into {@code count} buffers of {@code size} bytes}
     *
     * @param count a power of two, 2 to 32,768
     * @param size a buffer's bytes, 64 to 1 MiB
     */
    public IoUringTransport receiveBuffers(int count, int size) {
        if (count < 2 || count > 32_768 || Integer.bitCount(count) != 1) {
            throw new IllegalArgumentException("count=" + count + " must be a power of two from 2 to 32768");
        }
        if (size < 64 || size > 1 << 20) {
            throw new IllegalArgumentException("size=" + size + " must be 64 to 1048576");
        }
        return new IoUringTransport(count, size, sendBufferSize, sqEntries, cqEntries);
    }

    /**
     * {@return a transport like this one whose connections send from buffers of {@code size} bytes}
     * What a connection's send buffer holds when the server closes it after a protocol error is all
     * of its output that is sent, as with a socket's own send buffer, which is at least as large.
     *
     * @param size 4 KiB to 64 MiB
     */
    public IoUringTransport sendBuffer(int size) {
        if (size < 4096 || size > 1 << 26) {
            throw new IllegalArgumentException("size=" + size + " must be 4096 to 67108864");
        }
        return new IoUringTransport(bufferCount, bufferSize, size, sqEntries, cqEntries);
    }

    /** {@return a transport like this one whose rings have these queue sizes}: small ones, for tests of full queues */
    IoUringTransport rings(int sqEntries, int cqEntries) {
        return new IoUringTransport(bufferCount, bufferSize, sendBufferSize, sqEntries, cqEntries);
    }

    /** {@return the receive buffers of each loop} */
    public int receiveBufferCount() {
        return bufferCount;
    }

    /** {@return the bytes of each receive buffer} */
    public int receiveBufferSize() {
        return bufferSize;
    }

    /** {@return the bytes of a connection's send buffer} */
    public int sendBufferSize() {
        return sendBufferSize;
    }

    /** {@return the receive buffers one connection holds at most before its receive is cancelled}: a sixteenth, at least 2 */
    public int maxHeldBuffers() {
        return Math.max(2, bufferCount / 16);
    }

    @Override
    public String name() {
        return "io_uring";
    }

    @Override
    public Poller openPoller() throws IOException {
        return new UringPoller(bufferCount, bufferSize, maxHeldBuffers(), sendBufferSize, sqEntries, cqEntries);
    }

    @Override
    public Listener listen(SocketAddress address, int backlog) throws IOException {
        return new UringListener(NativeServerSocket.bindNonBlocking(address, backlog));
    }

    @Override
    public String toString() {
        return "io_uring[receive " + bufferCount + " x " + bufferSize + " B, send " + sendBufferSize + " B]";
    }

    /** A listening socket polled through the ring; its connections come out blocking, with {@code TCP_NODELAY} over TCP. */
    record UringListener(NativeServerSocket socket) implements Listener {
        @Override
        public SocketAddress localAddress() {
            return socket.localAddress();
        }

        @Override
        public Endpoint accept() throws IOException {
            NativeSocket accepted = socket.acceptForLoop();
            return accepted == null ? null : new UringEndpoint(accepted);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
