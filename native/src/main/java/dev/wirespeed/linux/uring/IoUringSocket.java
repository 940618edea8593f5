package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.FdDirection;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.uring.Ring;
import dev.wirespeed.io.IdleStrategy;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connected {@link NativeSocket} read and written through an io_uring of its own: each
 * {@link #read} is one {@code RECV} and each {@link #write} one {@code SEND} (or {@code SEND_ZC}, below),
 * waited for before the call returns. A {@link ByteChannel}, so a {@code FrameReader} or
 * {@code FrameWriter} runs over it as over the socket itself.
 *
 * <p>Waiting: {@link #open(NativeSocket, IdleStrategy) without an idle strategy}, the operation is
 * submitted and waited for in one {@code io_uring_enter}, one system call per read or write as with
 * {@code recv(2)} and {@code send(2)}. With one, the operation is submitted, then the completion queue
 * is polled in user space, calling the strategy between empty looks, and no system call is made to
 * wait; the ring is then opened with {@code COOP_TASKRUN} and {@code TASKRUN_FLAG} where the kernel
 * has them, so that the kernel flags the completion's work for the polling thread to run (one
 * {@code io_uring_enter}) instead of interrupting it. {@link Builder#ring} chooses another mode.
 *
 * <p>Zero-copy sends: with {@link Builder#zeroCopyFrom(int)}, a write of at least that many bytes from a
 * direct buffer goes as one {@code SEND_ZC}, which sends from the buffer's own pages; the write returns
 * only once the kernel's notification says it no longer reads them, so the caller may reuse the buffer
 * at once, as after any write. Whether the kernel really avoided the copy is counted
 * ({@link #copiedZeroCopySends()}): to a peer on the same machine it always copies. Where the socket
 * cannot send without a copy ({@code EOPNOTSUPP}: a Unix domain socket, say) that write and every later
 * one go by {@code SEND}. Off by default.
 *
 * <p>Semantics are the socket's: a read returns what arrived (at least one byte), -1 at end of stream;
 * a write may take fewer bytes than offered; failures throw {@link NativeIoException} naming the call
 * ({@code recv}, {@code send} or {@code send_zc}), errno and socket; {@code SIGPIPE} is never raised. The
 * socket is put in blocking mode, as io_uring returns {@code EAGAIN} at once for a non-blocking one.
 * Heap buffers go through a direct copy buffer (and never by {@code SEND_ZC}).
 *
 * <p>The kernel is done with the buffer when a call returns or throws. If waiting for the completion
 * fails ({@code io_uring_enter} fails, or the idle strategy throws), the operation is first cancelled
 * ({@code IORING_OP_ASYNC_CANCEL}) and its completion, and a zero-copy send's notification, reaped, or,
 * where the kernel had not yet taken it, taken back; only then does the failure leave the call. Bytes the
 * operation moved before the cancellation took hold are counted in the buffer's position, so the stream
 * stays in step and the channel open. Where even the cancellation fails, its failure is added to the first
 * as suppressed and the channel is closed, which ends every operation of its ring. Java thread interrupts
 * are not observed, as by {@link NativeSocket} (a parking idle strategy returns early at one and the wait
 * goes on): {@link #close()} from another thread is how a waiting thread is released.
 *
 * <p>Thread safety: one thread at a time reads and writes (they share the ring); with a ring opened
 * {@code SINGLE_ISSUER}, the thread that built the channel. {@link #close()} and {@link #isOpen()} may be
 * called from any thread at any time. Where a thread is inside {@link #read} or {@link #write},
 * {@code close()} marks the channel closed and shuts the socket down both ways ({@code shutdown(2)}), which
 * ends a waiting receive with end of stream and a waiting send with {@code EPIPE}; that thread then throws
 * {@link AsynchronousCloseException} (or returns the count where its operation moved bytes first) and, the
 * last one out, unmaps the ring and closes the socket: {@code close()} does not wait for it, and never
 * unmaps the ring, nor frees the socket's descriptor, under a thread that uses them. A zero-copy send still
 * waits for the kernel's notification that it no longer reads the buffer. A read or write begun after
 * {@code close()} throws {@link ClosedChannelException}. No allocation per call.
 */
public final class IoUringSocket implements ByteChannel {
    /** In {@link #state}: the channel is closed; no read or write may begin. */
    private static final int CLOSED = Integer.MIN_VALUE;
    /** The user data of the cancellation of the operation whose user data is {@code token}: {@code CANCEL | token}. */
    private static final long CANCEL = Long.MIN_VALUE;

    /**
     * {@code CLOSED} or 0, plus the threads inside a read or write (and a closer while it wakes them):
     * {@code 0 <= (state & ~CLOSED)}. Once {@code CLOSED} is set it stays; the thread whose leaving makes
     * the state exactly {@code CLOSED} unmaps the ring and closes the socket.
     */
    private final AtomicInteger state = new AtomicInteger();
    private final NativeSocket socket;
    private final Ring ring;
    private final IdleStrategy idle;
    private final FdDirection in = new FdDirection(true);
    private final FdDirection out = new FdDirection(true);
    private final Ring.Completion onCompletion = this::completed;
    /** Writes of at least this many bytes from a direct buffer go by {@code SEND_ZC}; {@code >= 1}, MAX_VALUE for never. */
    private int zeroCopyFrom;
    private long zeroCopySends;
    private long copiedZeroCopySends;
    /** The user data of the operation in flight, or of the last one: {@code 0 <= token}, one more per operation. */
    private long token;
    private int result;
    /** The operation's own completion arrived. */
    private boolean done;
    /** The completion of the cancellation of the operation arrived, where one was submitted. */
    private boolean cancelled;
    /** The operation's completion said a notification follows (a zero-copy send's). */
    private boolean more;
    /** The zero-copy send's notification arrived (it comes after the send's completion, but either order is taken). */
    private boolean notified;
    /** The notification of the last zero-copy send said the kernel copied the bytes. */
    private boolean copied;

    private IoUringSocket(NativeSocket socket, Ring ring, IdleStrategy idle, int zeroCopyFrom) {
        this.socket = socket;
        this.ring = ring;
        this.idle = idle;
        this.zeroCopyFrom = zeroCopyFrom;
    }

    /**
     * Reads and writes {@code socket} through a new ring of its own, waiting in the kernel; the
     * socket is closed with the channel.
     *
     * @param socket a connected socket, put in blocking mode
     * @return the channel
     * @throws IOException if the ring cannot be opened or the socket's mode set
     * @throws UnsupportedOperationException where io_uring is unavailable, saying why
     */
    public static IoUringSocket open(NativeSocket socket) throws IOException {
        return builder(socket).build();
    }

    /**
     * As {@link #open(NativeSocket)}, polling the completion queue with {@code idle} instead of
     * waiting in the kernel, where {@code idle} is not null.
     *
     * @param socket a connected socket, put in blocking mode
     * @param idle what to do between empty looks at the completion queue, or null to wait in the kernel
     * @return the channel
     * @throws IOException if the ring cannot be opened or the socket's mode set
     * @throws UnsupportedOperationException where io_uring is unavailable, saying why
     */
    public static IoUringSocket open(NativeSocket socket, IdleStrategy idle) throws IOException {
        return builder(socket).idleStrategy(idle).build();
    }

    /**
     * {@return a builder of a channel over {@code socket}}, with the defaults of {@link #open(NativeSocket)}
     *
     * @param socket a connected socket
     */
    public static Builder builder(NativeSocket socket) {
        return new Builder(socket);
    }

    /** {@return the socket} */
    public NativeSocket socket() {
        return socket;
    }

    /**
     * Receives what the socket has, up to {@code dst.remaining()} bytes, waiting for at least one.
     *
     * @param dst where to put the bytes; its position advances by the count
     * @return the count; 0 if {@code dst} has no room; -1 at end of stream
     * @throws ClosedChannelException if closed
     * @throws AsynchronousCloseException if another thread closed the channel while this read waited
     * @throws NativeIoException if {@code recv} fails (a reset connection, say)
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        begin();
        try {
            int position = dst.position();
            int remaining = dst.limit() - position;
            if (remaining == 0) {
                return 0;
            }
            ByteBuffer through = dst.isDirect() ? null : in.copyBuffer();
            long userData = next();
            try {
                long address = through == null ? in.address(dst) + position : in.address(through);
                int length = through == null ? remaining : Math.min(remaining, through.capacity());
                ring.recv(socket.fd(), address, length, 0, userData);
                waitForCompletion();
            } catch (Throwable failure) {
                received(dst, position, through); // what the cancelled receive brought all the same
                throw failure;
            } finally {
                Reference.reachabilityFence(dst); // until the kernel is done with it, on every path
            }
            int n = received(dst, position, through);
            if (n > 0) {
                return n;
            }
            if (closing()) {
                throw new AsynchronousCloseException(); // the receive was ended by close's shutdown
            }
            if (n < 0) {
                throw failure("recv");
            }
            return -1;
        } finally {
            end();
        }
    }

    /** {@return the receive's result}, its bytes put in {@code dst} ({@code through} is the copy buffer, for a heap one) */
    private int received(ByteBuffer dst, int position, ByteBuffer through) {
        int n = done ? result : -Errno.ECANCELED;
        if (n > 0) {
            if (through == null) {
                dst.position(position + n);
            } else {
                dst.put(through.clear().limit(n));
            }
        }
        return n;
    }

    /**
     * Sends {@code src}'s remaining bytes, or as many as the socket takes in one {@code SEND}.
     *
     * @param src the bytes; its position advances by the count
     * @return the count
     * @throws ClosedChannelException if closed
     * @throws AsynchronousCloseException if another thread closed the channel while this write waited
     * @throws NativeIoException if {@code send} fails ({@code EPIPE} when the peer has gone, say)
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        begin();
        try {
            int position = src.position();
            int remaining = src.limit() - position;
            if (remaining == 0) {
                return 0;
            }
            String call = "send";
            long userData = next();
            try {
                if (src.isDirect()) {
                    long address = out.address(src) + position;
                    if (remaining >= zeroCopyFrom) {
                        call = sendZeroCopy(address, remaining, userData);
                    } else {
                        ring.send(socket.fd(), address, remaining, Flags.MSG_NOSIGNAL, userData);
                        waitForCompletion();
                    }
                } else {
                    ByteBuffer through = out.copyBuffer().clear();
                    int length = Math.min(remaining, through.capacity());
                    through.put(0, src, position, length);
                    ring.send(socket.fd(), out.address(through), length, Flags.MSG_NOSIGNAL, userData);
                    waitForCompletion();
                }
            } catch (Throwable failure) {
                sent(src, position); // what the cancelled send took all the same
                throw failure;
            } finally {
                Reference.reachabilityFence(src); // until the kernel is done with it, on every path
            }
            int n = sent(src, position);
            if (n > 0) {
                return n;
            }
            if (closing()) {
                throw new AsynchronousCloseException(); // the send was ended by close's shutdown
            }
            if (n == 0) {
                return 0;
            }
            throw failure(call);
        } finally {
            end();
        }
    }

    /** {@return the send's result}, {@code src}'s position moved past what it took */
    private int sent(ByteBuffer src, int position) {
        int n = done ? result : -Errno.ECANCELED;
        if (n > 0) {
            src.position(position + n);
        }
        return n;
    }

    /**
     * One {@code SEND_ZC}, waited for until its notification; by {@code SEND} where the socket refuses it.
     * {@return the call that made the last operation}
     */
    private String sendZeroCopy(long address, int length, long userData) throws IOException {
        ring.sendZeroCopy(socket.fd(), address, length, Flags.MSG_NOSIGNAL, true, userData);
        waitForCompletion();
        if (result == -Errno.EOPNOTSUPP) {
            zeroCopyFrom = Integer.MAX_VALUE; // this socket cannot: every later write goes by SEND
            ring.send(socket.fd(), address, length, Flags.MSG_NOSIGNAL, next());
            waitForCompletion();
            return "send";
        }
        if (result > 0) {
            zeroCopySends++;
            if (copied) {
                copiedZeroCopySends++;
            }
        }
        return "send_zc";
    }

    /** {@return writes sent by {@code SEND_ZC} so far} */
    public long zeroCopySends() {
        return zeroCopySends;
    }

    /**
     * {@return how many of the {@link #zeroCopySends()} the kernel copied after all} (its notification
     * said so): every one of them where the peer is on the same machine
     */
    public long copiedZeroCopySends() {
        return copiedZeroCopySends;
    }

    /** Forgets the last operation; {@return the user data of the next} */
    private long next() {
        done = false;
        cancelled = false;
        more = false;
        notified = false;
        copied = false;
        return ++token;
    }

    /** Whether the operation's completion, or a zero-copy send's notification, is still to come. */
    private boolean outstanding() {
        return !done || more && !notified;
    }

    /**
     * Submits the one prepared operation and waits for its completion, and for a zero-copy send's
     * notification too. If the wait fails, the operation is cancelled and reaped before the failure is
     * thrown on.
     */
    private void waitForCompletion() throws IOException {
        try {
            if (idle == null) {
                do {
                    ring.submitAndWait(1);
                    ring.complete(onCompletion);
                } while (outstanding());
            } else {
                ring.submit();
                int empty = 0;
                while (true) {
                    ring.complete(onCompletion);
                    if (!outstanding()) {
                        break;
                    }
                    idle.idle(++empty);
                }
            }
        } catch (Throwable failure) {
            abandon(failure);
            throw failure;
        }
    }

    /**
     * After a failed wait: takes the operation back where the kernel has not consumed it, else cancels it
     * and waits, in the kernel, for its completion (and notification) and the cancellation's, so that the
     * kernel is done with the buffer when the failure leaves the call. Where that fails too, the ring is
     * broken: the failure is added to {@code failure} and the channel closed, whose ring's closing ends
     * what it still holds.
     */
    private void abandon(Throwable failure) {
        try {
            if (!outstanding()) {
                return;
            }
            if (!done && ring.withdraw() > 0) {
                done = true; // never submitted: it moved nothing
                result = -Errno.ECANCELED;
                return;
            }
            if (done) {
                cancelled = true; // only a zero-copy send's notification is to come, which no cancellation hastens
            } else if (!ring.cancel(token, CANCEL | token)) {
                throw new IllegalStateException("no room to cancel the operation in flight: " + ring.pending()
                        + " submissions pending in " + ring);
            }
            do {
                ring.submitAndWait(1);
                ring.complete(onCompletion);
            } while (outstanding() || !cancelled);
        } catch (Throwable cancelFailure) {
            if (cancelFailure != failure) {
                failure.addSuppressed(cancelFailure);
            }
            closeFromWithin();
        }
    }

    private NativeIoException failure(String call) {
        return new NativeIoException(call, -result, "fd=" + socket.fd() + " through io_uring, " + socket);
    }

    private void completed(long userData, int res, int flags) {
        if (userData == (CANCEL | token)) {
            cancelled = true;
            return;
        }
        if (userData != token) {
            return;
        }
        if ((flags & Ring.CQE_F_NOTIF) != 0) {
            copied = (res & Ring.NOTIF_USAGE_ZC_COPIED) != 0;
            notified = true;
        } else {
            result = res;
            done = true;
            more = (flags & Ring.CQE_F_MORE) != 0;
        }
    }

    /** {@return whether the channel is open}: false from the moment {@link #close()} begins, in any thread */
    @Override
    public boolean isOpen() {
        return (state.get() & CLOSED) == 0;
    }

    /**
     * Closes the channel: at once where no thread is inside {@link #read} or {@link #write}, unmapping the
     * ring and closing the socket; else it shuts the socket down both ways to release that thread, which
     * throws {@link AsynchronousCloseException} and unmaps the ring and closes the socket as it leaves (see
     * the class comment). Closing twice does nothing.
     *
     * @throws IOException if closing the socket here fails
     */
    @Override
    public void close() throws IOException {
        int s;
        do {
            s = state.get();
            if ((s & CLOSED) != 0) {
                return;
            }
        } while (!state.compareAndSet(s, (s | CLOSED) + 1)); // this thread counts as inside while it wakes the others
        try {
            if (s != 0) {
                wake();
            }
        } finally {
            if (state.decrementAndGet() == CLOSED) {
                release();
            }
        }
    }

    /**
     * Ends the operation another thread waits for: a receive completes with end of stream, a send with
     * {@code EPIPE}, and one submitted later at once, as the shutdown stays. The descriptor is still open:
     * this thread counts as inside.
     */
    private void wake() {
        try {
            Sys.shutdown(socket.fd(), Flags.SHUT_RDWR);
        } catch (NativeIoException e) {
            // ENOTCONN, where the peer had reset the connection: the shutdown is recorded and waiters woken all the same.
        }
    }

    /** Enters a read or write, or throws {@link ClosedChannelException} where the channel is closed. */
    private void begin() throws ClosedChannelException {
        int s;
        do {
            s = state.get();
            if ((s & CLOSED) != 0) {
                throw new ClosedChannelException();
            }
        } while (!state.compareAndSet(s, s + 1));
    }

    /** Leaves a read or write; the last one out of a closed channel releases it. */
    private void end() {
        if (state.decrementAndGet() == CLOSED) {
            try {
                release();
            } catch (IOException e) {
                // As a NIO channel closed under a blocked thread: the descriptor is released, the failure to say so dropped.
            }
        }
    }

    /** {@return whether the channel was closed while this thread was inside} */
    private boolean closing() {
        return (state.get() & CLOSED) != 0;
    }

    /** Marks the channel closed from inside a read or write, whose {@link #end()} then releases it. */
    private void closeFromWithin() {
        int s;
        do {
            s = state.get();
        } while ((s & CLOSED) == 0 && !state.compareAndSet(s, s | CLOSED));
    }

    /** Unmaps the ring, then closes the socket: once, by the last thread out of a closed channel. */
    private void release() throws IOException {
        ring.close();
        socket.close();
    }

    @Override
    public String toString() {
        return "IoUringSocket[" + socket + (idle == null ? " waiting" : " polling") + " " + ring
                + (zeroCopyFrom == Integer.MAX_VALUE ? "" : " zeroCopyFrom=" + zeroCopyFrom) + "]";
    }

    /**
     * Settings of an {@link IoUringSocket}.
     *
     * <p>Thread safety: not thread-safe; build on one thread (the one that will use the channel, where the
     * ring is {@code SINGLE_ISSUER}).
     */
    public static final class Builder {
        private final NativeSocket socket;
        private IdleStrategy idle;
        private IoUring.Options ring;
        private int zeroCopyFrom = Integer.MAX_VALUE;

        private Builder(NativeSocket socket) {
            this.socket = Objects.requireNonNull(socket, "socket");
        }

        /**
         * Polls the completion queue with {@code idle} between empty looks instead of waiting in the
         * kernel.
         *
         * @param idle the strategy, or null to wait in the kernel (the default)
         * @return this builder
         */
        public Builder idleStrategy(IdleStrategy idle) {
            this.idle = idle;
            return this;
        }

        /**
         * Opens the ring with these options instead of the default (2 entries; {@code COOP_TASKRUN} with
         * {@code TASKRUN_FLAG} where the channel polls and the kernel has them): to choose
         * {@code SINGLE_ISSUER} with {@code DEFER_TASKRUN}, or {@code SQPOLL} with its thread's CPU.
         *
         * @param options the ring's options, used as they are
         * @return this builder
         */
        public Builder ring(IoUring.Options options) {
            this.ring = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * Sends writes of at least {@code bytes} from a direct buffer by {@code SEND_ZC} (see the class
         * comment); by default none are.
         *
         * @param bytes {@code >= 1}; {@code Integer.MAX_VALUE} for never
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes < 1}, naming it
         */
        public Builder zeroCopyFrom(int bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("zeroCopyFrom=" + bytes + " min=1");
            }
            this.zeroCopyFrom = bytes;
            return this;
        }

        /**
         * Puts the socket in blocking mode and opens the ring; the socket is closed with the channel.
         *
         * @return the channel
         * @throws IOException if the ring cannot be opened or the socket's mode set
         * @throws UnsupportedOperationException where io_uring is unavailable, saying why
         */
        public IoUringSocket build() throws IOException {
            IoUringSupport support = IoUringSupport.kernel();
            if (!support.available()) {
                throw new UnsupportedOperationException(support.unavailableReason());
            }
            socket.configureBlocking(true);
            IoUring.Options options = ring;
            if (options == null) {
                options = IoUring.options().entries(2);
                if (idle != null && support.accepts(IoUring.Setup.TASKRUN_FLAG)) {
                    // A polling thread runs its completion work when the kernel flags it, rather than being interrupted.
                    options.with(IoUring.Setup.COOP_TASKRUN, IoUring.Setup.TASKRUN_FLAG);
                }
            }
            return new IoUringSocket(socket, Ring.open(options.params()), idle, zeroCopyFrom);
        }
    }
}
