package dev.wirespeed.linux.internal.uring;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.net.SocketFd;
import dev.wirespeed.loop.spi.LendingEndpoint;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

/**
 * A connection of an {@code IoUringTransport} loop: its socket, the received buffers it holds, its
 * send buffer and the operations it has in flight. Its reads and writes never wait: the loop parses
 * what the ring has received in place ({@link #lend()}), a read copies it, a write copies into the
 * send buffer. The {@link UringPoller} it is registered with does the ring's work; before that, only
 * {@link #reset()} and {@link #close()} apply.
 *
 * <p>Thread safety: its loop's thread.
 */
final class UringEndpoint implements LendingEndpoint {
    final SocketFd socket;
    final int fd;
    /** Set by {@link UringPoller#register}; null before. */
    UringPoller poller;
    Object attachment;
    /** The loop's interest, {@code Poller.READ | Poller.WRITE}. */
    int interest;
    /** The slot in the poller's table, and its generation, both in every operation's user data. */
    int slot = -1;
    int generation;
    /** Deregistered: the loop no longer hears of it. */
    boolean forgotten;
    /** Closed (or reset) by the loop; the slot lives on until {@link #inFlight()} is 0. */
    boolean closed;
    /** A graceful close waits for the send buffer to drain. */
    boolean closeAfterSend;
    /** An output shutdown waits for the send buffer to drain. */
    boolean shutdownAfterSend;
    /** In the poller's list of connections to hand to the loop. */
    boolean listed;
    /** In the poller's list of connections whose receive waits for a buffer to come back. */
    boolean starved;

    // Receiving: the held buffers, oldest first, as a queue of (id, length) with an offset into the first.
    int[] heldIds = new int[8];
    int[] heldLengths = new int[8];
    int heldHead;
    int heldCount;
    int firstOffset;
    /** In the poller's list of connections whose receive is armed again at its next poll. */
    boolean rearmListed;
    boolean recvArmed;
    boolean recvCancelling;
    boolean endOfStream;
    /** The receive's errno, or 0. */
    int recvError;

    // Sending: bytes [sendHead, sendTail) of the send buffer wait; sendLength of them are in flight.
    int sendBuffer = -1;
    int sendHead;
    int sendTail;
    int sendLength;
    /** The send's errno, or 0. */
    int sendError;
    int cancels;

    UringEndpoint(SocketFd socket) {
        this.socket = socket;
        this.fd = socket.fd();
    }

    @Override
    public SocketAddress remoteAddress() {
        return socket.remoteAddress();
    }

    @Override
    public ByteBuffer lend() {
        if (closed || heldCount == 0) {
            return null;
        }
        return poller.lend(this);
    }

    @Override
    public void consume(int n) {
        int lent = heldCount == 0 ? 0 : heldLengths[heldHead] - firstOffset;
        if (n < 0 || n > lent) {
            throw new IllegalArgumentException("n=" + n + " lent=" + lent + " " + this);
        }
        if (n > 0) {
            poller.consume(this, n);
        }
    }

    @Override
    public boolean ended() throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (heldCount > 0) {
            return false;
        }
        if (recvError != 0) {
            throw new NativeIoException("recv", recvError, "io_uring multishot, " + socket);
        }
        return endOfStream;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (heldCount == 0) {
            if (recvError != 0) {
                throw new NativeIoException("recv", recvError, "io_uring multishot, " + socket);
            }
            return endOfStream ? -1 : 0;
        }
        return poller.copyHeld(this, dst);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (closed || closeAfterSend) {
            throw new ClosedChannelException();
        }
        if (sendError != 0) {
            throw new NativeIoException("send", sendError, "io_uring, " + socket);
        }
        return poller.copyToSend(this, src);
    }

    /** {@return whether operations of this connection are in flight in the ring} */
    boolean inFlight() {
        return recvArmed || sendLength > 0 || cancels > 0;
    }

    /** Appends a received buffer to those held. */
    void hold(int id, int length) {
        if (heldCount == heldIds.length) {
            int[] ids = new int[heldCount * 2];
            int[] lengths = new int[heldCount * 2];
            for (int i = 0; i < heldCount; i++) {
                int at = (heldHead + i) % heldIds.length;
                ids[i] = heldIds[at];
                lengths[i] = heldLengths[at];
            }
            heldIds = ids;
            heldLengths = lengths;
            heldHead = 0;
        }
        int at = (heldHead + heldCount) % heldIds.length;
        heldIds[at] = id;
        heldLengths[at] = length;
        heldCount++;
    }

    /** Drops the first held buffer; {@return its id} */
    int dropFirst() {
        int id = heldIds[heldHead];
        heldHead = (heldHead + 1) % heldIds.length;
        heldCount--;
        firstOffset = 0;
        return id;
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    /** Ends the output once what was written has been sent; the receive goes on. */
    @Override
    public void shutdownOutput() throws IOException {
        if (closed || closeAfterSend) {
            throw new ClosedChannelException();
        }
        if (poller == null) {
            socket.shutdownOutput();
        } else {
            poller.shutdownOutput(this);
        }
    }

    @Override
    public void close() throws IOException {
        if (poller == null) {
            closed = true;
            socket.close();
        } else if (!closed && !closeAfterSend) {
            poller.close(this, false);
        }
    }

    @Override
    public void reset() {
        if (poller == null) {
            closed = true;
            socket.reset();
        } else if (!closed) {
            poller.close(this, true);
        }
    }

    @Override
    public String toString() {
        return "UringEndpoint[" + socket + " slot=" + slot + " held=" + heldCount + " sending=" + (sendTail - sendHead)
                + (closed ? " closed" : "") + "]";
    }
}
