package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.tls.PeerCertificateException;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.Random;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The contract of a {@link TlsEngineFactory}'s engines, handshaking in memory: with each other, and with
 * the JDK's as the other end. An engine's test extends this and names its factory. What a handshake
 * refuses over a certificate, it says in a {@link PeerCertificateException}.
 */
public abstract class TlsEngineContract {
    /** {@return the engine under test} */
    protected abstract TlsEngineFactory engine();

    /** Which ends are the engine under test; the others are the JDK's. */
    public enum Ends {
        /** Both. */
        BOTH,
        /** The server; the client is the JDK's. */
        SERVER,
        /** The client; the server is the JDK's. */
        CLIENT
    }

    private TlsEngineFactory server(Ends ends) {
        return ends == Ends.CLIENT ? TlsEngineFactory.jdk() : engine();
    }

    private TlsEngineFactory client(Ends ends) {
        return ends == Ends.SERVER ? TlsEngineFactory.jdk() : engine();
    }

    /** Two engines and the bytes between them. */
    protected static final class Pair {
        final SSLEngine client;
        final SSLEngine server;
        private final ByteBuffer toServer = ByteBuffer.allocate(1 << 17);
        private final ByteBuffer toClient = ByteBuffer.allocate(1 << 17);
        final ByteBuffer clientApp = ByteBuffer.allocate(1 << 17);
        final ByteBuffer serverApp = ByteBuffer.allocate(1 << 17);

        Pair(TlsSettings server, TlsSettings client, String host) throws GeneralSecurityException {
            this.server = server.engine().context(server, false).newEngine(null, -1);
            this.client = client.engine().context(client, true).newEngine(host, 443);
        }

        /** Steps both engines until neither handshakes; an engine's failure is thrown, the client's first. */
        void handshake() throws SSLException {
            this.client.beginHandshake();
            this.server.beginHandshake();
            for (int i = 0; i < 1_000; i++) {
                boolean moved = step(client, toServer, toClient, clientApp) | step(server, toClient, toServer, serverApp);
                if (!moved && !handshaking(client) && !handshaking(server)) {
                    return;
                }
            }
            throw new AssertionError("no end to the handshake after 1,000 steps: client " + client.getHandshakeStatus()
                    + ", server " + server.getHandshakeStatus());
        }

        private static boolean handshaking(SSLEngine e) {
            SSLEngineResult.HandshakeStatus s = e.getHandshakeStatus();
            return s != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && s != SSLEngineResult.HandshakeStatus.FINISHED;
        }

        /** One step of {@code e}: a task, a wrap into {@code out}, or an unwrap of {@code in}; {@return whether anything moved} */
        private static boolean step(SSLEngine e, ByteBuffer out, ByteBuffer in, ByteBuffer app) throws SSLException {
            switch (e.getHandshakeStatus()) {
                case NEED_TASK -> {
                    for (Runnable task; (task = e.getDelegatedTask()) != null; ) {
                        task.run();
                    }
                    return true;
                }
                case NEED_WRAP -> {
                    SSLEngineResult r = e.wrap(ByteBuffer.allocate(0), out);
                    return r.bytesProduced() > 0 || r.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_WRAP;
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    in.flip();
                    try {
                        SSLEngineResult r = e.unwrap(in, app);
                        return r.bytesConsumed() > 0 || r.bytesProduced() > 0;
                    } finally {
                        in.compact();
                    }
                }
                default -> {
                    return false;
                }
            }
        }

        /** Sends {@code bytes} from {@code from} and {@return what the other end unwrapped} */
        byte[] send(SSLEngine from, byte[] bytes) throws SSLException {
            SSLEngine to = from == client ? server : client;
            ByteBuffer net = from == client ? toServer : toClient;
            ByteBuffer app = from == client ? serverApp : clientApp;
            ByteBuffer src = ByteBuffer.wrap(bytes);
            app.clear();
            while (src.hasRemaining() || net.position() > 0) {
                if (src.hasRemaining()) {
                    from.wrap(src, net);
                }
                net.flip();
                to.unwrap(net, app);
                net.compact();
            }
            app.flip();
            byte[] received = new byte[app.remaining()];
            app.get(received);
            return received;
        }

