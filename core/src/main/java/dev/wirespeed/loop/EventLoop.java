package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.io.IdleStrategy;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One thread, one selector, the connections given to it: reads each ready connection once per
 * turn into a pooled chunk, hands the whole frames in it to the handler, and at the end of the turn
 * sends the output the handlers queued.
 *
 * <p>Each turn: the tasks queued from other threads; one select (blocking, or not when busy-polling);
 * for each ready connection, its pending output sent if writable, then one read of at most a chunk
 * (the fairness budget: no connection is read twice while another ready one waits) and its frames;
 * then the output of every connection written to during the turn; then, where an idle timeout is
 * set and due, a sweep for idle connections.
 */
final class EventLoop implements Runnable {
    static final int READ = SelectionKey.OP_READ;
    static final int WRITE = SelectionKey.OP_WRITE;

    private final FrameServer server;
    private final int index;
    private final ConnectionHandler handler;
    private final BufferPool pool;
    private final Selector selector;
    private final Consumer<SelectionKey> onReady = this::ready;
    private final int maxFrameLength;
    final long outputLimit;
    private final IdleStrategy idle;
    private final long idleTimeoutNanos;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private volatile boolean stopping;
    volatile Thread thread;

    /** {@code conns[0, count)}: the open and closing connections; each knows its slot. */
    private Connection[] conns = new Connection[64];
    private int count;
    /** {@code flush[0, flushCount)}: connections written to during this turn. */
    private Connection[] flush = new Connection[64];
    private int flushCount;
    /** The loop's clock, read once per turn. */
    private long now;
    private long nextSweep;

    // Counters, written by the loop thread only; read elsewhere as a snapshot that may lag.
    volatile long framesRead;
    volatile long bytesRead;
    volatile long bytesWritten;
    volatile long pooledBytes;

    EventLoop(FrameServer server, int index, FrameServer.Builder config) throws IOException {
        this.server = server;
        this.index = index;
        this.handler = config.handler;
        this.pool = new BufferPool(config.chunkSize);
        this.selector = Selector.open();
        this.maxFrameLength = config.maxFrameLength;
        this.outputLimit = config.outputLimit;
        this.idle = config.idle;
        this.idleTimeoutNanos = config.idleTimeout == null ? 0 : config.idleTimeout.toNanos();
    }

    int index() {
        return index;
    }

    /** {@return the connections open or closing on this loop; exact on the loop thread} */
    int connectionCount() {
        return count;
    }

    BufferPool pool() {
        return pool;
    }

    void listen(ServerSocketChannel listener) throws IOException {
        listener.configureBlocking(false);
        listener.register(selector, SelectionKey.OP_ACCEPT, listener);
    }

