package dev.wirespeed.linux.internal.uring;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.FdCalls;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The poller of an {@code IoUringTransport} loop: its ring, its receive buffers, its send buffers and
 * the table of its connections. It turns completions into the readiness the loop asks for, level-triggered
 * as {@code epoll} would report it: a connection is handed over while it holds received bytes (or its
 * end, or an error) and the loop wants to read, or has room in its send buffer and the loop wants to write.
 *
 * <p>Every operation's user data is the connection's slot and that slot's generation, with the
 * operation in the low bits; a slot is reused only once every operation of its connection has completed.
 *
 * <p>Thread safety: its loop's thread, which opens the ring on first use; {@link #wakeup()} from any.
 */
public final class UringPoller implements Poller {
    private static final int OP_RECV = 0;
    private static final int OP_SEND = 1;
    private static final int OP_CANCEL = 2;
    private static final int OP_WAKE = 3;
    private static final int OP_LISTEN = 4;
    private static final int OP_BITS = 3;
    private static final int SEND_BUFFERS_PER_SLAB = 16;
    private static final int PAGE = 4096;
    /** How long a full submission queue may wait for the kernel to take entries (an SQPOLL thread's own pace). */
    private static final long ROOM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long closing waits for cancelled operations to complete before it frees their memory. */
    private static final long CLOSE_DRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final int bufferCount;
    private final int bufferSize;
    private final int maxHeld;
    private final int sendBufferSize;
    private final Ring.Params options;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment capture = LibC.captureSegment(arena);
    /** {@code wakeup} writes this 8-byte count from any thread, with its own errno capture. */
    private final MemorySegment one = arena.allocate(8, 8);
    private final MemorySegment wakeCapture = LibC.captureSegment(arena);
    private final MemorySegment drained = arena.allocate(8, 8);
    private final int eventfd;
    private final Ring.Completion onCompletion = this::completed;

    private Ring ring;
    private BufferRing buffers;
    /** Receive buffer {@code id}, as a buffer to copy from, and as the read-only one lent to the loop. */
    private ByteBuffer[] received;
    private ByteBuffer[] lent;
    private boolean closed;
    private boolean wakeArmed;
    private boolean woken;

    private final List<ListenerEntry> listeners = new ArrayList<>();
    private int listenersFired;

    /** {@code slots[0, slotsUsed)}: connections by slot, null where free; free slots on a stack. */
    private UringEndpoint[] slots = new UringEndpoint[64];
    private int[] generations = new int[64];
    private int slotsUsed;
    private int[] freeSlots = new int[64];
    private int freeCount;
    private int live;

    /** Connections to hand to the loop at the end of this poll, and the array handed last time. */
    private UringEndpoint[] ready = new UringEndpoint[64];
    private int readyCount;
    private UringEndpoint[] handing = new UringEndpoint[64];

    /** Connections under their cap of held buffers again after the loop gave one back, armed at the next poll. */
    private UringEndpoint[] rearm = new UringEndpoint[16];
    private int rearmCount;

    /** Connections whose receive ended for want of a buffer, armed again once one comes back. */
    private UringEndpoint[] starved = new UringEndpoint[16];
    private int starvedCount;
    private boolean recycled;

    /** Send buffers by index, as addresses and as buffers to copy into; free ones on a stack. */
    private long[] sendAddresses = new long[0];
    private ByteBuffer[] sendViews = new ByteBuffer[0];
    private int[] freeSend = new int[0];
    private int freeSendCount;

    /** A listener, polled one shot at a time so that what it still has waiting is seen again. */
    private static final class ListenerEntry {
        final UringListener listener;
        final Object attachment;
        boolean armed;
        boolean fired;

        ListenerEntry(UringListener listener, Object attachment) {
            this.listener = listener;
            this.attachment = attachment;
        }
    }

