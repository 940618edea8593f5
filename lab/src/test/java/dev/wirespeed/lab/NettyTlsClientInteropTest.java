package dev.wirespeed.lab;

import static dev.wirespeed.lab.NettyTls.WAIT_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.lab.NettyTls.Engine;
import dev.wirespeed.lab.NettyTls.Frame;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.tls.TlsSettings;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
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
 * The loop's TLS server serving a TLS client nobody here wrote: Netty's {@link SslHandler}, on Netty's JDK
 * engine and on its OpenSSL (BoringSSL), checking our certificate and its host name as a Netty user would,
 * its frames cut by a {@link LengthFieldBasedFrameDecoder}; our server on each of our transports with each
 * of our engines, echoing. {@link NettyTlsInteropTest} has Netty as the server of our client.
 *
 * <p>One Netty event loop serves the class; each test connects a client of its own on it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ParameterizedClass(name = "our {0} loop, {1} engine")
@MethodSource("dev.wirespeed.lab.NettyTls#loopsAndEngines")
class NettyTlsClientInteropTest {
    /** The sizes of the echoed frames. */
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    private static EventLoopGroup netty;

    @Parameter(0)
    LoopImpl loop;
    @Parameter(1)
    Engine engine;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final Recorder recorder = new Recorder();

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

    /** Our server's handler: echoes every frame; records what each handshake agreed, and each close's cause. */
    private static final class Recorder implements ConnectionHandler {
        /** A close's cause, or this for a clean close. */
        static final Throwable CLEAN = new Throwable("clean");
        final BlockingQueue<String> opened = new LinkedBlockingQueue<>();
        final BlockingQueue<Throwable> closed = new LinkedBlockingQueue<>();

        @Override
        public void onOpen(Connection connection) {
            String client;
            try {
                client = connection.tlsSession().getPeerPrincipal().getName();
            } catch (SSLPeerUnverifiedException none) {
                client = "none";
            }
            opened.add(connection.tlsSession().getProtocol() + " client=" + client);
        }

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
            connection.writeFrame(type, body);
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            closed.add(cause == null ? CLEAN : cause);
        }

        String nextOpen() throws InterruptedException {
            String o = opened.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(o, "no connection opened within " + WAIT_SECONDS + " s");
            return o;
        }

