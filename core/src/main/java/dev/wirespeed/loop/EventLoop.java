package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.loop.internal.SegmentIo;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One thread, one {@link Poller}, the connections given to it: reads each ready connection once per
 * turn into a pooled chunk (or, where its endpoint is a {@link LendingEndpoint}, parses the bytes where
 * the transport received them), hands the whole frames to the handler, and at the end of the turn
 * sends the output the handlers queued.
 *
 * <p>Each turn: the tasks queued from other threads; one poll (blocking, or not when busy-polling);
 * for each ready connection, its pending output sent if writable, then one read of at most a chunk
 * (the fairness budget: no connection is read twice while another ready one waits; a lending
 * endpoint's buffers are taken until about a chunk's worth) and its frames;
 * then the output of every connection written to during the turn; then, where an idle timeout is
 * set and due, a sweep for idle connections.
 */
final class EventLoop implements Runnable {
    static final int READ = Poller.READ;
    static final int WRITE = Poller.WRITE;
    /** How often a blocked loop with lingering sockets wakes to close those past their deadline. */
    private static final long LINGER_CHECK_MILLIS = 50;

    private final FrameServer server;
    private final int index;
    private final ConnectionHandler handler;
    private final BufferPool pool;
    private final Poller poller;
    private final Poller.Ready onReady = this::ready;
    private final int maxFrameLength;
    final long outputLimit;
    private final IdleStrategy idle;
    private final long idleTimeoutNanos;
    private final long lingerNanos;
    private final LoopEvents events;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private volatile boolean stopping;
    volatile Thread thread;

    /** {@code conns[0, count)}: the open and closing connections; each knows its slot. */
    private Connection[] conns = new Connection[64];
    private int count;
    /** {@code lingering[0, lingerCount)}: closed connections whose sockets still drop input; each knows its slot. */
    private Connection[] lingering = new Connection[16];
    private int lingerCount;
    /** {@code flush[0, flushCount)}: connections written to during this turn. */
    private Connection[] flush = new Connection[64];
    private int flushCount;
    /** The loop's clock, read once per turn. */
    private long now;
    private long nextSweep;

    // Counters, written by the loop thread only, with opaque stores: no fence on the loop's path,
    // and other threads read, through the accessors, a value that may lag but is never torn.
    private long framesRead;
    private long bytesRead;
    private long bytesWritten;
    private long pooledBytes;
    private static final VarHandle FRAMES_READ;
    private static final VarHandle BYTES_READ;
    private static final VarHandle BYTES_WRITTEN;
    private static final VarHandle POOLED_BYTES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            FRAMES_READ = lookup.findVarHandle(EventLoop.class, "framesRead", long.class);
            BYTES_READ = lookup.findVarHandle(EventLoop.class, "bytesRead", long.class);
            BYTES_WRITTEN = lookup.findVarHandle(EventLoop.class, "bytesWritten", long.class);
            POOLED_BYTES = lookup.findVarHandle(EventLoop.class, "pooledBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    EventLoop(FrameServer server, int index, FrameServer.Builder config) throws IOException {
        this.server = server;
        this.index = index;
        this.handler = config.handler;
        this.pool = new BufferPool(config.chunkSize);
        this.poller = config.transport.openPoller();
        this.maxFrameLength = config.maxFrameLength;
        this.outputLimit = config.outputLimit;
        this.idle = config.idle;
        this.idleTimeoutNanos = config.idleTimeout == null ? 0 : config.idleTimeout.toNanos();
        this.lingerNanos = config.lingerTimeout.toNanos();
        this.events = server.events();
    }

    int index() {
        return index;
    }

    /** {@return the frames read so far}, from any thread */
    long framesRead() {
        return (long) FRAMES_READ.getOpaque(this);
    }

    /** {@return the bytes read so far}, from any thread */
    long bytesRead() {
        return (long) BYTES_READ.getOpaque(this);
    }

    /** {@return the bytes written so far}, from any thread */
    long bytesWritten() {
        return (long) BYTES_WRITTEN.getOpaque(this);
    }

    /** {@return the bytes the loop's pool has allocated}, from any thread */
    long pooledBytes() {
        return (long) POOLED_BYTES.getOpaque(this);
    }

    /** {@return the connections open or closing on this loop; exact on the loop thread} */
    int connectionCount() {
        return count;
    }

    void listen(Listener listener) throws IOException {
        poller.register(listener, listener);
    }

