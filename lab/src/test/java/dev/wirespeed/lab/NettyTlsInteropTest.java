package dev.wirespeed.lab;

import static dev.wirespeed.lab.NettyTls.WAIT_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.lab.NettyTls.Engine;
import dev.wirespeed.lab.NettyTls.Frame;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameClient;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.tls.PeerCertificateException;
import dev.wirespeed.tls.TlsSettings;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop's TLS client against a TLS server nobody here wrote: Netty's {@link SslHandler} in front of a
 * {@link LengthFieldBasedFrameDecoder} echo of our frames, on Netty's JDK engine and on its OpenSSL
 * (BoringSSL, from {@code netty-tcnative-boringssl-static}); our client on each of our transports with
 * each of our engines. {@link NettyTlsClientInteropTest} has Netty as the client of our server.
 *
 * <p>One Netty event loop serves the class; each test binds a server of its own on it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ParameterizedClass(name = "our {0} loop, {1} engine")
@MethodSource("dev.wirespeed.lab.NettyTls#loopsAndEngines")
class NettyTlsInteropTest {
    /** The sizes of the echoed frames. */
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    private static EventLoopGroup netty;

    @Parameter(0)
    LoopImpl loop;
    @Parameter(1)
    Engine engine;

    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void startNetty() {
        netty = NettyTls.nettyLoop();
    }

