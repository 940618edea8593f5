package dev.wirespeed.linux;

import dev.wirespeed.io.IdleStrategy;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;

/**
 * A connected {@link NativeSocket} read and written through an io_uring of its own: each
 * {@link #read} is one {@code RECV} and each {@link #write} one {@code SEND}, waited for before the
 * call returns. A {@link ByteChannel}, so a {@code FrameReader} or {@code FrameWriter} runs over it as
 * over the socket itself.
 *
 * <p>Waiting: {@link #open(NativeSocket, IdleStrategy) without an idle strategy}, the operation is
 * submitted and waited for in one {@code io_uring_enter}, one system call per read or write as with
 * {@code recv(2)} and {@code send(2)}. With one, the operation is submitted, then the completion queue
 * is polled in user space, calling the strategy between empty looks, and no system call is made to
 * wait; the ring is then opened with {@code COOP_TASKRUN} and {@code TASKRUN_FLAG} where the kernel
 * has them, so that the kernel flags the completion's work for the polling thread to run (one
 * {@code io_uring_enter}) instead of interrupting it.
 *
 * <p>Semantics are the socket's: a read returns what arrived (at least one byte), -1 at end of stream;
 * a write may take fewer bytes than offered; failures throw {@link NativeIoException} naming the call
 * ({@code recv} or {@code send}), errno and socket; {@code SIGPIPE} is never raised. The socket is put
 * in blocking mode, as io_uring returns {@code EAGAIN} at once for a non-blocking one. Heap buffers go
 * through a direct copy buffer.
 *
 * <p>Thread safety: one thread at a time, for reads and writes together (they share the ring). No
 * allocation per call.
 */
public final class IoUringSocket implements ByteChannel {
    private static final int MSG_NOSIGNAL = 0x4000;

    private final NativeSocket socket;
    private final IoUring ring;
    private final IdleStrategy idle;
    private final FdDirection in = new FdDirection(true);
    private final FdDirection out = new FdDirection(true);
    private final IoUring.Completion onCompletion = this::completed;
    private long token;
    private int result;
    private boolean done;

    private IoUringSocket(NativeSocket socket, IoUring ring, IdleStrategy idle) {
        this.socket = socket;
        this.ring = ring;
        this.idle = idle;
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
        return open(socket, null);
    }

    /**
     * As {@link #open(NativeSocket)}, polling the completion queue with {@code idle} instead of
     * waiting in the kernel, where {@code idle} is not null.
     *
     * @param socket a connected socket, put in blocking mode
     * @param idle what to do between empty looks at the completion queue, or null to wait in the kernel
     * @return the channel
     * @throws IOException if the ring cannot be opened or the socket's mode set
     */
    public static IoUringSocket open(NativeSocket socket, IdleStrategy idle) throws IOException {
        socket.configureBlocking(true);
        IoUring.Options options = IoUring.options().entries(2);
        if (idle != null && IoUringSupport.kernel().accepts(IoUring.Setup.TASKRUN_FLAG)) {
            // A polling thread runs its completion work when the kernel flags it, rather than being interrupted.
            options.with(IoUring.Setup.COOP_TASKRUN, IoUring.Setup.TASKRUN_FLAG);
        }
        return new IoUringSocket(socket, IoUring.open(options), idle);
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
     * @throws NativeIoException if {@code recv} fails (a reset connection, say)
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        int position = dst.position();
        int remaining = dst.limit() - position;
        if (remaining == 0) {
            return 0;
        }
        int n;
        if (dst.isDirect()) {
            ring.recv(socket.fd(), in.address(dst) + position, remaining, 0, ++token);
            n = await("recv");
            Reference.reachabilityFence(dst);
            if (n > 0) {
                dst.position(position + n);
            }
        } else {
            ByteBuffer through = in.copyBuffer();
            ring.recv(socket.fd(), in.address(through), Math.min(remaining, through.capacity()), 0, ++token);
            n = await("recv");
            if (n > 0) {
                dst.put(through.clear().limit(n));
            }
        }
        return n == 0 ? -1 : n;
    }

    /**
     * Sends {@code src}'s remaining bytes, or as many as the socket takes in one {@code SEND}.
     *
     * @param src the bytes; its position advances by the count
     * @return the count
     * @throws ClosedChannelException if closed
     * @throws NativeIoException if {@code send} fails ({@code EPIPE} when the peer has gone, say)
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        ensureOpen();
        int position = src.position();
        int remaining = src.limit() - position;
        if (remaining == 0) {
            return 0;
        }
        int n;
        if (src.isDirect()) {
            ring.send(socket.fd(), out.address(src) + position, remaining, MSG_NOSIGNAL, ++token);
            n = await("send");
            Reference.reachabilityFence(src);
            src.position(position + n);
        } else {
            ByteBuffer through = out.copyBuffer().clear();
            int length = Math.min(remaining, through.capacity());
            through.put(0, src, position, length);
            ring.send(socket.fd(), out.address(through), length, MSG_NOSIGNAL, ++token);
            n = await("send");
            src.position(position + n);
        }
        return n;
    }

    /** Submits the one prepared operation and waits for its completion; {@return its count, never negative} */
    private int await(String call) throws IOException {
        done = false;
        if (idle == null) {
            do {
                ring.submitAndWait(1);
                ring.complete(onCompletion);
            } while (!done);
        } else {
            ring.submit();
            int empty = 0;
            while (true) {
                ring.complete(onCompletion);
                if (done) {
                    break;
                }
                idle.idle(++empty);
            }
        }
        if (result < 0) {
            throw new NativeIoException(call, -result, "fd=" + socket.fd() + " through io_uring, " + socket);
        }
        return result;
    }

    private void completed(long userData, int res, int flags) {
        if (userData == token) {
            result = res;
            done = true;
        }
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    /**
     * Closes the ring, then the socket. Closing twice does nothing.
     *
     * @throws IOException if closing the socket fails
     */
    @Override
    public void close() throws IOException {
        ring.close();
        socket.close();
    }

    @Override
    public String toString() {
        return "IoUringSocket[" + socket + (idle == null ? " waiting" : " polling") + "]";
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!socket.isOpen()) {
            throw new ClosedChannelException();
        }
    }
}
