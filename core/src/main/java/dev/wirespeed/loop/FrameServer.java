package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.tls.TlsSettings;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

/**
 * A server of framed connections on event loops: accepts TCP and Unix-domain connections, spreads
 * them over the loop threads of a {@link LoopGroup}, and hands every frame to one {@link
 * ConnectionHandler}. The server makes a group of its own from its builder's loop settings ({@link
 * Builder#loops(int)}, {@link Builder#transport}, ...) unless given one to share ({@link
 * Builder#group(LoopGroup)}) with other servers and with {@link FrameClient}s. The loops reach their
 * sockets through a {@link LoopTransport}: the JDK's {@code Selector} unless the group's builder names
 * another.
 *
 * <pre>{@code
 * FrameServer server = FrameServer.builder((connection, type, body) -> connection.writeFrame(type, body))
 *         .bind(new InetSocketAddress("127.0.0.1", 22223))
 *         .loops(2)
 *         .start();
 * }</pre>
 *
 * <h2>Loops</h2>
 * Each loop is one platform thread with its own poller, buffer pool and connections; a connection
 * stays on the loop that got it (round-robin, in order of acceptance), and all its handler calls run
 * there. Loop 0 also accepts. On a shared group the loops serve the connections of every server and
 * client on it, each with its own handler and limits. {@link Builder#onLoopStart(IntConsumer)} runs on each loop's thread
 * before it serves anything, to pin it to a CPU, say. A loop blocks in its poller between turns
 * unless given an {@link IdleStrategy} ({@link Builder#busyPoll}), which it then calls after each
 * turn that found nothing to do.
 *
 * <h2>Reading, fairly</h2>
 * A ready connection is read once per turn, into a chunk of {@link Builder#chunkSize(int)} bytes:
 * that is the budget of bytes per connection per turn, so no connection is read twice while another
 * ready one waits. The whole frames read are handed to the handler, each body a view valid until the
 * handler returns (see {@link ConnectionHandler}); a partial frame stays buffered for the next read.
 * A frame longer than a chunk is assembled in a buffer of its own, grown as its bytes come and dropped
 * after it. Where the
 * transport holds received bytes in memory of its own and lends it ({@link
 * dev.wirespeed.loop.spi.LendingEndpoint}, as the native module's io_uring transport does), the frames
 * are parsed there, with the same budget, and only a frame that continues past one of its buffers is
 * copied, once.
 *
 * <h2>Memory</h2>
 * Chunks come from the loop's pool and go back the moment a connection has no partial input and no
 * unsent output, so an idle connection holds no buffer: its cost is its socket and a few objects.
 * Memory for input follows the bytes that came, never the length a header announces: between reads a
 * partial frame is kept in a buffer about its size (a small pooled one for a few bytes, a chunk, then,
 * for a frame longer than a chunk, one of its own that doubles as its bytes come, up to the frame's
 * length), and what a loop keeps so is bounded by its input budget ({@link Builder#inputBudget(long)},
 * {@value LoopGroup#DEFAULT_INPUT_BUDGET} bytes by default): a connection that would take the loop
 * past it is reset with an {@link InputBudgetException}.
 * A pool gives back, after {@link Builder#unusedMemoryTimeout(Duration)} (10 seconds by default), the
 * memory no connection took meanwhile: a loop's direct memory falls back when its load goes. Over
 * TLS, a connection in its handshake holds no pooled buffer while it waits for its peer, and a
 * server's connection no engine until the client's first record has come (see {@link TlsSettings}'s
 * "Unfinished handshakes"): peers that connect and stall do not grow the pools.
 *
 * <h2>Backpressure</h2>
 * See {@link Connection}: a connection whose unsent output reaches {@link Builder#outputLimit(long)}
 * is not read until it has drained to half of it.
 *
 * <h2>Bad input and failures</h2>
 * A frame with a negative length or one over {@code maxFrameLength}, or a stream that ends inside a
 * frame, closes that connection: no frame more is read from it, the replies its handler queued before
 * are sent as far as the socket takes them at once, the socket lingers as after a graceful close (see
 * {@link Connection}), and the protocol's exception, naming the length, the limit and the stream
 * offset, goes to {@link ConnectionHandler#onClose}. An I/O error, an idle
 * timeout or a handler that throws resets the connection, its output dropped, with that cause. So does
 * anything thrown while the loop serves one connection, an {@code Error} such as {@code
 * OutOfMemoryError} included. No other connection notices. A loop that fails outside the serving of
 * any one connection (its poller, say) fails the group: every loop ends, closing its connections with
 * the failure as the cause, the server stops listening, the thread's uncaught-exception handler hears
 * of it, and {@link #failure()} returns it. Past {@link Builder#maxConnections(int)} open connections, a
 * new one is reset as soon as it is accepted; with TLS, one accepted onto a loop where {@link
 * Builder#maxHandshakes(int)} handshakes are in progress resets the oldest of them to make room.
 *
 * <p>An accept that fails (out of descriptors: {@code EMFILE}, {@code ENFILE}; out of memory) leaves its
 * connection in the backlog, and the loop stops watching that listener for 100 ms, then twice as long at
 * each failure after it, to 1 s, until an accept succeeds or finds nothing waiting: it neither spins
 * while descriptors lack nor gives up the listener. {@link #acceptFailures()} counts the failures, and
 * with {@link Builder#jfrEvents(boolean)} each is a JFR event with its cause (a native transport's names
 * the call and its errno). The connections open go on being served meanwhile.
 *
 * <h2>Observability</h2>
 * {@link #connectionCount()}, {@link #framesRead()}, {@link #bytesRead()}, {@link #bytesWritten()},
 * {@link #pooledBytes()}, {@link #partialFrameBytes()}, {@link #rejectedConnections()}, {@link
 * #acceptFailures()} and {@link #failure()} at any time; with {@link Builder#jfrEvents(boolean)}, JFR events
 * for each connection opened and closed, each protocol error, each failed accept and, once a second, each
 * loop's totals.
 *
 * <h2>Thread safety</h2>
 * The server's methods are safe from any thread; see {@link Connection} for the connections'.
 *
 * @see FrameClient
 */
