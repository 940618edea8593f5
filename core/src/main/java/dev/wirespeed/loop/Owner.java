package dev.wirespeed.loop;

import dev.wirespeed.loop.internal.LoopStats;
import dev.wirespeed.tls.TlsContext;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * What the connections of one {@link FrameServer} or {@link FrameClient} share on the loops of a
 * {@link LoopGroup}: their handler, their limits, their events, and their counts. The loops read the
 * settings from each connection (copied there at its start), so that one loop serves connections of
 * several owners.
 *
 * <p>Thread safety: the settings are final; the counts are atomic, or written by one loop each
 * ({@link #stats(int)}, the handshakes in progress).
 */
final class Owner {
    final ConnectionHandler handler;
    final int maxFrameLength;
    final long outputLimit;
    /** 0 for no idle timeout. */
    final long idleTimeoutNanos;
    /** The longest a frame begun may take to be whole; 0 for no limit. */
    final long frameTimeoutNanos;
    /** 0 for no lingering. */
    final long lingerNanos;
    final int maxConnections;
    /** TLS handshakes in progress on one loop at most, past which a new connection resets the oldest. */
    final int maxHandshakes;
    /** A client's connect timeout; 0 for a server. */
    final long connectTimeoutNanos;
    /** Makes each connection's TLS engine; null for plaintext. */
    final TlsContext tls;
    /** With TLS: the longest a handshake may take, and the longest a close waits for the peer's close_notify. */
    final long handshakeNanos;
    final long tlsCloseNanos;
    final LoopEvents events;
    /** How a connection's {@code toString} names its peer: {@code "from"} for accepted, {@code "to"} for connected. */
    final String direction;
    private final LoopStats[] stats;
    /** {@code 0 <= handshakes[loop]}: this owner's TLS handshakes in progress on each loop, written by that loop. */
    private final int[] handshakes;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong acceptFailures = new AtomicLong();
    private final AtomicLong ids = new AtomicLong();

    /**
     * The owner of connections made with {@code settings} on a group of {@code loops} loops.
     *
     * @param direction how a connection names its peer: {@code "from"} for accepted, {@code "to"} for connected
     * @param connectTimeoutNanos a client's connect timeout; 0 for a server
     * @param events makes what the loops report beside their work, given this owner (its counts): called once, here
     */
    Owner(ConnectionSettings settings, int loops, String direction, long connectTimeoutNanos,
            Function<Owner, LoopEvents> events) {
        this.handler = settings.handler;
        this.maxFrameLength = settings.maxFrameLength;
        this.outputLimit = settings.outputLimit;
        this.idleTimeoutNanos = settings.idleTimeout.toNanos();
        this.frameTimeoutNanos = settings.frameTimeout.toNanos();
        this.lingerNanos = settings.lingerTimeout.toNanos();
        this.maxConnections = settings.maxConnections;
        this.maxHandshakes = settings.maxHandshakes;
        this.direction = direction;
        this.connectTimeoutNanos = connectTimeoutNanos;
        this.tls = settings.tlsContext;
        this.handshakeNanos = settings.tls == null ? 0 : settings.tls.handshakeTimeout().toNanos();
        this.tlsCloseNanos = settings.tls == null ? 0 : settings.tls.closeTimeout().toNanos();
        this.stats = new LoopStats[loops];
        this.handshakes = new int[loops];
        for (int i = 0; i < stats.length; i++) {
            stats[i] = new LoopStats();
        }
        this.events = events.apply(this);
    }

    /** {@return the counters of this owner's connections on loop {@code loop}}, written by that loop only */
    LoopStats stats(int loop) {
        return stats[loop];
    }

    /** {@return the next connection number, from 1} */
    long nextId() {
        return ids.incrementAndGet();
    }

    /** {@return true if one more connection fits under {@code maxConnections}; it is then counted open} */
    boolean admit() {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            rejected.incrementAndGet();
            return false;
        }
        return true;
    }

    /** {@return whether {@code maxHandshakes} are in progress on {@code loop}}, on that loop's thread */
    boolean handshakesFull(int loop) {
        return handshakes[loop] >= maxHandshakes;
    }

    /** A handshake in progress was reset to make room for a newer one: counted as rejected. */
    void handshakeEvicted() {
        rejected.incrementAndGet();
    }

    /** A TLS handshake began on {@code loop}, on that loop's thread. */
    void handshakeStarted(int loop) {
        handshakes[loop]++;
    }

    /** A TLS handshake that began on {@code loop} ended (done, failed, or abandoned), on that loop's thread. */
    void handshakeEnded(int loop) {
        handshakes[loop]--;
    }

    /** A connection counted by {@link #admit()} has closed, or never started. */
    void connectionClosed() {
        open.decrementAndGet();
    }

    int connectionCount() {
        return open.get();
    }

    long rejected() {
        return rejected.get();
    }

    /** An accept failed; its listener is paused. */
    void acceptFailed() {
        acceptFailures.incrementAndGet();
    }

    long acceptFailures() {
        return acceptFailures.get();
    }

    long framesRead() {
        long sum = 0;
        for (LoopStats s : stats) {
            sum += s.framesRead();
        }
        return sum;
    }

    long bytesRead() {
        long sum = 0;
        for (LoopStats s : stats) {
            sum += s.bytesRead();
        }
        return sum;
    }

    long bytesWritten() {
        long sum = 0;
        for (LoopStats s : stats) {
            sum += s.bytesWritten();
        }
        return sum;
    }
}
