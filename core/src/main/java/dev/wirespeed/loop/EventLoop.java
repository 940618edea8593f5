package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.loop.Connection.Closer;
import dev.wirespeed.loop.Connection.LoopThread;
import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.internal.Chunk;
import dev.wirespeed.loop.internal.InputMemory;
import dev.wirespeed.loop.internal.LoopPools;
import dev.wirespeed.loop.internal.LoopStats;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import dev.wirespeed.loop.tls.TlsLayer;
import dev.wirespeed.loop.tls.TlsLayers;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLException;

/**
 * One thread of a {@link LoopGroup}, one {@link Poller}, the connections given to it (accepted by a
 * {@link FrameServer} or connected for a {@link FrameClient}, each with its owner's handler and limits),
 * and the turn that serves them. Its parts do the work: {@link FrameAssembler} turns what it reads into
 * frames, {@link Outbound} sends the replies, {@link Lingering} keeps closed sockets dropping
 * input until their peers close; the loop owns the connections and the ways they end ({@link Closer}).
 *
 * <p>Each turn: the tasks queued from other threads; one poll (blocking, or not when busy-polling);
 * for each ready connection, its pending output sent if writable, then one read of at most a chunk
 * (the fairness budget: no connection is read twice while another ready one waits; a lending
 * endpoint's buffers are taken until about a chunk's worth) and its frames; then the output of every
 * connection written to during the turn; then the connects past their timeout, where an idle timeout
 * is set and due, a sweep for idle connections, the lingering sockets past their deadline, and the
 * listeners paused (accepting failed) past theirs, watched again.
 *
 * <p>{@code conns[0, count)} are the connecting, handshaking, open and closing connections, each knowing
 * its slot; {@link Openings} watches the connecting and handshaking ones' deadlines, {@link HeldInput}
 * the connections whose TLS holds input the poller will not announce.
 */
final class EventLoop implements Runnable, Closer, LoopThread, Poller.Ready {
    private final Group group;
    private final int index;
    private final LoopTransport transport;
    private final Poller poller;
    private final IdleStrategy idle;
    private final LoopStats stats = new LoopStats();
    private final InputMemory memory;
    private final FrameAssembler input;
    private final Outbound output;
    /** The connections written to during the turn, and the pool of their chunks: the loop's, shared by its connections. */
    private final Connection.FlushList flushes;
    private final Lingering lingering;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private volatile boolean stopping;
    /** Why the loop stops, for its connections' handlers: a loop's failure; null for a close. */
    private volatile Throwable stopCause;
    /** The loop has closed everything and run its last tasks. */
    private volatile boolean ended;
    volatile Thread thread;

    private Connection[] conns = new Connection[64];
    private int count;
    private final Openings opening = new Openings();
    private final PausedListeners pausedListeners = new PausedListeners();
    private final HeldInput held;
    private final TlsLayers tlsLayers;
    /** The loop's buffer pools, trimmed while one has memory to give back. */
    private final LoopPools pools;
    /**
     * The loop's clock: read once per turn while anything is timed ({@link #timed()}: an idle timeout, a
     * connect or handshake under way, a socket lingering, a listener paused, a pool with memory to give
     * back), else left as it was, since nothing then reads it but the connections' last-active times,
     * which only an idle sweep looks at; and read afresh wherever a deadline is set, since a poll may
     * have waited long since the turn began (or, untimed, the clock was not read at all).
     */
    private long now;
    /**
     * How often idle connections, and partial frames past their time, are looked for: a quarter of the
     * shortest idle or frame timeout of any connection so far.
     */
    private long sweepNanos = Long.MAX_VALUE;
    private long nextSweep = Long.MAX_VALUE;

    /**
     * What a loop tells the group it belongs to, on the loop's thread: the group's, not the loop's, to act on.
     */
    interface Group {
        /** Loop {@code index}'s thread has begun, and serves nothing yet. */
        void loopStarted(int index);

        /** Loop {@code index} cannot go on, {@code failure} says why: it closes its connections next. */
        void loopFailed(int index, IOException failure);
    }

