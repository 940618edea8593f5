package dev.wirespeed.linux.internal.uring;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.FdCalls;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import dev.wirespeed.loop.internal.TakesOutput;
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
 * The poller of an {@code IoUringTransport} loop: its ring, its provided receive buffers, the table of
 * its connections ({@link UringEndpoint}s, which keep their own state) and the lists of those it owes
 * something: readiness to hand to the loop, a receive to arm again, a buffer to wait for. It turns
 * completions into the readiness the loop asks for, level-triggered as {@code epoll} would report it: a
 * connection is handed over while it holds received bytes (or its end, or an error) and the loop wants
 * to read, or can take output and the loop wants to write; a connecting one, with {@link #CONNECT}, once
 * its connect has completed.
 *
 * <p>A poll gives back the slabs of send buffers unused for their time ({@link CopyBuffers}), and while
 * one is unused waits no longer than until it is due: a wait that ends for it hands over nothing, as one
 * whose time ran out, and an idle loop's next poll waits for the next.
 *
 * <p>Every operation's user data is the connection's slot and that slot's generation, with the
 * operation in the low bits; a slot is reused only once every operation of its connection has completed.
 *
 * <p>Thread safety: its loop's thread, which opens the ring on first use; {@link #wakeup()} from any.
 */
public final class UringPoller implements Poller {
    static final int OP_RECV = 0;
    static final int OP_SEND = 1;
    private static final int OP_CANCEL = 2;
    private static final int OP_WAKE = 3;
    private static final int OP_LISTEN = 4;
    static final int OP_CONNECT = 5;
    private static final int OP_BITS = 3;
    private static final int PAGE = 4096;
    /** How long a full submission queue may wait for the kernel to take entries (an SQPOLL thread's own pace). */
    private static final long ROOM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long closing waits for cancelled operations to complete before it frees their memory. */
    private static final long CLOSE_DRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /**
     * Pollers whose close found operations still in flight after {@link #CLOSE_DRAIN_NANOS}: kept, with the
     * memory those operations may still use (their connections' output, their buffers), for the JVM's life.
     */
    private static final List<UringPoller> UNDRAINED = new ArrayList<>();

    private final Ring.Params options;
    private final int bufferCount;
    private final int bufferSize;
    private final int maxHeld;
    private final int sendLimit;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment capture = LibC.captureSegment(arena);
    /** {@code wakeup} writes this 8-byte count from any thread, with its own errno capture. */
    private final MemorySegment one = arena.allocate(8, 8);
    private final MemorySegment wakeCapture = LibC.captureSegment(arena);
    private final MemorySegment drained = arena.allocate(8, 8);
    private final int eventfd;
    private final Ring.Completion onCompletion = this::completed;
    /** The buffers writes copy into: {@link #sendLimit} bytes each. */
    private final CopyBuffers copies;
    private final TakesOutput.Returns copyReturns = this::copyReturned;

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

    /**
     * Connections whose receive ended for want of a buffer, oldest first, each armed again for a buffer
     * given back: {@code starved[(starvedHead + i) & (starved.length - 1)]} for {@code 0 <= i < starvedCount
     * <= starved.length}, a power of two.
     */
    private UringEndpoint[] starved = new UringEndpoint[16];
    private int starvedHead;
    private int starvedCount;
    /**
     * Buffers given back that no starved receive has been armed again for yet: {@code 0 <= rearmCredit <=
     * bufferCount}. Arming one receive per buffer, not every starved one, keeps a shortage from turning
     * into a storm of receives that find the ring empty again; a receive armed for a buffer that ends
     * without taking any (its connection closed, its peer reset) hands its credit back, so that a buffer
     * in the ring never waits while a connection starves.
     */
    private int rearmCredit;
    /** A receive found the ring empty: at the next poll, connections the loop does not read give theirs back. */
    private boolean spillWanted;
    /** Receive buffers the kernel filled and the ring has not had back. */
    private int buffersOut;
    /**
     * Since the poller began, for tests: receives that found the ring empty; of those, receives armed again
     * for a buffer given back that found it empty all the same; buffers given back; bytes copied out.
     */
    private long starvations;
    private long starvedAgain;
    private long recycles;
    private long spilledBytes;


    /**
     * A listener, polled one shot at a time so that what it still has waiting is seen again; not polled
     * while {@code paused} (the loop stopped watching it), and a poll that was in flight then is dropped.
     */
    private static final class ListenerEntry {
        final UringListener listener;
        final Object attachment;
        boolean armed;
        boolean fired;
        boolean paused;

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
     * @param sendLimit the size of the buffers a connection holds to send at most before it takes no more
     *     output (it always takes one buffer); also the size of the buffers writes copy into
     * @param unusedNanos how long the buffers writes copy into are unused before their memory is given
     *     back (all but the first {@value CopyBuffers#PER_SLAB}); 0 to keep it for the poller's life
     * @throws IOException if the wake-up {@code eventfd} cannot be made
     */
    public UringPoller(Ring.Params options, int bufferCount, int bufferSize, int maxHeld, int sendLimit,
            long unusedNanos) throws IOException {
        this.options = options;
        this.bufferCount = bufferCount;
        this.bufferSize = bufferSize;
        this.maxHeld = maxHeld;
        this.sendLimit = sendLimit;
        this.copies = new CopyBuffers(sendLimit, unusedNanos);
        one.set(ValueLayout.JAVA_LONG, 0, 1);
        long rc = Syscalls.call(capture, SyscallNumbers.EVENTFD2, 0, Flags.EFD_NONBLOCK | Flags.EFD_CLOEXEC, 0, 0, 0, 0);
        if (rc < 0) {
            arena.close();
            throw new NativeIoException("eventfd", (int) -rc, "flags=EFD_NONBLOCK|EFD_CLOEXEC");
        }
        eventfd = (int) rc;
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

    // ---- what the connections ask of their poller

    /** {@return the receive buffers one connection holds at most before its receive is cancelled} */
    int maxHeld() {
        return maxHeld;
    }

    /** {@return the bytes of each receive buffer} */
    int bufferSize() {
        return bufferSize;
    }

    /** {@return the bytes a connection holds to send at most before it takes no more output} */
    int sendLimit() {
        return sendLimit;
    }

    /** {@return receive buffer {@code id}, to copy from} */
    ByteBuffer received(int id) {
        return received[id];
    }

    /** {@return receive buffer {@code id}, read-only, to lend} */
    ByteBuffer lent(int id) {
        return lent[id];
    }

    void submitReceive(UringEndpoint e) {
        room();
        ring.recvMultishot(e.fd, buffers, userData(OP_RECV, e));
    }

    void submitSend(UringEndpoint e, long address, int length) {
        room();
        ring.send(e.fd, address, length, Flags.MSG_NOSIGNAL, userData(OP_SEND, e));
    }

    /** Connects {@code e} to the {@code struct sockaddr} of {@code length} bytes at {@code sockaddr}. */
    void submitConnect(UringEndpoint e, long sockaddr, int length) {
        room();
        ring.connect(e.fd, sockaddr, length, userData(OP_CONNECT, e));
    }

    /** Cancels {@code e}'s operation {@code op} ({@link #OP_RECV}, {@link #OP_SEND} or {@link #OP_CONNECT}). */
    void submitCancel(UringEndpoint e, int op) {
        room();
        ring.cancel(userData(op, e), userData(OP_CANCEL, e));
    }

    /** Gives receive buffer {@code id} back to the kernel. */
    void recycle(int id) {
        buffers.recycle(id);
        buffersOut--;
        recycles++;
        if (rearmCredit < bufferCount) {
            rearmCredit++;
        }
    }

    /** {@return the receive buffers out of the ring: held by connections}: for tests */
    public int receiveBuffersOut() {
        return buffersOut;
    }

    /** {@return how many receives found the ring empty}: for tests */
    public long receiveStarvations() {
        return starvations;
    }

    /**
     * {@return how many receives armed again for a buffer given back found the ring empty all the same}:
     * for tests. Each was armed for a buffer of its own, so there are never more than {@link
     * #receiveBuffersRecycled()}.
     */
    public long receivesStarvedAgain() {
        return starvedAgain;
    }

    /** {@return how many times a receive buffer was given back to the ring}: for tests */
    public long receiveBuffersRecycled() {
        return recycles;
    }

    /** {@return the connections whose receive waits for a buffer to come back}: for tests */
    public int starvedReceives() {
        return starvedCount;
    }

    /** {@return the bytes connections the loop did not read copied out of the ring to give its buffers back}: for tests */
    public long spilledBytes() {
        return spilledBytes;
    }

    /** Adds {@code e} to the connections to hand over at the end of this poll. */
    void list(UringEndpoint e) {
        if (e.listed || e.forgotten || e.closed) {
            return;
        }
        if (readyCount == ready.length) {
            ready = Arrays.copyOf(ready, readyCount * 2);
        }
        ready[readyCount++] = e;
        e.listed = true;
    }

    /** Arms {@code e}'s receive again at the next poll, which submits it in any case. */
    void rearmLater(UringEndpoint e) {
        if (e.rearmListed) {
            return;
        }
        if (rearmCount == rearm.length) {
            rearm = Arrays.copyOf(rearm, rearmCount * 2);
        }
        rearm[rearmCount++] = e;
        e.rearmListed = true;
    }

    /**
     * {@code e}'s receive ended for want of a buffer: armed again once one comes back for it, after those
     * that starved before; at the next poll the connections the loop does not read copy what they hold out
     * of the ring and give its buffers back.
     */
    void starve(UringEndpoint e) {
        starvations++;
        spillWanted = true;
        if (e.starved) {
            return;
        }
        e.starved = true;
        if (starvedCount == starved.length) {
            UringEndpoint[] larger = new UringEndpoint[starvedCount * 2];
            for (int i = 0; i < starvedCount; i++) {
                larger[i] = starved[(starvedHead + i) & (starved.length - 1)];
            }
            starved = larger;
            starvedHead = 0;
        }
        starved[(starvedHead + starvedCount++) & (starved.length - 1)] = e;
    }

    /** Frees a closed connection's slot, and closes its descriptor, once nothing of it is in flight. */
    void release(UringEndpoint e) {
        if (!e.closed || e.inFlight() || e.slot < 0) {
            return;
        }
        int slot = e.slot;
        slots[slot] = null;
        generations[slot]++;
        freeSlots[freeCount++] = slot;
        e.slot = -1;
        live--;
        e.closeDescriptor();
    }

    /** {@return the copy buffer for a write of {@code wanted} bytes}: see {@link CopyBuffers#bufferFor} */
    CopyBuffers.CopyBuffer copyBufferFor(int wanted) {
        return copies.bufferFor(wanted);
    }

    /** {@return where a copy buffer's part goes back once sent} */
    TakesOutput.Returns copyReturns() {
        return copyReturns;
    }

    private void copyReturned(Object token) {
        copies.returned((CopyBuffers.CopyBuffer) token);
    }

    /** {@return the copy buffers in use: holding a part not sent yet, or being filled}: for tests */
    public int copyBuffersInUse() {
        return copies.inUse();
    }

    /** {@return the bytes of the copy buffers' slabs held, in use or free}: for tests */
    public long copyBufferBytes() {
        return copies.bytes();
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

    // ---- the loop's Poller

    @Override
    public void register(Endpoint endpoint, Object attachment, int ops) throws IOException {
        UringEndpoint e = (UringEndpoint) endpoint;
        if (e.slot >= 0) {
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
        try {
            e.registered(this, slot, generations[slot], attachment, ops);
        } catch (UncheckedIOException x) {
            throw x.getCause();
        }
    }

    @Override
    public void register(Listener listener, Object attachment) {
        listeners.add(new ListenerEntry((UringListener) listener, attachment));
    }

    @Override
    public void interest(Listener listener, int ops) {
        for (int i = 0; i < listeners.size(); i++) {
            ListenerEntry l = listeners.get(i);
            if (l.listener == listener) {
                l.paused = (ops & READ) == 0; // one fired and not handed over yet is dropped by hand()
            }
        }
    }

    @Override
    public void interest(Endpoint endpoint, int ops) throws IOException {
        UringEndpoint e = (UringEndpoint) endpoint;
        e.interest = ops;
        try {
            e.updateReceive();
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

    @Override
    public int poll(long timeoutMillis, Ready onReady) throws IOException {
        ensureRing();
        try {
            long deadline = timeoutMillis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis) : 0;
            woken = false;
            while (true) {
                arm();
                // Every turn: a send that completed in the last wait may have left a copy buffer slab unused.
                long untilTrim = trimCopies();
                boolean wait = timeoutMillis != 0 && readyCount == 0 && listenersFired == 0 && !woken;
                long left = timeoutMillis > 0 ? deadline - System.nanoTime() : Long.MAX_VALUE;
                if (left <= 0) {
                    wait = false;
                }
                boolean untilTrimOnly = untilTrim < left; // a wait that ends for a slab ends the poll
                left = Math.min(left, untilTrim);
                if (!wait) {
                    if (ring.pending() > 0) {
                        ring.submit();
                    } // else complete() enters the kernel only if the queue is empty and completion work waits
                } else if (left == Long.MAX_VALUE) {
                    ring.submitAndWait(1);
                } else {
                    ring.submitAndWait(1, left);
                }
                ring.complete(onCompletion);
                if (!wait || readyCount > 0 || listenersFired > 0 || woken) {
                    break;
                }
                if (untilTrimOnly && copies.trimAt() - System.nanoTime() <= 0) {
                    trimCopies(); // the loop's turn comes now, as it would have had the poll's own time run out
                    break;
                }
                // Only sends and cancellations completed: nothing for the loop yet, so wait on.
            }
            return hand(onReady);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * Gives back the copy buffers' slabs unused for their time; {@return the nanoseconds until the next
     * one is due, at least 1, or Long.MAX_VALUE while none is unused} No clock is read while none is.
     */
    private long trimCopies() {
        long at = copies.trimAt();
        if (at == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long now = System.nanoTime();
        if (now - at >= 0) {
            copies.trim(now);
            at = copies.trimAt();
            if (at == Long.MAX_VALUE) {
                return Long.MAX_VALUE;
            }
        }
        return Math.max(1, at - now);
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
            if (!l.armed && !l.fired && !l.paused && l.listener.socket().isOpen()) { // a closed one's descriptor may be reused
                room();
                ring.poll(l.listener.socket().fd(), Flags.POLLIN, false, userData(OP_LISTEN, i, 0));
                l.armed = true;
            }
        }
        for (int i = 0; i < rearmCount; i++) {
            UringEndpoint e = rearm[i];
            rearm[i] = null;
            e.rearmListed = false;
            e.updateReceive();
        }
        rearmCount = 0;
        if (spillWanted) {
            spillWanted = false;
            spillUnread();
        }
        if (starvedCount > 0 && rearmCredit > 0) {
            rearmStarved();
        }
    }

    /**
     * Arms the receives of starved connections again, oldest first, one for each buffer given back that no
     * starved receive was armed for yet: the rest stay listed, in order, for the buffers that come back next.
     * A connection that no longer wants to receive (closed, paused, at its cap) leaves the list without
     * spending a buffer; it arms its receive itself once it wants to again.
     */
    private void rearmStarved() {
        // The completions seen show buffersOut out of the ring; it cannot hold more than the rest.
        rearmCredit = Math.min(rearmCredit, bufferCount - buffersOut);
        while (rearmCredit > 0 && starvedCount > 0) {
            UringEndpoint e = starved[starvedHead];
            starved[starvedHead] = null;
            starvedHead = (starvedHead + 1) & (starved.length - 1);
            starvedCount--;
            e.starved = false;
            if (e.armAfterStarving()) {
                e.armedForBuffer = true;
                rearmCredit--;
            }
        }
    }

    /**
     * The receive armed again for a buffer given back completed for the first time: it took a buffer,
     * found the ring empty all the same (another receive took that buffer, and gives it back in turn), or
     * ended without taking one, when the buffer it was armed for is still in the ring for the next.
     */
    private void armedForBufferCompleted(int result, boolean buffer) {
        if (buffer) {
            return;
        }
        if (result == -Errno.ENOBUFS) {
            starvedAgain++;
        } else if (rearmCredit < bufferCount) {
            rearmCredit++;
        }
    }

    /**
     * Has every connection that holds receive buffers the loop is not reading copy their bytes out and
     * give them back ({@link UringEndpoint#spill()}): the ring ran out, and a paused connection would
     * keep its buffers from the others for as long as its peer likes.
     */
    private void spillUnread() {
        for (int i = 0; i < slotsUsed; i++) {
            UringEndpoint e = slots[i];
            if (e != null && e.spillable()) {
                spilledBytes += e.spill();
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
            int ops = e.readiness();
            if (ops != 0) {
                onReady.ready(e.attachment, ops);
                handed++;
                if (e.readiness() != 0) {
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
                    if (!l.paused) {
                        onReady.ready(l.attachment, READ);
                        handed++;
                    }
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
            if (result != -Errno.ECANCELED && !l.fired && !l.paused) {
                l.fired = true; // an error, too, is for accept to report
                listenersFired++;
            }
            return;
        }
        UringEndpoint e = slot < slotsUsed ? slots[slot] : null;
        boolean buffer = (flags & Ring.CQE_F_BUFFER) != 0;
        if (buffer) {
            buffersOut++;
        }
        if (e == null || e.generation != (int) (userData >>> 32)) {
            // A slot outlives its operations, so this cannot come; a buffer it carried goes back all the same.
            if (buffer) {
                recycle(flags >>> Ring.CQE_BUFFER_SHIFT);
            }
            return;
        }
        switch (op) {
            case OP_RECV -> {
                if (e.armedForBuffer) {
                    e.armedForBuffer = false;
                    armedForBufferCompleted(result, buffer);
                }
                e.received(result, buffer ? flags >>> Ring.CQE_BUFFER_SHIFT : -1, (flags & Ring.CQE_F_MORE) != 0);
            }
            case OP_SEND -> e.sent(result);
            case OP_CONNECT -> e.connected(result);
            default -> e.cancelled();
        }
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
     * closes the ring and frees the buffers. Memory an operation might still use is not freed: the
     * poller is kept, with it, in {@link #UNDRAINED}.
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
                        e.close(true);
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
                copies.close();
            }
            ring.close();
            for (int i = 0; i < slotsUsed; i++) {
                if (slots[i] != null) {
                    slots[i].closeDescriptor(); // the ring is gone: nothing it prepared can reach the number now
                }
            }
        }
        Sys.closeQuietly(eventfd);
        if (drained) {
            arena.close();
        } else {
            synchronized (UNDRAINED) {
                UNDRAINED.add(this);
            }
        }
    }

    @Override
    public String toString() {
        return "UringPoller[" + (ring == null ? "no ring yet" : ring) + " connections=" + live + " listeners="
                + listeners.size() + "]";
    }
}
