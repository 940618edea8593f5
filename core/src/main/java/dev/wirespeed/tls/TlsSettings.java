package dev.wirespeed.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How a server's or client's connections speak TLS: who this end is (a private key and its certificate
 * chain), whom it trusts, whether a server asks clients for certificates, ALPN, the protocol versions
 * (TLS 1.3 and 1.2, nothing older), the cipher suites, the handshake's and the closing's time limits, and
 * the engine
 * ({@link TlsEngineFactory}: the JDK's unless told otherwise).
 *
 * <pre>{@code
 * TlsSettings server = TlsSettings.builder().identity(Path.of("cert.pem"), Path.of("key.pem")).build();
 * TlsSettings client = TlsSettings.builder().trust(Pem.certificates(Path.of("ca.pem"))).build();
 * }</pre>
 *
 * <p>A client verifies the server's certificate against its trust and, unless told not to, that it
 * names the host connected to (the address's host name, or {@link Builder#serverName}), which it also
 * sends as SNI. Without {@link Builder#trust}, trust is the platform's default: the JDK's
 * {@code cacerts}, or OpenSSL's default paths.
 *
 * <h2>Unfinished handshakes</h2>
 * A connection whose handshake is not done is closed at the {@linkplain Builder#handshakeTimeout
 * handshake timeout}, and a server holds at most {@linkplain
 * dev.wirespeed.loop.FrameServer.Builder#maxHandshakes(int) maxHandshakes} of them on a loop at once. Until then, while it waits for its peer, it holds no buffer of the loop's pools:
 * the part of a record that came is kept in an array of its size until the rest comes. A server's
 * connection has no engine until the client's first record (its ClientHello) has all come: a peer that
 * connects and sends nothing, or part of that record, costs the socket and the bytes it sent, at most
 * one record (a 5-byte header and 2<sup>14</sup> bytes). That record's header is checked before any
 * engine sees it: a first record that is not a TLS handshake record, or is longer, closes the connection
 * at once with an {@link javax.net.ssl.SSLException} naming its type, version and length. Once the
 * first record has come, the connection holds its engine's handshake state besides: on the Java heap
 * for the JDK's engine; outside it for OpenSSL's, freed when the connection closes.
 *
 * <p>A handshake is done only when the engine finished it with both directions open and a protocol
 * agreed. A peer that calls it off (a {@code user_canceled} alert and a close_notify) or closes in it has
 * not authenticated: the connection never opens, and closes with an {@link javax.net.ssl.SSLException}
 * (a client's connect fails with it).
 *
 * <p>Thread safety: immutable.
 */
public final class TlsSettings {
    /** Whether a server asks its clients for a certificate. */
    public enum ClientAuth {
        /** It does not ask. */
        NONE,
        /** It asks, and takes a client that sends none; one that sends an untrusted one is refused. */
        OPTIONAL,
        /** It asks, and refuses a client that sends none or an untrusted one (mutual TLS). */
        REQUIRED
    }

    /** The protocol versions a connection may agree on. */
    public enum Protocol {
        /** TLS 1.3 (RFC 8446). */
        TLS_1_3("TLSv1.3"),
        /**
         * TLS 1.2 (RFC 5246); renegotiation is refused, and the peer's close_notify is a clean close, as on
         * TLS 1.3.
         */
        TLS_1_2("TLSv1.2");

        private final String jdkName;

        Protocol(String jdkName) {
            this.jdkName = jdkName;
        }

        /** {@return the JDK's name of it, e.g. {@code TLSv1.3}} */
        public String jdkName() {
            return jdkName;
        }
    }

    private final PrivateKey key;
    private final List<X509Certificate> chain;
    private final List<X509Certificate> trusted;
    private final ClientAuth clientAuth;
    private final List<String> alpn;
    private final List<String> cipherSuites;
    private final Set<Protocol> protocols;
    private final Duration handshakeTimeout;
    private final Duration closeTimeout;
    private final boolean hostnameVerification;
    private final String serverName;
    private final TlsEngineFactory engine;

    private TlsSettings(Builder b) {
        this.key = b.key;
        this.chain = b.chain;
        this.trusted = b.trusted;
        this.clientAuth = b.clientAuth;
        this.alpn = List.copyOf(b.alpn);
        this.cipherSuites = b.cipherSuites;
        this.protocols = Collections.unmodifiableSet(EnumSet.copyOf(b.protocols));
        this.handshakeTimeout = b.handshakeTimeout;
        this.closeTimeout = b.closeTimeout;
        this.hostnameVerification = b.hostnameVerification;
        this.serverName = b.serverName;
        this.engine = b.engine;
    }

    /** {@return a builder: no identity, the platform's trust, TLS 1.3 and 1.2, the JDK's engine} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return this end's private key, or null if it has no identity (a client that sends no certificate)} */
    public PrivateKey privateKey() {
        return key;
    }

    /** {@return this end's certificate chain, its own first; empty without an identity} */
    public List<X509Certificate> certificateChain() {
        return chain;
    }

    /** {@return the certificates trusted as issuers of the peer's, or null for the platform's default trust} */
    public List<X509Certificate> trusted() {
        return trusted;
    }

    /** {@return whether a server asks for client certificates} */
    public ClientAuth clientAuth() {
        return clientAuth;
    }

    /** {@return the application protocols offered (client) or accepted (server), in order of preference; may be empty} */
    public List<String> alpn() {
        return alpn;
    }

    /**
     * {@return the cipher suites allowed, by their IANA names (e.g. {@code TLS_AES_128_GCM_SHA256},
     * {@code TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}), in order of preference; empty for the engine's
     * default} The JDK's engine's default is the JDK's; OpenSSL's engine's is a list of its own, of
     * forward-secret AEAD suites only (see {@code dev.wirespeed.linux.tls.OpenSsl}), not OpenSSL's.
     */
    public List<String> cipherSuites() {
        return cipherSuites;
    }

    /** {@return the protocol versions allowed, at least one} */
    public Set<Protocol> protocols() {
        return protocols;
    }

    /** {@return how long a handshake may take before the connection is closed} */
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /** {@return how long a closing connection waits for the peer's close_notify after sending its own} */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** {@return whether a client checks that the server's certificate names the host it connected to} */
    public boolean hostnameVerification() {
        return hostnameVerification;
    }

    /** {@return the host name a client sends and verifies instead of the address's, or null} */
    public String serverName() {
        return serverName;
    }

    /** {@return the engine} */
    public TlsEngineFactory engine() {
        return engine;
    }

    @Override
    public String toString() {
        return "TlsSettings[identity=" + (chain.isEmpty() ? "none" : chain.getFirst().getSubjectX500Principal())
                + " trust=" + (trusted == null ? "default" : trusted.size() + " certificates") + " clientAuth="
                + clientAuth + " alpn=" + alpn + " cipherSuites=" + (cipherSuites.isEmpty() ? "default" : cipherSuites)
                + " protocols=" + protocols + " handshakeTimeout=" + handshakeTimeout
                + " closeTimeout=" + closeTimeout + " hostnameVerification=" + hostnameVerification + " serverName="
                + serverName + " engine=" + engine.name() + "]";
    }

    /**
     * The settings. Each setter checks its argument and names it in the exception.
     *
     * <p>Thread safety: not thread-safe; build on one thread.
     */
    public static final class Builder {
        private PrivateKey key;
        private List<X509Certificate> chain = List.of();
        private List<X509Certificate> trusted;
        private ClientAuth clientAuth = ClientAuth.NONE;
        private List<String> alpn = List.of();
        private List<String> cipherSuites = List.of();
        private Set<Protocol> protocols = EnumSet.allOf(Protocol.class);
        private Duration handshakeTimeout = Duration.ofSeconds(10);
        private Duration closeTimeout = Duration.ofSeconds(1);
        private boolean hostnameVerification = true;
        private String serverName;
        private TlsEngineFactory engine = TlsEngineFactory.jdk();

        private Builder() {
        }

        /**
         * Sets this end's identity.
         *
         * @param key the private key
         * @param chain its certificate chain, the key's own certificate first
         * @return this builder
         * @throws IllegalArgumentException if the chain is empty
         */
        public Builder identity(PrivateKey key, List<X509Certificate> chain) {
            Objects.requireNonNull(key, "key");
            if (chain.isEmpty()) {
                throw new IllegalArgumentException("chain=[]: the key's certificate must come first");
            }
            this.key = key;
            this.chain = List.copyOf(chain);
            return this;
        }

        /**
         * Sets this end's identity from PEM files ({@link Pem}).
         *
         * @param certificateChain the certificates, the key's own first
         * @param privateKey an unencrypted PKCS#8 key
         * @return this builder
         * @throws IOException if a file cannot be read
         * @throws GeneralSecurityException if a file is not what it should be, naming it
         */
        public Builder identity(Path certificateChain, Path privateKey) throws IOException, GeneralSecurityException {
            return identity(Pem.privateKey(privateKey), Pem.certificates(certificateChain));
        }

        /**
         * Sets this end's identity from the one key entry of a key store (a PKCS#12 file, say).
         *
         * @param keyStore a loaded key store with exactly one private key entry
         * @param password the entry's password; not kept, so the caller may zero it once this returns
         * @return this builder
         * @throws GeneralSecurityException if the store holds no private key entry, or more than one, naming the aliases
         */
        public Builder identity(KeyStore keyStore, char[] password) throws GeneralSecurityException {
            List<String> keys = new ArrayList<>();
            for (String alias : Collections.list(keyStore.aliases())) {
                if (keyStore.isKeyEntry(alias)) {
                    keys.add(alias);
                }
            }
            if (keys.size() != 1) {
                throw new GeneralSecurityException("key store entries " + keys + ": wanted exactly one private key entry");
            }
            Key k = keyStore.getKey(keys.getFirst(), password);
            Certificate[] certificates = keyStore.getCertificateChain(keys.getFirst());
            if (!(k instanceof PrivateKey privateKey) || certificates == null || certificates.length == 0) {
                throw new GeneralSecurityException("key store entry " + keys.getFirst() + " has no private key with "
                        + "a certificate chain");
            }
            List<X509Certificate> x509 = new ArrayList<>();
            for (Certificate c : certificates) {
                x509.add((X509Certificate) c);
            }
            return identity(privateKey, x509);
        }

        /**
         * Trusts these issuers of the peer's certificate, and no others.
         *
         * @param trusted at least one certificate
         * @return this builder
         */
        public Builder trust(List<X509Certificate> trusted) {
            if (trusted.isEmpty()) {
                throw new IllegalArgumentException("trusted=[]: trust at least one certificate, or leave the default");
            }
            this.trusted = List.copyOf(trusted);
            return this;
        }

        /**
         * Trusts the certificates of a key store's trusted entries, and no others.
         *
         * @param trustStore a loaded key store with at least one trusted certificate entry
         * @return this builder
         * @throws GeneralSecurityException if it has none
         */
        public Builder trust(KeyStore trustStore) throws GeneralSecurityException {
            List<X509Certificate> certificates = new ArrayList<>();
            for (String alias : Collections.list(trustStore.aliases())) {
                if (trustStore.isCertificateEntry(alias)) {
                    certificates.add((X509Certificate) trustStore.getCertificate(alias));
                }
            }
            if (certificates.isEmpty()) {
                throw new GeneralSecurityException("the trust store has no trusted certificate entry");
            }
            return trust(certificates);
        }

        /**
         * Sets whether a server asks for client certificates; trusted as {@link #trust} says, which must
         * then be set: the platform's default trust would take a certificate any public CA issued to
         * anyone, so {@link #build()} refuses {@link ClientAuth#OPTIONAL} and {@link ClientAuth#REQUIRED}
         * without it.
         *
         * @param clientAuth {@link ClientAuth#NONE} unless set
         * @return this builder
         */
        public Builder clientAuth(ClientAuth clientAuth) {
            this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
            return this;
        }

        /**
         * Sets the application protocols negotiated by ALPN: a client offers them, a server picks the
         * first of its own the client offers, and refuses a client that offers only others.
         *
         * @param protocols names of 1 to 255 bytes each, in order of preference; none to leave ALPN out
         * @return this builder
         */
        public Builder alpn(String... protocols) {
            for (String p : protocols) {
                if (p.isEmpty() || p.length() > 255) {
                    throw new IllegalArgumentException("alpn protocol \"" + p + "\": 1 to 255 characters");
                }
            }
            this.alpn = List.of(protocols);
            return this;
        }

        /**
         * Sets the cipher suites allowed, and no others: a peer that offers (or, a server, picks) only
         * others is refused in the handshake. Names are IANA's, as the JDK's and the RFCs spell them:
         * TLS 1.3's ({@code TLS_AES_128_GCM_SHA256}, {@code TLS_AES_256_GCM_SHA384},
         * {@code TLS_CHACHA20_POLY1305_SHA256}) and TLS 1.2's, with {@code _WITH_} in them
         * ({@code TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}). Suites of a protocol not allowed are ignored;
         * {@link #build()} refuses a list without a suite of each protocol allowed, and an engine refuses
         * (at {@link TlsEngineFactory#context}) a name it does not know, naming it.
         *
         * @param suites IANA names, in order of preference, each once; the engine's default unless set
         * @return this builder
         * @throws IllegalArgumentException if none is given, a name is not of the form
         *     {@code TLS_[A-Z0-9_]+} or is a signalling value ({@code _SCSV}), or a name comes twice
         */
        public Builder cipherSuites(String... suites) {
            List<String> list = List.of(suites);
            if (list.isEmpty()) {
                throw new IllegalArgumentException("cipherSuites=[]: name at least one, or leave the engine's default");
            }
            for (int i = 0; i < list.size(); i++) {
                String s = list.get(i);
                if (!s.matches("TLS_[A-Z0-9_]+") || s.endsWith("_SCSV")) {
                    throw new IllegalArgumentException("cipher suite \"" + s + "\" in cipherSuites=" + list + ": not an "
                            + "IANA cipher suite name, such as TLS_AES_128_GCM_SHA256 or "
                            + "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
                }
                if (list.indexOf(s) != i) {
                    throw new IllegalArgumentException("cipher suite " + s + " twice in cipherSuites=" + list);
                }
            }
            this.cipherSuites = list;
            return this;
        }

        /**
         * Sets the protocol versions allowed.
         *
         * @param protocols at least one of {@link Protocol}; both unless set
         * @return this builder
         */
        public Builder protocols(Protocol... protocols) {
            if (protocols.length == 0) {
                throw new IllegalArgumentException("protocols=[]: allow at least one of " + List.of(Protocol.values()));
            }
            this.protocols = EnumSet.copyOf(new LinkedHashSet<>(List.of(protocols)));
            return this;
        }

        /**
         * Sets how long a handshake may take: past it the connection is reset, and its handler's
         * {@code onClose} gets a {@link java.net.SocketTimeoutException}. What an unfinished handshake
         * holds meanwhile is said in the class's "Unfinished handshakes".
         *
         * @param timeout from 1 ms to 1 hour; 10 seconds unless set
         * @return this builder
         */
        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = check("handshakeTimeout", timeout, Duration.ofMillis(1));
            return this;
        }

        /**
         * Sets how long a connection closed gracefully waits for the peer's close_notify after sending its
         * own, before it closes anyway.
         *
         * @param timeout from 0 to 1 hour; 1 second unless set
         * @return this builder
         */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = check("closeTimeout", timeout, Duration.ZERO);
            return this;
        }

        private static Duration check(String name, Duration d, Duration min) {
            Duration max = Duration.ofHours(1);
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + "=" + d + " min=" + min + " max=" + max);
            }
            return d;
        }

        /**
         * Sets whether a client checks that the server's certificate names the host it connected to
         * (RFC 6125's rules, as HTTPS checks them).
         *
         * @param on true unless set; false only where the peer is known by other means
         * @return this builder
         */
        public Builder hostnameVerification(boolean on) {
            this.hostnameVerification = on;
            return this;
        }

        /**
         * Sets the host name a client sends (SNI) and verifies, instead of the host name of the address it
         * connects to: for a server reached by an address, say.
         *
         * @param serverName a DNS host name
         * @return this builder
         */
        public Builder serverName(String serverName) {
            if (serverName.isEmpty() || serverName.length() > 253) {
                throw new IllegalArgumentException("serverName=\"" + serverName + "\": 1 to 253 characters");
            }
            this.serverName = serverName;
            return this;
        }

        /**
         * Sets the engine.
         *
         * @param engine {@link TlsEngineFactory#jdk()} unless set
         * @return this builder
         */
        public Builder engine(TlsEngineFactory engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        /**
         * {@return the settings}
         *
         * @throws IllegalStateException if {@link #clientAuth} asks for client certificates and
         *     {@link #trust} was not set, or if {@link #cipherSuites} were set with no suite of a protocol
         *     {@link #protocols} allows, naming the settings
         */
        public TlsSettings build() {
            if (clientAuth != ClientAuth.NONE && trusted == null) {
                throw new IllegalStateException("clientAuth=" + clientAuth + " trust=default: a server asking for "
                        + "client certificates must name their issuers with trust(...); the platform's default "
                        + "trust would take a certificate of any public CA's");
            }
            if (!cipherSuites.isEmpty()) {
                for (Protocol p : protocols) {
                    if (cipherSuites.stream().noneMatch(s -> isTls13(s) == (p == Protocol.TLS_1_3))) {
                        throw new IllegalStateException("cipherSuites=" + cipherSuites + " protocols=" + protocols
                                + ": no " + p + " suite among them; name one"
                                + (p == Protocol.TLS_1_3 ? " (TLS_AES_128_GCM_SHA256, say)"
                                        : " (TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, say)")
                                + ", or leave " + p + " out of protocols");
                    }
                }
            }
            return new TlsSettings(this);
        }

        /** {@return whether {@code suite}, an IANA name, is TLS 1.3's: TLS 1.2's name their key exchange "_WITH_"} */
        private static boolean isTls13(String suite) {
            return !suite.contains("_WITH_");
        }
    }
}