    void execute(Runnable task) {
        if (stopping) {
            throw new RejectedExecutionException("the server is closed; loop " + index);
        }
        tasks.add(task);
        if (idle == null && Thread.currentThread() != thread && wakeupPending.compareAndSet(false, true)) {
            selector.wakeup();
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
        selector.wakeup();
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
                    ready = selector.select(onReady, selectTimeoutMillis());
                    wakeupPending.set(false);
                } else {
                    ready = selector.selectNow(onReady);
                }
                flushDirty();
                now = System.nanoTime();
                if (now - nextSweep >= 0) {
                    sweepIdle();
                }
                if (idle != null) {
                    if (ready == 0 && !ranTasks) {
                        idle.idle(++emptyTurns);
                    } else {
                        emptyTurns = 0;
                    }
                }
            }
        } catch (IOException | ClosedSelectorException e) {
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

    private long selectTimeoutMillis() {
        if (idleTimeoutNanos == 0) {
            return 0; // forever
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextSweep - System.nanoTime()) + 1);
    }

    private void ready(SelectionKey key) {
        if (!key.isValid()) {
            return; // closed by a handler earlier in this turn
        }
        Object a = key.attachment();
        if (a instanceof Connection c) {
            int ops = key.readyOps();
            if ((ops & WRITE) != 0) {
                flush(c);
            }
            if ((ops & READ) != 0 && c.state == Connection.State.OPEN && !c.paused) {
                read(c);
            }
        } else {
            server.accept((ServerSocketChannel) a, this);
        }
    }

    /** Takes over an accepted channel: called on this loop's thread. */
    void adopt(SocketChannel channel, long id) {
        Connection c;
        try {
            channel.configureBlocking(false);
            if (channel.supportedOptions().contains(StandardSocketOptions.TCP_NODELAY)) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            c = new Connection(this, channel, id, channel.getRemoteAddress());
            c.key = channel.register(selector, READ, c);
        } catch (IOException e) {
            server.connectionClosed();
            closeQuietly(channel);
            return;
        }
        c.interest = READ;
        c.lastActive = now;
        if (count == conns.length) {
            conns = Arrays.copyOf(conns, count * 2);
        }
        c.slot = count;
        conns[count++] = c;
        try {
            handler.onOpen(c);
        } catch (IOException | RuntimeException e) {
            closeNow(c, e, true);
        }
    }

    private void read(Connection c) {
        Chunk in = c.in;
        if (in == null) {
            in = c.in = take();
        }
        ByteBuffer b = in.buf;
        b.limit(in.capacity());
        b.position(in.end);
        int n;
        try {
            n = c.channel.read(b);
        } catch (IOException e) {
            closeNow(c, e, true);
            return;
        }
        if (n > 0) {
            in.end += n;
            c.lastActive = now;
            bytesRead += n;
            frames(c, in);
        } else if (n < 0) {
            endOfStream(c, in);
        } else if (in.available() == 0) {
            releaseInput(c);
        }
    }

    private Chunk take() {
        if (pool.freeChunks() > 0) {
            return pool.take();
        }
        Chunk c = pool.take(); // a new slab: the one place the published figure changes
        pooledBytes = pool.allocatedBytes();
        return c;
    }

    /** Hands over the whole frames in {@code in}, then keeps the partial one, if any, at its start. */
    private void frames(Connection c, Chunk in) {
        ByteBuffer b = in.buf;
        int pos = in.start;
        int end = in.end;
        long delivered = 0;
        int needed = 0;
        while (end - pos >= FrameFormat.HEADER_LENGTH) {
            long header = b.getLong(pos);
            int length = (int) header;
            if (length < 0 || length > maxFrameLength) {
                frameError(c, length, c.consumed + (pos - in.start));
                return;
            }
            int total = FrameFormat.HEADER_LENGTH + length;
            if (end - pos < total) {
                needed = total;
                break;
            }
            delivered++;
            try {
                handler.onFrame(c, (int) (header >>> 32), in.view(pos + FrameFormat.HEADER_LENGTH, pos + total));
            } catch (IOException | RuntimeException e) {
                closeNow(c, e, true);
                return;
            }
            pos += total;
            if (c.state != Connection.State.OPEN) {
                releaseInput(c); // closed by the handler: the rest is not read
                framesRead += delivered;
                return;
            }
        }
        framesRead += delivered;
        c.consumed += pos - in.start;
        in.start = pos;
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

    private void frameError(Connection c, int length, long offset) {
        try {
            FrameFormat.checkLength(length, maxFrameLength, offset);
            throw new AssertionError("length=" + length + " passed the check it failed");
        } catch (IOException e) {
            refuse(c, e);
        }
    }

    private void endOfStream(Connection c, Chunk in) {
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
            int length = in.buf.getInt(in.start + 4);
            truncated = TruncatedFrameException.inBody(present - FrameFormat.HEADER_LENGTH, length, c.consumed);
        }
        refuse(c, truncated);
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
            ((SelectionKey) c.key).interestOps(want);
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
                n = c.channel.write(b);
            } catch (IOException e) {
                return e;
            } finally {
                b.limit(b.capacity()); // absolute puts into a chunk check against its limit
            }
            if (n > 0) {
                head.start += n;
                c.queued -= n;
                c.lastActive = now;
                bytesWritten += n;
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
    private void refuse(Connection c, IOException cause) {
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
        SocketChannel ch = c.channel;
        if (reset && ch.isOpen()) {
            try {
                if (ch.supportedOptions().contains(StandardSocketOptions.SO_LINGER)) {
                    ch.setOption(StandardSocketOptions.SO_LINGER, 0);
                }
            } catch (IOException ignored) {
                // the socket is already broken: closing it is all that is left
            }
        }
        closeQuietly(ch);
        releaseInput(c);
        for (Chunk chunk; (chunk = c.out.pollFirst()) != null; ) {
            pool.give(chunk);
        }
        c.queued = 0;
        int slot = c.slot;
        Connection last = conns[--count];
        conns[slot] = last;
        last.slot = slot;
        conns[count] = null;
        server.connectionClosed();
        try {
            handler.onClose(c, cause);
        } catch (RuntimeException e) {
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
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
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing registered is left open
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing a socket releases its descriptor even when it reports an error
        }
    }
}