public final class FrameServer implements Closeable {
    /** The first pause of a listener whose accept failed; it doubles while accepting fails, to the most. */
    static final Duration MIN_ACCEPT_PAUSE = Duration.ofMillis(100);
    static final Duration MAX_ACCEPT_PAUSE = Duration.ofSeconds(1);

    private final List<Listener> listeners = new ArrayList<>();
    private final List<SocketAddress> addresses = new ArrayList<>();
    private final LoopGroup group;
    /** Made by this server from its builder, and closed with it. */
    private final boolean ownsGroup;
    private final Owner owner;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** False once the listeners are being closed: an accept that fails then is not a failure to report. */
    private volatile boolean listening = true;

    private FrameServer(Builder b, LoopGroup group, boolean ownsGroup) throws IOException {
        this.group = group;
        this.ownsGroup = ownsGroup;
        this.owner = new Owner(b.settings, group.loopCount(), "from", 0,
                o -> b.settings.jfrEvents ? new JfrLoopEvents(o, group) : LoopEvents.NONE);
        EventLoop first = group.loop(0);
        try {
            if (!ownsGroup) {
                group.join(this); // refused if the group is closed, before anything is bound
            }
            group.whenFailed((index, failure) -> {
                owner.events.loopFailed(index, failure);
                closeListeners();
            });
            for (SocketAddress address : b.bind) {
                Listener listener = group.transport().listen(address, b.backlog);
                listeners.add(listener);
                addresses.add(listener.localAddress());
                Accepting accepting = new Accepting(listener);
                LoopCalls.call(first, () -> first.listen(listener, accepting));
            }
        } catch (IOException | RuntimeException e) {
            closeListeners();
            owner.events.stopped();
            if (ownsGroup) {
                group.close();
            } else {
                group.leave(this);
            }
            throw e;
        }
    }

    /**
     * A builder of a server whose connections' frames go to {@code handler}.
     *
     * @param handler the frames' handler, called on the loop threads
     * @return a builder with the defaults: its own group of one blocking loop, 64 KiB chunks, a 64 MiB
     *     input budget a loop, a 256 KiB output limit, 16 MiB {@code maxFrameLength}, a 5-minute idle
     *     timeout, a 60-second frame timeout, 16,384 connections at most, and with TLS 256 handshakes in
     *     progress a loop at most
     */
    public static Builder builder(ConnectionHandler handler) {
        return new Builder(handler);
    }

    /** {@return the addresses listened on, ports resolved, in the order bound} */
    public List<SocketAddress> localAddresses() {
        return List.copyOf(addresses);
    }

