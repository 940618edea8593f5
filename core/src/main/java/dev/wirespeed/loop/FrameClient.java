package dev.wirespeed.loop;

import dev.wirespeed.tls.TlsSettings;
import java.io.Closeable;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A client of framed connections on event loops: connects TCP and Unix-domain connections from the
 * loop threads of a {@link LoopGroup}, without blocking, and hands every frame to one {@link
 * ConnectionHandler}, as a {@link FrameServer} does for the connections it accepts. The connections
 * are the same {@link Connection}s, with the same writing, backpressure, limits, closing, lingering and
 * JFR events, and no allocation per frame once warm.
 *
 * <pre>{@code
 * try (LoopGroup loops = LoopGroup.builder().start();
 *         FrameClient client = FrameClient.builder(handler).group(loops).build()) {
 *     Connection c = client.connect(new InetSocketAddress("127.0.0.1", 22223)).join();
 *     c.execute(() -> c.writeFrame(1, ByteBuffer.wrap(hello)));
 * }
 * }</pre>
 *
 * <h2>Connecting</h2>
 * {@link #connect(SocketAddress)} begins a non-blocking connect on a loop: the calling thread's own
 * loop when it is one of the group's (a handler that connects onward keeps both connections on its
 * thread), else the group's loops in turn. Once connected the handler's {@link
 * ConnectionHandler#onOpen} runs, then the returned future completes with the connection. A connect that
 * fails (refused, unreachable, no answer within {@link Builder#connectTimeout}, the client or its group
 * closed first) never opens: the handler's {@link ConnectionHandler#onClose} gets the connection and a
 * {@link ConnectException} naming the address and the cause ({@link ConnectTimeoutException} for the
 * timeout), and the future fails with the same exception.
 *
 * <h2>Loops</h2>
 * A client given no group ({@link Builder#group(LoopGroup)}) makes one of its own, one loop on the JDK's
 * {@code Selector}, and closes it with itself; a group's builder sets the transport, the loops and the
 * rest.
 *
 * <h2>Thread safety</h2>
 * The client's methods are safe from any thread; see {@link Connection} for the connections'.
 */
public final class FrameClient implements Closeable {
    private final LoopGroup group;
    private final boolean ownsGroup;
    private final Owner owner;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final TlsSettings tlsSettings;

    private FrameClient(Builder b, LoopGroup group, boolean ownsGroup) {
        this.tlsSettings = b.settings.tls;
        this.group = group;
        this.ownsGroup = ownsGroup;
        if (!ownsGroup) {
            group.join(this); // refused if the group is closed, before the events start
        }
        this.owner = new Owner(b.settings, group.loopCount(), "to", b.connectTimeout.toNanos(),
                o -> b.settings.jfrEvents ? new JfrLoopEvents(o, group) : LoopEvents.NONE);
    }

    /**
     * A builder of a client whose connections' frames go to {@code handler}.
     *
     * @param handler the frames' handler, called on the loop threads
     * @return a builder with the defaults: its own group of one blocking loop, a 10 s connect timeout,
     *     a 256 KiB output limit, 16 MiB {@code maxFrameLength}, a 5-minute idle timeout, a 60-second frame
     *     timeout, no connection limit
     */
    public static Builder builder(ConnectionHandler handler) {
        return new Builder(handler);
    }

    /**
     * Begins connecting to {@code address}; see "Connecting".
     *
     * @param address a resolved {@link InetSocketAddress}, or a {@link UnixDomainSocketAddress}
     * @return completes with the connection once its handler's {@code onOpen} has run, on the loop's
     *     thread (so do no blocking work in what is chained to it); fails with a {@link ConnectException}
     *     naming the address if the connect fails, is refused at {@code maxConnections} (then no
     *     connection is made and the handler hears nothing), or the client closes first, and with what
     *     {@code onOpen} threw if it threw
     * @throws IllegalArgumentException if {@code address} is of another kind, or unresolved (resolve it
     *     first, off the loop threads), or a Unix-domain address where TLS must verify a host name and was
     *     given none
     * @throws IllegalStateException if the client is closed
     */
    public CompletableFuture<Connection> connect(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            if (inet.isUnresolved()) {
                throw new IllegalArgumentException("address=" + address + " is unresolved: resolve it first, off "
                        + "the loop threads (a loop does not wait for a name server)");
            }
        } else if (!(address instanceof UnixDomainSocketAddress)) {
            throw new IllegalArgumentException("address=" + address + ": use an InetSocketAddress or a "
                    + "UnixDomainSocketAddress");
        }
        if (closed.get()) {
            throw new IllegalStateException("the client is closed: address=" + address);
        }
        TlsSettings tls = tlsSettings;
        if (tls != null && address instanceof UnixDomainSocketAddress && tls.hostnameVerification()
                && tls.serverName() == null) {
            throw new IllegalArgumentException("address=" + address + " has no host name to verify the server's "
                    + "certificate against: set TlsSettings.Builder.serverName, or hostnameVerification(false)");
        }
        CompletableFuture<Connection> opening = new CompletableFuture<>();
        if (!owner.admit()) {
            opening.completeExceptionally(new ConnectException("connect to " + address + " refused: maxConnections="
                    + owner.maxConnections + " connections are open or connecting"));
            return opening;
        }
        long id = owner.nextId();
        EventLoop here = group.current();
        if (here != null) {
            here.connect(owner, id, address, owner.connectTimeoutNanos, opening);
            return opening;
        }
        EventLoop target = group.loop((int) ((id - 1) % group.loopCount()));
        try {
            target.execute(() -> target.connect(owner, id, address, owner.connectTimeoutNanos, opening));
        } catch (RuntimeException e) {
            owner.connectionClosed();
            ConnectException failure = new ConnectException("connect to " + address + " abandoned: the loop group "
                    + "is closed");
            failure.initCause(e);
            opening.completeExceptionally(failure);
        }
        return opening;
    }

    /** {@return the connections connecting or open, not yet closed} */
    public int connectionCount() {
        return owner.connectionCount();
    }

    /** {@return the connects refused because {@code maxConnections} were open or connecting} */
    public long rejectedConnections() {
        return owner.rejected();
    }

    /** {@return frames handed to the handler so far, over all loops; may lag behind the loops} */
    public long framesRead() {
        return owner.framesRead();
    }

    /** {@return bytes read from connections so far, over all loops; may lag behind the loops} */
    public long bytesRead() {
        return owner.bytesRead();
    }

    /** {@return bytes sent to connections so far, over all loops; may lag behind the loops} */
    public long bytesWritten() {
        return owner.bytesWritten();
    }

    /**
     * Closes every connection (unsent output dropped, {@code onClose} with a null cause; a connect under
     * way fails with a {@link ConnectException}), and waits for that to be done: for the loop threads to
     * end, if the client made its own group; else for each loop of the shared group to have closed the
     * client's connections, the group going on. Idempotent. Called from a loop thread, it does not wait
     * for the other loops.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        owner.events.stopped();
        if (ownsGroup) {
            group.close();
            return;
        }
        group.leave(this);
        for (int i = 0; i < group.loopCount(); i++) {
            EventLoop loop = group.loop(i);
            LoopCalls.run(loop, group, () -> loop.closeAll(owner));
        }
    }

    /**
     * The client's settings. Each setter checks its argument and names it in the exception.
     *
     * <p>Thread safety: not thread-safe; build on one thread.
     */
    public static final class Builder {
        final ConnectionSettings settings;
        Duration connectTimeout = Duration.ofSeconds(10);
        private LoopGroup group;

        private Builder(ConnectionHandler handler) {
            this.settings = new ConnectionSettings(handler);
        }

        /**
         * Connects from the loops of {@code group}, shared with servers and other clients, rather than
         * from a loop of the client's own.
         *
         * @param group running loops; closing the client leaves them running
         * @return this builder
         */
        public Builder group(LoopGroup group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /**
         * Speaks TLS on every connection: each opens (its handler's {@code onOpen}, then the future) once
         * its handshake is done; a handshake that fails closes it as a connect that failed, the
         * certificate's refusal a {@link dev.wirespeed.tls.PeerCertificateException} naming what was
         * expected and what came. The server's name is checked and sent as SNI: the address's host name,
         * or {@link TlsSettings.Builder#serverName}, which a Unix-domain address needs.
         *
         * @param tls the settings
         * @return this builder
         */
        public Builder tls(TlsSettings tls) {
            settings.tls(tls);
            return this;
        }

        /**
         * Sets how long a connect may take before it is given up with a {@link ConnectTimeoutException}.
         *
         * @param connectTimeout from 1 ms to 365 days; 10 seconds unless set. Checked at the loop's turns,
         *     which come at least as often as the nearest connect's deadline
         * @return this builder
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = ConnectionSettings.checkTimeout("connectTimeout", connectTimeout, Duration.ofMillis(1));
            return this;
        }

        /**
         * Sets the backpressure threshold of every connection, as {@link FrameServer.Builder#outputLimit}.
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
         * @param maxFrameLength the longest body read or written, as
         *     {@link dev.wirespeed.frame.FrameFormat#checkMaxFrameLength} allows
         * @return this builder
         */
        public Builder maxFrameLength(int maxFrameLength) {
            settings.maxFrameLength(maxFrameLength);
            return this;
        }

        /**
         * Sets the most connections connecting or open at once, over all loops.
         *
         * @param maxConnections connections past which a connect is refused, at least 1
         * @return this builder
         */
        public Builder maxConnections(int maxConnections) {
            settings.maxConnections(maxConnections);
            return this;
        }

        /**
         * Closes connections that go quiet, as {@link FrameServer.Builder#idleTimeout}.
         *
         * @param idleTimeout how long a connection may go without a byte read or sent before it is
         *     reset, from 1 ms to 365 days, 5 minutes by default; {@link Duration#ZERO} for none
         * @return this builder
         */
        public Builder idleTimeout(Duration idleTimeout) {
            settings.idleTimeout(idleTimeout);
            return this;
        }

        /**
         * Sets how long a frame may take to arrive once its first byte has, as {@link
         * FrameServer.Builder#frameTimeout}.
         *
         * @param frameTimeout from 1 ms to 365 days, 60 seconds by default; {@link Duration#ZERO} for none
         * @return this builder
         */
        public Builder frameTimeout(Duration frameTimeout) {
            settings.frameTimeout(frameTimeout);
            return this;
        }

        /**
         * Sets how long a connection closed gracefully keeps reading, and dropping, what its peer still
         * sends, as {@link FrameServer.Builder#lingerTimeout}.
         *
         * @param lingerTimeout from 0 to 365 days; 2 seconds unless set
         * @return this builder
         */
        public Builder lingerTimeout(Duration lingerTimeout) {
            settings.lingerTimeout(lingerTimeout);
            return this;
        }

        /**
         * Turns the client's JFR events on or off (off by default): the events of
         * {@link FrameServer.Builder#jfrEvents}, for the client's connections.
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
         * Makes the client: on the given group, or on a loop of its own, started here.
         *
         * @return the client, ready to connect
         * @throws javax.net.ssl.SSLException if the TLS engine refuses the settings
         * @throws IOException if its own loop cannot start
         * @throws IllegalStateException if the given group is closed
         */
        public FrameClient build() throws IOException {
            settings.startTls(true);
            if (group != null) {
                return new FrameClient(this, group, false);
            }
            LoopGroup own = LoopGroup.builder().threadName("wirespeed-client").start();
            return new FrameClient(this, own, true);
        }
    }
}
