package dev.wirespeed.linux.internal.uring;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.net.SocketFd;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.loop.internal.TakesOutput;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

/**
 * A connection of an {@code IoUringTransport} loop: its socket, what it has received, what it has to
 * send, and the operations it has in flight in its {@link UringPoller}'s ring. Nothing it does waits.
 *
 * <h2>Receiving</h2>
 * One multishot receive, armed while the loop wants to read and the connection holds fewer than the
 * poller's cap of buffers, fills provided buffers, which the connection holds in order until the loop
 * has parsed them where they lie ({@link #lend()}, {@link #consume(int)}) or copied them out
 * ({@link #read}); each goes back to the ring once consumed. Past the cap, or while the loop does not
 * want to read, the receive is cancelled, so that the socket's own buffer and TCP's flow control hold
 * the peer back.
 *
 * <p>The ring's buffers are the loop's, shared: a connection the loop does not read (its output over
 * the limit, a peer that sends and never reads) must not keep them from the others. When a receive
 * finds the ring empty, the poller has each such connection copy what it holds into memory of its own,
 * exactly that many bytes ({@link #spill()}), and give the buffers back; the copy is lent, and read,
 * before any buffer held after it. A connection whose copy is over half its cap of buffers' bytes
 * does not receive until the loop has read it below that: it holds at most one and a half times its
 * cap's bytes, copied or in the ring.
 *
 * <h2>Sending</h2>
 * The loop hands its output chunks over ({@link #take}); they wait here in order, the first in one
 * {@code SEND} from its own memory, what a short send left sent next, and each goes back to the loop
 * once sent. The connection takes chunks while the buffers it holds are smaller together than the
 * poller's send limit (always one), so a peer that does not read holds the loop's output back: their
 * sizes count, not the bytes in them, as a chunk handed over with a few bytes in it is a whole chunk
 * held (a turn's replies to a few frames, say, each turn's in a chunk of its own). A {@link #write} copies
 * into a buffer of the poller's and sends that the same way, for callers that do not hand over (the TLS
 * layer), its bytes counted against the send limit rather than the buffer's size.
 *
 * <h2>Connecting</h2>
 * A connection the transport connects ({@link UringConnector}) holds its peer's address in memory of its
 * own until its {@code IORING_OP_CONNECT}, submitted when it is registered for {@link Poller#CONNECT},
 * completes; it is then ready for {@code CONNECT}, and {@link #finishConnect()} tells the outcome. Once
 * the loop asks to read, it receives as an accepted one does. A close while the connect is under way
 * cancels it; the address, the slot and the descriptor go once it has completed.
 *
 * <h2>Closing</h2>
 * A graceful close sends what waits, then closes; a reset cancels what is in flight, gives every chunk
 * back once the kernel has let go of it, and closes with {@code SO_LINGER} 0. The poller frees the
 * connection's slot and closes its descriptor when nothing of it is in flight.
 *
 * <p>Before it is registered with a poller only {@link #reset()} and {@link #close()} apply.
 *
 * <p>Thread safety: its loop's thread.
 */
final class UringEndpoint implements LendingEndpoint, TakesOutput {
    private static final long[] NO_ADDRESSES = {};
    private static final int[] NO_LENGTHS = {};
    private static final Object[] NO_TOKENS = {};
    private static final Returns[] NO_RETURNS = {};
    private static final int CONNECTED = 0;
    private static final int CONNECTING = 1;
    final SocketFd socket;
    final int fd;
    /** Set by {@link UringPoller#register}; null before. */
    private UringPoller poller;
    /** What the loop registered the connection with; null once it is forgotten. */
    Object attachment;
    /** The loop's interest: {@code Poller.READ | Poller.WRITE}, or {@code Poller.CONNECT} alone while connecting. */
    int interest;
    /** The slot in the poller's table and that slot's generation, both in every operation's user data; -1 once freed. */
    int slot = -1;
    int generation;
    /** Deregistered: the loop no longer hears of it. */
    boolean forgotten;
    /** Closed (or reset) by the loop; the slot lives on until nothing is in flight. */
    boolean closed;
    /** A graceful close waits for what waits to be sent. */
    private boolean closeAfterSend;
    /** An output shutdown waits for what waits to be sent. */
    private boolean shutdownAfterSend;
    /** Cancellations in flight. */
    private int cancels;