        /** {@code from} closes: its close_notify reaches the other end, which ends its input. */
        void close(SSLEngine from) throws SSLException {
            SSLEngine to = from == client ? server : client;
            ByteBuffer net = from == client ? toServer : toClient;
            ByteBuffer app = from == client ? serverApp : clientApp;
            from.closeOutbound();
            while (!from.isOutboundDone()) {
                from.wrap(ByteBuffer.allocate(0), net);
            }
            net.flip();
            app.clear();
            SSLEngineResult r = to.unwrap(net, app);
            net.compact();
            assertEquals(SSLEngineResult.Status.CLOSED, r.getStatus(), "the close_notify's unwrap");
            assertTrue(to.isInboundDone(), "the peer's input ended at the close_notify");
        }
    }

    private static TlsSettings serverSettings(TlsEngineFactory engine, String identity) {
        return TestCertificates.identity(identity).engine(engine).build();
    }

    private static TlsSettings clientSettings(TlsEngineFactory engine) {
        return TestCertificates.trustingTheTestCa().engine(engine).build();
    }

    @ParameterizedTest
    @EnumSource(Ends.class)
    void handshakesOnEitherProtocolAndCarriesBytesBothWays(Ends ends) throws Exception {
        for (TlsSettings.Protocol protocol : TlsSettings.Protocol.values()) {
            Pair pair = new Pair(TestCertificates.identity("server").engine(server(ends)).protocols(protocol).build(),
                    TestCertificates.trustingTheTestCa().engine(client(ends)).protocols(protocol).build(), "localhost");
            pair.handshake();
            assertEquals(protocol.jdkName(), pair.client.getSession().getProtocol());
            assertEquals(protocol.jdkName(), pair.server.getSession().getProtocol());
            byte[] bytes = new byte[50_000];
            new Random(protocol.ordinal()).nextBytes(bytes);
            assertArrayEquals(bytes, pair.send(pair.client, bytes), "client to server over " + protocol);
            assertArrayEquals(bytes, pair.send(pair.server, bytes), "server to client over " + protocol);
            pair.close(pair.client);
        }
    }

    @ParameterizedTest
    @EnumSource(Ends.class)
    void alpnPicksTheServersFirstChoiceTheClientOffers(Ends ends) throws Exception {
        Pair pair = new Pair(TestCertificates.identity("server").engine(server(ends)).alpn("wirespeed/1", "h2").build(),
                TestCertificates.trustingTheTestCa().engine(client(ends)).alpn("h2", "wirespeed/1").build(), "localhost");
        pair.handshake();
        assertEquals("wirespeed/1", pair.client.getApplicationProtocol());
        assertEquals("wirespeed/1", pair.server.getApplicationProtocol());
    }

    @ParameterizedTest
    @EnumSource(Ends.class)
    void aServerRefusesAClientThatOffersOnlyOtherProtocols(Ends ends) throws Exception {
        Pair pair = new Pair(TestCertificates.identity("server").engine(server(ends)).alpn("wirespeed/1").build(),
                TestCertificates.trustingTheTestCa().engine(client(ends)).alpn("h2").build(), "localhost");
        assertThrows(SSLException.class, pair::handshake);
    }

    @ParameterizedTest
    @EnumSource(Ends.class)
    void mutualTlsNamesTheClientAndRefusesOneWithoutACertificate(Ends ends) throws Exception {
        TlsSettings server = TestCertificates.identity("server").engine(server(ends))
                .clientAuth(TlsSettings.ClientAuth.REQUIRED).build();
        Pair pair = new Pair(server, TestCertificates.identity("client").engine(client(ends)).build(), "localhost");
        pair.handshake();
        assertEquals("CN=wirespeed test client", pair.server.getSession().getPeerPrincipal().getName());

        Pair anonymous = new Pair(server, clientSettings(client(ends)), "localhost");
        assertThrows(SSLException.class, anonymous::handshake);
    }

    /** {@return a suite of {@code protocol}'s that neither engine prefers by default, to tell a setting from a default} */
    private static String unpreferredSuite(TlsSettings.Protocol protocol) {
        return protocol == TlsSettings.Protocol.TLS_1_3 ? "TLS_CHACHA20_POLY1305_SHA256"
                : "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256";
    }

    @ParameterizedTest
    @EnumSource(Ends.class)
    void theCipherSuiteBothEndsAllowIsTheOneAgreed(Ends ends) throws Exception {
        for (TlsSettings.Protocol protocol : TlsSettings.Protocol.values()) {
            String suite = unpreferredSuite(protocol);
            Pair pair = new Pair(TestCertificates.identity("server").engine(server(ends)).protocols(protocol)
                    .cipherSuites(suite).build(), TestCertificates.trustingTheTestCa().engine(client(ends))
                    .protocols(protocol).cipherSuites(suite).build(), "localhost");
            pair.handshake();
            assertEquals(suite, pair.client.getSession().getCipherSuite(), "the client's, over " + protocol);
            assertEquals(suite, pair.server.getSession().getCipherSuite(), "the server's, over " + protocol);
        }
    }

