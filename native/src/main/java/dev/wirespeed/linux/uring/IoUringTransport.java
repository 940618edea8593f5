package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.internal.net.ListenFd;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.uring.UringConnector;
import dev.wirespeed.linux.internal.uring.UringListener;
import dev.wirespeed.linux.internal.uring.UringPoller;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The io_uring transport of {@link dev.wirespeed.loop.FrameServer}: each loop reads and writes its
 * connections through an io_uring of its own, all through FFM, with one {@code io_uring_enter}
 * per turn in place of {@code epoll_wait} and a {@code recv(2)} and a {@code send(2)} per connection:
 *
 * <pre>{@code
 * FrameServer.builder(handler).bind(address).transport(IoUringTransport.create()).start();
 * }</pre>
 *
 * <h2>Receiving</h2>
 * Each connection has one multishot receive in flight into the loop's ring of provided buffers,
 * shared by all the loop's connections, so that memory does not grow with their number. Bytes wait
 * in their buffers until the loop reads the connection: it parses the frames where they lie (the
 * connections are {@link dev.wirespeed.loop.spi.LendingEndpoint}s), hands each body to the handler as
 * a view of the buffer, copies only a frame that continues into the next buffer, and gives each buffer
 * back once its frames are handled. A connection holds at most {@link #maxHeldBuffers()} buffers; past that, or while
 * the loop does not want to read it (its output over the server's limit), its receive is cancelled, so
 * that the socket's own buffer and TCP's flow control hold the peer back. When every buffer is taken
 * a receive ends with {@code ENOBUFS}, and is armed again once a buffer comes back: backpressure, not
 * an error. Then, so that connections the loop is not reading (peers that send and never read their
 * replies, say) do not keep the shared buffers from the others, each of them copies what it holds into
 * memory of its own, exactly that many bytes, and gives the buffers back; the loop reads the copy first
 * when it reads the connection again. A connection holds at most one and a half times its cap of
 * buffers' bytes that way, copied or in the ring: one whose copy is over half the cap receives no more
 * until the loop has read it below that.
 *
 * <h2>Sending</h2>
 * A connection sends from the loop's own output chunks, where the handler's frames were written: the
 * loop hands each chunk over at the end of the turn, the connection sends it with one {@code SEND} (what
 * a short send left goes next), and gives it back to the loop's pool once sent. The turn's sends reach
 * the kernel together in the loop's next {@code io_uring_enter}. A connection takes chunks while those
 * it holds are smaller together than {@link #sendLimit()} (always one), however few bytes each has to
 * send, so a peer that does not read holds the loop back, which counts what it handed over and what
 * waits against its output limit; it is ready for writing again when a send completes. Output the
 * loop does not hand over (heap buffers: the JDK's TLS engine's records) is copied into send buffers of
 * the loop's, {@link #sendLimit()} bytes each, the writes of a turn one after the other in the same
 * buffer; those buffers are made sixteen at a time as the load needs them, and each sixteen but the
 * first are given back once unused for {@link LoopGroup#DEFAULT_UNUSED_MEMORY_TIMEOUT}.
 *
 * <h2>Closing</h2>
 * A graceful close sends what waits, then closes the descriptor; a reset drops it and closes with
 * {@code SO_LINGER} 0. Either way the connection's operations are cancelled, and the descriptor is
 * closed when the last of them completes, within the loop's next turn.
 *
 * <h2>Connecting</h2>
 * The loops connect as they accept ({@link dev.wirespeed.loop.FrameClient} on a
 * {@link dev.wirespeed.loop.LoopGroup} of this transport): a connection's connect is an
 * {@code IORING_OP_CONNECT}, submitted when the loop registers it, which the kernel ends once the
 * handshake is done or has failed; the connection then receives and sends as an accepted one. A connect
 * the loop gives up on (its timeout) is cancelled, and the kernel lets go of its socket within a turn.
 *
 * <h2>Waiting</h2>
 * A loop waits in {@code io_uring_enter}, which submits the turn's sends and receives in the same call
 * (or, when the loop busy-polls, does not wait); another thread wakes it through an {@code eventfd}
 * the ring polls. Listening sockets are polled through the ring and accepted with {@code accept4(2)}.
 * Each ring is opened on its loop's thread, with {@code SINGLE_ISSUER} and {@code DEFER_TASKRUN} where
 * the kernel accepts them, so that completion work runs only when the loop asks for completions (else
 * with {@code COOP_TASKRUN} and {@code TASKRUN_FLAG}, where the kernel flags the work for the loop).
 * {@link #setup(IoUring.Setup...)} chooses the flags instead (none: the kernel interrupts the loop's
 * thread to run completion work), and {@link #sqPoll(int, int)} gives each ring a kernel thread that
 * takes its submissions without a system call; the loop then enters the kernel only to wait.
 * Accepted sockets stay in blocking mode, as io_uring waits for a blocking socket's readiness itself
 * and returns {@code EAGAIN} for a non-blocking one.
 *
 * <p>Needs Linux 6.0 (multishot receive, buffer rings). {@link #create()} checks what it can ask the
 * kernel and says what is missing, so that a caller can fall back to
 * {@link dev.wirespeed.linux.epoll.EpollTransport}.
 *
 * <p>Thread safety: immutable; safe from any thread. Its pollers and connections are confined to their
 * loop, but for {@link Poller#wakeup()}.
 */
public final class IoUringTransport implements LoopTransport {
    static final int DEFAULT_BUFFER_COUNT = 512;
    static final int DEFAULT_BUFFER_SIZE = 8192;
    static final int DEFAULT_SEND_LIMIT = 65_536;
    /** Room for a turn's sends, re-armed receives and cancellations of several hundred connections before a submit. */
    static final int DEFAULT_SQ_ENTRIES = 1024;
    static final int DEFAULT_CQ_ENTRIES = 8192;

    private final int bufferCount;
    private final int bufferSize;
    private final int sendLimit;
    private final int sqEntries;
    private final int cqEntries;
    /** The rings' setup: null flags for the default choice; {@code sqThreadCpu} -2 without {@code SQPOLL}. */
    private final Ring ring;

    /** How each loop's ring is set up. */
    private record Ring(Set<IoUring.Setup> flags, int sqThreadCpu, int sqThreadIdleMillis) {
        static final Ring DEFAULT = new Ring(null, -2, 0);

        boolean sqPoll() {
            return sqThreadCpu != -2;
        }

        @Override
        public String toString() {
            String setup = flags == null ? "default" : flags.isEmpty() ? "interrupt-driven" : flags.toString();
            return sqPoll() ? setup + " SQPOLL cpu=" + sqThreadCpu + " idle=" + sqThreadIdleMillis + "ms" : setup;
        }
    }

    private IoUringTransport(int bufferCount, int bufferSize, int sendLimit, int sqEntries, int cqEntries,
            Ring ring) {
        this.bufferCount = bufferCount;
        this.bufferSize = bufferSize;
        this.sendLimit = sendLimit;
        this.sqEntries = sqEntries;
        this.cqEntries = cqEntries;
        this.ring = ring;
    }

    /**
     * {@return the transport, with {@value #DEFAULT_BUFFER_COUNT} receive buffers of
     * {@value #DEFAULT_BUFFER_SIZE} bytes per loop and a send limit of {@value #DEFAULT_SEND_LIMIT} bytes}
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
        support.require(IoUring.Op.RECV, IoUring.Op.SEND, IoUring.Op.POLL_ADD, IoUring.Op.ASYNC_CANCEL,
                IoUring.Op.CONNECT);
        return new IoUringTransport(DEFAULT_BUFFER_COUNT, DEFAULT_BUFFER_SIZE, DEFAULT_SEND_LIMIT,
                DEFAULT_SQ_ENTRIES, DEFAULT_CQ_ENTRIES, Ring.DEFAULT);
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
        return new IoUringTransport(count, size, sendLimit, sqEntries, cqEntries, ring);
    }

    /**
     * {@return a transport like this one whose connections take output while the buffers they hold to
     * send are smaller together than {@code bytes}} A connection always takes one of the loop's chunks,
     * however large; a chunk counts whole, however few bytes it has to send; what it does not take waits
     * in the loop. Both count against the server's output limit until sent. When the server closes a
     * connection after a protocol error, what it has taken is sent, as from a socket's own buffer.
     *
     * @param bytes 4 KiB to 64 MiB
     */
    public IoUringTransport sendLimit(int bytes) {
        if (bytes < 4096 || bytes > 1 << 26) {
            throw new IllegalArgumentException("sendLimit=" + bytes + " must be 4096 to 67108864");
        }
        return new IoUringTransport(bufferCount, bufferSize, bytes, sqEntries, cqEntries, ring);
    }

    /** {@return a transport like this one whose rings have these queue sizes}: small ones, for tests of full queues */
    IoUringTransport rings(int sqEntries, int cqEntries) {
        return new IoUringTransport(bufferCount, bufferSize, sendLimit, sqEntries, cqEntries, ring);
    }

    /**
     * {@return a transport like this one whose loops' rings are set up with exactly {@code flags}} in
     * place of the default choice (see the class documentation): none for completion work that
     * interrupts the loop's thread, {@code COOP_TASKRUN} and {@code TASKRUN_FLAG} for work run at the
     * loop's next system call, {@code SINGLE_ISSUER} and {@code DEFER_TASKRUN} for work run only when
     * the loop asks for completions. Kept with {@link #sqPoll}, which sets {@code SQPOLL} itself.
     *
     * @param flags the setup flags, none for an interrupt-driven ring
     * @throws IllegalArgumentException for {@code SQPOLL} (use {@link #sqPoll}), {@code DEFER_TASKRUN}
     *     without {@code SINGLE_ISSUER}, or {@code DEFER_TASKRUN} with {@link #sqPoll}
     * @throws UnsupportedOperationException for a flag this kernel does not accept, naming it
     */
    public IoUringTransport setup(IoUring.Setup... flags) {
        return setup(IoUringSupport.kernel(), flags);
    }

    /** As {@link #setup(IoUring.Setup...)}, judged by {@code support} (a probe masked by a test, say). */
    IoUringTransport setup(IoUringSupport support, IoUring.Setup... flags) {
        EnumSet<IoUring.Setup> set = EnumSet.noneOf(IoUring.Setup.class);
        set.addAll(List.of(flags));
        if (set.contains(IoUring.Setup.SQPOLL)) {
            throw new IllegalArgumentException("setup=" + set + ": SQPOLL is set by sqPoll(cpu, idleMillis)");
        }
        for (IoUring.Setup flag : set) {
            if (!support.accepts(flag)) {
                throw new UnsupportedOperationException("io_uring setup flag " + flag + " is not accepted by this kernel");
            }
        }
        Ring r = new Ring(Set.copyOf(set), ring.sqThreadCpu(), ring.sqThreadIdleMillis());
        checkRing(r);
        return new IoUringTransport(bufferCount, bufferSize, sendLimit, sqEntries, cqEntries, r);
    }

    /**
     * {@return a transport like this one whose loops' rings each have a kernel thread ({@code SQPOLL})
     * that takes submissions from the queue}, so that a loop enters the kernel only to wait. The thread
     * polls the queue for {@code idleMillis} after the last submission, then sleeps until the loop
     * wakes it. Without {@link #setup}, the rings have no other flags.
     *
     * @param cpu the CPU to pin each thread to, or -1 to leave it to the scheduler
     * @param idleMillis how long the thread polls an empty queue before it sleeps, at least 0
     * @throws IllegalArgumentException for a CPU below -1, a negative {@code idleMillis}, or with
     *     {@code DEFER_TASKRUN} set (the kernel takes it only without {@code SQPOLL})
     */
    public IoUringTransport sqPoll(int cpu, int idleMillis) {
        if (cpu < -1) {
            throw new IllegalArgumentException("cpu=" + cpu + " must be -1 (any) or a CPU number");
        }
        if (idleMillis < 0) {
            throw new IllegalArgumentException("idleMillis=" + idleMillis + " must be at least 0");
        }
        Ring r = new Ring(ring.flags() == null ? Set.of() : ring.flags(), cpu, idleMillis);
        checkRing(r);
        return new IoUringTransport(bufferCount, bufferSize, sendLimit, sqEntries, cqEntries, r);
    }

    private static void checkRing(Ring r) {
        if (r.flags() != null && r.flags().contains(IoUring.Setup.DEFER_TASKRUN)) {
            if (!r.flags().contains(IoUring.Setup.SINGLE_ISSUER)) {
                throw new IllegalArgumentException("setup=" + r.flags() + ": DEFER_TASKRUN needs SINGLE_ISSUER");
            }
            if (r.sqPoll()) {
                throw new IllegalArgumentException("setup=" + r.flags() + " with SQPOLL (cpu=" + r.sqThreadCpu()
                        + "): the kernel takes DEFER_TASKRUN only without SQPOLL");
            }
        }
    }

    /** {@return the options of a loop's ring: this transport's queue sizes and setup} */
    IoUring.Options ringOptions(IoUringSupport support) {
        IoUring.Options options = IoUring.options().entries(sqEntries).cqEntries(cqEntries);
        if (ring.flags() == null) {
            if (support.accepts(IoUring.Setup.DEFER_TASKRUN)) {
                options.with(IoUring.Setup.SINGLE_ISSUER, IoUring.Setup.DEFER_TASKRUN);
            } else if (support.accepts(IoUring.Setup.TASKRUN_FLAG)) {
                options.with(IoUring.Setup.COOP_TASKRUN, IoUring.Setup.TASKRUN_FLAG); // flagged, for a loop that busy-polls
            }
        } else {
            options.with(ring.flags().toArray(IoUring.Setup[]::new));
        }
        if (ring.sqPoll()) {
            options.sqPoll(ring.sqThreadCpu(), ring.sqThreadIdleMillis());
        }
        return options;
    }

    /** {@return the receive buffers of each loop} */
    public int receiveBufferCount() {
        return bufferCount;
    }

    /** {@return the bytes of each receive buffer} */
    public int receiveBufferSize() {
        return bufferSize;
    }

    /** {@return the size of the buffers a connection holds to send at most before it takes no more output} */
    public int sendLimit() {
        return sendLimit;
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
        return new UringPoller(ringOptions(IoUringSupport.kernel()).params(), bufferCount, bufferSize,
                maxHeldBuffers(), sendLimit, LoopGroup.DEFAULT_UNUSED_MEMORY_TIMEOUT.toNanos());
    }

    @Override
    public Listener listen(SocketAddress address, int backlog) throws IOException {
        return new UringListener(ListenFd.bindNonBlocking(address, backlog));
    }

    /** {@inheritDoc} The connect itself is an {@code IORING_OP_CONNECT}, submitted when the loop registers it. */
    @Override
    public Endpoint connect(SocketAddress address) throws IOException {
        return UringConnector.open(address);
    }

    @Override
    public String toString() {
        return "io_uring[receive " + bufferCount + " x " + bufferSize + " B, send " + sendLimit + " B, setup "
                + ring + "]";
    }
}
