package dev.wirespeed.lab;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.tls.TlsEngineFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.SslProvider;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * What the tests of our loops against Netty's {@code SslHandler} share: our side's transports and engines,
 * each checked on the machine, Netty's event loop, and the random frames they exchange.
 */
final class NettyTls {
    /** How long any one wait (a handshake, a frame, a close) may take. */
    static final long WAIT_SECONDS = 20;

    private NettyTls() {
    }

    /** Our side's TLS engine. */
    enum Engine {
        /** The JDK's {@code SSLEngine}. */
        JDK,
        /** OpenSSL 3 through FFM, the native module's. */
        OPENSSL;

        /** {@return the engine's factory}: skips where OpenSSL's libraries are missing, saying why */
        TlsEngineFactory factory() {
            if (this == JDK) {
                return TlsEngineFactory.jdk();
            }
            Environment.assume(Feature.LIBSSL, OpenSsl.isAvailable(), OpenSsl::unavailableReason);
            return OpenSsl.engine();
        }
    }

    /** {@return every transport of ours with every engine of ours}: the parameters of a class */
    static Stream<Arguments> loopsAndEngines() {
        return Arrays.stream(LoopImpl.values()).flatMap(loop -> Arrays.stream(Engine.values())
                .map(engine -> Arguments.of(loop, engine)));
    }

    /** {@return {@code builder} on {@code loop}}: skips where this machine lacks it, saying why */
    static LoopGroup.Builder on(LoopImpl loop, LoopGroup.Builder builder) {
        needs(loop);
        return loop.apply(builder);
    }

    /** {@return {@code builder} on {@code loop}}: skips where this machine lacks it, saying why */
    static FrameServer.Builder on(LoopImpl loop, FrameServer.Builder builder) {
        needs(loop);
        return loop.apply(builder);
    }

    private static void needs(LoopImpl loop) {
        if (loop != LoopImpl.JDK) {
            String why = loop.unavailable();
            Environment.assume(loop == LoopImpl.URING ? Feature.IO_URING : Feature.EPOLL, why == null, () -> why);
        }
    }

    /** Skips where the BoringSSL jar of the tests is not for this machine; fails where it is and will not load. */
    static void needs(SslProvider provider) {
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

    /** {@return Netty's event loop of one thread, on its transport that a Linux user would pick} */
    static EventLoopGroup nettyLoop() {
        return new MultiThreadIoEventLoopGroup(1, NettyTransport.epollOrNio().handlers());
    }

    /** Shuts {@code group} down, waiting for it. */
    static void shutDown(EventLoopGroup group) throws InterruptedException {
        group.shutdownGracefully(0, WAIT_SECONDS, TimeUnit.SECONDS).await(WAIT_SECONDS + 5, TimeUnit.SECONDS);
    }

    /** A frame: its type and body. */
    record Frame(int type, byte[] body) {
        /** {@return the frame as it goes on the wire, header and body} */
        byte[] bytes() {
            return ByteBuffer.allocate(8 + body.length).putInt(type).putInt(body.length).put(body).array();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Frame f && f.type == type && Arrays.equals(f.body, body);
        }

        @Override
        public int hashCode() {
            return 31 * type + Arrays.hashCode(body);
        }

        @Override
        public String toString() {
            return "Frame[type=" + type + " length=" + body.length + "]";
        }
    }

    /** {@return {@code count} frames of random types and sizes, from empty to several TLS records} */
    static List<Frame> randomFrames(Random random, int count) {
        List<Frame> frames = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int length = switch (random.nextInt(3)) {
                case 0 -> random.nextInt(16);
                case 1 -> random.nextInt(2_000);
                default -> random.nextInt(40_000);
            };
            byte[] body = new byte[length];
            random.nextBytes(body);
            frames.add(new Frame(random.nextInt(), body));
        }
        return frames;
    }
}