    /**
     * A poller whose ring, opened on its loop's thread at first use, has {@code options}.
     *
     * @param options the ring's options
     * @param bufferCount receive buffers, a power of two
     * @param bufferSize bytes of each receive buffer
     * @param maxHeld receive buffers one connection holds at most before its receive is cancelled
     * @param sendBufferSize bytes of a connection's send buffer
     * @throws IOException if the wake-up {@code eventfd} cannot be made
     */
    public UringPoller(Ring.Params options, int bufferCount, int bufferSize, int maxHeld, int sendBufferSize)
            throws IOException {
        this.options = options;
        this.bufferCount = bufferCount;
        this.bufferSize = bufferSize;
        this.maxHeld = maxHeld;
        this.sendBufferSize = sendBufferSize;
        one.set(ValueLayout.JAVA_LONG, 0, 1);
        try {
            eventfd = (int) LibC.EVENTFD.invokeExact(capture, 0, Flags.EFD_NONBLOCK | Flags.EFD_CLOEXEC);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        } catch (Throwable t) {
            arena.close();
            throw new IllegalStateException("eventfd down-call failed", t);
        }
        if (eventfd < 0) {
            int errno = LibC.errno(capture);
            arena.close();
            throw new NativeIoException("eventfd", errno, "flags=EFD_NONBLOCK|EFD_CLOEXEC");
        }
    }

    /** Opens the ring, on the loop's thread, the one {@code SINGLE_ISSUER} lets submit. */
    private void ensureRing() throws IOException {
        if (ring != null) {
            return;
        }
        if (closed) {
            throw new IOException("poller closed");
        }
        Ring r = Ring.open(options);
        try {
            buffers = BufferRing.register(r, 0, bufferCount, bufferSize);
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
        received = new ByteBuffer[bufferCount];
        lent = new ByteBuffer[bufferCount];
        for (int id = 0; id < bufferCount; id++) {
            received[id] = buffers.memory().asSlice((long) id * bufferSize, bufferSize).asByteBuffer();
            lent[id] = received[id].asReadOnlyBuffer(); // big-endian, as the frames are
        }
        ring = r;
    }

    private static long userData(int op, int slot, int generation) {
        return (long) generation << 32 | (long) slot << OP_BITS | op;
    }

    private static long userData(int op, UringEndpoint e) {
        return userData(op, e.slot, e.generation);
    }

    /**
     * Makes room for one submission, submitting what is prepared if the queue is full; under {@code SQPOLL},
     * whose kernel thread takes submissions in its own time, waits (a bounded time) for it to take some.
     */
    private void room() {
        if (ring.pending() < ring.submissionEntries()) {
            return;
        }
        long deadline = System.nanoTime() + (ring.sqPolling() ? ROOM_WAIT_NANOS : 0);
        try {
            while (true) {
                ring.submit(); // wakes a sleeping SQPOLL thread
                if (ring.pending() < ring.submissionEntries()) {
                    return;
                }
                if (System.nanoTime() - deadline >= 0) {
                    break;
                }
                Thread.onSpinWait();
            }
        } catch (NativeIoException e) {
            throw new UncheckedIOException(e);
        }
        throw new UncheckedIOException(new IOException("io_uring submission queue full (" + ring.pending()
                + " of " + ring.submissionEntries() + ") and the kernel took none"
                + (ring.sqPolling() ? " in " + TimeUnit.NANOSECONDS.toMillis(ROOM_WAIT_NANOS) + " ms" : "") + ": "
                + ring));
    }

    @Override
    public void register(Endpoint endpoint, Object attachment, int ops) throws IOException {
        UringEndpoint e = (UringEndpoint) endpoint;
        if (e.poller != null) {
            throw new IllegalStateException("registered already: " + e);
        }
        ensureRing();
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            if (slotsUsed == slots.length) {
                slots = Arrays.copyOf(slots, slotsUsed * 2);
                generations = Arrays.copyOf(generations, slotsUsed * 2);
                freeSlots = Arrays.copyOf(freeSlots, slotsUsed * 2);
            }
            slot = slotsUsed++;
        }
        slots[slot] = e;
        live++;
        e.slot = slot;
        e.generation = generations[slot];
        e.poller = this;
        e.attachment = attachment;
        e.interest = ops;
        try {
            updateReceive(e);
        } catch (UncheckedIOException x) {
            throw x.getCause();
        }
    }

    @Override
    public void register(Listener listener, Object attachment) {
        listeners.add(new ListenerEntry((UringListener) listener, attachment));
    }

    @Override
    public void interest(Endpoint endpoint, int ops) throws IOException {
        UringEndpoint e = (UringEndpoint) endpoint;
        e.interest = ops;
        try {
            updateReceive(e);
        } catch (UncheckedIOException x) {
            throw x.getCause();
        }
        list(e);
    }

    @Override
    public void deregister(Endpoint endpoint) {
        UringEndpoint e = (UringEndpoint) endpoint;
        e.forgotten = true;
        e.attachment = null;
        e.interest = 0; // the close that follows cancels the receive
    }

