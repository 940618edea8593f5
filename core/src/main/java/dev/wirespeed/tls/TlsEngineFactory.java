package dev.wirespeed.tls;

import java.security.GeneralSecurityException;

/**
 * Makes the TLS engines of a server's or client's connections: the JDK's ({@link #jdk()}), or another
 * implementation's behind the JDK's {@link javax.net.ssl.SSLEngine} shape, such as the native module's
 * OpenSSL. An engine factory honours every setting of {@link TlsSettings} or refuses the settings at
 * {@link #context}, naming what it cannot do.
 *
 * <p>Thread safety: implementations are safe for concurrent use.
 */
public interface TlsEngineFactory {
    /** {@return a short name for messages and tables, e.g. {@code jdk} or {@code openssl}} */
    String name();

    /**
     * Loads {@code settings} once for a server or a client: keys, certificates, trust.
     *
     * @param settings the settings
     * @param client true for the connecting side, false for the accepting side
     * @return what makes each connection's engine
     * @throws GeneralSecurityException if the keys, certificates or trust are refused, with why
     */
    TlsContext context(TlsSettings settings, boolean client) throws GeneralSecurityException;

    /** {@return the JDK's own engine, {@code javax.net.ssl.SSLEngine} from the default provider} */
    static TlsEngineFactory jdk() {
        return JdkTls.INSTANCE;
    }
}
