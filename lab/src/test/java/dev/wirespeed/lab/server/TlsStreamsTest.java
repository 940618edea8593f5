package dev.wirespeed.lab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.lab.NettyTransport;
import dev.wirespeed.lab.client.FrameCheck;
import dev.wirespeed.lab.client.Receiver;
import dev.wirespeed.lab.client.Sources;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The stream servers of {@code server --loop} over TLS, in this JVM: the library's {@link LoopStreams} on
 * a {@link FrameServer} over epoll and io_uring, and Netty's {@link NettyStreams}, each on the JDK's
 * engine and on OpenSSL, streaming a counted sequence of random sizes that the library's client loop
 * ({@link Strategies#LOOP}, the receiver of {@code stream-tls}) reads and verifies frame by frame to its
 * clean end.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsStreamsTest {
    /** Frames per stream: many TLS records, and many times the output limit. */
    private static final long FRAMES = 200_000;
    private static final SizeRange SIZES = new SizeRange(0, 300);
    /** The lab's output limit, small enough to be reached and drained many times. */
    private static final long OUTPUT_LIMIT = 1024 * 1024;

    @ParameterizedTest(name = "{0} loop, {1} engine")
    @CsvSource({"native, jdk", "native, openssl", "uring, jdk", "uring, openssl"})
    void theLibrarysLoopServerStreamsAnUnbrokenSequenceOverTlsToItsEnd(String transport, String engine)
            throws Exception {
        LoopImpl impl = LoopImpl.valueOf(transport.toUpperCase(Locale.ROOT));
        Environment.assume(impl == LoopImpl.URING ? Feature.IO_URING : Feature.EPOLL, impl.unavailable() == null,
                impl::unavailable);
        TlsEngineFactory tls = engine(engine);
        FrameServer.Builder builder = FrameServer.builder(new LoopStreams(SIZES, FRAMES))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).outputLimit(OUTPUT_LIMIT)
                .tls(TestCertificates.identity("server").engine(tls).build());
        try (FrameServer server = impl.apply(builder).start()) {
            assertReadsTheWholeSequence((InetSocketAddress) server.localAddresses().getFirst(), tls);
        }
    }

    @ParameterizedTest(name = "Netty on {0}")
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void nettysStreamServerStreamsAnUnbrokenSequenceOverTlsToItsEnd(SslProvider provider) throws Exception {
        needs(provider);
        SslContext context = SslContextBuilder.forServer(TestCertificates.key("server"),
                TestCertificates.certificates("server").toArray(X509Certificate[]::new))
                .sslProvider(provider).protocols("TLSv1.3", "TLSv1.2").build();
        try (NettyStreams server = nettyStreams(context)) {
            assertReadsTheWholeSequence((InetSocketAddress) server.localAddress(), TlsEngineFactory.jdk());
        }
    }

    @Test
    void nettysStreamServerStreamsAnUnbrokenSequenceInPlaintextToItsEnd() throws Exception {
        try (NettyStreams server = nettyStreams(null)) {
            assertReadsTheWholeSequence((InetSocketAddress) server.localAddress(), null);
        }
    }

    @Test
    void nettysClientReadsTheLoopServersTlsStreamToItsEnd() throws Exception {
        FrameServer.Builder builder = FrameServer.builder(new LoopStreams(SIZES, FRAMES))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).outputLimit(OUTPUT_LIMIT)
                .tls(TestCertificates.identity("server").build());
        try (FrameServer server = builder.start()) {
            Receiver receiver = receiver();
            Strategies.NETTY_NIO.create().read(Sources.tcp((InetSocketAddress) server.localAddresses().getFirst(),
                    clientSettings(TlsEngineFactory.jdk())), receiver, FrameFormat.DEFAULT_MAX_FRAME_LENGTH);
            assertWholeSequence(receiver);
        }
    }

    private static NettyStreams nettyStreams(SslContext context) throws IOException {
        return NettyStreams.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1, SIZES, FRAMES,
                OUTPUT_LIMIT, NettyTransport.epollOrNio(), context);
    }

    /** Reads {@code address}'s stream with the client loop until the server's clean close, checking every frame. */
    private static void assertReadsTheWholeSequence(InetSocketAddress address, TlsEngineFactory engine)
            throws IOException {
        Receiver receiver = receiver();
        Strategies.LOOP.create().read(Sources.tcp(address, engine == null ? null : clientSettings(engine)), receiver,
                FrameFormat.DEFAULT_MAX_FRAME_LENGTH);
        assertWholeSequence(receiver);
    }

    private static Receiver receiver() {
        return new Receiver(FrameCheck.sequence(), 1_000_000, 0, true, new PrintWriter(new StringWriter()));
    }

    private static void assertWholeSequence(Receiver receiver) {
        SizeRange.Sizes sizes = SIZES.sizes();
        long bytes = 0;
        for (long i = 0; i < FRAMES; i++) {
            bytes += FrameFormat.HEADER_LENGTH + sizes.next();
        }
        assertEquals(FRAMES, receiver.frames(), "every frame, once, in order");
        assertEquals(bytes, receiver.bytes());
    }

    private static TlsSettings clientSettings(TlsEngineFactory engine) {
        return TestCertificates.trustingTheTestCa().serverName("localhost").engine(engine).build();
    }

    private static TlsEngineFactory engine(String name) {
        if (name.equals("jdk")) {
            return TlsEngineFactory.jdk();
        }
        Environment.assume(Feature.LIBSSL, OpenSsl.isAvailable(), OpenSsl::unavailableReason);
        return OpenSsl.engine();
    }

    /** Skips where the BoringSSL jar of the tests is not for this machine; fails where it is and will not load. */
    private static void needs(SslProvider provider) {
        if (provider != SslProvider.OPENSSL) {
            return;
        }
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch");
        Environment.assume(Feature.NETTY_BORINGSSL, os.equals("linux") && (arch.equals("amd64") || arch.equals("x86_64")),
                () -> "the tests' netty-tcnative-boringssl-static is for linux-x86_64: os.name=" + os + " os.arch=" + arch);
        assertTrue(io.netty.handler.ssl.OpenSsl.isAvailable(),
                () -> "Netty's OpenSSL did not load: " + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
    }
}