    /** Arms or cancels {@code e}'s multishot receive, as its interest, the buffers it holds and its state say. */
    private void updateReceive(UringEndpoint e) {
        if (e.closed) {
            return;
        }
        boolean want = (e.interest & READ) != 0 && !e.endOfStream && e.recvError == 0 && e.heldCount < maxHeld;
        if (want) {
            if (!e.recvArmed && !e.starved && e.cancels == 0) {
                room();
                ring.recvMultishot(e.fd, buffers, userData(OP_RECV, e));
                e.recvArmed = true;
            }
        } else if (e.recvArmed && !e.recvCancelling) {
            cancel(e, OP_RECV);
            e.recvCancelling = true;
        }
    }

    private void cancel(UringEndpoint e, int op) {
        room();
        ring.cancel(userData(op, e), userData(OP_CANCEL, e));
        e.cancels++;
    }

    /** Adds {@code e} to the connections to hand over at the end of this poll. */
    private void list(UringEndpoint e) {
        if (e.listed || e.forgotten || e.closed) {
            return;
        }
        if (readyCount == ready.length) {
            ready = Arrays.copyOf(ready, readyCount * 2);
        }
        ready[readyCount++] = e;
        e.listed = true;
    }

    private int sendRoom(UringEndpoint e) {
        return sendBufferSize - e.sendTail + (e.sendLength == 0 ? e.sendHead : 0);
    }

    private int readiness(UringEndpoint e) {
        int ops = 0;
        if ((e.interest & READ) != 0 && (e.heldCount > 0 || e.endOfStream || e.recvError != 0)) {
            ops |= READ;
        }
        if ((e.interest & WRITE) != 0 && (e.sendError != 0 || sendRoom(e) > 0)) {
            ops |= WRITE;
        }
        if (e.recvError != 0 || e.sendError != 0) {
            ops |= e.interest; // an error shows as both interests, as epoll reports it
        }
        return ops;
    }