    /**
     * Opens the loop's poller; the thread that runs it is the caller's to start.
     *
     * @param idle what to do between empty turns when busy-polling; null to block in the poller
     * @param chunkSize the bytes of a pooled buffer
     * @param inputBudget the most bytes kept for partial frames and records
     * @param unusedMemoryNanos how long pooled memory stays unused before it is given back; 0 for never
     */
    EventLoop(Group group, int index, LoopTransport transport, IdleStrategy idle, int chunkSize, long inputBudget,
            long unusedMemoryNanos) throws IOException {
        this.group = group;
        this.index = index;
        this.transport = transport;
        this.poller = transport.openPoller();
        this.idle = idle;
        this.pools = new LoopPools(unusedMemoryNanos);
        BufferPool pool = new BufferPool(chunkSize, stats, pools);
        this.flushes = new Connection.FlushList(pool, poller);
        this.output = new Outbound(flushes, poller, this, this);
        this.memory = new InputMemory(pool, inputBudget, stats, pools);
        this.input = new FrameAssembler(pool, memory, this);
        this.tlsLayers = new TlsLayers(memory, pools);
        this.held = new HeldInput(input, this);
        this.lingering = new Lingering(poller, pool);
    }

    int index() {
        return index;
    }

    /** {@return the bytes the loop's pools (chunks, and TLS records, direct or on the heap) hold}, from any thread */
    long pooledBytes() {
        return stats.pooledBytes() + tlsLayers.pooledBytes();
    }

    /** {@return the bytes the loop keeps for partial frames}, from any thread */
    long partialFrameBytes() {
        return memory.held();
    }

    /** {@return the connections open or closing on this loop; exact on the loop thread} */
    int connectionCount() {
        return count;
    }

    /** Registers a server's listener, on this loop's thread; {@code acceptor} takes what it has waiting. */
    void listen(Listener listener, Acceptor acceptor) throws IOException {
        poller.register(listener, acceptor);
    }

    /** Closes {@code listener}, which {@link #listen} registered, on this loop's thread. */
    void unlisten(Listener listener) {
        try {
            listener.close(); // a closed descriptor leaves the poller's set
        } catch (IOException ignored) {
            // the descriptor is released regardless
        }
    }

    /**
     * Stops watching {@code listener}, which {@link #listen} registered, for {@code nanos}: accepting
     * failed, and its connection waits in the backlog. On this loop's thread.
     */
    void pauseAccepting(Listener listener, long nanos) throws IOException {
        pausedListeners.pause(listener, readClock() + nanos, poller);
    }

    /** Takes what a listener has waiting; the attachment of a listener registered with {@link #listen}. */
    interface Acceptor {
        void accept(EventLoop loop);
    }

    /** {@return whether the loop has closed everything and run its last tasks}, from any thread */
    boolean ended() {
        return ended;
    }

