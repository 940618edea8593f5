package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.tls.TlsContext;
import dev.wirespeed.tls.TlsSettings;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLException;

/**
 * The settings a {@link FrameServer} and a {@link FrameClient} give each of their connections, checked
 * once here for both builders: the handler, the frame and output limits, the idle and linger timeouts,
 * the most connections and handshakes, the JFR events, and TLS.
 *
 * <p>Thread safety: not thread-safe; filled on the builder's thread, read once at the start.
 */
final class ConnectionSettings {
    /** The longest timeout: its nanoseconds must fit the loop's clock arithmetic. */
    static final Duration MAX_TIMEOUT = Duration.ofDays(365);

    final ConnectionHandler handler;
    int maxFrameLength = FrameFormat.DEFAULT_MAX_FRAME_LENGTH;
    long outputLimit = 256 * 1024;
    /** A server's default; a client's is {@code Integer.MAX_VALUE} (it opens what it chooses to). */
    static final int DEFAULT_MAX_CONNECTIONS = 16_384;
    static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
    static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(60);
    /** A server's default; a client's is {@code Integer.MAX_VALUE} (its handshakes are its own). */
    static final int DEFAULT_MAX_HANDSHAKES = 256;

    int maxConnections = Integer.MAX_VALUE;
    /** TLS handshakes in progress on one loop at most. */
    int maxHandshakes = Integer.MAX_VALUE;
    /** {@link Duration#ZERO} for none. */
    Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    /** {@link Duration#ZERO} for none. */
    Duration frameTimeout = DEFAULT_FRAME_TIMEOUT;
    Duration lingerTimeout = Duration.ofSeconds(2);
    boolean jfrEvents;
    TlsSettings tls;
    /** Made from {@link #tls} at the start, by {@link #startTls}. */
    TlsContext tlsContext;

    ConnectionSettings(ConnectionHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    void outputLimit(long outputLimit) {
        if (outputLimit < 1) {
            throw new IllegalArgumentException("outputLimit=" + outputLimit + " min=1");
        }
        this.outputLimit = outputLimit;
    }

    void maxFrameLength(int maxFrameLength) {
        this.maxFrameLength = FrameFormat.checkMaxFrameLength(maxFrameLength);
    }

    void maxConnections(int maxConnections) {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections=" + maxConnections + " min=1");
        }
        this.maxConnections = maxConnections;
    }

    void maxHandshakes(int maxHandshakes) {
        if (maxHandshakes < 1) {
            throw new IllegalArgumentException("maxHandshakes=" + maxHandshakes + " min=1");
        }
        this.maxHandshakes = maxHandshakes;
    }

    void idleTimeout(Duration idleTimeout) {
        this.idleTimeout = checkTimeoutOrNone("idleTimeout", idleTimeout);
    }

    void frameTimeout(Duration frameTimeout) {
        this.frameTimeout = checkTimeoutOrNone("frameTimeout", frameTimeout);
    }

    /** {@return {@code d}, if zero (none) or from 1 ms to {@link #MAX_TIMEOUT}} */
    private static Duration checkTimeoutOrNone(String name, Duration d) {
        Objects.requireNonNull(d, name);
        Duration min = Duration.ofMillis(1);
        if (!d.isZero() && (d.compareTo(min) < 0 || d.compareTo(MAX_TIMEOUT) > 0)) {
            throw new IllegalArgumentException(name + "=" + d + " min=" + min + " max=" + MAX_TIMEOUT + ", or "
                    + Duration.ZERO + " for none");
        }
        return d;
    }

    void lingerTimeout(Duration lingerTimeout) {
        this.lingerTimeout = checkTimeout("lingerTimeout", lingerTimeout, Duration.ZERO);
    }

    void jfrEvents(boolean on) {
        if (on && ModuleLayer.boot().findModule("jdk.jfr").isEmpty()) {
            throw new IllegalStateException("jfrEvents(true) needs the jdk.jfr module, which this JVM did not "
                    + "resolve: add --add-modules jdk.jfr");
        }
        this.jfrEvents = on;
    }

    void tls(TlsSettings tls) {
        this.tls = Objects.requireNonNull(tls, "tls");
    }

    /**
     * Loads the TLS settings, if any, into their engine's context.
     *
     * @param client true for a client's connections
     * @throws SSLException if the engine refuses the settings, saying why
     */
    void startTls(boolean client) throws SSLException {
        if (tls == null) {
            return;
        }
        try {
            tlsContext = tls.engine().context(tls, client);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new SSLException("the " + tls.engine().name() + " TLS engine refused the settings: " + e.getMessage(),
                    e);
        }
    }

    /** {@return {@code d}, if from {@code min} to {@link #MAX_TIMEOUT}} */
    static Duration checkTimeout(String name, Duration d, Duration min) {
        Objects.requireNonNull(d, name);
        if (d.compareTo(min) < 0 || d.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException(name + "=" + d + " min=" + min + " max=" + MAX_TIMEOUT);
        }
        return d;
    }
}