    @Override
    public int poll(long timeoutMillis, Ready onReady) throws IOException {
        ensureRing();
        try {
            long deadline = timeoutMillis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis) : 0;
            woken = false;
            while (true) {
                arm();
                boolean wait = timeoutMillis != 0 && readyCount == 0 && listenersFired == 0 && !woken;
                long left = timeoutMillis > 0 ? deadline - System.nanoTime() : 0;
                if (timeoutMillis > 0 && left <= 0) {
                    wait = false;
                }
                if (!wait) {
                    if (ring.pending() > 0) {
                        ring.submit();
                    } // else complete() enters the kernel only if the queue is empty and completion work waits
                } else if (timeoutMillis < 0) {
                    ring.submitAndWait(1);
                } else {
                    ring.submitAndWait(1, left);
                }
                ring.complete(onCompletion);
                if (!wait || readyCount > 0 || listenersFired > 0 || woken) {
                    break;
                }
                // Only sends and cancellations completed: nothing for the loop yet, so wait on.
            }
            return hand(onReady);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Arms what a completion ended: the wake-up poll, the listeners' polls, starved receives once a buffer is back. */
    private void arm() {
        if (!wakeArmed) {
            room();
            ring.poll(eventfd, Flags.POLLIN, true, userData(OP_WAKE, 0, 0));
            wakeArmed = true;
        }
        for (int i = 0; i < listeners.size(); i++) {
            ListenerEntry l = listeners.get(i);
            if (!l.armed && !l.fired && l.listener.socket().isOpen()) { // a closed one's descriptor may be reused
                room();
                ring.poll(l.listener.socket().fd(), Flags.POLLIN, false, userData(OP_LISTEN, i, 0));
                l.armed = true;
            }
        }
        for (int i = 0; i < rearmCount; i++) {
            UringEndpoint e = rearm[i];
            rearm[i] = null;
            e.rearmListed = false;
            updateReceive(e);
        }
        rearmCount = 0;
        if (recycled && starvedCount > 0) {
            int n = starvedCount;
            starvedCount = 0;
            recycled = false;
            for (int i = 0; i < n; i++) {
                UringEndpoint e = starved[i];
                starved[i] = null;
                e.starved = false;
                updateReceive(e);
            }
        }
    }

    /** Hands the listed connections and fired listeners to the loop; lists again those with something left. */
    private int hand(Ready onReady) {
        int n = readyCount;
        UringEndpoint[] h = ready;
        ready = handing.length >= h.length ? handing : new UringEndpoint[h.length];
        handing = h;
        readyCount = 0;
        int handed = 0;
        for (int i = 0; i < n; i++) {
            UringEndpoint e = h[i];
            h[i] = null;
            e.listed = false;
            if (e.forgotten || e.closed) {
                continue;
            }
            int ops = readiness(e);
            if (ops != 0) {
                onReady.ready(e.attachment, ops);
                handed++;
                if (readiness(e) != 0) {
                    list(e); // level-triggered: what the loop left is handed over at its next poll
                }
            }
        }
        if (listenersFired > 0) {
            listenersFired = 0;
            for (int i = 0; i < listeners.size(); i++) {
                ListenerEntry l = listeners.get(i);
                if (l.fired) {
                    l.fired = false;
                    onReady.ready(l.attachment, READ);
                    handed++;
                }
            }
        }
        return handed;
    }

    private void completed(long userData, int result, int flags) {
        int op = (int) userData & ((1 << OP_BITS) - 1);
        int slot = (int) (userData >>> OP_BITS) & ((1 << (32 - OP_BITS)) - 1);
        if (op == OP_WAKE) {
            woken = true;
            FdCalls.read(capture, eventfd, drained.address(), 8); // resets the count
            if ((flags & Ring.CQE_F_MORE) == 0) {
                wakeArmed = false;
            }
            return;
        }
        if (op == OP_LISTEN) {
            ListenerEntry l = listeners.get(slot);
            l.armed = false;
            if (result != -Errno.ECANCELED && !l.fired) {
                l.fired = true; // an error, too, is for accept to report
                listenersFired++;
            }
            return;
        }
        UringEndpoint e = slot < slotsUsed ? slots[slot] : null;
        if (e == null || e.generation != (int) (userData >>> 32)) {
            // A slot outlives its operations, so this cannot come; a buffer it carried goes back all the same.
            if ((flags & Ring.CQE_F_BUFFER) != 0) {
                recycle(flags >>> Ring.CQE_BUFFER_SHIFT);
            }
            return;
        }
        switch (op) {
            case OP_RECV -> received(e, result, flags);
            case OP_SEND -> sent(e, result);
            default -> {
                e.cancels--;
                updateReceive(e);
                release(e);
            }
        }
    }

    private void received(UringEndpoint e, int result, int flags) {
        boolean more = (flags & Ring.CQE_F_MORE) != 0;
        if (!more) {
            e.recvArmed = false;
            e.recvCancelling = false;
        }
        if (result > 0 && (flags & Ring.CQE_F_BUFFER) != 0) {
            int id = flags >>> Ring.CQE_BUFFER_SHIFT;
            if (e.closed) {
                recycle(id);
            } else {
                e.hold(id, result);
            }
        } else if (result == 0) {
            e.endOfStream = true;
        } else if (result == -Errno.ENOBUFS) {
            if (!e.closed && !e.starved) {
                e.starved = true;
                if (starvedCount == starved.length) {
                    starved = Arrays.copyOf(starved, starvedCount * 2);
                }
                starved[starvedCount++] = e;
            }
        } else if (result < 0 && result != -Errno.ECANCELED) {
            e.recvError = -result;
        }
        if (e.closed) {
            release(e);
            return;
        }
        list(e);
        if (!more || e.heldCount >= maxHeld) {
            updateReceive(e);
        }
    }

    private void sent(UringEndpoint e, int result) {
        e.sendLength = 0;
        if (result > 0) {
            e.sendHead += result;
        } else if (result < 0 && result != -Errno.ECANCELED) {
            e.sendError = -result;
        }
        if (e.closed) {
            release(e);
            return;
        }
        if (e.sendError != 0) {
            e.sendHead = e.sendTail = 0; // what was not sent never will be
            releaseSendBuffer(e);
            if (e.closeAfterSend) {
                finishClose(e, true);
            } else {
                list(e);
            }
            return;
        }
        if (e.sendHead < e.sendTail) {
            submitSend(e);
        } else {
            e.sendHead = e.sendTail = 0;
            releaseSendBuffer(e);
            if (e.closeAfterSend) {
                finishClose(e, false);
                return;
            }
            if (e.shutdownAfterSend) {
                e.shutdownAfterSend = false;
                shutdownQuietly(e);
            }
        }
        if ((e.interest & WRITE) != 0) {
            list(e);
        }
    }

    private void submitSend(UringEndpoint e) {
        int length = e.sendTail - e.sendHead;
        room();
        ring.send(e.fd, sendAddresses[e.sendBuffer] + e.sendHead, length, Flags.MSG_NOSIGNAL, userData(OP_SEND, e));
        e.sendLength = length;
    }

    /** {@link UringEndpoint#read}: copies held bytes into {@code dst}, giving back each buffer emptied. */
    int copyHeld(UringEndpoint e, ByteBuffer dst) throws IOException {
        int total = 0;
        while (e.heldCount > 0 && dst.hasRemaining()) {
            int at = e.heldHead;
            int id = e.heldIds[at];
            int left = e.heldLengths[at] - e.firstOffset;
            int n = Math.min(left, dst.remaining());
            int position = dst.position();
            dst.put(position, received[id], e.firstOffset, n);
            dst.position(position + n);
            total += n;
            if (n == left) {
                recycle(e.dropFirst());
            } else {
                e.firstOffset += n;
            }
        }
        if (!e.recvArmed && e.heldCount <= maxHeld / 2) {
            try {
                updateReceive(e); // under the cap again
            } catch (UncheckedIOException x) {
                throw x.getCause();
            }
        }
        return total;
    }

    /** {@link UringEndpoint#lend()}: the first held buffer's unread bytes, in place. */
    ByteBuffer lend(UringEndpoint e) {
        int at = e.heldHead;
        ByteBuffer b = lent[e.heldIds[at]];
        b.limit(e.heldLengths[at]);
        b.position(e.firstOffset);
        return b;
    }

    /**
     * {@link UringEndpoint#consume(int)}: past {@code n} bytes of the first held buffer, and the buffer back
     * to the ring once all of it is; the receive, if the cap had stopped it, listed to be armed at the
     * next poll, which submits it in any case.
     */
    void consume(UringEndpoint e, int n) {
        e.firstOffset += n;
        if (e.firstOffset < e.heldLengths[e.heldHead]) {
            return;
        }
        recycle(e.dropFirst());
        if (!e.recvArmed && !e.rearmListed && e.heldCount <= maxHeld / 2) {
            if (rearmCount == rearm.length) {
                rearm = Arrays.copyOf(rearm, rearmCount * 2);
            }
            rearm[rearmCount++] = e;
            e.rearmListed = true;
        }
    }

    /** {@link UringEndpoint#write}: copies what fits of {@code src} into {@code e}'s send buffer and sends it. */
    int copyToSend(UringEndpoint e, ByteBuffer src) throws IOException {
        int remaining = src.remaining();
        if (remaining == 0) {
            return 0;
        }
        try {
            if (e.sendBuffer < 0) {
                e.sendBuffer = takeSendBuffer();
            }
            ByteBuffer view = sendViews[e.sendBuffer];
            if (e.sendLength == 0 && e.sendHead > 0) {
                view.put(0, view, e.sendHead, e.sendTail - e.sendHead); // nothing in flight: move what waits to the front
                e.sendTail -= e.sendHead;
                e.sendHead = 0;
            }
            int n = Math.min(remaining, sendBufferSize - e.sendTail);
            if (n == 0) {
                return 0;
            }
            int position = src.position();
            view.put(e.sendTail, src, position, n);
            src.position(position + n);
            e.sendTail += n;
            if (e.sendLength == 0) {
                submitSend(e);
            }
            return n;
        } catch (UncheckedIOException x) {
            throw x.getCause();
        }
    }

    private int takeSendBuffer() {
        if (freeSendCount == 0) {
            int have = sendAddresses.length;
            MemorySegment slab = arena.allocate((long) sendBufferSize * SEND_BUFFERS_PER_SLAB, PAGE);
            sendAddresses = Arrays.copyOf(sendAddresses, have + SEND_BUFFERS_PER_SLAB);
            sendViews = Arrays.copyOf(sendViews, have + SEND_BUFFERS_PER_SLAB);
            freeSend = Arrays.copyOf(freeSend, have + SEND_BUFFERS_PER_SLAB);
            for (int i = SEND_BUFFERS_PER_SLAB - 1; i >= 0; i--) {
                MemorySegment buffer = slab.asSlice((long) i * sendBufferSize, sendBufferSize);
                sendAddresses[have + i] = buffer.address();
                sendViews[have + i] = buffer.asByteBuffer();
                freeSend[freeSendCount++] = have + i;
            }
        }
        return freeSend[--freeSendCount];
    }

    private void releaseSendBuffer(UringEndpoint e) {
        if (e.sendBuffer >= 0 && e.sendLength == 0) {
            freeSend[freeSendCount++] = e.sendBuffer;
            e.sendBuffer = -1;
        }
    }

    private void recycle(int id) {
        buffers.recycle(id);
        recycled = true;
    }

    /** {@link UringEndpoint#shutdownOutput}: at once if nothing waits to be sent, else once the last send completes. */
    void shutdownOutput(UringEndpoint e) throws IOException {
        if (sendsWaiting(e)) {
            e.shutdownAfterSend = true;
        } else {
            e.socket.shutdownOutput();
        }
    }

    /** {@return whether bytes of {@code e}'s send buffer are still to go, and can: no send has failed} */
    private static boolean sendsWaiting(UringEndpoint e) {
        return e.sendTail > e.sendHead && e.sendError == 0;
    }

    /** Ends {@code e}'s output after its last send; a socket that refuses (reset meanwhile) shows it to the next read. */
    private static void shutdownQuietly(UringEndpoint e) {
        try {
            e.socket.shutdownOutput();
        } catch (IOException ignored) {
            // the receive reports what broke the socket
        }
    }

    /** {@link UringEndpoint#close} and {@link UringEndpoint#reset}. */
    void close(UringEndpoint e, boolean reset) {
        if (reset) {
            e.sendHead = e.sendTail = 0;
            if (e.sendLength > 0) {
                cancel(e, OP_SEND);
            }
            finishClose(e, true);
        } else if (sendsWaiting(e)) {
            e.closeAfterSend = true; // the last send's completion closes it
            e.interest = 0;
            updateReceive(e);
        } else {
            finishClose(e, false);
        }
    }

    /**
     * Closes {@code e}'s descriptor and cancels its receive; the kernel releases the socket when the
     * last operation on it completes, and the slot is freed then.
     */
    private void finishClose(UringEndpoint e, boolean reset) {
        e.closed = true;
        e.closeAfterSend = false;
        e.interest = 0;
        while (e.heldCount > 0) {
            recycle(e.dropFirst());
        }
        if (e.recvArmed && !e.recvCancelling) {
            cancel(e, OP_RECV);
            e.recvCancelling = true;
        }
        if (reset) {
            e.socket.reset();
        } else {
            try {
                e.socket.close();
            } catch (IOException ignored) {
                // closing releases the descriptor even when it reports an error
            }
        }
        release(e);
    }

    /** Frees a closed connection's slot and send buffer once nothing of it is in flight. */
    private void release(UringEndpoint e) {
        if (!e.closed || e.inFlight() || e.slot < 0) {
            return;
        }
        releaseSendBuffer(e);
        int slot = e.slot;
        slots[slot] = null;
        generations[slot]++;
        freeSlots[freeCount++] = slot;
        e.slot = -1;
        live--;
    }

    /** Synchronized with {@link #close()}: a descriptor closed, then reused, must not be written. */
    @Override
    public synchronized void wakeup() {
        if (!closed) {
            FdCalls.write(wakeCapture, eventfd, one.address(), 8);
        }
    }

    /**
     * Resets what is still open, waits (a bounded time) for the cancelled operations to complete, then
     * closes the ring and frees the buffers. Memory an operation might still use is not freed.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        boolean drained = true;
        if (ring != null) {
            try {
                for (int i = 0; i < slotsUsed; i++) {
                    UringEndpoint e = slots[i];
                    if (e != null && !e.closed) {
                        close(e, true);
                    }
                }
                long until = System.nanoTime() + CLOSE_DRAIN_NANOS;
                while (live > 0 && System.nanoTime() - until < 0) {
                    ring.submitAndWait(1, TimeUnit.MILLISECONDS.toNanos(10));
                    ring.complete(onCompletion);
                }
            } catch (IOException | UncheckedIOException e) {
                drained = false;
            }
            drained &= live == 0;
            if (drained) {
                buffers.close();
            }
            ring.close();
        }
        Sys.closeQuietly(eventfd);
        if (drained) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "UringPoller[" + (ring == null ? "no ring yet" : ring) + " connections=" + live + " listeners="
                + listeners.size() + "]";
    }
}