    /** {@return the connections accepted and not yet closed} */
    public int connectionCount() {
        return owner.connectionCount();
    }

    /**
     * {@return the connections reset at acceptance because {@code maxConnections} were open, and, with
     * TLS, the handshakes reset to make room for a newer one where {@code maxHandshakes} were in progress
     * on its loop}
     */
    public long rejectedConnections() {
        return owner.rejected();
    }

    /**
     * {@return the accepts that failed (out of descriptors, say), each followed by a pause of its listener}:
     * see "Bad input and failures" above
     */
    public long acceptFailures() {
        return owner.acceptFailures();
    }

    /** {@return frames handed to the handler so far, over all loops; may lag behind the loops} */
    public long framesRead() {
        return owner.framesRead();
    }

    /** {@return bytes read from connections so far, over all loops; may lag behind the loops} */
    public long bytesRead() {
        return owner.bytesRead();
    }

    /**
     * {@return the memory the buffer pools of the server's loops hold, in use or not (direct, and on the
     * heap for the JDK's TLS engine)}: what was unused for the {@linkplain Builder#unusedMemoryTimeout
     * unused-memory timeout} is given back. On a shared group, the whole group's
     */
    public long pooledBytes() {
        return group.pooledBytes();
    }

    /** {@return bytes sent to connections so far, over all loops; may lag behind the loops} */
    public long bytesWritten() {
        return owner.bytesWritten();
    }

    /** {@return the bytes its loops keep for frames not yet whole}: see {@link LoopGroup#partialFrameBytes()} */
    public long partialFrameBytes() {
        return group.partialFrameBytes();
    }

    /**
     * {@return why the server's loops stopped serving, or null while they serve}: a loop's failure, after
     * which the server no longer listens and its connections are closed with it as the cause (see {@link
     * LoopGroup#failure()})
     */
    public IOException failure() {
        return group.failure();
    }

    /**
     * Stops accepting, closes every connection (unsent output dropped, {@code onClose} called with a
     * null cause, on its loop's thread), and waits for that to be done: for the loop threads to end, if
     * the server made its own group; else for each loop of the shared group to have closed the server's
     * connections, the group going on. Idempotent. Called from a loop thread, it does not wait for the
     * other loops.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        owner.events.stopped();
        if (ownsGroup) {
            closeListeners();
            group.close();
            return;
        }
        group.leave(this);
        EventLoop first = group.loop(0);
        LoopCalls.run(first, group, this::closeListeners);
        for (int i = 0; i < group.loopCount(); i++) {
            EventLoop loop = group.loop(i);
            LoopCalls.run(loop, group, () -> loop.closeAll(owner));
        }
    }

    private void closeListeners() {
        listening = false;
        for (int i = 0; i < listeners.size(); i++) {
            try {
                listeners.get(i).close();
                if (i < addresses.size() && addresses.get(i) instanceof UnixDomainSocketAddress unix) {
                    Files.deleteIfExists(unix.getPath()); // the socket file this server created
                }
            } catch (IOException ignored) {
                // the descriptor is released regardless; a file left behind only blocks a later bind
            }
        }
    }

    /**
     * One listener's acceptor, on loop 0's thread: takes what the listener has waiting and deals it to the
     * loops; where accepting fails, stops watching the listener for a while.
     *
     * <p>{@code 0 <= pauseNanos <= MAX_ACCEPT_PAUSE}: 0 while accepting works, else the last pause.
     */
    private final class Accepting implements EventLoop.Acceptor {
        private final Listener listener;
        private long pauseNanos;

        Accepting(Listener listener) {
            this.listener = listener;
        }

        @Override
        public void accept(EventLoop self) {
            for (int i = 0; i < 64; i++) {
                Endpoint ch;
                try {
                    ch = listener.accept();
                } catch (IOException e) {
                    failed(e, self);
                    return;
                }
                pauseNanos = 0; // accepting works again: a failure after it pauses for the shortest time
                if (ch == null) {
                    return;
                }
                deal(ch, self);
            }
        }