    @ParameterizedTest
    @EnumSource(Ends.class)
    void aServerRefusesAClientThatOffersOnlySuitesOutsideItsList(Ends ends) throws Exception {
        for (TlsSettings.Protocol protocol : TlsSettings.Protocol.values()) {
            String other = protocol == TlsSettings.Protocol.TLS_1_3 ? "TLS_AES_256_GCM_SHA384"
                    : "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";
            Pair pair = new Pair(TestCertificates.identity("server").engine(server(ends)).protocols(protocol)
                    .cipherSuites(unpreferredSuite(protocol)).build(), TestCertificates.trustingTheTestCa()
                    .engine(client(ends)).protocols(protocol).cipherSuites(other).build(), "localhost");
            assertThrows(SSLException.class, pair::handshake, "over " + protocol);
        }
    }

    /** {@return the certificate refusal in the failure's causes} */
    private static PeerCertificateException refusal(SSLException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PeerCertificateException p) {
                return p;
            }
        }
        throw new AssertionError("no PeerCertificateException in the causes of " + failure, failure);
    }

    @ParameterizedTest
    @EnumSource(value = Ends.class, names = {"BOTH", "CLIENT"})
    void aClientRefusesACertificateForAnotherHostNamingBoth(Ends ends) throws Exception {
        Pair pair = new Pair(serverSettings(server(ends), "other-host"), clientSettings(client(ends)), "localhost");
        SSLHandshakeException e = assertInstanceOf(SSLHandshakeException.class, assertThrows(SSLException.class,
                pair::handshake));
        PeerCertificateException refusal = refusal(e);
        assertEquals(PeerCertificateException.Problem.WRONG_HOST, refusal.problem());
        assertTrue(refusal.getMessage().startsWith("server certificate for another host: expected localhost; came "
                + "CN=example.invalid, names [DNS:example.invalid], issued by CN=wirespeed test CA, valid "),
                refusal.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = Ends.class, names = {"BOTH", "CLIENT"})
    void aClientRefusesAnExpiredCertificateNamingItsDates(Ends ends) throws Exception {
        Pair pair = new Pair(serverSettings(server(ends), "expired"), clientSettings(client(ends)), "localhost");
        PeerCertificateException refusal = refusal(assertThrows(SSLException.class, pair::handshake));
        assertEquals(PeerCertificateException.Problem.EXPIRED, refusal.problem());
        assertTrue(refusal.getMessage().startsWith("server certificate expired: expected valid at "), refusal.getMessage());
        assertTrue(refusal.getMessage().endsWith("; came CN=localhost, names [DNS:localhost, IP:127.0.0.1], issued by "
                + "CN=wirespeed test CA, valid 2020-01-01T00:00:00Z to 2021-01-01T00:00:00Z"), refusal.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = Ends.class, names = {"BOTH", "CLIENT"})
    void aClientRefusesAnUntrustedCertificateNamingTheIssuers(Ends ends) throws Exception {
        Pair pair = new Pair(TlsSettings.builder().identity(TestCertificates.key("untrusted"),
                TestCertificates.certificates("untrusted")).engine(server(ends)).build(), clientSettings(client(ends)),
                "localhost");
        PeerCertificateException refusal = refusal(assertThrows(SSLException.class, pair::handshake));
        assertEquals(PeerCertificateException.Problem.UNTRUSTED, refusal.problem());
        assertTrue(refusal.getMessage().startsWith("server certificate not issued by a trusted certificate: expected an "
                + "issuer among [CN=wirespeed test CA]; came CN=localhost, names [DNS:localhost, IP:127.0.0.1, "
                + "IP:0:0:0:0:0:0:0:1], issued by CN=wirespeed rogue CA, valid "), refusal.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Ends.class)
    void aClientWithoutHostnameVerificationOrWithAServerNameTakesTheOtherHost(Ends ends) throws Exception {
        TlsSettings server = serverSettings(server(ends), "other-host");
        new Pair(server, TestCertificates.trustingTheTestCa().engine(client(ends)).hostnameVerification(false).build(),
                "localhost").handshake();
        Pair named = new Pair(server, TestCertificates.trustingTheTestCa().engine(client(ends))
                .serverName("example.invalid").build(), "127.0.0.1");
        named.handshake();
        assertEquals("TLSv1.3", named.client.getSession().getProtocol());
    }
}