    @Override
    public void execute(Runnable task) {
        if (stopping) {
            throw new RejectedExecutionException("the loop group is closed; loop " + index);
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

    /** Asks the loop to end, closing its connections with {@code cause}, a loop's failure; returns at once. */
    void stop(Throwable cause) {
        if (stopCause == null) {
            stopCause = cause;
        }
        stop();
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        int emptyTurns = 0;
        try {
            group.loopStarted(index);
            now = System.nanoTime();
            while (!stopping) {
                boolean ranTasks = runTasks();
                if (ranTasks) {
                    output.flushDirty(now); // before a select that may block: the tasks' writes go now
                }
                int ready;
                if (idle == null) {
                    ready = poller.poll(pollTimeoutMillis(), this);
                    if (wakeupPending.get()) {
                        wakeupPending.set(false); // a volatile store, and so a fence, only after a wakeup
                    }
                } else {
                    ready = poller.poll(0, this);
                }
                if (held.count() > 0) { // TLS input held past a turn's budget: read as a readiness would
                    ready += held.count();
                    held.read(now);
                }
                output.flushDirty(now);
                if (timed()) {
                    now = System.nanoTime();
                    if (opening.count() > 0) {
                        opening.expire(now, this);
                    }
                    if (now - nextSweep >= 0) {
                        sweepIdle();
                    }
                    if (lingering.count() > 0) {
                        lingering.sweep(now);
                    }
                    if (pausedListeners.count() > 0) {
                        pausedListeners.resume(now, poller);
                    }
                    if (pools.timed()) {
                        pools.tick(now);
                    }
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
            fail(new IOException("loop " + index + " stopped: its poller failed: " + e, e));
        } catch (RuntimeException | Error e) {
            // Thrown outside the serving of any one connection, which is contained where it is served.
            fail(new IOException("loop " + index + " stopped: " + e, e));
        } finally {
            shutdown();
        }
    }

    /** The loop cannot go on: the group hears it first, then the loop closes its connections with it. */
    private void fail(IOException failure) {
        stopCause = failure;
        try {
            group.loopFailed(index, failure);
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
    }

    /** {@return the clock, read now and kept as the loop's}: for a deadline set mid-turn (see {@link #now}) */
    private long readClock() {
        return now = System.nanoTime();
    }

    /** {@return whether anything on this loop has a deadline: then its clock is read at every turn} */
    private boolean timed() {
        return sweepNanos != Long.MAX_VALUE || opening.count() > 0 || lingering.count() > 0
                || pausedListeners.count() > 0 || pools.timed();
    }

    private boolean runTasks() {
        boolean ran = false;
        for (Runnable task; (task = tasks.poll()) != null; ) {
            ran = true;
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                Closer.report(e);
            }
        }
        return ran;
    }

    private long pollTimeoutMillis() {
        if (held.count() > 0) {
            return 0; // TLS input is held: read it at once
        }
        long wake = Math.min(Math.min(nextSweep, opening.earliest()), pausedListeners.earliest());
        if (pools.timed()) {
            wake = Math.min(wake, pools.nextTrim());
        }
        long millis = wake == Long.MAX_VALUE ? -1 // no limit
                : Math.max(1, TimeUnit.NANOSECONDS.toMillis(wake - System.nanoTime()) + 1);
        if (lingering.count() > 0) { // lingering sockets close at their deadline, give or take this
            millis = millis < 0 ? Lingering.CHECK_MILLIS : Math.min(millis, Lingering.CHECK_MILLIS);
        }
        return millis;
    }

    /**
     * One socket is ready: the poller's call, made on this loop's thread. The loop is its own {@link
     * Poller.Ready}, not a lambda's target, so that the read and write paths below it stay within the
     * JIT's inlining depth down to the native call (see docs/investigations.md).
     */
    @Override
    public void ready(Object attachment, int ops) {
        if (attachment instanceof Connection c) {
            try {
                if (c.state == Connection.State.CLOSED) {
                    if (c.lingering) {
                        lingering.dropInput(c);
                    }
                    return; // else closed by a handler earlier in this turn
                }
                if (c.state == Connection.State.CONNECTING) {
                    finishConnect(c); // whatever the poller reported: the connect's end, or nothing yet
                    return;
                }
                if (c.state == Connection.State.HANDSHAKING) {
                    handshake(c);
                    return;
                }
                if ((ops & Poller.WRITE) != 0) {
                    output.flush(c, now);
                }
                if ((ops & Poller.READ) != 0 && c.state == Connection.State.OPEN && !c.paused) {
                    if (c.lender != null) {
                        if (c.tls != null) {
                            c.tls.beginTurn();
                        }
                        input.readLent(c, c.lender, now);
                        if (c.tls != null) {
                            readLaterIfHeld(c);
                        }
                    } else {
                        input.readCopy(c, now);
                    }
                    if (c.dirty) {
                        output.flushRead(c, now); // its replies, while its state is still in the cache
                    }
                }
            } catch (RuntimeException | Error e) {
                failed(c, e); // that connection alone: the poller goes on to the others
            }
        } else {
            try {
                ((Acceptor) attachment).accept(this);
            } catch (RuntimeException | Error e) {
                Closer.report(e);
            }
        }
    }

    @Override
    public void failed(Connection c, Throwable e) {
        c.handOverAbandoned(); // it may have been thrown while a frame or a block was handed over
        if (c.state == Connection.State.CLOSED) {
            Closer.report(e); // thrown while it closed: nothing is left to close
            return;
        }
        try {
            closeNow(c, e, true);
        } catch (RuntimeException | Error again) {
            e.addSuppressed(again);
            Closer.report(e);
        }
    }

    /** Takes over a connection {@code owner} accepted and counted: called on this loop's thread. */
    void adopt(Endpoint endpoint, Owner owner, long id) {
        if (owner.tls != null && owner.handshakesFull(index)) {
            evictOldestHandshake(owner); // a flood of stalled handshakes cannot keep this one out
        }
        SocketAddress remote = endpoint.remoteAddress();
        Connection c = connection(owner, id, endpoint, remote, tlsFor(owner, endpoint, remote, false));
        try {
            poller.register(endpoint, c, Poller.READ);
        } catch (IOException | RuntimeException | Error e) {
            owner.connectionClosed(); // never watched: its handler never hears of it
            resetAfterFailedRegister(endpoint, e);
            return;
        }
        c.watchedFor(Poller.READ);
        add(c);
        if (c.tls != null) {
            startHandshake(c);
        } else {
            opened(c);
        }
    }

    /** {@return a connection of {@code owner} on this loop, over {@code endpoint} (null for a connect that failed)} */
    private Connection connection(Owner owner, long id, Endpoint endpoint, SocketAddress remote, TlsLayer tls) {
        return new Connection(this, this, flushes, owner.stats(index), endpoint, owner,
                owner.handler instanceof BlockHandler, id, remote, tls);
    }

    /** {@return the TLS layer of a new connection of {@code owner} over {@code endpoint}, or null for plaintext} */
    private TlsLayer tlsFor(Owner owner, Endpoint endpoint, SocketAddress remote, boolean client) {
        return owner.tls == null ? null : tlsLayers.layerFor(owner.tls, owner.tlsCloseNanos, endpoint, remote, client);
    }

    /** Resets {@code owner}'s oldest handshake on this loop, {@code maxHandshakes} being in progress. */
    private void evictOldestHandshake(Owner owner) {
        Connection oldest = opening.oldestHandshake(owner);
        if (oldest != null) {
            owner.handshakeEvicted();
            long ageMillis = TimeUnit.NANOSECONDS.toMillis(readClock() - (oldest.openDeadline - owner.handshakeNanos));
            closeNow(oldest, new SSLException("TLS handshake reset for a newer connection: maxHandshakes="
                    + owner.maxHandshakes + " in progress on loop " + index + ", this the oldest, begun " + ageMillis
                    + " ms ago; " + oldest), true);
        }
    }

    /** A TLS connection's socket is open: its handshake starts, watched for its deadline. */
    private void startHandshake(Connection c) {
        if (c.state != Connection.State.CONNECTING) {
            opening.add(c); // a connected one is in the list already
        }
        c.handshaking(readClock() + c.owner.handshakeNanos);
        c.owner.handshakeStarted(index);
        try {
            c.tls.begin();
        } catch (SSLException e) {
            closeNow(c, TlsLayer.described(e), true);
            return;
        }
        handshake(c); // a client's first flight goes at once
    }

    /** Moves a handshake on; once done, the connection opens. */
    private void handshake(Connection c) {
        boolean done;
        try {
            done = c.tls.handshake();
        } catch (IOException | RuntimeException e) {
            failHandshake(c, e);
            return;
        }
        int want = Poller.READ | (c.tls.outputPending() ? Poller.WRITE : 0);
        if (want != c.interest) {
            try {
                poller.interest(c.channel, want);
                c.watchedFor(want);
            } catch (IOException e) {
                closeNow(c, e, true);
                return;
            }
        }
        if (!done) {
            return;
        }
        c.active(now);
        opening.remove(c);
        c.owner.handshakeEnded(index);
        opened(c);
        if (c.state == Connection.State.OPEN) {
            readLaterIfHeld(c); // bytes that came with the handshake's last flight
        }
    }

    /** A handshake failed: the engine's alert goes to the peer if the socket takes it, then the socket closes. */
    private void failHandshake(Connection c, Exception e) {
        output.sendAlert(c);
        c.inputEnds(); // no lingering: closed with a FIN, after the alert
        closeNow(c, e, false);
    }

    @Override
    public void readLaterIfHeld(Connection c) {
        held.addIfHeld(c);
    }

    /**
     * Begins connecting a connection of {@code owner}, counted already, to {@code address}: called on this
     * loop's thread. {@code done} completes once the handler's {@code onOpen} has run, or exceptionally
     * with the failure that the handler's {@code onClose} gets too.
     */
    void connect(Owner owner, long id, SocketAddress address, long timeoutNanos, CompletableFuture<Connection> done) {
        if (stopping) {
            owner.connectionClosed();
            done.completeExceptionally(new ConnectException("connect to " + address
                    + " abandoned: the loop group is closed"));
            return;
        }
        Endpoint endpoint;
        try {
            endpoint = transport.connect(address);
        } catch (IOException | RuntimeException e) {
            connectFailed(connection(owner, id, null, address, null), done, e);
            return;
        }
        Connection c;
        try {
            c = connection(owner, id, endpoint, address, tlsFor(owner, endpoint, address, true));
        } catch (RuntimeException e) {
            endpoint.reset();
            connectFailed(connection(owner, id, null, address, null), done, e);
            return;
        }
        c.connecting(done, readClock() + timeoutNanos);
        try {
            poller.register(endpoint, c, Poller.CONNECT);
        } catch (IOException | RuntimeException | Error e) {
            resetAfterFailedRegister(endpoint, e);
            c.takeOpening();
            connectFailed(c, done, e);
            return;
        }
        c.watchedFor(Poller.CONNECT);
        add(c);
        opening.add(c);
    }

    /**
     * Resets an endpoint the poller refused to watch. A refusal that is not an IOException (the poller's
     * bug, or out of memory) goes to the thread's uncaught-exception handler too, with what the reset
     * threw; the loop goes on.
     */
    private static void resetAfterFailedRegister(Endpoint endpoint, Throwable refused) {
        try {
            endpoint.reset();
        } catch (RuntimeException | Error e) {
            refused.addSuppressed(e);
            if (refused instanceof IOException) {
                Closer.report(e);
            }
        }
        if (!(refused instanceof IOException)) {
            Closer.report(refused);
        }
    }

    /**
     * A connect that failed before the loop watched it: {@code c} closed, counted out of its owner, its
     * future failed and its handler's {@code onClose} told, with a {@link ConnectException} naming the
     * address and the cause.
     */
    private void connectFailed(Connection c, CompletableFuture<Connection> done, Throwable e) {
        c.closes();
        c.owner.connectionClosed();
        IOException failure = connectFailure(c.remoteAddress(), e);
        done.completeExceptionally(failure);
        tellClosed(c, failure);
    }

    private static IOException connectFailure(SocketAddress address, Throwable e) {
        ConnectException failure = new ConnectException("connect to " + address + " failed: " + e.getMessage());
        failure.initCause(e);
        return failure;
    }

    /** The poller reported a connecting connection: it connected, failed, or is still under way. */
    private void finishConnect(Connection c) {
        boolean connected;
        try {
            connected = c.channel.finishConnect();
        } catch (IOException | RuntimeException e) {
            closeNow(c, connectFailure(c.remoteAddress(), e), true);
            return;
        }
        if (!connected) {
            return;
        }
        try {
            poller.interest(c.channel, Poller.READ);
        } catch (IOException e) {
            closeNow(c, connectFailure(c.remoteAddress(), e), true);
            return;
        }
        c.watchedFor(Poller.READ);
        if (c.tls != null) {
            startHandshake(c); // it stays among the opening connections, with the handshake's deadline
            return;
        }
        opening.remove(c);
        opened(c);
    }

    /** Puts a new connection in the table, its idle timeout watched from now. */
    private void add(Connection c) {
        long idleNanos = c.owner.idleTimeoutNanos;
        long frameNanos = c.owner.frameTimeoutNanos;
        c.active(idleNanos != 0 || frameNanos != 0 ? readClock() : now);
        if (count == conns.length) {
            conns = Arrays.copyOf(conns, count * 2);
        }
        c.placedAt(count);
        conns[count++] = c;
        long shortest = Math.min(idleNanos == 0 ? Long.MAX_VALUE : idleNanos, frameNanos == 0 ? Long.MAX_VALUE : frameNanos);
        if (shortest != Long.MAX_VALUE) {
            long every = Math.max(TimeUnit.MILLISECONDS.toNanos(1), shortest / 4);
            if (every < sweepNanos) {
                sweepNanos = every;
                nextSweep = Math.min(nextSweep, now + every);
            }
        }
    }

    /** A connection is open: the events, the handler's {@code onOpen}, then its client's future. */
    private void opened(Connection c) {
        c.opens();
        CompletableFuture<Connection> opening = c.takeOpening();
        c.owner.events.opened(c.id(), c.remoteAddress(), index);
        try {
            c.handler.onOpen(c);
        } catch (IOException | RuntimeException | Error e) {
            closeNow(c, e, true);
            if (opening != null) {
                opening.completeExceptionally(e);
            }
            return;
        }
        if (opening != null) {
            opening.complete(c);
        }
    }

    @Override
    public void refuse(Connection c, long offset, IOException cause) {
        c.owner.events.protocolError(c.id(), offset, cause);
        c.closing();
        input.releaseInput(c);
        output.send(c, now); // best effort: a failure here changes nothing, the connection closes either way
        output.closeOutput(c); // then a close_notify, over TLS
        closeNow(c, cause, false);
    }

    @Override
    public void closeGracefully(Connection c) {
        c.closing();
        input.releaseInput(c);
        if (c.queued == 0 && c.tls == null) {
            closeNow(c, null, false);
        } else {
            output.flushLater(c); // the flush sends what is queued, then a TLS close_notify, then closes
        }
    }

    @Override
    public void closeNow(Connection c, Throwable cause, boolean reset) {
        if (c.state == Connection.State.CLOSED) {
            return;
        }
        boolean releaseTls = false; // after the handler's onClose, which may still ask for the TLS session
        Connection.State was = c.closes();
        // Counted out before the socket closes, so that a peer seeing the close finds the count exact.
        int slot = c.slot;
        Connection last = conns[--count];
        conns[slot] = last;
        last.placedAt(slot);
        conns[count] = null;
        c.owner.connectionClosed();
        if (was == Connection.State.CONNECTING || was == Connection.State.HANDSHAKING) {
            opening.remove(c); // never opened: no lingering, and its client's future fails
            if (was == Connection.State.HANDSHAKING) {
                c.owner.handshakeEnded(index);
            }
            lingering.release(c.channel, reset || was == Connection.State.CONNECTING);
            releaseTls = c.tls != null;
            if (cause == null) {
                String why = stopping ? "the loop group closed" : "its " + (c.opening != null ? "client" : "server")
                        + " closed";
                cause = was == Connection.State.CONNECTING
                        ? new ConnectException("connect to " + c.remoteAddress() + " abandoned: " + why)
                        : new SSLException("TLS handshake abandoned: " + why + "; " + c);
            }
            CompletableFuture<Connection> opening = c.takeOpening();
            if (opening != null) {
                opening.completeExceptionally(cause);
            }
        } else {
            if (!reset) {
                output.closeOutput(c); // over TLS a close_notify, as far as the socket takes it: a clean close
            }
            if (reset || stopping || c.inputEnded || !lingering.start(c, readClock())) {
                lingering.release(c.channel, reset);
                releaseTls = c.tls != null;
            }
        }
        input.releaseInput(c);
        output.discard(c);
        tellClosed(c, cause);
        if (releaseTls) {
            c.tls.release(); // a lingering one's, when its lingering ends
        }
    }

    private void tellClosed(Connection c, Throwable cause) {
        c.owner.events.closed(c.id(), cause, c.framesRead, c.bytesRead, c.bytesWritten);
        try {
            c.handler.onClose(c, cause);
        } catch (RuntimeException | Error e) {
            Closer.report(e);
        }
    }

    /** Resets the connections idle past their idle timeout, and those whose partial frame is past its frame timeout. */
    private void sweepIdle() {
        nextSweep = now + sweepNanos;
        for (int i = count - 1; i >= 0; i--) {
            Connection c = conns[i];
            long idleNanos = c.owner.idleTimeoutNanos;
            long quiet = now - c.lastActive;
            long frameNanos = c.owner.frameTimeoutNanos;
            if (idleNanos != 0 && quiet >= idleNanos && c.state != Connection.State.CONNECTING) {
                closeNow(c, new SocketTimeoutException("no byte read or sent for "
                        + TimeUnit.NANOSECONDS.toMillis(quiet) + " ms: idleTimeout="
                        + TimeUnit.NANOSECONDS.toMillis(idleNanos) + " ms, " + c), true);
            } else if (frameNanos != 0 && c.state == Connection.State.OPEN) {
                if (c.held > 0 && now - c.partialSince >= frameNanos) {
                    closeNow(c, frameTimedOut(c, now - c.partialSince, frameNanos), true);
                } else if (c.tls != null && c.tls.partialRecordSince() != Long.MIN_VALUE
                        && now - c.tls.partialRecordSince() >= frameNanos) {
                    long kept = now - c.tls.partialRecordSince();
                    closeNow(c, new SocketTimeoutException("a TLS record at offset=" + c.tls.partialRecordOffset()
                            + " not whole " + TimeUnit.NANOSECONDS.toMillis(kept) + " ms after its first byte: frameTimeout="
                            + TimeUnit.NANOSECONDS.toMillis(frameNanos) + " ms, " + c), true);
                }
            }
        }
    }

    /** {@return the cause of a reset for a partial frame kept {@code kept} nanoseconds, past {@code frameNanos}} */
    private static SocketTimeoutException frameTimedOut(Connection c, long kept, long frameNanos) {
        Chunk in = c.in;
        int present = in == null ? 0 : in.available();
        String frame = present >= FrameFormat.HEADER_LENGTH
                ? "a frame of length=" + FrameFormat.length(in.buf, in.start) : "a frame header";
        return new SocketTimeoutException(frame + " at offset=" + c.partialOffset + " not whole "
                + TimeUnit.NANOSECONDS.toMillis(kept) + " ms after its first byte, " + present + " bytes of it come: "
                + "frameTimeout=" + TimeUnit.NANOSECONDS.toMillis(frameNanos) + " ms, " + c);
    }

    /**
     * Closes the connections of {@code owner} on this loop as the loop's end would (unsent output dropped,
     * {@code onClose} with a null cause; a connect under way fails): on this loop's thread.
     */
    void closeAll(Owner owner) {
        boolean closedOne = true;
        while (closedOne) { // again, as a handler's onClose may close other connections and move them
            closedOne = false;
            for (int i = count - 1; i >= 0; i--) {
                if (i < count && conns[i].owner == owner) {
                    closeNow(conns[i], null, false);
                    closedOne = true;
                }
            }
        }
    }

    void closePoller() {
        try {
            poller.close();
        } catch (IOException ignored) {
            // nothing registered yet
        }
    }

    private void shutdown() {
        stopping = true;
        runTasks();
        Throwable cause = stopCause; // null where the group was closed
        while (count > 0) {
            Connection c = conns[count - 1];
            try {
                closeNow(c, cause, false);
            } catch (RuntimeException | Error e) {
                Closer.report(e);
                if (count > 0 && conns[count - 1] == c) {
                    conns[--count] = null; // given up: the loop ends regardless
                }
            }
        }
        lingering.endAll();
        try {
            poller.close();
        } catch (IOException ignored) {
            // nothing registered is left open
        }
        ended = true;
        runTasks(); // those given while the loop stopped: on a closed loop, their waiters hear of it
        int out = pools.close(); // after the poller, so that the kernel has no operation on a chunk
        if (out > 0) {
            Closer.report(new IllegalStateException("loop " + index + " ended with " + out
                    + " pooled buffers not given back; their slabs stay allocated"));
        }
    }
}