    // Connecting: the outcome, CONNECTED (accepted, or the connect ended well), CONNECTING, or minus the
    // connect's errno; the address the kernel reads while the connect is in flight, null for an accepted
    // connection and once the connect has completed.
    private int connect;
    private MemorySegment sockaddr;
    private boolean connectInFlight;
    private boolean connectCancelling;

    // The poller's lists this connection is on: to be handed to the loop, armed again, waiting for a buffer;
    // and whether the receive in flight was armed for a buffer given back and has not completed since.
    boolean listed;
    boolean rearmListed;
    boolean starved;
    boolean armedForBuffer;

    // Receiving: the held buffers, oldest first, as a queue of (id, length), with an offset into the first.
    private int[] heldIds = new int[8];
    private int[] heldLengths = new int[8];
    private int heldHead;
    private int heldCount;
    private int firstOffset;
    private boolean recvArmed;
    private boolean recvCancelling;
    private boolean endOfStream;
    /** The receive's errno, or 0. */
    private int recvError;
    /**
     * Bytes copied out of the ring's buffers ({@link #spill()}), their position to limit not yet consumed,
     * received before every held buffer; null when none. Lent through {@code spillLent}, a read-only view.
     */
    private ByteBuffer spill;
    private ByteBuffer spillLent;

    // Sending: a queue of taken buffers, oldest first; the first's bytes [0, sentOfFirst) are sent, and
    // inFlight of those after are in the SEND in flight (0: none). The arrays are made at the first
    // send, two entries long: a connection that never answers holds none of them.
    private long[] sendAddresses = NO_ADDRESSES;
    private int[] sendLengths = NO_LENGTHS;
    /**
     * Each taken buffer's size, however many bytes it has to send: what it holds of the loop's memory until
     * given back. A copy buffer of the poller's ({@link #write}) counts its bytes alone, as before: a TLS
     * handshake writes its flight in a few small pieces, one after the other, which must not each wait
     * for the last to complete.
     */
    private int[] sendSizes = NO_LENGTHS;
    private Object[] sendTokens = NO_TOKENS;
    private Returns[] sendReturns = NO_RETURNS;
    private int sendHead;
    private int sendCount;
    private int sentOfFirst;
    private int inFlight;
    /** Bytes taken and not yet sent: {@code 0 <= waiting}. */
    private long waiting;
    /** The sizes of the buffers taken and not yet given back, counted against the send limit: {@code >= waiting}. */
    private long holding;
    /** The send's errno, or 0. */
    private int sendError;

    /** An accepted connection. */
    UringEndpoint(SocketFd socket) {
        this(socket, null);
    }

    /**
     * A connection to connect to {@code sockaddr} once registered for {@link Poller#CONNECT}, or an accepted
     * one where it is null.
     */
    UringEndpoint(SocketFd socket, MemorySegment sockaddr) {
        this.socket = socket;
        this.fd = socket.fd();
        this.sockaddr = sockaddr;
        this.connect = sockaddr == null ? CONNECTED : CONNECTING;
    }

    /**
     * Called by {@link UringPoller#register}: submits the connect where it is registered for
     * {@link Poller#CONNECT}, else arms the receive.
     */
    void registered(UringPoller poller, int slot, int generation, Object attachment, int interest) {
        this.poller = poller;
        this.slot = slot;
        this.generation = generation;
        this.attachment = attachment;
        this.interest = interest;
        if (interest == Poller.CONNECT) {
            if (connect == CONNECTING) {
                poller.submitConnect(this, sockaddr.address(), (int) sockaddr.byteSize());
                connectInFlight = true;
            } else {
                poller.list(this); // connected already: reported at the next poll
            }
        } else if (connect != CONNECTED) {
            throw new IllegalStateException("ops=" + interest + ": a connection not yet connected is registered for "
                    + "CONNECT alone; " + this);
        } else {
            updateReceive();
        }
    }

    @Override
    public SocketAddress remoteAddress() {
        return socket.remoteAddress();
    }

