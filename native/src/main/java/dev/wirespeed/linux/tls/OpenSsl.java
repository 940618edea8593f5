package dev.wirespeed.linux.tls;

import dev.wirespeed.linux.internal.ssl.LibSsl;
import dev.wirespeed.linux.internal.ssl.OpenSslTls;
import dev.wirespeed.tls.TlsEngineFactory;

/**
 * OpenSSL 3 as a TLS engine: the system's {@code libssl.so.3} and {@code libcrypto.so.3}, found by the
 * dynamic linker when this class is first used and called through the FFM API, with no JNI and no native
 * library shipped. Where they are missing, older than 3.0, or lack a function, {@link #isAvailable()} is
 * false and {@link #unavailableReason()} says why in words a user can act on.
 *
 * <pre>{@code
 * TlsSettings settings = TlsSettings.builder()
 *         .identity(Path.of("cert.pem"), Path.of("key.pem"))
 *         .engine(OpenSsl.isAvailable() ? OpenSsl.engine() : TlsEngineFactory.jdk())
 *         .build();
 * }</pre>
 *
 * <p>Its engines are {@link javax.net.ssl.SSLEngine}s that honour every setting of
 * {@link dev.wirespeed.tls.TlsSettings} and refuse peers' certificates with the same
 * {@link dev.wirespeed.tls.PeerCertificateException} messages as the JDK's. They differ from the JDK's
 * where OpenSSL does: no delegated tasks (the handshake runs in {@code wrap} and {@code unwrap}), no
 * session resumption (no session cache, no TLS 1.3 tickets), TLS 1.2 renegotiation refused, and a
 * client with hostname verification on needs a host name (the address's, or
 * {@link dev.wirespeed.tls.TlsSettings.Builder#serverName}) when its engine is made; and, where the
 * settings name no {@linkplain dev.wirespeed.tls.TlsSettings.Builder#cipherSuites cipher suites}, a
 * default of forward-secret AEAD suites only, rather than OpenSSL's own (which takes CBC suites, and RSA
 * key exchange without forward secrecy): TLS 1.3's {@code TLS_AES_256_GCM_SHA384},
 * {@code TLS_CHACHA20_POLY1305_SHA256} and {@code TLS_AES_128_GCM_SHA256}; TLS 1.2's ECDHE (ECDSA or
 * RSA) and DHE (RSA) key exchange with AES-GCM or ChaCha20-Poly1305, the 256-bit AES first, then
 * ChaCha20, then the 128-bit AES. Named cipher suites are mapped to OpenSSL's names
 * ({@code SSL_CTX_set_ciphersuites} for TLS 1.3's, {@code SSL_CTX_set_cipher_list} for TLS 1.2's) and
 * each is checked: a name this OpenSSL does not know is refused when the settings are loaded. Each engine's native
 * memory is freed when both of its directions are done, or when it is closed
 * ({@link AutoCloseable}: a connection dropped without a close should close its engine); a cleaner
 * frees what an engine dropped without either leaves.
 *
 * <p>Thread safety: stateless; the probe runs once.
 */
public final class OpenSsl {
    private OpenSsl() {
    }

    /** {@return whether OpenSSL 3 was found and can be used} */
    public static boolean isAvailable() {
        return LibSsl.UNUSABLE == null;
    }

    /** {@return why OpenSSL cannot be used, or the empty string where it can} */
    public static String unavailableReason() {
        return LibSsl.UNUSABLE == null ? "" : LibSsl.UNUSABLE;
    }

    /** {@return the version of the OpenSSL found, e.g. {@code OpenSSL 3.0.13 30 Jan 2024}, or the empty string} */
    public static String version() {
        return LibSsl.UNUSABLE == null ? LibSsl.version() : "";
    }

    /**
     * {@return the OpenSSL engine factory, named {@code openssl}}
     *
     * @throws UnsupportedOperationException where OpenSSL cannot be used, with {@link #unavailableReason()}
     */
    public static TlsEngineFactory engine() {
        if (LibSsl.UNUSABLE != null) {
            throw new UnsupportedOperationException(LibSsl.UNUSABLE);
        }
        return OpenSslTls.INSTANCE;
    }
}