        /**
         * Accepting failed, its connection left in the backlog: a poller would report the listener again
         * at once, and the loop spin for as long as descriptors lack, so the listener is not watched for a
         * pause that doubles while accepting keeps failing (as nginx stops accepting, and Netty's acceptor).
         */
        private void failed(IOException e, EventLoop self) {
            if (!listening || e instanceof ClosedChannelException) {
                return; // closed under the loop, by the server's close
            }
            pauseNanos = pauseNanos == 0 ? MIN_ACCEPT_PAUSE.toNanos()
                    : Math.min(pauseNanos * 2, MAX_ACCEPT_PAUSE.toNanos());
            owner.acceptFailed();
            owner.events.acceptFailed(listener.localAddress(), e, pauseNanos);
            try {
                self.pauseAccepting(listener, pauseNanos);
            } catch (IOException refused) {
                refused.addSuppressed(e);
                throw new UncheckedIOException("the poller refused to stop watching " + listener.localAddress()
                        + " after accepting failed: " + refused.getMessage(), refused);
            }
        }
    }

    /** Deals an accepted connection to its loop, or resets it past {@code maxConnections}. */
    private void deal(Endpoint ch, EventLoop self) {
        if (!owner.admit()) {
            ch.reset();
            return;
        }
        long id = owner.nextId();
        EventLoop target = group.loop((int) ((id - 1) % group.loopCount()));
        if (target == self) {
            target.adopt(ch, owner, id);
        } else {
            try {
                target.execute(() -> target.adopt(ch, owner, id));
            } catch (RuntimeException e) {
                owner.connectionClosed();
                ch.reset();
            }
        }
    }

    /**
     * The server's settings. Each setter checks its argument and names it in the exception.
     *
     * <p>Thread safety: not thread-safe; build on one thread.
     */
    public static final class Builder {
        final ConnectionSettings settings;
        final List<SocketAddress> bind = new ArrayList<>();
        int backlog = 1024;
        private LoopGroup group;
        /** The settings of the server's own group, where it makes one. */
        private final LoopGroup.Builder ownLoops = LoopGroup.builder();
        /** Which of those were set, to refuse them beside {@link #group(LoopGroup)}. */
        private final Set<String> loopSettings = new LinkedHashSet<>();

        private Builder(ConnectionHandler handler) {
            this.settings = new ConnectionSettings(handler);
            settings.maxConnections(ConnectionSettings.DEFAULT_MAX_CONNECTIONS);
            settings.maxHandshakes(ConnectionSettings.DEFAULT_MAX_HANDSHAKES);
        }

        /**
         * Listens on {@code address} as well: an {@link InetSocketAddress} (port 0 for any free one)
         * or a {@link UnixDomainSocketAddress}, whose file must not exist.
         *
         * @param address where to listen
         * @return this builder
         */
        public Builder bind(SocketAddress address) {
            if (!(address instanceof InetSocketAddress) && !(address instanceof UnixDomainSocketAddress)) {
                throw new IllegalArgumentException("address=" + address + ": use an InetSocketAddress or a "
                        + "UnixDomainSocketAddress");
            }
            bind.add(address);
            return this;
        }

        /**
         * Sets how many loop threads serve the connections.
         *
         * @param loops loop threads, from 1 to 1024
         * @return this builder
         */
        public Builder loops(int loops) {
            ownLoops.loops(loops);
            loopSettings.add("loops");
            return this;
        }

        /**
         * Sets what each loop thread runs first, to pin it to a CPU, say.
         *
         * @param onLoopStart called with the loop's index on each loop's thread before it serves
         *     anything; an exception it throws stops that loop's thread
         * @return this builder
         */
        public Builder onLoopStart(IntConsumer onLoopStart) {
            ownLoops.onLoopStart(onLoopStart);
            loopSettings.add("onLoopStart");
            return this;
        }

        /**
         * Loops poll without blocking and call {@code idle} after each turn that found
         * nothing to do (its count of empty turns as {@link IdleStrategy#idle(int)} says). Tasks from
         * other threads wait for the next turn rather than waking the loop.
         *
         * @param idle what to do between empty turns
         * @return this builder
         */
        public Builder busyPoll(IdleStrategy idle) {
            ownLoops.busyPoll(idle);
            loopSettings.add("busyPoll");
            return this;
        }

        /**
         * Loops block in their poller between turns (the default).
         *
         * @return this builder
         */
        public Builder blocking() {
            ownLoops.blocking();
            loopSettings.add("blocking");
            return this;
        }

        /**
         * Sets the size of the pooled buffers.
         *
         * @param chunkSize bytes of a pooled buffer, and so the most read from a connection per turn:
         *     a multiple of 4096 from 4096 to 64 MiB
         * @return this builder
         */
        public Builder chunkSize(int chunkSize) {
            ownLoops.chunkSize(chunkSize);
            loopSettings.add("chunkSize");
            return this;
        }