    /** {@return what the loop can do now that it wants: {@code Poller.READ} and/or {@code Poller.WRITE}, or 0} */
    int readiness() {
        if ((interest & Poller.CONNECT) != 0) {
            return connectInFlight ? 0 : Poller.CONNECT;
        }
        int ops = 0;
        if ((interest & Poller.READ) != 0 && (heldCount > 0 || spill != null || endOfStream || recvError != 0)) {
            ops |= Poller.READ;
        }
        if ((interest & Poller.WRITE) != 0 && (sendError != 0 || hasRoom())) {
            ops |= Poller.WRITE;
        }
        if (recvError != 0 || sendError != 0) {
            ops |= interest; // an error shows as both interests, as epoll reports it
        }
        return ops;
    }

    /** {@return whether operations of this connection are in flight in the ring} */
    boolean inFlight() {
        return recvArmed || inFlight > 0 || cancels > 0 || connectInFlight;
    }

    // ---- connecting

    /** The connect's completion: 0, or minus its errno. */
    void connected(int result) {
        connectInFlight = false;
        sockaddr = null; // the kernel has let go of it
        if (closed) {
            poller.release(this);
            return;
        }
        connect = result >= 0 ? CONNECTED : result;
        poller.list(this);
    }

    /**
     * {@return true once connected (always, for an accepted connection); false while the connect is in flight}
     *
     * @throws NativeIoException the connect's failure, naming the address, at this and every later call
     * @throws ClosedChannelException if closed
     */
    @Override
    public boolean finishConnect() throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (connect == CONNECTED) {
            return true;
        }
        if (connect == CONNECTING) {
            return false;
        }
        throw new NativeIoException("connect", -connect, socket.describe());
    }

    // ---- receiving

    /** Arms or cancels the multishot receive, as the interest, the buffers held and the state say. */
    void updateReceive() {
        if (closed) {
            return;
        }
        boolean want = (interest & Poller.READ) != 0 && !endOfStream && recvError == 0
                && heldCount < poller.maxHeld() && spillRoom() && connect == CONNECTED;
        if (want) {
            if (!recvArmed && !starved && cancels == 0) {
                poller.submitReceive(this);
                recvArmed = true;
            }
        } else if (recvArmed && !recvCancelling) {
            poller.submitCancel(this, UringPoller.OP_RECV);
            cancels++;
            recvCancelling = true;
        }
    }

    /**
     * Arms the receive again after it ended for want of a buffer, if it is still wanted; the poller has
     * taken this connection off its list of starved ones. {@return whether a receive was armed}
     */
    boolean armAfterStarving() {
        boolean armed = recvArmed;
        updateReceive();
        return !armed && recvArmed;
    }

    /** A completion of the receive: {@code result} bytes in buffer {@code id} (-1 for none), or its end. */
    void received(int result, int id, boolean more) {
        if (!more) {
            recvArmed = false;
            recvCancelling = false;
        }
        if (result > 0 && id >= 0) {
            if (closed) {
                poller.recycle(id);
            } else {
                hold(id, result);
            }
        } else if (result == 0) {
            endOfStream = true;
        } else if (result == -Errno.ENOBUFS) {
            if (!closed) {
                poller.starve(this); // armed again once a buffer comes back
            }
        } else if (result < 0 && result != -Errno.ECANCELED) {
            recvError = -result;
        }
        if (closed) {
            poller.release(this);
            return;
        }
        poller.list(this);
        if (!more || heldCount >= poller.maxHeld()) {
            updateReceive();
        }
    }

    /** A cancellation completed. */
    void cancelled() {
        cancels--;
        updateReceive();
        poller.release(this);
    }

    private void hold(int id, int length) {
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

    /** Gives the first held buffer back to the ring. */
    private void dropFirst() {
        int id = heldIds[heldHead];
        heldHead = (heldHead + 1) % heldIds.length;
        heldCount--;
        firstOffset = 0;
        poller.recycle(id);
    }

    /** {@return the bytes copied out of the ring and not yet consumed} */
    private int spilled() {
        return spill == null ? 0 : spill.remaining();
    }

    /** {@return whether the copy is small enough to receive after it: half the cap's bytes, at most} */
    private boolean spillRoom() {
        return spill == null || spill.remaining() <= (long) poller.maxHeld() * poller.bufferSize() / 2;
    }

    /**
     * {@return whether this connection holds ring buffers the loop is not reading}: it does not want to
     * read, and is not closing (a graceful close's input is never read)
     */
    boolean spillable() {
        return heldCount > 0 && (interest & Poller.READ) == 0 && !closed;
    }

    /**
     * Copies the bytes of the held buffers, after what an earlier copy left, into memory of this
     * connection's own, exactly their size, and gives the buffers back to the ring; where the loop closes
     * the connection gracefully, gives them back without a copy, as it reads no more. {@return the bytes
     * copied out of the ring}
     */
    long spill() {
        if (closeAfterSend) {
            while (heldCount > 0) {
                dropFirst();
            }
            return 0;
        }
        long fromRing = 0;
        for (int i = 0; i < heldCount; i++) {
            fromRing += heldLengths[(heldHead + i) % heldIds.length] - (i == 0 ? firstOffset : 0);
        }
        ByteBuffer copy = ByteBuffer.allocate(Math.toIntExact(spilled() + fromRing)); // at most 1.5 caps' bytes
        if (spill != null) {
            copy.put(spill);
        }
        while (heldCount > 0) {
            int n = heldLengths[heldHead] - firstOffset;
            copy.put(copy.position(), poller.received(heldIds[heldHead]), firstOffset, n);
            copy.position(copy.position() + n);
            dropFirst();
        }
        spill = copy.flip();
        spillLent = copy.asReadOnlyBuffer();
        return fromRing;
    }

    @Override
    public ByteBuffer lend() {
        if (closed) {
            return null;
        }
        if (spill != null) {
            spillLent.limit(spill.limit());
            spillLent.position(spill.position());
            return spillLent;
        }
        if (heldCount == 0) {
            return null;
        }
        ByteBuffer b = poller.lent(heldIds[heldHead]);
        b.limit(heldLengths[heldHead]);
        b.position(firstOffset);
        return b;
    }

    /**
     * Past {@code n} bytes of the first held buffer, and the buffer back to the ring once all of it is;
     * the receive, if the cap had stopped it, listed to be armed again at the next poll.
     */
    @Override
    public void consume(int n) {
        if (spill != null) {
            consumeSpilled(n);
            return;
        }
        int lent = heldCount == 0 ? 0 : heldLengths[heldHead] - firstOffset;
        if (n < 0 || n > lent) {
            throw new IllegalArgumentException("n=" + n + " lent=" + lent + " " + this);
        }
        if (n == 0) {
            return;
        }
        firstOffset += n;
        if (firstOffset < heldLengths[heldHead]) {
            return;
        }
        dropFirst();
        if (!recvArmed && heldCount <= poller.maxHeld() / 2) {
            poller.rearmLater(this);
        }
    }

    /** Past {@code n} bytes of the copy; the receive listed to be armed again once the copy is small enough. */
    private void consumeSpilled(int n) {
        if (n < 0 || n > spill.remaining()) {
            throw new IllegalArgumentException("n=" + n + " lent=" + spill.remaining() + " (copied out of the ring) "
                    + this);
        }
        spill.position(spill.position() + n);
        if (!spill.hasRemaining()) {
            spill = null;
            spillLent = null;
        }
        if (!recvArmed && n > 0 && spillRoom()) {
            poller.rearmLater(this);
        }
    }

    @Override
    public boolean ended() throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (heldCount > 0 || spill != null) {
            return false;
        }
        if (recvError != 0) {
            throw new NativeIoException("recv", recvError, "io_uring multishot, " + socket);
        }
        return endOfStream;
    }

    /** Copies held bytes into {@code dst}, giving back each buffer emptied. */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (heldCount == 0 && spill == null) {
            return ended() ? -1 : 0;
        }
        int total = 0;
        if (spill != null) {
            int n = Math.min(spill.remaining(), dst.remaining());
            int position = dst.position();
            dst.put(position, spill, spill.position(), n);
            dst.position(position + n);
            total = n;
            consumeSpilled(n);
        }
        while (heldCount > 0 && dst.hasRemaining() && spill == null) {
            int left = heldLengths[heldHead] - firstOffset;
            int n = Math.min(left, dst.remaining());
            int position = dst.position();
            dst.put(position, poller.received(heldIds[heldHead]), firstOffset, n);
            dst.position(position + n);
            total += n;
            if (n == left) {
                dropFirst();
            } else {
                firstOffset += n;
            }
        }
        if (!recvArmed && heldCount <= poller.maxHeld() / 2) {
            try {
                updateReceive(); // under the cap again
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        return total;
    }

    // ---- sending

    private boolean hasRoom() {
        return sendCount == 0 || holding < poller.sendLimit();
    }

    @Override
    public boolean take(ByteBuffer src, MemorySegment memory, Object token, Returns returns) throws IOException {
        checkWritable();
        if (!hasRoom()) {
            return false;
        }
        int position = src.position();
        if (memory.byteSize() < src.limit()) {
            throw new IllegalArgumentException("memory=" + memory + " does not span buffer=" + src + " to its limit");
        }
        try {
            queue(memory.address() + position, src.limit() - position, src.capacity(), token, returns);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return true;
    }

    /**
     * Copies what fits of {@code src} into the poller's send buffer after what other writes left there,
     * and sends it from there; {@return the count}
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        checkWritable();
        if (!src.hasRemaining() || !hasRoom()) {
            return 0;
        }
        CopyBuffers.CopyBuffer copy = poller.copyBufferFor(src.remaining());
        int at = copy.used;
        int n = Math.min(src.remaining(), copy.view.capacity() - at);
        int position = src.position();
        copy.view.put(at, src, position, n);
        src.position(position + n);
        CopyBuffers.handed(copy, n);
        try {
            queue(copy.address + at, n, n, copy, poller.copyReturns()); // the poller's buffer: its bytes count
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return n;
    }

    private void checkWritable() throws IOException {
        if (closed || closeAfterSend) {
            throw new ClosedChannelException();
        }
        if (sendError != 0) {
            throw new NativeIoException("send", sendError, "io_uring, " + socket);
        }
    }

    private void queue(long address, int length, int size, Object token, Returns returns) {
        if (sendCount == sendAddresses.length) {
            int grown = Math.max(2, sendCount * 2);
            long[] addresses = new long[grown];
            int[] lengths = new int[grown];
            int[] sizes = new int[grown];
            Object[] tokens = new Object[grown];
            Returns[] returnsTo = new Returns[grown];
            for (int i = 0; i < sendCount; i++) {
                int at = (sendHead + i) % sendAddresses.length;
                addresses[i] = sendAddresses[at];
                lengths[i] = sendLengths[at];
                sizes[i] = sendSizes[at];
                tokens[i] = sendTokens[at];
                returnsTo[i] = sendReturns[at];
            }
            sendAddresses = addresses;
            sendLengths = lengths;
            sendSizes = sizes;
            sendTokens = tokens;
            sendReturns = returnsTo;
            sendHead = 0;
        }
        int at = (sendHead + sendCount) % sendAddresses.length;
        sendAddresses[at] = address;
        sendLengths[at] = length;
        sendSizes[at] = size;
        sendTokens[at] = token;
        sendReturns[at] = returns;
        sendCount++;
        waiting += length;
        holding += size;
        if (inFlight == 0) {
            sendFirst();
        }
    }

    private void sendFirst() {
        int length = sendLengths[sendHead] - sentOfFirst;
        poller.submitSend(this, sendAddresses[sendHead] + sentOfFirst, length);
        inFlight = length;
    }

    /** Gives the first taken buffer back to whoever handed it over. */
    private void returnFirst() {
        int at = sendHead;
        Object token = sendTokens[at];
        Returns returns = sendReturns[at];
        waiting -= sendLengths[at] - sentOfFirst; // what of it was not sent: nothing, once it all was
        holding -= sendSizes[at];
        sendTokens[at] = null;
        sendReturns[at] = null;
        sendHead = (sendHead + 1) % sendAddresses.length;
        sendCount--;
        sentOfFirst = 0;
        returns.returned(token);
    }

    /** Gives back every taken buffer not in flight: what will never be sent. */
    private void returnAllButInFlight() {
        while (sendCount > (inFlight > 0 ? 1 : 0)) {
            if (inFlight > 0) { // keep the first: the kernel may still read it
                int at = (sendHead + sendCount - 1) % sendAddresses.length;
                Object token = sendTokens[at];
                Returns returns = sendReturns[at];
                waiting -= sendLengths[at];
                holding -= sendSizes[at];
                sendTokens[at] = null;
                sendReturns[at] = null;
                sendCount--;
                returns.returned(token);
            } else {
                returnFirst();
            }
        }
    }

    /** The completion of the send in flight: {@code result} bytes sent, or minus its errno. */
    void sent(int result) {
        inFlight = 0;
        if (result > 0) {
            waiting -= result;
            sentOfFirst += result;
            if (sentOfFirst == sendLengths[sendHead]) {
                returnFirst();
            }
        } else if (result < 0 && result != -Errno.ECANCELED) {
            sendError = -result;
        }
        if (closed || sendError != 0) {
            returnAllButInFlight(); // what was not sent never will be
            if (closed) {
                poller.release(this);
                return;
            }
            if (closeAfterSend) {
                finishClose(true);
            } else {
                poller.list(this); // the error shows to the loop's next read or write
            }
            return;
        }
        if (sendCount > 0) {
            sendFirst();
        } else {
            if (closeAfterSend) {
                finishClose(false);
                return;
            }
            if (shutdownAfterSend) {
                shutdownAfterSend = false;
                shutdownQuietly();
            }
        }
        if ((interest & Poller.WRITE) != 0) {
            poller.list(this);
        }
    }

    /** {@return whether bytes taken are still to go, and can: no send has failed} */
    private boolean sendsWaiting() {
        return sendCount > 0 && sendError == 0;
    }

    // ---- closing

    @Override
    public boolean isOpen() {
        return !closed;
    }

    /** Ends the output once what waits has been sent; the receive goes on. */
    @Override
    public void shutdownOutput() throws IOException {
        if (closed || closeAfterSend) {
            throw new ClosedChannelException();
        }
        if (poller != null && sendsWaiting()) {
            shutdownAfterSend = true;
        } else {
            socket.shutdownOutput();
        }
    }

    /** Ends the output after the last send; a socket that refuses (reset meanwhile) shows it to the next read. */
    private void shutdownQuietly() {
        try {
            socket.shutdownOutput();
        } catch (IOException ignored) {
            // the receive reports what broke the socket
        }
    }

    @Override
    public void close() throws IOException {
        if (poller == null) {
            closed = true;
            socket.close();
        } else if (!closed && !closeAfterSend) {
            close(false);
        }
    }

    @Override
    public void reset() {
        if (poller == null) {
            closed = true;
            socket.reset();
        } else if (!closed) {
            close(true);
        }
    }

    /** A reset, or a graceful close: at once where nothing waits to be sent, else after the last send. */
    void close(boolean reset) {
        if (reset) {
            if (inFlight > 0) {
                poller.submitCancel(this, UringPoller.OP_SEND);
                cancels++;
            }
            returnAllButInFlight();
            finishClose(true);
        } else if (sendsWaiting()) {
            closeAfterSend = true; // the last send's completion closes it
            interest = 0;
            updateReceive();
        } else {
            finishClose(false);
        }
    }

    /**
     * Cancels the receive; the poller frees the slot and closes the descriptor once the last operation on
     * it has completed. Not before: an operation prepared and not yet submitted names the descriptor by
     * its number, which, closed, the next socket opened would take, and the operation would then act on
     * that socket.
     */
    private void finishClose(boolean reset) {
        closed = true;
        closeAfterSend = false;
        interest = 0;
        while (heldCount > 0) {
            dropFirst();
        }
        spill = null;
        spillLent = null;
        if (recvArmed && !recvCancelling) {
            poller.submitCancel(this, UringPoller.OP_RECV);
            cancels++;
            recvCancelling = true;
        }
        if (connectInFlight && !connectCancelling) {
            poller.submitCancel(this, UringPoller.OP_CONNECT);
            cancels++;
            connectCancelling = true;
        }
        if (reset && socket.inet()) {
            try {
                socket.setLinger(0); // the close, when it comes, resets
            } catch (IOException ignored) {
                // a socket that refuses the option is broken already: closing it is all that is left
            }
        }
        poller.release(this);
    }

    /** Closes the descriptor: called by the poller once nothing of this connection is in flight. */
    void closeDescriptor() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing releases the descriptor even when it reports an error
        }
    }

    @Override
    public String toString() {
        return "UringEndpoint[" + socket + " slot=" + slot + " held=" + heldCount
                + (spill == null ? "" : " copied=" + spill.remaining()) + " sending=" + waiting + " in " + holding
                + (connect == CONNECTING ? " connecting" : connect < 0 ? " connect failed" : "")
                + (closed ? " closed" : "") + "]";
    }
}
