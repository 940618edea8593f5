package dev.wirespeed.linux.internal.ssl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.CHeap;
import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.tls.TlsContext;
import dev.wirespeed.tls.TlsSettings;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the engines hold of the C heap, read from glibc's {@code mallinfo2} (the bytes in use in every
 * arena, and in mapped chunks): engines closed both ways, or dropped and collected, give it back. The
 * links use heap buffers, so that the JDK's direct buffers (from the same C heap) do not count. The
 * figures printed are the engines' footprint on this machine's OpenSSL, give or take the JVM's own
 * movements of the C heap.
 */
class OpenSslMemoryTest {
    private static final int PAIRS = 1_000;
    /** Pairs made and closed before measuring, so that the JIT's own use of the C heap has mostly settled. */
    private static final int WARM_PAIRS = 300;

    @BeforeEach
    void needsOpenSslAndGlibc() {
        NativeFeatures.assumeOpenSsl();
        CHeap.assumeMeasurable();
    }

    /** {@return the C heap's bytes in use} */
    private static long inUse() {
        return CHeap.inUse();
    }

    private static final TlsContext SERVER;
    private static final TlsContext CLIENT;

    static {
        TlsContext server = null;
        TlsContext client = null;
        if (LibSsl.UNUSABLE == null) {
            try {
                server = OpenSslTls.INSTANCE.context(TestCertificates.identity("server").engine(OpenSslTls.INSTANCE)
                        .build(), false);
                client = OpenSslTls.INSTANCE.context(TestCertificates.trustingTheTestCa().engine(OpenSslTls.INSTANCE)
                        .build(), true);
            } catch (java.security.GeneralSecurityException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        SERVER = server;
        CLIENT = client;
    }

    /** {@return two engines after a handshake and {@code bytes} each way} */
    private static Link pair(int bytes) throws Exception {
        Link link = new Link(SERVER, CLIENT);
        link.handshake();
        link.send(link.client, new byte[bytes], bytes);
        link.send(link.server, new byte[bytes], bytes);
        return link;
    }

    @ParameterizedTest(name = "after {0} bytes each way")
    @ValueSource(ints = {100, 20_000})
    void enginesClosedBothWaysGiveTheirMemoryBack(int bytes) throws Throwable {
        for (int i = 0; i < WARM_PAIRS; i++) {
            close(pair(bytes));
        }
        long before = inUse();
        List<Link> open = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++) {
            open.add(pair(bytes));
        }
        long held = inUse() - before;
        for (Link link : open) {
            close(link);
        }
        long after = inUse() - before;
        System.out.println("OpenSslMemoryTest: " + PAIRS + " pairs of engines after a handshake and " + bytes
                + " bytes each way (in one wrap) hold "
                + held + " bytes of the C heap (" + held / (2 * PAIRS) + " per engine); closed both ways, " + after);
        assertTrue(held > 2L * PAIRS * 1_000, "the engines hold at least 1 KB each: held=" + held);
        // The JVM's own use of the C heap (the JIT's arenas) moves by megabytes meanwhile: half is the bound a
        // leak of the SSL or of its buffers (two thirds of an engine after 20 KB) would cross.
        assertTrue(after < held / 2, "closed engines gave back all but " + after + " of " + held + " bytes");
    }

    @Test
    void enginesDroppedOpenAreFreedOnceCollected() throws Throwable {
        for (int i = 0; i < WARM_PAIRS; i++) {
            close(pair(20_000));
        }
        long before = inUse();
        List<Link> open = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++) {
            open.add(pair(20_000));
        }
        long held = inUse() - before;
        open.clear();
        long left = held;
        for (int i = 0; i < 100 && left >= held / 2; i++) {
            System.gc();
            Thread.sleep(50);
            left = inUse() - before;
        }
        assertTrue(left < held / 2, "the cleaner freed all but " + left + " of " + held + " bytes within 5 s of GCs");
    }

    /**
     * The most of the C heap a server engine waiting for the client's second flight may hold. OpenSSL 3
     * keeps, while a handshake waits: the {@code SSL}, its handshake message buffer (16 KiB, grown by a
     * third), the buffering BIO it puts before the write BIO for the handshake (two 4 KiB buffers), the
     * handshake's keys, some 45 KB in all; and, unless {@code SSL_MODE_RELEASE_BUFFERS} frees them as the
     * read finds no bytes, its two record buffers too, some 33 KB more. The bound lies between, leaving a
     * fifth for the JVM's own use of the C heap meanwhile (the JIT's arenas).
     */
    static final long WAITING_ENGINE_MOST = 56_000;