        /**
         * Sets the most bytes each of the server's own loops keeps for partial frames: see {@link
         * LoopGroup.Builder#inputBudget(long)}.
         *
         * @param inputBudget bytes per loop, at least the chunk size ({@value LoopGroup#DEFAULT_INPUT_BUDGET}
         *     by default); {@code Long.MAX_VALUE} for no budget
         * @return this builder
         */
        public Builder inputBudget(long inputBudget) {
            ownLoops.inputBudget(inputBudget);
            loopSettings.add("inputBudget");
            return this;
        }

        /**
         * Sets how long each of the server's own loops keeps pooled memory that no connection uses before
         * giving it back: see {@link LoopGroup.Builder#unusedMemoryTimeout(Duration)}.
         *
         * @param unusedMemoryTimeout from 1 ms to 365 days, 10 seconds by default; {@link Duration#ZERO}
         *     to keep pooled memory for the loops' life
         * @return this builder
         */
        public Builder unusedMemoryTimeout(Duration unusedMemoryTimeout) {
            ownLoops.unusedMemoryTimeout(unusedMemoryTimeout);
            loopSettings.add("unusedMemoryTimeout");
            return this;
        }

        /**
         * Sets the backpressure threshold of every connection.
         *
         * @param outputLimit unsent bytes at which a connection stops being read, at least 1
         * @return this builder
         */
        public Builder outputLimit(long outputLimit) {
            settings.outputLimit(outputLimit);
            return this;
        }

        /**
         * Sets the longest body accepted from a peer or written to one.
         *
         * @param maxFrameLength the longest body read or written, as {@link FrameFormat#checkMaxFrameLength} allows
         * @return this builder
         */
        public Builder maxFrameLength(int maxFrameLength) {
            settings.maxFrameLength(maxFrameLength);
            return this;
        }

        /**
         * Sets the most connections open at once, over all loops.
         *
         * @param maxConnections open connections past which new ones are reset, at least 1; 16,384 by
         *     default, {@code Integer.MAX_VALUE} for no limit
         * @return this builder
         */
        public Builder maxConnections(int maxConnections) {
            settings.maxConnections(maxConnections);
            return this;
        }

        /**
         * Sets the most TLS handshakes in progress on each loop at once: a connection accepted onto a loop
         * where this many are in progress resets the oldest of them, which has had the longest to finish,
         * with an {@link javax.net.ssl.SSLException} saying so, counted in {@link
         * FrameServer#rejectedConnections()}. So a flood of peers that begin handshakes and stall holds on
         * each loop at most this many handshakes' engines, and cannot keep an honest client out: a
         * handshake that completes in less time than the flood takes to open this many connections is not
         * reached. A connection counts from its acceptance until its handshake is done, fails or times
         * out. Without {@link #tls} it has no effect.
         *
         * @param maxHandshakes handshakes in progress on one loop, at least 1; 256 by default, {@code
         *     Integer.MAX_VALUE} for no limit
         * @return this builder
         * @throws IllegalArgumentException if {@code maxHandshakes} is below 1, naming it
         */
        public Builder maxHandshakes(int maxHandshakes) {
            settings.maxHandshakes(maxHandshakes);
            return this;
        }

        /**
         * Closes connections that go quiet.
         *
         * @param idleTimeout how long a connection may go without a byte read or sent before it is
         *     reset, from 1 ms to 365 days, 5 minutes by default; {@link Duration#ZERO} for none. Checked
         *     every quarter of it (or of the frame timeout, if shorter), so a connection may live up to 1.25
         *     times it
         * @return this builder
         */
        public Builder idleTimeout(Duration idleTimeout) {
            settings.idleTimeout(idleTimeout);
            return this;
        }

        /**
         * Sets how long a frame may take to arrive once its first byte has: a connection that keeps a
         * partial frame longer, however often bytes of it come (a peer that drips a frame, or announces a
         * long one and stalls), is reset with a {@link java.net.SocketTimeoutException} naming the frame's
         * offset, what came of it and the limit.
         *
         * @param frameTimeout from 1 ms to 365 days, 60 seconds by default; {@link Duration#ZERO} for
         *     none. Checked every quarter of it (or of the idle timeout, if shorter)
         * @return this builder
         */
        public Builder frameTimeout(Duration frameTimeout) {
            settings.frameTimeout(frameTimeout);
            return this;
        }

