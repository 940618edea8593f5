package dev.wirespeed.linux.internal.ssl;

import dev.wirespeed.tls.TlsContext;
import dev.wirespeed.tls.TlsSettings;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLEngine;

/**
 * One {@code SSL_CTX}, made once from {@link TlsSettings} for a server or a client: protocol versions,
 * identity, trust, the verification mode, ALPN. Each engine's {@code SSL} holds a reference to it, so it
 * is freed when the last engine and this object are gone (a {@link Cleaner} frees this object's
 * reference once it is unreachable).
 *
 * <p>Cipher suites: {@link TlsSettings#cipherSuites()}, TLS 1.3's by {@code SSL_CTX_set_ciphersuites} and
 * TLS 1.2's by {@code SSL_CTX_set_cipher_list} under OpenSSL's names ({@code OPENSSL_cipher_name}), each
 * name checked against the suites the context then has; or, by default, {@link #DEFAULT_CIPHER_SUITES}
 * rather than OpenSSL's own default (which takes suites without forward secrecy, and CBC ones).
 *
 * <p>Settings applied beyond {@link TlsSettings}: renegotiation and compression off; no session cache
 * and no TLS 1.3 session tickets (no engine resumes a session, so tickets would be signed and sent for
 * nothing); a server's cipher preference; a server asking for client certificates names its trusted
 * issuers; {@code SSL_MODE_RELEASE_BUFFERS}, so that neither an idle connection nor a handshake waiting
 * for its peer keeps OpenSSL's two record buffers (some 34 KB): OpenSSL 3 frees them as a read finds no
 * bytes, which leaves {@code SSL_free_buffers} nothing to free.
 *
 * <p>Thread safety: safe for concurrent use ({@code SSL_new} on a shared {@code SSL_CTX} is).
 */
public final class SslContext implements TlsContext {
    /** Frees what engines and contexts leave behind unreleased. */
    static final Cleaner CLEANER = Cleaner.create();
    /**
     * The suites of a context whose settings name none, in order of preference: TLS 1.3's AEAD suites,
     * and TLS 1.2's with a forward-secret key exchange (ECDHE, DHE) and an AEAD cipher (AES-GCM,
     * ChaCha20-Poly1305). A suite the OpenSSL found lacks (ChaCha20 in a FIPS build, say) is left out.
     */
    public static final List<String> DEFAULT_CIPHER_SUITES = List.of("TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256");
    /** {@code SSL_CTRL_SET_DH_AUTO}: a server's DHE groups chosen by OpenSSL (RFC 7919's), for the DHE suites. */
    private static final int SSL_CTRL_SET_DH_AUTO = 118;
    /** At most this many trusted subjects are named in a refusal, as the JDK engine names them. */
    private static final int ISSUERS_NAMED = 3;

    final long ctx;
    final boolean client;
    final TlsSettings settings;
    /** The client's ALPN offer in wire format ({@code length, bytes}...), or null. */
    final MemorySegment alpnOffer;
    /** A server's ALPN choices, an int count of bytes then the wire format; kept alive while engines may call back. */
    private final MemorySegment alpnChoices;
    /** What a refusal of an untrusted certificate says was expected. */
    final String expectedIssuers;
    /** This end's certificates, for its sessions. */
    final X509Certificate[] localCertificates;
    /** Initial minimum and maximum protocol versions ({@code TLS1_2_VERSION}, {@code TLS1_3_VERSION}). */
    final int minVersion;
    final int maxVersion;
    /** The verification mode of a server's connections; a client's is always {@code SSL_VERIFY_PEER}. */
    final int verifyMode;

