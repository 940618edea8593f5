package dev.wirespeed.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.FailingEndpoints;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Errors thrown where the loop registers, deregisters and lingers rather than where it serves frames:
 * the poller's register of a new connection (accepted, or connecting), its deregister as a connection
 * closes, and a lingering connection's reads. Each goes to the loop thread's uncaught-exception handler,
 * once; the connection is closed and counted out, a client's connect fails rather than hangs, and the
 * loop serves the others. This is the loop's part, the same on every transport: tested on the JDK's
 * Selector.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoopErrorsTest {
    private static final SocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private final BlockingQueue<Throwable> reported = new LinkedBlockingQueue<>();
    private final BlockingQueue<Connection> opened = new LinkedBlockingQueue<>();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final FailingEndpoints failing = new FailingEndpoints(SelectorTransport.INSTANCE);
    private Thread.UncaughtExceptionHandler before;

    /** Echoes, and closes gracefully after echoing a frame of type 9. */
    private final ConnectionHandler echo = new ConnectionHandler() {
        @Override
        public void onOpen(Connection connection) {
            opened.add(connection);
        }

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
            connection.writeFrame(type, body);
            if (type == 9) {
                connection.close();
            }
        }
    };

    @BeforeEach
    void catchReports() {
        before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> reported.add(e));
    }

    @AfterEach
    void closeAll() throws Exception {
        try {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    private FrameServer server() throws IOException {
        FrameServer server = FrameServer.builder(echo).transport(failing).bind(LOOPBACK).start();
        open.add(server);
        return server;
    }

    private Socket peer(FrameServer server) throws IOException {
        InetSocketAddress address = (InetSocketAddress) server.localAddresses().getFirst();
        Socket s = new Socket(address.getAddress(), address.getPort());
        s.setSoTimeout(20_000);
        open.add(s);
        return s;
    }

    /** {@return a peer the server has echoed a frame to}: its endpoint made before the one a test fails */
    private Socket served(FrameServer server) throws Exception {
        Socket good = peer(server);
        echo(good, 1);
        return good;
    }

    private static void echo(Socket peer, int type) throws IOException {
        peer.getOutputStream().write(ByteBuffer.allocate(9).putInt(type).putInt(1).put((byte) type).array());
        byte[] back = peer.getInputStream().readNBytes(9);
        assertEquals(9, back.length, "the echo of frame type " + type + ", whole");
        assertEquals(type, ByteBuffer.wrap(back).getInt(), "the echo's type");
    }

    /** The server ends {@code peer}'s stream, with a FIN or a reset, within 20 s. */
    private static void assertEnded(Socket peer) throws IOException {
        try {
            assertEquals(-1, peer.getInputStream().read(), "the server's end of the stream");
        } catch (java.net.SocketException reset) {
            // a reset ends it as well
        }
    }

    /** Waits, 20 s at the most, until the loop has closed or reset {@code n} endpoints. */
    private void awaitClosed(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (failing.closed() < n) {
            assertTrue(System.nanoTime() - deadline < 0, failing.closed() + " endpoints closed after 20 s, not " + n);
            Thread.sleep(1);
        }
    }

    @Test
    void anErrorFromRegisteringAnAcceptedConnectionResetsItAndIsReported() throws Exception {
        FrameServer server = server();
        Socket good = served(server);
        OutOfMemoryError thrown = new OutOfMemoryError("thrown by the poller's register, on purpose");
        failing.failNext(FailingEndpoints.Call.REGISTER, thrown);
        Socket bad = peer(server);
        assertEnded(bad);
        assertSame(thrown, reported.poll(20, TimeUnit.SECONDS), "the Error went to the uncaught-exception handler");
        echo(good, 2);
        assertEquals(1, server.connectionCount(), "the connection never registered is counted out");
        assertEquals(1, opened.size(), "its handler never heard of the connection never registered");
        assertNull(server.failure());
        assertTrue(reported.isEmpty(), "reported besides: " + reported);
    }

    @Test
    void anErrorFromRegisteringAConnectingConnectionFailsItsConnect() throws Exception {
        LoopGroup group = LoopGroup.builder().transport(failing).start();
        open.add(group);
        FrameClient client = FrameClient.builder(echo).group(group).build();
        open.add(client);
        ServerSocketChannel listener = ServerSocketChannel.open().bind(LOOPBACK);
        open.add(listener);
        OutOfMemoryError thrown = new OutOfMemoryError("thrown by the poller's register, on purpose");
        failing.failNext(FailingEndpoints.Call.REGISTER, thrown);
        CompletableFuture<Connection> failed = client.connect(listener.getLocalAddress());
        ExecutionException e = assertThrows(ExecutionException.class, () -> failed.get(20, TimeUnit.SECONDS));
        assertInstanceOf(ConnectException.class, e.getCause(), "the connect's failure");
        assertSame(thrown, e.getCause().getCause(), "the Error behind it");
        assertSame(thrown, reported.poll(20, TimeUnit.SECONDS), "the Error went to the uncaught-exception handler");
        CompletableFuture<Connection> next = client.connect(listener.getLocalAddress());
        SocketChannel accepted = listener.accept();
        open.add(accepted);
        assertNotNull(next.get(20, TimeUnit.SECONDS), "the next connect of the group, accepted from "
                + accepted.getRemoteAddress());
        assertNull(group.failure());
        assertTrue(reported.isEmpty(), "reported besides: " + reported);
    }

    @Test
    void anErrorFromDeregisteringIsReportedAndTheConnectionClosedAllTheSame() throws Exception {
        FrameServer server = server();
        Socket good = served(server);
        OutOfMemoryError thrown = new OutOfMemoryError("thrown by the poller's deregister, on purpose");
        failing.failNext(FailingEndpoints.Call.DEREGISTER, thrown);
        Socket bad = peer(server);
        echo(bad, 9); // the handler closes it: its output ends, and it lingers for the peer's end
        assertEnded(bad);
        bad.shutdownOutput(); // the lingering ends: the socket is deregistered and closed
        assertSame(thrown, reported.poll(20, TimeUnit.SECONDS), "the Error went to the uncaught-exception handler");
        assertEquals(1, failing.thrown());
        awaitClosed(1);
        echo(good, 2);
        assertEquals(1, server.connectionCount());
        assertNull(server.failure());
        assertTrue(reported.isEmpty(), "reported besides: " + reported);
    }

    @Test
    void anErrorWhileLingeringEndsTheLingeringAndIsReportedOnce() throws Exception {
        FrameServer server = server();
        Socket good = served(server);
        OutOfMemoryError thrown = new OutOfMemoryError("thrown by a lingering connection's read, on purpose");
        failing.failNext(FailingEndpoints.Call.READ_WHILE_LINGERING, thrown);
        Socket bad = peer(server);
        echo(bad, 9); // the handler closes it: its output ends, and it lingers for the peer's end
        assertEnded(bad);
        bad.getOutputStream().write(new byte[100]); // read while it lingers: the read throws
        assertSame(thrown, reported.poll(20, TimeUnit.SECONDS), "the Error went to the uncaught-exception handler");
        for (int i = 20; i < 30; i++) {
            echo(good, i); // turns of the loop, in which a lingering connection still there would be read again
        }
        assertEquals(1, failing.thrown(), "reads that threw: the lingering ended at the first");
        assertTrue(reported.isEmpty(), "reported besides: " + reported);
        InputStream in = bad.getInputStream();
        assertEquals(-1, in.read(), "nothing more from the server");
        assertEquals(1, server.connectionCount());
        assertNull(server.failure());
    }
}
