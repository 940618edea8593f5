package dev.wirespeed.loop;


import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.EngineAllocations;
import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.SteadyState;
import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.testing.TlsLoopContract;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/** The loop's TLS on the JDK's {@code Selector} with the JDK's engine. */
class SelectorTlsTest extends TlsLoopContract {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARM = 40_000;

    @Override
    protected LoopTransport transport() {
        return SelectorTransport.INSTANCE;
    }

    @Override
    protected TlsEngineFactory engine() {
        return TlsEngineFactory.jdk();
    }

    /**
     * The JDK's {@code SSLEngine} allocates in every {@code wrap} and {@code unwrap} (its results, and
     * objects of its record layer), so a loop on it cannot echo for nothing; what the loop must not do is
     * add to it. The loop's engines are counted ({@link EngineAllocations}): each call into them adds the
     * bytes the loop thread allocated inside it, so the loop thread's bytes less that count are exactly
     * what the loop allocated outside its engine's calls, and that must be 0 in every judged window.
     */
    @Test
    void theLoopAllocatesNothingOfItsOwnPerEchoedTlsFrameBesideTheJdkEngine() throws Exception {
        byte[] frame = new Frames().frame(7, 100, new byte[100]).toByteArray();
        EngineAllocations engines = EngineAllocations.counting(engine());
        AtomicReference<Thread> loop = new AtomicReference<>();
        TlsSettings tls = TestCertificates.identity("server").engine(engines.factory()).build();
        try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body))
                .transport(transport()).onLoopStart(i -> loop.set(Thread.currentThread()))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).tls(tls).start();
                SSLSocket peer = (SSLSocket) peerContext(null).getSocketFactory().createSocket(
                        InetAddress.getLoopbackAddress(),
                        ((InetSocketAddress) server.localAddresses().getFirst()).getPort())) {
            peer.setTcpNoDelay(true);
            peer.startHandshake();
            OutputStream out = peer.getOutputStream();
            InputStream in = peer.getInputStream();
            byte[] echo = new byte[frame.length];
            roundTrip(out, in, frame, echo, -1); // the loop thread is known once it has served
            long id = loop.get().threadId();
            SteadyState.Meter own = new SteadyState.Meter(loop.get().getName() + " less its engine's calls",
                    () -> THREADS.getThreadAllocatedBytes(id) - engines.bytes());
            long[] engineAtStart = {0};
            long[] echoes = {0};
            SteadyState.assertMetersStillPerOperation("TLS echoes by the loop thread, JDK engine, the engine's calls "
                    + "apart", List.of(own), WARM, i -> {
                        if (echoes[0]++ == 0) {
                            engineAtStart[0] = engines.bytes();
                        }
                        roundTrip(out, in, frame, echo, i);
                    });
            long engineBytes = engines.bytes() - engineAtStart[0];
            System.out.printf("JDK engine, TLS 1.3, 100-byte frames: the engine's calls on the loop thread allocated "
                    + "%d bytes in %d echoes, %d per echo%n", engineBytes, echoes[0], engineBytes / echoes[0]);
        }
    }

    private static void roundTrip(OutputStream out, InputStream in, byte[] frame, byte[] echo, int i)
            throws IOException {
        out.write(frame);
        out.flush();
        for (int at = 0; at < echo.length; ) {
            int n = in.read(echo, at, echo.length - at);
            if (n < 0) {
                throw new IOException("end of stream at round trip " + i);
            }
            at += n;
        }
    }
}
