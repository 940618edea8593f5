package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.SteadyState;
import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.testing.TlsLoopContract;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The loop's TLS over {@code epoll}, with OpenSSL through FFM as the engine. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "epoll is Linux's")
class EpollOpenSslTlsTest extends TlsLoopContract {
    @BeforeEach
    void needs() {
        NativeFeatures.assumeEpoll();
        NativeFeatures.assumeOpenSsl();
    }

    @Override
    protected LoopTransport transport() {
        return EpollTransport.create();
    }

    @Override
    protected TlsEngineFactory engine() {
        return OpenSsl.engine();
    }

    @Test
    void theLoopAllocatesNothingPerEchoedTlsFrameOnceWarm() throws Exception {
        NativeFeatures.assumeCallsAllocateNothing();
        AtomicReference<Thread> loop = new AtomicReference<>();
        TlsSettings tls = TestCertificates.identity("server").engine(engine()).build();
        try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body))
                .transport(transport()).onLoopStart(i -> loop.set(Thread.currentThread()))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).tls(tls).start()) {
            InetSocketAddress address = (InetSocketAddress) server.localAddresses().getFirst();
            try (SSLSocket peer = (SSLSocket) peerContext(null).getSocketFactory().createSocket(address.getAddress(),
                    address.getPort())) {
                peer.setTcpNoDelay(true);
                peer.startHandshake();
                OutputStream out = peer.getOutputStream();
                InputStream in = peer.getInputStream();
                byte[] frame = new Frames().frame(7, 100, new byte[100]).toByteArray();
                byte[] echo = new byte[frame.length];
                // The loop thread is measured: its reads, the engine's unwrap and wrap, its writes. The peer is
                // the JDK's SSLSocket on this thread, which allocates as it likes.
                SteadyState.assertAllocatesNothingPerOperation("TLS echoes by the loop thread, OpenSSL engine",
                        List.of(loop.get()), 40_000, i -> {
                            out.write(frame);
                            out.flush();
                            for (int at = 0; at < echo.length; ) {
                                int n = in.read(echo, at, echo.length - at);
                                if (n < 0) {
                                    throw new IOException("end of stream at round trip " + i);
                                }
                                at += n;
                            }
                        });
            }
        }
    }
}