    /**
     * A server whose client sent its ClientHello and fell silent: its engine has answered and waits for
     * the client's second flight, until the loop's handshake timeout closes it. What it holds of the C
     * heap meanwhile is its handshake state, printed here, without OpenSSL's record buffers; closed, it
     * gives it back.
     */
    @Test
    void aServerEngineWaitingForTheClientsSecondFlightGivesItsMemoryBackWhenClosed() throws Throwable {
        SSLEngine client = CLIENT.newEngine("localhost", 443);
        ByteBuffer hello = ByteBuffer.allocate(1 << 16);
        client.wrap(ByteBuffer.allocate(0), hello);
        hello.flip();
        ByteBuffer plain = ByteBuffer.allocate(1 << 16);
        ByteBuffer flight = ByteBuffer.allocate(1 << 16);
        for (int i = 0; i < WARM_PAIRS; i++) {
            ((OpenSslEngine) waiting(hello, plain, flight)).close();
        }
        long before = inUse();
        List<SSLEngine> open = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++) {
            open.add(waiting(hello, plain, flight));
        }
        long held = inUse() - before;
        for (SSLEngine e : open) {
            ((OpenSslEngine) e).close();
        }
        long after = inUse() - before;
        System.out.println("OpenSslMemoryTest: " + PAIRS + " server engines waiting for the client's second flight "
                + "hold " + held + " bytes of the C heap (" + held / PAIRS + " per engine); closed, " + after);
        assertTrue(held > PAIRS * 1_000L, "the engines hold at least 1 KB each: held=" + held);
        assertTrue(held < PAIRS * WAITING_ENGINE_MOST, "the engines hold " + held / PAIRS + " bytes each, at most "
                + WAITING_ENGINE_MOST + " without OpenSSL's record buffers: held=" + held + " engines=" + PAIRS);
        assertTrue(after < held / 2, "closed engines gave back all but " + after + " of " + held + " bytes");
        ((OpenSslEngine) client).close();
    }

    /**
     * A memory BIO keeps the most it ever held: the engines replace both of theirs once the handshake is
     * done and each is empty, so that an idle connection keeps none of the handshake's flights (a server's
     * certificates, a kilobyte or several). A handshake in progress has them.
     */
    @Test
    void afterTheHandshakeNeitherEngineKeepsABufferInItsMemoryBios() throws Throwable {
        SSLEngine client = CLIENT.newEngine("localhost", 443);
        ByteBuffer hello = ByteBuffer.allocate(1 << 16);
        client.wrap(ByteBuffer.allocate(0), hello);
        OpenSslEngine waiting = (OpenSslEngine) waiting(hello.flip(), ByteBuffer.allocate(1 << 16),
                ByteBuffer.allocate(1 << 16));
        assertTrue(waiting.bioCapacity() >= hello.limit(), "a handshake in progress holds the ClientHello's "
                + hello.limit() + " bytes, at least: " + waiting.bioCapacity());
        waiting.close();
        ((OpenSslEngine) client).close();
        Link link = new Link(SERVER, CLIENT);
        link.handshake();
        for (SSLEngine e : List.of(link.client.engine, link.server.engine)) {
            assertEquals(0, ((OpenSslEngine) e).bioCapacity(), e.toString());
        }
        link.send(link.client, new byte[100], 100);
        link.send(link.server, new byte[100], 100);
        for (SSLEngine e : List.of(link.client.engine, link.server.engine)) {
            long capacity = ((OpenSslEngine) e).bioCapacity();
            assertTrue(capacity > 0 && capacity < 1_000, e + ": buffers for a record of 100 bytes, " + capacity);
        }
        close(link);
    }

    /** {@return a server engine that took {@code hello} and sent its first flight} */
    private static SSLEngine waiting(ByteBuffer hello, ByteBuffer plain, ByteBuffer flight) throws Exception {
        SSLEngine server = SERVER.newEngine(null, -1);
        server.beginHandshake();
        server.unwrap(hello.duplicate(), plain.clear());
        while (server.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            server.wrap(ByteBuffer.allocate(0), flight.clear());
        }
        assertEquals(SSLEngineResult.HandshakeStatus.NEED_UNWRAP, server.getHandshakeStatus());
        return server;
    }

    private static void close(Link link) throws Exception {
        link.client.engine.closeOutbound();
        link.server.engine.closeOutbound();
        for (int i = 0; i < 4; i++) {
            link.step(link.client);
            link.step(link.server);
        }
        for (SSLEngine e : List.of(link.client.engine, link.server.engine)) {
            assertTrue(((OpenSslEngine) e).isReleased(), e.toString());
        }
    }
}