        /**
         * Sets how long a connection closed gracefully ({@link Connection#close()}, or after a bad frame)
         * keeps reading, and dropping, what its peer still sends once its output is shut down (see
         * {@link Connection}'s "Closing"). It is then closed at once, reset if input is still unread.
         *
         * @param lingerTimeout from 0 (close at once: unread input then resets the peer) to 365 days;
         *     2 seconds unless set
         * @return this builder
         */
        public Builder lingerTimeout(Duration lingerTimeout) {
            settings.lingerTimeout(lingerTimeout);
            return this;
        }

        /**
         * Sets the listen backlog of every address.
         *
         * @param backlog the listen backlog, at least 1
         * @return this builder
         */
        public Builder backlog(int backlog) {
            if (backlog < 1) {
                throw new IllegalArgumentException("backlog=" + backlog + " min=1");
            }
            this.backlog = backlog;
            return this;
        }

        /**
         * Sets how the loops reach sockets: the JDK's channels and {@code Selector} by default, or a
         * platform's own, such as the native module's {@code EpollTransport}.
         *
         * @param transport the transport
         * @return this builder
         */
        public Builder transport(LoopTransport transport) {
            ownLoops.transport(transport);
            loopSettings.add("transport");
            return this;
        }

        /**
         * Turns the server's JFR events on or off (off by default): {@code dev.wirespeed.ConnectionOpened},
         * {@code dev.wirespeed.ConnectionClosed} (with its cause, frames and bytes), {@code
         * dev.wirespeed.ProtocolError} (with the stream offset) and, once a second, {@code
         * dev.wirespeed.LoopStatistics} per loop. They are made at those moments only, never per frame,
         * and kept only while a recording that enables them runs ({@code -XX:StartFlightRecording}, say).
         * On the module path the {@code jdk.jfr} module must be resolved ({@code --add-modules jdk.jfr}).
         *
         * @param on whether to emit them
         * @return this builder
         * @throws IllegalStateException if {@code on} and the {@code jdk.jfr} module is not in the boot layer
         */
        public Builder jfrEvents(boolean on) {
            settings.jfrEvents(on);
            return this;
        }

        /**
         * Names the loop threads.
         *
         * @param threadName the loop threads' name, before {@code -INDEX}
         * @return this builder
         */
        public Builder threadName(String threadName) {
            ownLoops.threadName(threadName);
            loopSettings.add("threadName");
            return this;
        }

        /**
         * Serves TLS on every connection: each opens (its handler's {@code onOpen}) once its handshake is
         * done; see {@link Connection}'s "TLS".
         *
         * @param tls the settings, with an identity
         * @return this builder
         */
        public Builder tls(TlsSettings tls) {
            settings.tls(tls);
            return this;
        }

        /**
         * Serves on the loops of {@code group}, shared with other servers and clients, rather than on a
         * group of the server's own; the group's builder then holds the loop settings ({@link #loops},
         * {@link #transport}, {@link #chunkSize}, {@link #busyPoll}, {@link #blocking}, {@link
         * #onLoopStart}, {@link #threadName}), which this builder refuses beside it.
         *
         * @param group running loops; closing the server leaves them running
         * @return this builder
         */
        public Builder group(LoopGroup group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /**
         * Binds every address and starts serving: on the given group, or on loops of the server's own,
         * started here.
         *
         * @return the running server
         * @throws IllegalStateException if no address was given, if a loop setting was given beside
         *     {@link #group(LoopGroup)} (naming it), or if the group is closed
         * @throws javax.net.ssl.SSLException if the TLS engine refuses the settings (no identity, say)
         * @throws IOException if an address cannot be bound, or the loops cannot start (nothing is left open)
         */
        public FrameServer start() throws IOException {
            if (bind.isEmpty()) {
                throw new IllegalStateException("no address to listen on: call bind(address)");
            }
            settings.startTls(false);
            if (group != null) {
                if (!loopSettings.isEmpty()) {
                    throw new IllegalStateException(loopSettings + " set for the server's own loops, but it serves on "
                            + "a given group: set them on the LoopGroup's builder");
                }
                return new FrameServer(this, group, false);
            }
            return new FrameServer(this, ownLoops.start(), true);
        }
    }
}
