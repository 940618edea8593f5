package dev.wirespeed.testing;

import dev.wirespeed.tls.TlsContext;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * Counts, exactly, the bytes a TLS engine allocates inside its own calls, so that a loop's allocation can
 * be told apart from its engine's on the one thread that runs both.
 *
 * <p>How: {@link #counting(TlsEngineFactory)} makes engines that wrap the factory's own. Each call into
 * an engine that a connection makes as records come and go (wraps, unwraps, their status, its session,
 * delegated tasks, closes) reads the calling thread's allocated bytes just before and just after it, and
 * adds the difference to {@link #bytes()}; the settings made once at set-up (protocols, suites, modes)
 * are passed on uncounted. Each call goes to the same method of the wrapped engine (never
 * through {@link SSLEngine}'s convenience overloads, which would allocate arrays of their own), so the
 * engine allocates what it would unwrapped, and all of it is counted. The reads allocate nothing, and
 * the wrapper holds no state of its own per call. A thread's allocated bytes less {@link #bytes()} is
 * then exactly what that thread allocated outside the engine's calls: the loop's own part. Objects the
 * engine hands out and the loop then calls (the {@link SSLSession}, a delegated task) are not wrapped:
 * what they allocate counts as the loop's, so the split errs towards blaming the loop, never the engine.
 * The count is meant for engines confined to one thread, as a loop's are; a call on another thread adds
 * that thread's bytes.
 *
 * <p>Thread safety: safe for concurrent use; {@link #bytes()} is read from any thread.
 */
public final class EngineAllocations {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final AtomicLong bytes = new AtomicLong();
    private final TlsEngineFactory factory;

    private EngineAllocations(TlsEngineFactory engines) {
        this.factory = new TlsEngineFactory() {
            @Override
            public String name() {
                return engines.name();
            }

            @Override
            public TlsContext context(TlsSettings settings, boolean client) throws GeneralSecurityException {
                TlsContext context = engines.context(settings, client);
                return new TlsContext() {
                    @Override
                    public SSLEngine newEngine(String peerHost, int peerPort) {
                        return new Counted(context.newEngine(peerHost, peerPort));
                    }

                    @Override
                    public boolean directBuffers() {
                        return context.directBuffers();
                    }
                };
            }
        };
    }

    /** {@return a counter of what the engines of {@code engines} allocate in their calls} */
    public static EngineAllocations counting(TlsEngineFactory engines) {
        return new EngineAllocations(engines);
    }

    /** {@return the factory whose engines are counted: give it to the settings of the loop under test} */
    public TlsEngineFactory factory() {
        return factory;
    }

    /** {@return the bytes allocated inside calls into the counted engines so far}; allocates nothing */
    public long bytes() {
        return bytes.get();
    }

    /** An engine whose every call adds the bytes allocated in it to the count. */
    private final class Counted extends SSLEngine {
        private final SSLEngine engine;

        Counted(SSLEngine engine) {
            super(engine.getPeerHost(), engine.getPeerPort());
            this.engine = engine;
        }

        private long start() {
            return THREADS.getCurrentThreadAllocatedBytes();
        }

        private void end(long start) {
            bytes.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - start);
        }

        @Override
        public SSLEngineResult wrap(ByteBuffer src, ByteBuffer dst) throws SSLException {
            long s = start();
            try {
                return engine.wrap(src, dst);
            } finally {
                end(s);
            }
        }

        @Override
        public SSLEngineResult wrap(ByteBuffer[] srcs, ByteBuffer dst) throws SSLException {
            long s = start();
            try {
                return engine.wrap(srcs, dst);
            } finally {
                end(s);
            }
        }

        @Override
        public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) throws SSLException {
            long s = start();
            try {
                return engine.wrap(srcs, offset, length, dst);
            } finally {
                end(s);
            }
        }

        @Override
        public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer dst) throws SSLException {
            long s = start();
            try {
                return engine.unwrap(src, dst);
            } finally {
                end(s);
            }
        }

        @Override
        public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts) throws SSLException {
            long s = start();
            try {
                return engine.unwrap(src, dsts);
            } finally {
                end(s);
            }
        }

        @Override
        public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length) throws SSLException {
            long s = start();
            try {
                return engine.unwrap(src, dsts, offset, length);
            } finally {
                end(s);
            }
        }

        @Override
        public Runnable getDelegatedTask() {
            long s = start();
            try {
                return engine.getDelegatedTask();
            } finally {
                end(s);
            }
        }

        @Override
        public void closeInbound() throws SSLException {
            long s = start();
            try {
                engine.closeInbound();
            } finally {
                end(s);
            }
        }

        @Override
        public boolean isInboundDone() {
            long s = start();
            try {
                return engine.isInboundDone();
            } finally {
                end(s);
            }
        }

        @Override
        public void closeOutbound() {
            long s = start();
            try {
                engine.closeOutbound();
            } finally {
                end(s);
            }
        }

        @Override
        public boolean isOutboundDone() {
            long s = start();
            try {
                return engine.isOutboundDone();
            } finally {
                end(s);
            }
        }

        @Override
        public SSLSession getSession() {
            long s = start();
            try {
                return engine.getSession();
            } finally {
                end(s);
            }
        }

        @Override
        public SSLSession getHandshakeSession() {
            long s = start();
            try {
                return engine.getHandshakeSession();
            } finally {
                end(s);
            }
        }

        @Override
        public void beginHandshake() throws SSLException {
            long s = start();
            try {
                engine.beginHandshake();
            } finally {
                end(s);
            }
        }

        @Override
        public SSLEngineResult.HandshakeStatus getHandshakeStatus() {
            long s = start();
            try {
                return engine.getHandshakeStatus();
            } finally {
                end(s);
            }
        }

        @Override
        public String getApplicationProtocol() {
            long s = start();
            try {
                return engine.getApplicationProtocol();
            } finally {
                end(s);
            }
        }

        @Override
        public String getHandshakeApplicationProtocol() {
            long s = start();
            try {
                return engine.getHandshakeApplicationProtocol();
            } finally {
                end(s);
            }
        }

        // Settings, read and made while a connection is set up: passed on, counted like the rest.

        @Override
        public SSLParameters getSSLParameters() {
            long s = start();
            try {
                return engine.getSSLParameters();
            } finally {
                end(s);
            }
        }

        @Override
        public void setSSLParameters(SSLParameters params) {
            long s = start();
            try {
                engine.setSSLParameters(params);
            } finally {
                end(s);
            }
        }

        @Override
        public void setHandshakeApplicationProtocolSelector(BiFunction<SSLEngine, List<String>, String> selector) {
            engine.setHandshakeApplicationProtocolSelector(selector);
        }

        @Override
        public BiFunction<SSLEngine, List<String>, String> getHandshakeApplicationProtocolSelector() {
            return engine.getHandshakeApplicationProtocolSelector();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return engine.getSupportedCipherSuites();
        }

        @Override
        public String[] getEnabledCipherSuites() {
            return engine.getEnabledCipherSuites();
        }

        @Override
        public void setEnabledCipherSuites(String[] suites) {
            engine.setEnabledCipherSuites(suites);
        }

        @Override
        public String[] getSupportedProtocols() {
            return engine.getSupportedProtocols();
        }

        @Override
        public String[] getEnabledProtocols() {
            return engine.getEnabledProtocols();
        }

        @Override
        public void setEnabledProtocols(String[] protocols) {
            engine.setEnabledProtocols(protocols);
        }

        @Override
        public void setUseClientMode(boolean mode) {
            engine.setUseClientMode(mode);
        }

        @Override
        public boolean getUseClientMode() {
            return engine.getUseClientMode();
        }

        @Override
        public void setNeedClientAuth(boolean need) {
            engine.setNeedClientAuth(need);
        }

        @Override
        public boolean getNeedClientAuth() {
            return engine.getNeedClientAuth();
        }

        @Override
        public void setWantClientAuth(boolean want) {
            engine.setWantClientAuth(want);
        }

        @Override
        public boolean getWantClientAuth() {
            return engine.getWantClientAuth();
        }

        @Override
        public void setEnableSessionCreation(boolean flag) {
            engine.setEnableSessionCreation(flag);
        }

        @Override
        public boolean getEnableSessionCreation() {
            return engine.getEnableSessionCreation();
        }
    }
}
