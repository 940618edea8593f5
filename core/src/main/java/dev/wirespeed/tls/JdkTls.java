package dev.wirespeed.tls;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/** The JDK's engine: an {@link SSLContext} of the default provider, made from the settings. */
final class JdkTls implements TlsEngineFactory {
    static final JdkTls INSTANCE = new JdkTls();
    /** The in-memory key store's password: it never leaves this class. */
    private static final char[] NO_PASSWORD = new char[0];

    private JdkTls() {
    }

    @Override
    public String name() {
        return "jdk";
    }

    @Override
    public TlsContext context(TlsSettings settings, boolean client) throws GeneralSecurityException {
        KeyManager[] keys = null;
        if (settings.privateKey() != null) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try {
                store.load(null, null);
            } catch (java.io.IOException e) {
                throw new GeneralSecurityException("an empty PKCS12 key store would not load", e);
            }
            store.setKeyEntry("identity", settings.privateKey(), NO_PASSWORD,
                    settings.certificateChain().toArray(new X509Certificate[0]));
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, NO_PASSWORD);
            keys = factory.getKeyManagers();
        } else if (!client) {
            throw new GeneralSecurityException("a TLS server needs an identity: TlsSettings.Builder.identity(...)");
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (settings.trusted() == null) {
            trust.init((KeyStore) null); // the JDK's cacerts
        } else {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try {
                store.load(null, null);
            } catch (java.io.IOException e) {
                throw new GeneralSecurityException("an empty PKCS12 key store would not load", e);
            }
            List<X509Certificate> trusted = settings.trusted();
            for (int i = 0; i < trusted.size(); i++) {
                store.setCertificateEntry("trusted-" + i, trusted.get(i));
            }
            trust.init(store);
        }
        X509ExtendedTrustManager delegate = null;
        for (TrustManager t : trust.getTrustManagers()) {
            if (t instanceof X509ExtendedTrustManager x) {
                delegate = x;
            }
        }
        if (delegate == null) {
            throw new GeneralSecurityException("the default TrustManagerFactory made no X509ExtendedTrustManager");
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys, new TrustManager[] {new Describing(delegate)}, null);
        String[] protocols = settings.protocols().stream().map(TlsSettings.Protocol::jdkName).toArray(String[]::new);
        String[] alpn = settings.alpn().toArray(String[]::new);
        String[] suites = settings.cipherSuites().isEmpty() ? null : knownSuites(context, settings.cipherSuites());
        return (peerHost, peerPort) -> {
            String host = client && settings.serverName() != null ? settings.serverName() : peerHost;
            SSLEngine engine = host == null ? context.createSSLEngine() : context.createSSLEngine(host, peerPort);
            engine.setUseClientMode(client);
            SSLParameters p = engine.getSSLParameters();
            p.setProtocols(protocols);
            if (alpn.length > 0) {
                p.setApplicationProtocols(alpn);
            }
            if (suites != null) {
                p.setCipherSuites(suites);
            }
            if (client) {
                if (settings.hostnameVerification()) {
                    p.setEndpointIdentificationAlgorithm("HTTPS");
                }
                if (host != null && !isAddressLiteral(host)) {
                    p.setServerNames(List.of(new SNIHostName(host)));
                }
            } else {
                switch (settings.clientAuth()) {
                    case NONE -> { }
                    case OPTIONAL -> p.setWantClientAuth(true);
                    case REQUIRED -> p.setNeedClientAuth(true);
                }
            }
            engine.setSSLParameters(p);
            return engine;
        };
    }

    /** {@return {@code suites}, checked: each is one the context's engines support} */
    private static String[] knownSuites(SSLContext context, List<String> suites) throws GeneralSecurityException {
        List<String> supported = List.of(context.getSupportedSSLParameters().getCipherSuites());
        List<String> unknown = suites.stream().filter(s -> !supported.contains(s)).toList();
        if (!unknown.isEmpty()) {
            throw new GeneralSecurityException("cipherSuites=" + suites + ": " + unknown + " unknown to the JDK's "
                    + "engine (" + context.getProvider().getName() + ", Java " + Runtime.version().feature() + ")");
        }
        return suites.toArray(String[]::new);
    }

    /**
     * The JDK's trust checks, their refusals rethrown as {@link PeerCertificateException}s that say what was
     * expected and what came.
     */
    private static final class Describing extends X509ExtendedTrustManager {
        private final X509ExtendedTrustManager delegate;

        Describing(X509ExtendedTrustManager delegate) {
            this.delegate = delegate;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            try {
                delegate.checkServerTrusted(chain, authType, engine);
            } catch (CertificateException e) {
                throw refused("server", chain, engine == null ? null : expectedHost(engine), e);
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            try {
                delegate.checkClientTrusted(chain, authType, engine);
            } catch (CertificateException e) {
                throw refused("client", chain, null, e);
            }
        }

        private static String expectedHost(SSLEngine engine) {
            SSLParameters p = engine.getSSLParameters();
            return p.getServerNames() == null || p.getServerNames().isEmpty() ? engine.getPeerHost()
                    : ((SNIHostName) p.getServerNames().getFirst()).getAsciiName();
        }

        /** A refusal of {@code chain}, its problem told from the leaf's dates, then the JDK's message. */
        private CertificateException refused(String peer, X509Certificate[] chain, String host, CertificateException e) {
            X509Certificate leaf = chain == null || chain.length == 0 ? null : chain[0];
            PeerCertificateException.Problem problem;
            String expected;
            try {
                if (leaf == null) {
                    problem = PeerCertificateException.Problem.MISSING;
                    expected = "one";
                } else {
                    leaf.checkValidity();
                    String m = String.valueOf(e.getMessage());
                    if (host != null && (m.contains("subject alternative") || m.contains("No name matching"))) {
                        problem = PeerCertificateException.Problem.WRONG_HOST;
                        expected = host;
                    } else {
                        problem = PeerCertificateException.Problem.UNTRUSTED;
                        expected = "an issuer among " + issuers();
                    }
                }
            } catch (CertificateExpiredException | CertificateNotYetValidException dates) {
                problem = dates instanceof CertificateExpiredException ? PeerCertificateException.Problem.EXPIRED
                        : PeerCertificateException.Problem.NOT_YET_VALID;
                expected = "valid at " + java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
            }
            PeerCertificateException described = PeerCertificateException.of(peer, problem, expected, leaf, e);
            return new CertificateException(described.getMessage(), described);
        }

        private List<String> issuers() {
            List<String> names = new java.util.ArrayList<>();
            for (X509Certificate c : delegate.getAcceptedIssuers()) {
                names.add(c.getSubjectX500Principal().getName());
                if (names.size() == 3) {
                    names.add("... " + (delegate.getAcceptedIssuers().length - 3) + " more");
                    break;
                }
            }
            return names;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            delegate.checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            delegate.checkServerTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate.checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return delegate.getAcceptedIssuers();
        }
    }

    /** {@return whether {@code host} is an IPv4 or IPv6 literal, which SNI must not carry} */
    static boolean isAddressLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(ch -> ch == '.' || (ch >= '0' && ch <= '9'));
    }
}