        Throwable nextClose() throws InterruptedException {
            Throwable t = closed.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(t, "no connection closed within " + WAIT_SECONDS + " s");
            return t;
        }
    }

    /** {@return our server on loopback, speaking TLS as {@code tls} says, with our engine} */
    private FrameServer server(TlsSettings.Builder tls) throws Exception {
        FrameServer server = NettyTls.on(loop, FrameServer.builder(recorder))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .tls(tls.engine(engine.factory()).build()).start();
        open.add(server);
        return server;
    }

    /** A Netty client: its channel, its SslHandler, and each frame that came. */
    private record NettyClient(SocketChannel channel, SslHandler tls, BlockingQueue<Frame> frames) {
        /** Writes {@code frames} and checks that each comes back, in order, byte for byte. */
        void echoes(List<Frame> sent) throws Exception {
            for (Frame f : sent) {
                channel.write(Unpooled.wrappedBuffer(f.bytes()));
            }
            channel.flush();
            for (int i = 0; i < sent.size(); i++) {
                Frame echoed = frames.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                assertNotNull(echoed, "frame " + i + " of " + sent.size() + " not echoed within " + WAIT_SECONDS + " s");
                assertEquals(sent.get(i), echoed, "frame " + i + ", byte for byte");
            }
        }
    }

    /**
     * Connects Netty's client to {@code server}, trusting the test CA and checking the name localhost (sent
     * as SNI), allowing {@code protocols}, presenting the certificate {@code identity} where not null.
     */
    private NettyClient netty(SslProvider provider, FrameServer server, String identity, String... protocols)
            throws Exception {
        NettyTls.needs(provider);
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(provider).trustManager(TestCertificates.ca())
                .endpointIdentificationAlgorithm("HTTPS")
                .protocols(protocols.length == 0 ? new String[] {"TLSv1.3", "TLSv1.2"} : protocols);
        if (identity != null) {
            b.keyManager(TestCertificates.key(identity),
                    TestCertificates.certificates(identity).toArray(X509Certificate[]::new));
        }
        var context = b.build();
        int port = ((InetSocketAddress) server.localAddresses().getFirst()).getPort();
        BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
        SslHandler[] tls = {null};
        SocketChannel ch = (SocketChannel) new Bootstrap().group(netty).channel(NettyTransport.epollOrNio().socketChannel())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        tls[0] = context.newHandler(ch.alloc(), "localhost", port);
                        ch.pipeline().addLast(tls[0], new LengthFieldBasedFrameDecoder(
                                FrameFormat.DEFAULT_MAX_FRAME_LENGTH + FrameFormat.HEADER_LENGTH, 4, 4, 0, 0),
                                new ChannelInboundHandlerAdapter() {
                                    @Override
                                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                        ByteBuf frame = (ByteBuf) msg;
                                        try {
                                            int type = frame.readInt();
                                            byte[] body = new byte[frame.readInt()];
                                            frame.readBytes(body);
                                            frames.add(new Frame(type, body));
                                        } finally {
                                            frame.release();
                                        }
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        ctx.close(); // a handshake's failure is in the handshake future
                                    }
                                });
                    }
                })
                .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).sync().channel();
        open.add(() -> ch.close().await(WAIT_SECONDS, TimeUnit.SECONDS));
        return new NettyClient(ch, tls[0], frames);
    }

    /** {@return how {@code client}'s handshake ended: the session's protocol, or the failure's message} */
    private static String handshake(NettyClient client) throws InterruptedException {
        var f = client.tls().handshakeFuture();
        assertTrue(f.await(WAIT_SECONDS, TimeUnit.SECONDS), "Netty's handshake not done within " + WAIT_SECONDS + " s");
        return f.isSuccess() ? client.tls().engine().getSession().getProtocol() : "failed: " + f.cause();
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void nettyGetsFramesOfRandomSizesEchoedAndItsCloseNotifyIsACleanClose(SslProvider provider) throws Exception {
        NettyClient client = netty(provider, server(TestCertificates.identity("server")), null);
        assertEquals("TLSv1.3", handshake(client));
        assertEquals("TLSv1.3 client=none", recorder.nextOpen());
        client.echoes(NettyTls.randomFrames(new Random(SEED.value()), 50));
        client.tls().closeOutbound().sync(); // Netty's close_notify
        assertEquals(Recorder.CLEAN, recorder.nextClose(), "a clean close");
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void nettyOverTls12GetsFramesEchoed(SslProvider provider) throws Exception {
        NettyClient client = netty(provider, server(TestCertificates.identity("server")), null, "TLSv1.2");
        assertEquals("TLSv1.2", handshake(client));
        assertEquals("TLSv1.2 client=none", recorder.nextOpen());
        client.echoes(NettyTls.randomFrames(new Random(SEED.value() + 1), 30));
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void ourServerRequiringClientCertificatesServesNettyPresentingOne(SslProvider provider) throws Exception {
        NettyClient client = netty(provider, server(TestCertificates.identity("server")
                .clientAuth(TlsSettings.ClientAuth.REQUIRED)), "client");
        assertEquals("TLSv1.3", handshake(client));
        assertEquals("TLSv1.3 client=CN=wirespeed test client", recorder.nextOpen());
        client.echoes(NettyTls.randomFrames(new Random(SEED.value() + 2), 20));
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void ourServerRequiringClientCertificatesRefusesNettyWithout(SslProvider provider) throws Exception {
        NettyClient client = netty(provider, server(TestCertificates.identity("server")
                .clientAuth(TlsSettings.ClientAuth.REQUIRED)), null);
        assertInstanceOf(SSLException.class, recorder.nextClose(), "our handler hears of it");
        assertTrue(client.channel().closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS),
                "Netty's channel closed by our alert");
        assertTrue(recorder.opened.isEmpty(), "never opened");
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void aFinFromNettyWithoutCloseNotifyIsATruncationNotACleanClose(SslProvider provider) throws Exception {
        NettyClient client = netty(provider, server(TestCertificates.identity("server")), null);
        recorder.nextOpen();
        client.echoes(NettyTls.randomFrames(new Random(SEED.value() + 3), 5));
        // A channel's shutdownOutput goes to its socket, past the pipeline's SslHandler: a FIN, no close_notify.
        client.channel().shutdownOutput().sync();
        Throwable cause = recorder.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close");
        assertEquals("the peer ended the stream without a TLS close_notify: a truncation, not a clean close",
                cause.getMessage());
    }

    /** Netty's JDK engine alone renegotiates: BoringSSL's refuses to begin a renegotiation as a client. */
    @Test
    void nettyRenegotiatingTls12IsRefused() throws Exception {
        NettyClient client = netty(SslProvider.JDK, server(TestCertificates.identity("server")), null, "TLSv1.2");
        assertEquals("TLSv1.2 client=none", recorder.nextOpen());
        client.echoes(NettyTls.randomFrames(new Random(SEED.value() + 4), 5));
        client.channel().eventLoop().execute(() -> client.tls().renegotiate()); // a new ClientHello
        Throwable cause = recorder.nextClose();
        assertInstanceOf(SSLException.class, cause, "not a clean close");
        assertEquals("TLS renegotiation refused: the peer began a new handshake on an established TLSv1.2 connection",
                cause.getMessage());
    }
}