    /**
     * Makes the {@code SSL_CTX}.
     *
     * @param settings the settings
     * @param client the connecting side
     * @throws GeneralSecurityException if OpenSSL refuses the key, a certificate or the trust, with its errors
     */
    public SslContext(TlsSettings settings, boolean client) throws GeneralSecurityException {
        if (LibSsl.UNUSABLE != null) {
            throw new GeneralSecurityException("OpenSSL is unusable here: " + LibSsl.UNUSABLE);
        }
        if (!client && settings.privateKey() == null) {
            throw new GeneralSecurityException("a TLS server needs an identity: TlsSettings.Builder.identity(...)");
        }
        this.client = client;
        this.settings = settings;
        LibSsl.clearErrors();
        long c = LibSsl.ctxNew();
        if (c == 0) {
            throw failure("SSL_CTX_new");
        }
        try {
            minVersion = settings.protocols().contains(TlsSettings.Protocol.TLS_1_2) ? LibSsl.TLS1_2_VERSION
                    : LibSsl.TLS1_3_VERSION;
            maxVersion = settings.protocols().contains(TlsSettings.Protocol.TLS_1_3) ? LibSsl.TLS1_3_VERSION
                    : LibSsl.TLS1_2_VERSION;
            if (LibSsl.ctxCtrl(c, LibSsl.SSL_CTRL_SET_MIN_PROTO_VERSION, minVersion, 0) != 1
                    || LibSsl.ctxCtrl(c, LibSsl.SSL_CTRL_SET_MAX_PROTO_VERSION, maxVersion, 0) != 1) {
                throw failure("SSL_CTX_set_min_proto_version/max protocols=" + settings.protocols());
            }
            LibSsl.ctxSetOptions(c, LibSsl.SSL_OP_NO_RENEGOTIATION | LibSsl.SSL_OP_NO_COMPRESSION | LibSsl.SSL_OP_NO_TICKET
                    | (client ? 0 : LibSsl.SSL_OP_CIPHER_SERVER_PREFERENCE));
            LibSsl.ctxCtrl(c, LibSsl.SSL_CTRL_SET_SESS_CACHE_MODE, 0, 0); // SSL_SESS_CACHE_OFF
            LibSsl.ctxCtrl(c, LibSsl.SSL_CTRL_MODE, LibSsl.SSL_MODE_RELEASE_BUFFERS, 0);
            LibSsl.ctxSetNumTickets(c, 0);
            cipherSuites(c, settings);
            if (!client) {
                LibSsl.ctxCtrl(c, SSL_CTRL_SET_DH_AUTO, 1, 0);
            }
            try (Arena arena = Arena.ofConfined()) {
                byte[] id = "wirespeed".getBytes(StandardCharsets.US_ASCII);
                LibSsl.ctxSetSessionIdContext(c, arena.allocateFrom(ValueLayout.JAVA_BYTE, id).address(), id.length);
                if (settings.privateKey() != null) {
                    identity(c, settings, arena);
                }
                trust(c, settings, client, arena);
            }
            if (client) {
                verifyMode = LibSsl.SSL_VERIFY_PEER;
            } else {
                verifyMode = switch (settings.clientAuth()) {
                    case NONE -> LibSsl.SSL_VERIFY_NONE;
                    case OPTIONAL -> LibSsl.SSL_VERIFY_PEER;
                    case REQUIRED -> LibSsl.SSL_VERIFY_PEER | LibSsl.SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
                };
            }
            LibSsl.ctxSetVerify(c, verifyMode, verifyMode == LibSsl.SSL_VERIFY_NONE ? 0 : Callbacks.verify());
            byte[] wire = wire(settings.alpn());
            if (wire.length == 0) {
                alpnOffer = null;
                alpnChoices = null;
            } else if (client) {
                alpnOffer = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_BYTE, wire);
                alpnChoices = null;
            } else {
                alpnOffer = null;
                alpnChoices = Arena.ofAuto().allocate(Integer.BYTES + wire.length, Integer.BYTES);
                alpnChoices.set(ValueLayout.JAVA_INT, 0, wire.length);
                MemorySegment.copy(wire, 0, alpnChoices, ValueLayout.JAVA_BYTE, Integer.BYTES, wire.length);
                LibSsl.ctxSetAlpnSelect(c, Callbacks.alpnSelect(), alpnChoices.address());
            }
        } catch (GeneralSecurityException | RuntimeException | Error e) {
            LibSsl.ctxFree(c);
            throw e;
        }
        this.ctx = c;
        LibSsl.clearErrors(); // what loading the default trust paths may leave, say
        this.expectedIssuers = "an issuer among " + (settings.trusted() == null
                ? "the platform's trust (OpenSSL's default paths, " + LibSsl.defaultCertDir() + ")"
                : issuers(settings.trusted()));
        this.localCertificates = settings.certificateChain().isEmpty() ? null
                : settings.certificateChain().toArray(new X509Certificate[0]);
        CLEANER.register(this, new Free(c));
    }

    /** Frees the context's own reference; each engine holds one more while it lives. */
    private record Free(long ctx) implements Runnable {
        @Override
        public void run() {
            LibSsl.ctxFree(ctx);
        }
    }

    /**
     * Sets the context's suites: the settings', each checked, or {@link #DEFAULT_CIPHER_SUITES}, those
     * OpenSSL lacks left out.
     */
    private static void cipherSuites(long c, TlsSettings settings) throws GeneralSecurityException {
        boolean named = !settings.cipherSuites().isEmpty();
        List<String> suites = named ? settings.cipherSuites() : DEFAULT_CIPHER_SUITES;
        List<String> tls13 = suites.stream().filter(s -> !s.contains("_WITH_")).toList();
        List<String> tls12Names = suites.stream().filter(s -> s.contains("_WITH_")).toList();
        if (tls12Names.isEmpty()) { // TLS 1.2 is not allowed (TlsSettings sees to it): its list is never used
            tls12Names = DEFAULT_CIPHER_SUITES.stream().filter(s -> s.contains("_WITH_")).toList();
        }
        try (Arena arena = Arena.ofConfined()) {
            List<String> tls12 = new ArrayList<>();
            for (String s : tls12Names) {
                String name = LibSsl.opensslCipherName(arena.allocateFrom(s, StandardCharsets.US_ASCII).address());
                if (name != null) {
                    tls12.add(name); // an unknown one is named below, as missing from the context's suites
                }
            }
            if (LibSsl.ctxSetCipherSuites(c, arena.allocateFrom(String.join(":", tls13)).address()) != 1) {
                throw failure("SSL_CTX_set_ciphersuites " + tls13);
            }
            if (!tls12.isEmpty() && LibSsl.ctxSetCipherList(c, arena.allocateFrom(String.join(":", tls12)).address()) != 1) {
                throw failure("SSL_CTX_set_cipher_list " + tls12);
            }
        }
        List<String> enabled = LibSsl.ctxCipherSuites(c);
        List<String> unknown = suites.stream().filter(s -> !enabled.contains(s)).toList();
        if (named && !unknown.isEmpty()) {
            throw new GeneralSecurityException("cipherSuites=" + suites + ": " + unknown + " unknown to OpenSSL's "
                    + "engine (" + LibSsl.version() + ")");
        }
    }

    private static void identity(long c, TlsSettings settings, Arena arena) throws GeneralSecurityException {
        List<X509Certificate> chain = settings.certificateChain();
        long leaf = x509(chain.getFirst(), arena);
        try {
            if (LibSsl.ctxUseCertificate(c, leaf) != 1) {
                throw failure("SSL_CTX_use_certificate " + chain.getFirst().getSubjectX500Principal());
            }
        } finally {
            LibSsl.x509Free(leaf); // the context took a reference of its own
        }
        for (X509Certificate issuer : chain.subList(1, chain.size())) {
            long x = x509(issuer, arena);
            if (LibSsl.ctxCtrl(c, LibSsl.SSL_CTRL_EXTRA_CHAIN_CERT, 0, x) != 1) { // takes x on success
                LibSsl.x509Free(x);
                throw failure("SSL_CTX_add_extra_chain_cert " + issuer.getSubjectX500Principal());
            }
        }
        byte[] encoded = settings.privateKey().getEncoded();
        if (encoded == null) {
            throw new GeneralSecurityException("the private key (" + settings.privateKey().getAlgorithm()
                    + ") has no encoding, as a hardware key has none: OpenSSL needs its PKCS#8 bytes");
        }
        MemorySegment der = arena.allocateFrom(ValueLayout.JAVA_BYTE, encoded);
        Arrays.fill(encoded, (byte) 0);
        long pkey = LibSsl.privateKey(der, arena);
        der.fill((byte) 0);
        if (pkey == 0) {
            throw failure("d2i_AutoPrivateKey of the " + settings.privateKey().getAlgorithm() + " key ("
                    + settings.privateKey().getFormat() + ")");
        }
        try {
            if (LibSsl.ctxUsePrivateKey(c, pkey) != 1) {
                throw failure("SSL_CTX_use_PrivateKey");
            }
        } finally {
            LibSsl.pkeyFree(pkey);
        }
        if (LibSsl.ctxCheckPrivateKey(c) != 1) {
            throw failure("SSL_CTX_check_private_key: the key is not the one of " + chain.getFirst().getSubjectX500Principal());
        }
    }

    private static void trust(long c, TlsSettings settings, boolean client, Arena arena) throws GeneralSecurityException {
        if (settings.trusted() == null) {
            if (LibSsl.ctxSetDefaultVerifyPaths(c) != 1) {
                throw failure("SSL_CTX_set_default_verify_paths");
            }
            return;
        }
        long store = LibSsl.ctxCertStore(c);
        for (X509Certificate trusted : settings.trusted()) {
            long x = x509(trusted, arena);
            try {
                if (LibSsl.storeAddCert(store, x) != 1) {
                    throw failure("X509_STORE_add_cert " + trusted.getSubjectX500Principal());
                }
                if (!client && settings.clientAuth() != TlsSettings.ClientAuth.NONE && LibSsl.ctxAddClientCa(c, x) != 1) {
                    throw failure("SSL_CTX_add_client_CA " + trusted.getSubjectX500Principal());
                }
            } finally {
                LibSsl.x509Free(x);
            }
        }
    }

    /** {@return {@code certificate} as OpenSSL's {@code X509}, which the caller frees} */
    private static long x509(X509Certificate certificate, Arena arena) throws GeneralSecurityException {
        byte[] encoded;
        try {
            encoded = certificate.getEncoded();
        } catch (CertificateEncodingException e) {
            throw new GeneralSecurityException("certificate " + certificate.getSubjectX500Principal()
                    + " will not encode", e);
        }
        long x = LibSsl.x509(arena.allocateFrom(ValueLayout.JAVA_BYTE, encoded), arena);
        if (x == 0) {
            throw failure("d2i_X509 of " + certificate.getSubjectX500Principal());
        }
        return x;
    }

    /** {@return the names in ALPN's wire format: a length byte before each} */
    static byte[] wire(List<String> protocols) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (String p : protocols) {
            byte[] name = p.getBytes(StandardCharsets.ISO_8859_1);
            out.write(name.length);
            out.write(name, 0, name.length);
        }
        return out.toByteArray();
    }

    /** {@return the first trusted subjects, as the JDK engine lists its accepted issuers} */
    private static List<String> issuers(List<X509Certificate> trusted) {
        List<String> names = new ArrayList<>();
        for (X509Certificate c : trusted) {
            names.add(c.getSubjectX500Principal().getName());
            if (names.size() == ISSUERS_NAMED) {
                names.add("... " + (trusted.size() - ISSUERS_NAMED) + " more");
                break;
            }
        }
        return names;
    }

    /** {@return a failure of {@code what}, with this thread's OpenSSL errors} */
    static GeneralSecurityException failure(String what) {
        List<String> errors = LibSsl.errors();
        return new GeneralSecurityException(what + " failed: " + (errors.isEmpty() ? "(no OpenSSL error)"
                : String.join("; ", errors)));
    }

    @Override
    public SSLEngine newEngine(String peerHost, int peerPort) {
        return new OpenSslEngine(this, peerHost, peerPort);
    }

    /** {@return true: OpenSSL reads and writes a direct buffer where it lies, a heap one through a copy} */
    @Override
    public boolean directBuffers() {
        return true;
    }

    @Override
    public String toString() {
        return "SslContext[" + (client ? "client" : "server") + " " + settings + "]";
    }
}