    @AfterAll
    static void stopNetty() throws InterruptedException {
        NettyTls.shutDown(netty);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /**
     * A Netty server on loopback: its port, how each of its handshakes ended (the session's protocol and
     * client, or the failure), and each channel it accepted.
     */
    private record NettyServer(int port, BlockingQueue<Object> handshakes, BlockingQueue<SocketChannel> accepted) {
        /** {@return the next channel it accepted} */
        SocketChannel nextAccepted() throws InterruptedException {
            SocketChannel ch = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(ch, "Netty accepted no connection within " + WAIT_SECONDS + " s");
            return ch;
        }
    }

    /**
     * Starts Netty's echo of our frames behind its {@link SslHandler}, as a Netty user would write it, with
     * the certificate and key {@code identity}, allowing {@code protocols}, and, where {@code
     * requireClientCertificates}, trusting the test CA for client certificates and requiring one.
     */
    private NettyServer netty(SslProvider provider, String identity, boolean requireClientCertificates,
            String... protocols) throws Exception {
        NettyTls.needs(provider);
        SslContextBuilder b = SslContextBuilder.forServer(TestCertificates.key(identity),
                        TestCertificates.certificates(identity).toArray(X509Certificate[]::new))
                .sslProvider(provider).protocols(protocols.length == 0 ? new String[] {"TLSv1.3", "TLSv1.2"} : protocols);
        if (requireClientCertificates) {
            b.trustManager(TestCertificates.ca()).clientAuth(ClientAuth.REQUIRE);
        }
        SslContext context = b.build();
        BlockingQueue<Object> handshakes = new LinkedBlockingQueue<>();
        BlockingQueue<SocketChannel> accepted = new LinkedBlockingQueue<>();
        Echo echo = new Echo();
        Channel server = new ServerBootstrap().group(netty).channel(NettyTransport.epollOrNio().serverChannel())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler tls = context.newHandler(ch.alloc());
                        tls.handshakeFuture().addListener(f -> {
                            if (f.isSuccess()) {
                                var session = tls.engine().getSession();
                                handshakes.add(session.getProtocol() + " client="
                                        + (requireClientCertificates ? session.getPeerPrincipal().getName() : "none"));
                            } else {
                                handshakes.add(f.cause());
                            }
                        });
                        ch.pipeline().addLast(tls, new LengthFieldBasedFrameDecoder(
                                FrameFormat.DEFAULT_MAX_FRAME_LENGTH + FrameFormat.HEADER_LENGTH, 4, 4, 0, 0), echo);
                        accepted.add(ch);
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        open.add(() -> server.close().await(WAIT_SECONDS, TimeUnit.SECONDS));
        return new NettyServer(((InetSocketAddress) server.localAddress()).getPort(), handshakes, accepted);
    }

    /** Writes every frame back, header and all; flushes when the read that brought it is done. */
    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a handshake's failure is in the handshake future
        }
    }

    /** Our client's handler: each echoed frame, and each close's cause. */
    private static final class Received implements ConnectionHandler {
        /** A close's cause, or this for a clean close. */
        static final Throwable CLEAN = new Throwable("clean");
        final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
        final BlockingQueue<Throwable> closed = new LinkedBlockingQueue<>();

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) {
            byte[] copy = new byte[body.remaining()];
            body.get(copy);
            frames.add(new Frame(type, copy));
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            closed.add(cause == null ? CLEAN : cause);
        }

        Throwable nextClose() throws InterruptedException {
            Throwable t = closed.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(t, "no connection closed within " + WAIT_SECONDS + " s");
            return t;
        }
    }

    /** {@return our client on a loop of its own, speaking TLS as {@code tls} says, with our engine} */
    private FrameClient client(ConnectionHandler handler, TlsSettings.Builder tls) throws Exception {
        LoopGroup group = NettyTls.on(loop, LoopGroup.builder().threadName("netty-interop-client")).start();
        open.add(group);
        FrameClient client = FrameClient.builder(handler).group(group)
                .tls(tls.engine(engine.factory()).serverName("localhost").build()).build();
        open.add(client);
        return client;
    }

    private static CompletableFuture<Connection> connect(FrameClient client, NettyServer server) {
        return client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
    }

    /** {@return what {@code c}'s handshake agreed, read on its loop} */
    private static String protocol(Connection c) throws Exception {
        CompletableFuture<String> protocol = new CompletableFuture<>();
        c.execute(() -> protocol.complete(c.tlsSession().getProtocol()));
        return protocol.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** Writes {@code count} random frames and checks each echo, in order, byte for byte. */
    private static void echoes(Connection c, Received received, Random random, int count) throws Exception {
        List<Frame> sent = NettyTls.randomFrames(random, count);
        c.execute(() -> {
            for (Frame f : sent) {
                c.writeFrame(f.type(), ByteBuffer.wrap(f.body()));
            }
        });
        for (int i = 0; i < count; i++) {
            Frame echoed = received.frames.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(echoed, "frame " + i + " of " + count + " not echoed within " + WAIT_SECONDS + " s");
            assertEquals(sent.get(i), echoed, "frame " + i + ", byte for byte");
        }
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void ourClientGetsFramesOfRandomSizesEchoedByNettysSslHandler(SslProvider provider) throws Exception {
        NettyServer server = netty(provider, "server", false);
        Received received = new Received();
        Connection c = connect(client(received, TestCertificates.trustingTheTestCa()), server)
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals("TLSv1.3 client=none", server.handshakes().poll(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("TLSv1.3", protocol(c));
        echoes(c, received, new Random(SEED.value()), 50);
        c.execute(c::close); // our close_notify; Netty's SslHandler answers with its own
        assertEquals(Received.CLEAN, received.nextClose());
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void ourClientOverTls12GetsFramesEchoedByNettysSslHandler(SslProvider provider) throws Exception {
        NettyServer server = netty(provider, "server", false);
        Received received = new Received();
        Connection c = connect(client(received, TestCertificates.trustingTheTestCa()
                .protocols(TlsSettings.Protocol.TLS_1_2)), server).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals("TLSv1.2 client=none", server.handshakes().poll(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("TLSv1.2", protocol(c));
        echoes(c, received, new Random(SEED.value() + 1), 30);
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void ourClientRefusesNettysCertificateForAnotherHostNamingBoth(SslProvider provider) throws Exception {
        NettyServer server = netty(provider, "other-host", false);
        Received received = new Received();
        CompletableFuture<Connection> opening = connect(client(received, TestCertificates.trustingTheTestCa()), server);
        ExecutionException e = assertThrows(ExecutionException.class, () -> opening.get(WAIT_SECONDS, TimeUnit.SECONDS));
        PeerCertificateException refusal = assertInstanceOf(PeerCertificateException.class, e.getCause());
        assertEquals(PeerCertificateException.Problem.WRONG_HOST, refusal.problem());
        assertTrue(refusal.getMessage().startsWith("server certificate for another host: expected localhost; came "
                + "CN=example.invalid, names [DNS:example.invalid]"), refusal.getMessage());
        assertEquals(refusal, received.nextClose(), "our handler hears the same");
        // Netty's JDK engine hears our OpenSSL engine's bad_certificate as a protocol error: libssl sends a
        // TLS 1.3 client's alerts before its Finished in plaintext (openssl/openssl#27809, "not a bug"),
        // which the JDK refuses to read; the handshake fails either way.
        Object netty = server.handshakes().poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertInstanceOf(SSLException.class, netty, () -> "Netty's handshake fails too: " + netty);
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void nettyRequiringClientCertificatesServesOurClientPresentingOne(SslProvider provider) throws Exception {
        NettyServer server = netty(provider, "server", true);
        Received received = new Received();
        Connection c = connect(client(received, TestCertificates.identity("client")), server)
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals("TLSv1.3 client=CN=wirespeed test client", server.handshakes().poll(WAIT_SECONDS, TimeUnit.SECONDS));
        echoes(c, received, new Random(SEED.value() + 2), 20);
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void nettyRequiringClientCertificatesRefusesOurClientWithout(SslProvider provider) throws Exception {
        NettyServer server = netty(provider, "server", true);
        Received received = new Received();
        connect(client(received, TestCertificates.trustingTheTestCa()), server);
        // Over TLS 1.3 our handshake is done before Netty reads our (empty) certificate: its alert then
        // closes a connection that opened, with the refusal as its cause.
        assertInstanceOf(SSLException.class, received.nextClose(), "our handler hears the refusal");
        assertInstanceOf(SSLHandshakeException.class, server.handshakes().poll(WAIT_SECONDS, TimeUnit.SECONDS),
                "Netty's handshake failed");
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void aFinFromNettyWithoutCloseNotifyIsATruncationNotACleanClose(SslProvider provider) throws Exception {
        NettyServer server = netty(provider, "server", false);
        Received received = new Received();
        Connection c = connect(client(received, TestCertificates.trustingTheTestCa()), server)
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        echoes(c, received, new Random(SEED.value() + 3), 5);
        // A channel's shutdownOutput goes to its socket, past the pipeline's SslHandler: a FIN, no close_notify.
        server.nextAccepted().shutdownOutput().sync();
        Throwable cause = received.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close");
        assertEquals("the peer ended the stream without a TLS close_notify: a truncation, not a clean close",
                cause.getMessage());
    }

    /** Netty's JDK engine alone renegotiates: BoringSSL's refuses to begin a renegotiation as a server. */
    @Test
    void nettyRenegotiatingTls12IsRefused() throws Exception {
        NettyServer server = netty(SslProvider.JDK, "server", false, "TLSv1.2");
        Received received = new Received();
        Connection c = connect(client(received, TestCertificates.trustingTheTestCa()), server)
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        echoes(c, received, new Random(SEED.value() + 4), 5);
        SocketChannel ch = server.nextAccepted();
        ch.eventLoop().execute(() -> ch.pipeline().get(SslHandler.class).renegotiate()); // a HelloRequest
        Throwable cause = received.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close");
        assertEquals("TLS renegotiation refused: the peer began a new handshake on an established TLSv1.2 connection",
                cause.getMessage());
    }
}
