package dev.wirespeed.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.JvmAgents;
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
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/** The loop's TLS on the JDK's {@code Selector} with the JDK's engine. */
class SelectorTlsTest extends TlsLoopContract {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARM = 40_000;
    private static final int MEASURED = 20_000;

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
     * add to it. The engine's own bytes per echo (one unwrap of a record and one wrap of the reply, on
     * engines in memory) are measured beside the loop thread's bytes per echo, both after a warm-up.
     */
    @Test
    void theLoopAllocatesPerEchoedTlsFrameNoMoreThanTheJdkEngineItself() throws Exception {
        JvmAgents.instrumenting().ifPresent(agents -> fail("allocation is not measured under " + agents));
        byte[] frame = new Frames().frame(7, 100, new byte[100]).toByteArray();
        double engineBytes = engineBytesPerEcho(frame);

        AtomicReference<Thread> loop = new AtomicReference<>();
        TlsSettings tls = TestCertificates.identity("server").engine(engine()).build();
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
            for (int i = 0; i < WARM; i++) {
                roundTrip(out, in, frame, echo, i);
            }
            long id = loop.get().threadId();
            long before = THREADS.getThreadAllocatedBytes(id);
            for (int i = 0; i < MEASURED; i++) {
                roundTrip(out, in, frame, echo, i);
            }
            double loopBytes = (double) (THREADS.getThreadAllocatedBytes(id) - before) / MEASURED;
            System.out.printf("JDK engine, TLS 1.3, 100-byte frames: the loop thread allocates %.0f bytes per "
                    + "echo; the engine alone %.0f bytes per unwrap and wrap%n", loopBytes, engineBytes);
            // A slack of 5% and 64 bytes: what the engine allocates varies a little with what the JIT made of it.
            assertTrue(loopBytes <= engineBytes * 1.05 + 64, "the loop thread allocated " + loopBytes
                    + " bytes per echo; the JDK engine alone " + engineBytes + " per unwrap and wrap");
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

    /** {@return the bytes a server-side JDK engine allocates for one unwrap of {@code frame}'s record and one wrap of it back} */
    private static double engineBytesPerEcho(byte[] frame) throws Exception {
        SSLEngine client = peerContext(null).createSSLEngine("localhost", 443);
        client.setUseClientMode(true);
        SSLEngine server = TlsEngineFactory.jdk().context(TestCertificates.identity("server").build(), false)
                .newEngine(null, 0);
        int packet = client.getSession().getPacketBufferSize();
        int app = client.getSession().getApplicationBufferSize();
        ByteBuffer toServer = ByteBuffer.allocate(packet); // ciphertext, each way, and plaintext for each side
        ByteBuffer toClient = ByteBuffer.allocate(packet);
        ByteBuffer serverApp = ByteBuffer.allocate(app);
        ByteBuffer clientApp = ByteBuffer.allocate(app);
        handshake(client, server, toServer, toClient, serverApp, clientApp);
        ByteBuffer request = ByteBuffer.wrap(frame);
        long serverBytes = 0;
        long id = Thread.currentThread().threadId();
        for (int i = 0; i < WARM + MEASURED; i++) {
            request.clear();
            toServer.clear();
            client.wrap(request, toServer);
            toServer.flip();
            serverApp.clear();
            toClient.clear();
            long before = THREADS.getThreadAllocatedBytes(id);
            server.unwrap(toServer, serverApp);
            serverApp.flip();
            server.wrap(serverApp, toClient);
            long after = THREADS.getThreadAllocatedBytes(id);
            if (i >= WARM) {
                serverBytes += after - before;
            }
            toClient.flip();
            clientApp.clear();
            client.unwrap(toClient, clientApp);
            assertEquals(frame.length, clientApp.position(), "echo " + i);
        }
        return (double) serverBytes / MEASURED;
    }

    /** Drives two engines' handshake in memory, until each has read all the other wrote. */
    private static void handshake(SSLEngine client, SSLEngine server, ByteBuffer toServer, ByteBuffer toClient,
            ByteBuffer serverApp, ByteBuffer clientApp) throws Exception {
        ByteBuffer empty = ByteBuffer.allocate(0);
        client.beginHandshake();
        server.beginHandshake();
        for (int steps = 0; steps < 1_000; steps++) {
            boolean clientDone = client.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING;
            boolean serverDone = server.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING;
            if (clientDone && serverDone && toServer.position() == 0 && toClient.position() == 0 && steps > 0) {
                return; // and what followed the handshake (the server's session ticket) read by the client
            }
            step(client, empty, toServer, toClient, clientApp);
            step(server, empty, toClient, toServer, serverApp);
        }
        throw new AssertionError("the in-memory handshake did not end: client " + client.getHandshakeStatus()
                + ", server " + server.getHandshakeStatus());
    }

    /** One step of {@code engine}'s side: its delegated tasks, a wrap into {@code out}, an unwrap of {@code in}. */
    private static void step(SSLEngine engine, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer app)
            throws Exception {
        for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
            task.run();
        }
        engine.wrap(empty, out);
        in.flip();
        app.clear();
        engine.unwrap(in, app);
        in.compact();
        for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
            task.run();
        }
    }
}