    void execute(Runnable task) {
        if (stopping) {
            throw new RejectedExecutionException("the server is closed; loop " + index);
        }
        tasks.add(task);
        if (idle == null && Thread.currentThread() != thread && wakeupPending.compareAndSet(false, true)) {
            poller.wakeup();
        }
    }

    void checkThread(Connection c) {
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("called on thread \"" + Thread.currentThread().getName() + "\"; " + c
                    + " belongs to loop thread \"" + (thread == null ? "(not started)" : thread.getName())
                    + "\": use Connection.execute");
        }
    }

    /** Asks the loop to close its connections and end; returns at once. */
    void stop() {
        stopping = true;
        poller.wakeup();
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        int emptyTurns = 0;
        try {
            server.loopStarted(index);
            now = System.nanoTime();
            nextSweep = idleTimeoutNanos == 0 ? Long.MAX_VALUE : now + sweepInterval();
            while (!stopping) {
                boolean ranTasks = runTasks();
                if (ranTasks) {
                    flushDirty(); // before a select that may block: the tasks' writes go now
                }
                int ready;
                if (idle == null) {
                    ready = poller.poll(pollTimeoutMillis(), onReady);
                    if (wakeupPending.get()) {
                        wakeupPending.set(false); // a volatile store, and so a fence, only after a wakeup
                    }
                } else {
                    ready = poller.poll(0, onReady);
                }
                flushDirty();
                now = System.nanoTime();
                if (now - nextSweep >= 0) {
                    sweepIdle();
                }
                if (lingerCount > 0) {
                    sweepLingering();
                }
                if (idle != null) {
                    if (ready == 0 && !ranTasks) {
                        idle.idle(++emptyTurns);
                    } else {
                        emptyTurns = 0;
                    }
                }
            }
        } catch (IOException e) {
            server.loopFailed(index, e);
        } finally {
            shutdown();
        }
    }

    private boolean runTasks() {
        boolean ran = false;
        for (Runnable task; (task = tasks.poll()) != null; ) {
            ran = true;
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
        return ran;
    }

    private long pollTimeoutMillis() {
        long millis = idleTimeoutNanos == 0 ? -1 // no limit
                : Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextSweep - System.nanoTime()) + 1);
        if (lingerCount > 0) { // lingering sockets close at their deadline, give or take this
            millis = millis < 0 ? LINGER_CHECK_MILLIS : Math.min(millis, LINGER_CHECK_MILLIS);
        }
        return millis;
    }

    private void ready(Object attachment, int ops) {
        if (attachment instanceof Connection c) {
            if (c.state == Connection.State.CLOSED) {
                if (c.lingering) {
                    dropInput(c);
                }
                return; // else closed by a handler earlier in this turn
            }
            if ((ops & WRITE) != 0) {
                flush(c);
            }
            if ((ops & READ) != 0 && c.state == Connection.State.OPEN && !c.paused) {
                read(c);
            }
        } else {
            server.accept((Listener) attachment, this);
        }
    }

    /** Takes over an accepted connection: called on this loop's thread. */
    void adopt(Endpoint endpoint, long id) {
        Connection c = new Connection(this, endpoint, id, endpoint.remoteAddress());
        try {
            poller.register(endpoint, c, READ);
        } catch (IOException e) {
            server.connectionClosed();
            endpoint.reset();
            return;
        }
        c.interest = READ;
        c.lastActive = now;
        if (count == conns.length) {
            conns = Arrays.copyOf(conns, count * 2);
        }
        c.slot = count;
        conns[count++] = c;
        events.opened(c, index);
        try {
            handler.onOpen(c);
        } catch (IOException | RuntimeException e) {
            closeNow(c, e, true);
        }
    }

    private void read(Connection c) {
        if (c.lender != null) {
            readLent(c, c.lender);
        } else {
            readCopy(c);
        }
    }

    /** One read into the connection's chunk, and the whole frames in it. */
    private void readCopy(Connection c) {
        Chunk in = c.in;
        if (in == null) {
            in = c.in = take();
        }
        ByteBuffer b = in.buf;
        b.limit(in.capacity());
        b.position(in.end);
        int n;
        try {
            SegmentIo io = c.io; // by address where the endpoint reads so: no lookup of the buffer's address
            n = io != null ? io.read(b, in.memory) : c.channel.read(b);
        } catch (IOException e) {
            closeNow(c, e, true);
            return;
        }
        if (n > 0) {
            in.end += n;
            counted(c, n);
            frames(c, in);
        } else if (n < 0) {
            endOfStream(c, in);
        } else if (in.available() == 0) {
            releaseInput(c);
        }
    }

    /**
     * Reads a connection that lends its received bytes: the frames parsed where the transport holds
     * them, and given back once handled, until about a chunk's worth is taken (the budget of a copying
     * read); what is left is lent again next turn. Only a frame that continues past the lent bytes is
     * copied, once, into a chunk (or a buffer of its own size); then {@code c.in} holds that frame's
     * start and nothing else.
     */
    private void readLent(Connection c, LendingEndpoint lender) {
        ByteBuffer data = lender.lend();
        if (data == null) {
            readCopy(c); // nothing held: the end of the stream or an error, which only a read reports
            return;
        }
        int budget = pool.chunkSize();
        do {
            int start = data.position();
            int end = data.limit();
            int pos = start;
            if (c.in != null) {
                pos = completeFrame(c, c.in, data, pos, end);
                if (pos < 0) {
                    return; // closed: the endpoint took back what it lent
                }
            }
            if (pos < end) { // c.in is null here: a frame that completes is handed over and its chunk given back
                pos = deliver(c, data, data, pos, end, budget - (pos - start));
                if (pos < 0) {
                    return;
                }
                if (pos < end && partial(data, pos, end)) {
                    keepPartial(c, data, pos, end);
                    pos = end;
                }
            }
            lender.consume(pos - start);
            counted(c, pos - start);
            budget -= pos - start;
        } while (budget > 0 && (data = lender.lend()) != null);
    }

    /** {@return whether {@code data[pos, end)} ends inside a frame whose length, if its header is there, was checked} */
    private static boolean partial(ByteBuffer data, int pos, int end) {
        return end - pos < FrameFormat.HEADER_LENGTH || end - pos < FrameFormat.HEADER_LENGTH + FrameFormat.length(data, pos);
    }

    private void counted(Connection c, int n) {
        c.lastActive = now;
        c.bytesRead += n;
        BYTES_READ.setOpaque(this, bytesRead + n);
    }

    private Chunk take() {
        if (pool.freeChunks() > 0) {
            return pool.take();
        }
        Chunk c = pool.take(); // a new slab: the one place the published figure changes
        POOLED_BYTES.setOpaque(this, pool.allocatedBytes());
        return c;
    }

    /** Hands over the whole frames in {@code in}, then keeps the partial one, if any, at its start. */
    private void frames(Connection c, Chunk in) {
        int pos = deliver(c, in.buf, in.view, in.start, in.end, Integer.MAX_VALUE);
        if (pos < 0) {
            return;
        }
        ByteBuffer b = in.buf;
        int end = in.end;
        in.start = pos;
        int needed = end - pos >= FrameFormat.HEADER_LENGTH ? FrameFormat.HEADER_LENGTH + FrameFormat.length(b, pos) : 0;
        if (pos == end) {
            releaseInput(c);
        } else if (needed > in.capacity()) {
            Chunk large = BufferPool.large(needed);
            large.buf.put(0, b, pos, end - pos);
            large.end = end - pos;
            pool.give(in);
            c.in = large;
        } else if (pos > 0 && (needed == 0 || needed > in.capacity() - pos)) {
            // A partial header, or a frame that would not fit where it starts: move it to the front.
            b.put(0, b, pos, end - pos);
            in.start = 0;
            in.end = end - pos;
        }
    }

    /**
     * Hands the whole frames in {@code data[from, end)} to the handler and moves {@code c.consumed} past
     * them; stops early at the first whole frame that starts {@code budget} bytes or more past {@code
     * from}, so that each length it leaves behind has been checked.
     *
     * @param view the read-only buffer re-pointed at each body for the handler: a twin of {@code data},
     *     or {@code data} itself, whose limit is then put back to {@code end} after each frame
     * @return where the first frame not handed over starts (a partial one, one past the budget, or
     *     {@code end}); -1 if the connection closed meanwhile (a bad length, or the handler's doing),
     *     its input given back
     */
    private int deliver(Connection c, ByteBuffer data, ByteBuffer view, int from, int end, int budget) {
        int pos = from;
        long delivered = 0;
        while (end - pos >= FrameFormat.HEADER_LENGTH) {
            long header = data.getLong(pos);
            int length = FrameFormat.length(header);
            if (length < 0 || length > maxFrameLength) {
                FRAMES_READ.setOpaque(this, framesRead + delivered);
                frameError(c, length, c.consumed + (pos - from));
                return -1;
            }
            int total = FrameFormat.HEADER_LENGTH + length;
            if (end - pos < total || pos - from >= budget) {
                break;
            }
            delivered++;
            c.framesRead++; // before the handler, which may close the connection and so report its totals
            view.limit(pos + total);
            view.position(pos + FrameFormat.HEADER_LENGTH);
            try {
                handler.onFrame(c, FrameFormat.type(header), view);
            } catch (IOException | RuntimeException e) {
                FRAMES_READ.setOpaque(this, framesRead + delivered);
                closeNow(c, e, true);
                return -1;
            }
            view.limit(end);
            pos += total;
            if (c.state != Connection.State.OPEN) {
                FRAMES_READ.setOpaque(this, framesRead + delivered);
                releaseInput(c); // closed by the handler: the rest is not read
                return -1;
            }
        }
        FRAMES_READ.setOpaque(this, framesRead + delivered);
        c.consumed += pos - from;
        return pos;
    }

    /** Copies the start of a frame that continues past the lent {@code data[pos, end)} into a new input chunk. */
    private void keepPartial(Connection c, ByteBuffer data, int pos, int end) {
        int n = end - pos;
        // deliver() checked the length of a header that is there
        int needed = n >= FrameFormat.HEADER_LENGTH ? FrameFormat.HEADER_LENGTH + FrameFormat.length(data, pos) : 0;
        Chunk in = needed > pool.chunkSize() ? BufferPool.large(needed) : take();
        in.buf.put(0, data, pos, n);
        in.end = n;
        c.in = in;
    }

    /**
     * Copies from the lent {@code data[pos, end)} what the frame begun in {@code in} still lacks, and
     * hands the frame over once it is whole, giving {@code in} back.
     *
     * @return where the lent bytes not taken start; -1 if the connection closed (a bad length, or the handler)
     */
    private int completeFrame(Connection c, Chunk in, ByteBuffer data, int pos, int end) {
        int have = in.available(); // in.start is 0: keepPartial made it
        if (have < FrameFormat.HEADER_LENGTH) {
            int n = Math.min(FrameFormat.HEADER_LENGTH - have, end - pos);
            in.buf.put(in.end, data, pos, n);
            in.end += n;
            pos += n;
            have += n;
            if (have < FrameFormat.HEADER_LENGTH) {
                return pos;
            }
        }
        int length = FrameFormat.length(in.buf, in.start);
        if (length < 0 || length > maxFrameLength) {
            frameError(c, length, c.consumed);
            return -1;
        }
        int total = FrameFormat.HEADER_LENGTH + length;
        if (total > in.capacity() - in.start) {
            Chunk large = BufferPool.large(total);
            large.buf.put(0, in.buf, in.start, have);
            large.end = have;
            pool.give(in);
            c.in = in = large;
        }
        int n = Math.min(total - have, end - pos);
        in.buf.put(in.end, data, pos, n);
        in.end += n;
        pos += n;
        if (in.available() < total) {
            return pos;
        }
        if (deliver(c, in.buf, in.view, in.start, in.end, Integer.MAX_VALUE) < 0) {
            return -1;
        }
        releaseInput(c);
        return pos;
    }

    private void frameError(Connection c, int length, long offset) {
        try {
            FrameFormat.checkLength(length, maxFrameLength, offset);
            throw new AssertionError("length=" + length + " passed the check it failed");
        } catch (IOException e) {
            refuse(c, offset, e);
        }
    }

    private void endOfStream(Connection c, Chunk in) {
        c.inputEnded = true;
        int present = in.available();
        if (present == 0) {
            releaseInput(c);
            closeGracefully(c);
            return;
        }
        IOException truncated;
        if (present < FrameFormat.HEADER_LENGTH) {
            truncated = TruncatedFrameException.inHeader(present, c.consumed);
        } else {
            int length = FrameFormat.length(in.buf, in.start);
            truncated = TruncatedFrameException.inBody(present - FrameFormat.HEADER_LENGTH, length, c.consumed);
        }
        refuse(c, c.consumed, truncated);
    }

    private void releaseInput(Connection c) {
        Chunk in = c.in;
        if (in != null) {
            c.in = null;
            pool.give(in);
        }
    }

    /** {@return the output chunk with room for a frame of {@code length} body bytes at its end} */
    Chunk outputFor(Connection c, int length) {
        if (length < 0 || length > maxFrameLength) {
            throw new IllegalArgumentException("length=" + length + " min=0 maxFrameLength=" + maxFrameLength
                    + " for " + c);
        }
        int total = FrameFormat.HEADER_LENGTH + length;
        if (total > pool.chunkSize()) {
            Chunk large = BufferPool.large(total);
            c.out.addLast(large);
            return large;
        }
        Chunk tail = c.out.peekLast();
        if (tail == null || !tail.pooled || tail.capacity() - tail.end < total) {
            tail = take();
            c.out.addLast(tail);
        }
        return tail;
    }

    /** After an aborted claim: gives back a tail chunk holding nothing. */
    void releaseEmptyTail(Connection c) {
        Chunk tail = c.out.peekLast();
        if (tail != null && tail.available() == 0) {
            c.out.pollLast();
            pool.give(tail);
        }
    }

    void markDirty(Connection c) {
        if (!c.dirty) {
            c.dirty = true;
            if (flushCount == flush.length) {
                flush = Arrays.copyOf(flush, flushCount * 2);
            }
            flush[flushCount++] = c;
        }
    }

    private void flushDirty() {
        for (int i = 0; i < flushCount; i++) {
            Connection c = flush[i];
            flush[i] = null;
            c.dirty = false;
            if (c.state != Connection.State.CLOSED) {
                flush(c);
            }
        }
        flushCount = 0;
    }

    /** Sends what the socket takes of {@code c}'s output, then sets what the loop waits for. */
    private void flush(Connection c) {
        IOException failed = send(c);
        if (failed != null) {
            closeNow(c, failed, true);
            return;
        }
        boolean resumed = false;
        if (c.queued >= outputLimit) {
            c.paused = true;
        } else if (c.paused && c.queued <= outputLimit / 2) {
            c.paused = false;
            resumed = true;
        }
        if (c.queued == 0 && c.state == Connection.State.CLOSING) {
            closeNow(c, null, false);
            return;
        }
        int want = (c.state == Connection.State.OPEN && !c.paused ? READ : 0) | (c.queued > 0 ? WRITE : 0);
        if (want != c.interest) {
            c.interest = want;
            try {
                poller.interest(c.channel, want);
            } catch (IOException e) {
                closeNow(c, e, true);
                return;
            }
        }
        if (resumed) {
            try {
                handler.onWritable(c);
            } catch (IOException | RuntimeException e) {
                closeNow(c, e, true);
            }
        }
    }

    /** Writes {@code c}'s output until the socket takes no more; {@return the write's failure, or null} */
    private IOException send(Connection c) {
        Chunk head;
        while ((head = c.out.peekFirst()) != null && head.available() > 0) {
            ByteBuffer b = head.buf;
            b.limit(head.end);
            b.position(head.start);
            int n;
            try {
                SegmentIo io = c.io;
                n = io != null ? io.write(b, head.memory) : c.channel.write(b);
            } catch (IOException e) {
                return e;
            } finally {
                b.limit(b.capacity()); // absolute puts into a chunk check against its limit
            }
            if (n > 0) {
                head.start += n;
                c.queued -= n;
                c.lastActive = now;
                c.bytesWritten += n;
                BYTES_WRITTEN.setOpaque(this, bytesWritten + n);
            }
            if (head.available() > 0) {
                break; // the socket is full
            }
            c.out.pollFirst();
            pool.give(head);
        }
        return null;
    }

    /**
     * Closes a connection that broke the protocol: no more frames from it, what its handler queued
     * before is sent as far as the socket takes it now, then the close.
     */
    private void refuse(Connection c, long offset, IOException cause) {
        events.protocolError(c, offset, cause);
        c.state = Connection.State.CLOSING;
        releaseInput(c);
        send(c); // best effort: a failure here changes nothing, the connection closes either way
        closeNow(c, cause, false);
    }

    void closeGracefully(Connection c) {
        c.state = Connection.State.CLOSING;
        releaseInput(c);
        if (c.queued == 0) {
            closeNow(c, null, false);
        } else {
            markDirty(c);
        }
    }

    /**
     * Closes {@code c} at once, gives back its chunks and tells the handler.
     *
     * @param reset an RST instead of a FIN where the socket supports {@code SO_LINGER}
     */
    void closeNow(Connection c, Throwable cause, boolean reset) {
        if (c.state == Connection.State.CLOSED) {
            return;
        }
        c.state = Connection.State.CLOSED;
        // Counted out before the socket closes, so that a peer seeing the close finds the count exact.
        int slot = c.slot;
        Connection last = conns[--count];
        conns[slot] = last;
        last.slot = slot;
        conns[count] = null;
        server.connectionClosed();
        if (reset || stopping || lingerNanos == 0 || c.inputEnded || !linger(c)) {
            release(c.channel, reset);
        }
        releaseInput(c);
        for (Chunk chunk; (chunk = c.out.pollFirst()) != null; ) {
            pool.give(chunk);
        }
        c.queued = 0;
        events.closed(c, cause);
        try {
            handler.onClose(c, cause);
        } catch (RuntimeException e) {
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
        }
    }

    /**
     * Shuts {@code c}'s output down and keeps its socket reading, to drop what the peer still sends
     * (see {@link Connection}'s "Closing"); {@return false if the endpoint cannot, and so closes now}
     */
    private boolean linger(Connection c) {
        try {
            c.channel.shutdownOutput();
            if (c.interest != READ) {
                c.interest = READ;
                poller.interest(c.channel, READ);
            }
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
        c.lingering = true;
        c.lingerUntil = now + lingerNanos;
        if (lingerCount == lingering.length) {
            lingering = Arrays.copyOf(lingering, lingerCount * 2);
        }
        c.lingerSlot = lingerCount;
        lingering[lingerCount++] = c;
        return true;
    }

    /** Reads and drops what a lingering connection's peer sent; its end of stream or a failure closes the socket. */
    private void dropInput(Connection c) {
        Chunk scratch = take();
        try {
            ByteBuffer b = scratch.buf;
            for (int reads = 0; reads < 4; reads++) { // a few chunks a turn: the other connections come first
                b.limit(b.capacity()).position(0);
                SegmentIo io = c.io;
                int n = io != null ? io.read(b, scratch.memory) : c.channel.read(b);
                if (n < 0) {
                    endLinger(c, false);
                    return;
                }
                if (n == 0) {
                    return;
                }
            }
        } catch (IOException e) {
            endLinger(c, true);
        } finally {
            pool.give(scratch);
        }
    }

    private void sweepLingering() {
        for (int i = lingerCount - 1; i >= 0; i--) {
            Connection c = lingering[i];
            if (now - c.lingerUntil >= 0) {
                endLinger(c, false);
            }
        }
    }

    /** Closes a lingering connection's socket: at its peer's end of stream, a failure, its deadline or the loop's end. */
    private void endLinger(Connection c, boolean reset) {
        int slot = c.lingerSlot;
        Connection last = lingering[--lingerCount];
        lingering[slot] = last;
        last.lingerSlot = slot;
        lingering[lingerCount] = null;
        c.lingering = false;
        release(c.channel, reset);
    }

    /** Takes {@code ch} from the poller and closes it: with a reset where asked, else quietly. */
    private void release(Endpoint ch, boolean reset) {
        poller.deregister(ch);
        if (reset) {
            ch.reset();
        } else {
            closeQuietly(ch);
        }
    }

    private long sweepInterval() {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(1), idleTimeoutNanos / 4);
    }

    private void sweepIdle() {
        nextSweep = now + sweepInterval();
        for (int i = count - 1; i >= 0; i--) {
            Connection c = conns[i];
            long quiet = now - c.lastActive;
            if (quiet >= idleTimeoutNanos) {
                closeNow(c, new SocketTimeoutException("no byte read or sent for "
                        + TimeUnit.NANOSECONDS.toMillis(quiet) + " ms: idleTimeout="
                        + TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos) + " ms, " + c), true);
            }
        }
    }

    private void shutdown() {
        stopping = true;
        runTasks();
        while (count > 0) {
            closeNow(conns[count - 1], null, false);
        }
        while (lingerCount > 0) {
            endLinger(lingering[lingerCount - 1], false);
        }
        try {
            poller.close();
        } catch (IOException ignored) {
            // nothing registered is left open
        }
    }

    private static void closeQuietly(Endpoint ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing a socket releases its descriptor even when it reports an error
        }
    }
}
