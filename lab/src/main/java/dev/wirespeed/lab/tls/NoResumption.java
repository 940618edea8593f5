package dev.wirespeed.lab.tls;

import dev.wirespeed.tls.TlsContext;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.security.GeneralSecurityException;
import java.util.Objects;
import javax.net.ssl.SSLEngine;

/**
 * A client's engine factory whose every handshake is a full one: another factory's engines, each made
 * without the peer's port. The JDK's client keeps the sessions it may resume (TLS 1.3 tickets
 * included) in its context's cache under the peer's host and port, and neither stores nor looks one up
 * for an engine whose port is -1; so a client of the JDK's engine offers no session to resume, whatever
 * tickets the server sends. The library's OpenSSL engine keeps no sessions at all, and is unchanged.
 * The host name, and so SNI and the host name checked, is kept.
 *
 * <p>Thread safety: as the factory it wraps, safe for concurrent use.
 */
public final class NoResumption implements TlsEngineFactory {
    private final TlsEngineFactory engines;

    /**
     * A factory of {@code engines}' engines that resume nothing.
     *
     * @param engines the engine
     */
    public NoResumption(TlsEngineFactory engines) {
        this.engines = Objects.requireNonNull(engines, "engines");
    }

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
                return context.newEngine(peerHost, -1);
            }

            @Override
            public boolean directBuffers() {
                return context.directBuffers();
            }
        };
    }
}
