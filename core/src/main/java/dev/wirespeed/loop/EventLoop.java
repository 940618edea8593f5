package dev.wirespeed.loop;

import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One thread, one {@link Poller}, the connections given to it, and the turn that serves them. Its parts
 * do the work: {@link FrameAssembler} turns what it reads into frames, {@link Outbound} queues and
 * sends the replies, {@link Lingering} keeps closed sockets dropping input until their peers close;
 * the loop owns the connections and the ways they end ({@link Closer}).
 *
 * <p>Each turn: the tasks queued from other threads; one poll (blocking, or not when busy-polling);
 * for each ready connection, its pending output sent if writable, then one read of at most a chunk
 * (the fairness budget: no connection is read twice while another ready one waits; a lending
 * endpoint's buffers are taken until about a chunk's worth) and its frames; then the output of every
 * connection written to during the turn; then, where an idle timeout is set and due, a sweep for idle
 * connections, and the lingering sockets past their deadline.
 *
 * <p>{@code conns[0, count)} are the open and closing connections, each knowing its slot.
 */
final class EventLoop implements Runnable, Closer, LoopThread {
    private final FrameServer server;
    private final int index;
    private final ConnectionHandler handler;
    private final Poller poller;
    private final Poller.Ready onReady = this::ready;
    private final IdleStrategy idle;
    private final long idleTimeoutNanos;
    private final LoopEvents events;
    private final LoopStats stats = new LoopStats();
    private final FrameAssembler input;
    private final Outbound output;
    private final Lingering lingering;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private volatile boolean stopping;
    volatile Thread thread;

    private Connection[] conns = new Connection[64];
    private int count;
    /** The loop's clock, read once per turn. */
    private long now;
    private long nextSweep;

    EventLoop(FrameServer server, int index, FrameServer.Builder config) throws IOException {
        this.server = server;
        this.index = index;
        this.handler = config.handler;
        this.poller = config.transport.openPoller();
        this.idle = config.idle;
        this.idleTimeoutNanos = config.idleTimeout == null ? 0 : config.idleTimeout.toNanos();
        this.events = server.events();
        BufferPool pool = new BufferPool(config.chunkSize, stats);
        this.input = new FrameAssembler(handler, pool, config.maxFrameLength, stats, this);
        this.output = new Outbound(handler, pool, poller, config.maxFrameLength, config.outputLimit, stats, this);
        this.lingering = new Lingering(poller, pool, config.lingerTimeout.toNanos());
    }

    int index() {
        return index;
    }

    /** {@return the frames read so far}, from any thread */
    long framesRead() {
        return stats.framesRead();
    }

    /** {@return the bytes read so far}, from any thread */
    long bytesRead() {
        return stats.bytesRead();
    }

    /** {@return the bytes written so far}, from any thread */
    long bytesWritten() {
        return stats.bytesWritten();
    }

    /** {@return the bytes the loop's pool has allocated}, from any thread */
    long pooledBytes() {
        return stats.pooledBytes();
    }

    /** {@return the connections open or closing on this loop; exact on the loop thread} */
    int connectionCount() {
        return count;
    }

    void listen(Listener listener) throws IOException {
        poller.register(listener, listener);
    }

    @Override
    public void execute(Runnable task) {
        if (stopping) {
            throw new RejectedExecutionException("the server is closed; loop " + index);
        }
        tasks.add(task);
        if (idle == null && Thread.currentThread() != thread && wakeupPending.compareAndSet(false, true)) {
            poller.wakeup();
        }
    }

    @Override
    public void checkThread(Connection c) {
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
                    output.flushDirty(now); // before a select that may block: the tasks' writes go now
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
                output.flushDirty(now);
                now = System.nanoTime();
                if (now - nextSweep >= 0) {
                    sweepIdle();
                }
                if (lingering.count() > 0) {
                    lingering.sweep(now);
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
        if (lingering.count() > 0) { // lingering sockets close at their deadline, give or take this
            millis = millis < 0 ? Lingering.CHECK_MILLIS : Math.min(millis, Lingering.CHECK_MILLIS);
        }
        return millis;
    }

    private void ready(Object attachment, int ops) {
        if (attachment instanceof Connection c) {
            if (c.state == Connection.State.CLOSED) {
                if (c.lingering) {
                    lingering.dropInput(c);
                }
                return; // else closed by a handler earlier in this turn
            }
            if ((ops & Poller.WRITE) != 0) {
                output.flush(c, now);
            }
            if ((ops & Poller.READ) != 0 && c.state == Connection.State.OPEN && !c.paused) {
                if (c.lender != null) {
                    input.readLent(c, c.lender, now);
                } else {
                    input.readCopy(c, now);
                }
            }
        } else {
            server.accept((Listener) attachment, this);
        }
    }

    /** Takes over an accepted connection: called on this loop's thread. */
    void adopt(Endpoint endpoint, long id) {
        Connection c = new Connection(this, this, output, endpoint, id, endpoint.remoteAddress());
        try {
            poller.register(endpoint, c, Poller.READ);
        } catch (IOException e) {
            server.connectionClosed();
            endpoint.reset();
            return;
        }
        c.interest = Poller.READ;
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

    @Override
    public void refuse(Connection c, long offset, IOException cause) {
        events.protocolError(c, offset, cause);
        c.state = Connection.State.CLOSING;
        input.releaseInput(c);
        output.send(c, now); // best effort: a failure here changes nothing, the connection closes either way
        closeNow(c, cause, false);
    }

    @Override
    public void closeGracefully(Connection c) {
        c.state = Connection.State.CLOSING;
        input.releaseInput(c);
        if (c.queued == 0) {
            closeNow(c, null, false);
        } else {
            output.flushLater(c);
        }
    }

    @Override
    public void closeNow(Connection c, Throwable cause, boolean reset) {
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
        if (reset || stopping || c.inputEnded || !lingering.start(c, now)) {
            lingering.release(c.channel, reset);
        }
        input.releaseInput(c);
        output.discard(c);
        events.closed(c, cause);
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
        lingering.endAll();
        try {
            poller.close();
        } catch (IOException ignored) {
            // nothing registered is left open
        }
    }
}
