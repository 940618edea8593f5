package dev.wirespeed.loop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Frames;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A group's life shared by its servers and clients, and the checks of the client's and group's builders. */
@Timeout(60)
class LoopGroupTest {
    private static final SocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Records each close's cause, or "clean". */
    private static class Closes implements ConnectionHandler {
        final BlockingQueue<String> closes = new LinkedBlockingQueue<>();

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) {
            connection.writeFrame(type, body);
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            closes.add(connection + ": " + (cause == null ? "clean" : cause.getMessage()));
        }
    }

    @Test
    void closingTheGroupClosesItsServersAndClientsAndTheirConnections() throws Exception {
        Closes handler = new Closes();
        LoopGroup group = LoopGroup.builder().loops(2).start();
        FrameServer server = FrameServer.builder(handler).group(group).bind(ANY_PORT).start();
        FrameClient client = FrameClient.builder(handler).group(group).build();
        Connection outbound = client.connect(server.localAddresses().get(0)).get(20, TimeUnit.SECONDS);
        SocketAddress serverAddress = server.localAddresses().get(0);
        group.close();
        assertEquals(0, server.connectionCount());
        assertEquals(0, client.connectionCount());
        assertEquals(2, handler.closes.size(), "the client's connection and the one the server accepted: " + handler.closes);
        assertTrue(handler.closes.contains(outbound + ": clean"), handler.closes.toString());
        assertThrows(java.io.IOException.class, () -> SocketChannel.open(serverAddress));
        assertEquals("the client is closed: address=" + serverAddress,
                assertThrows(IllegalStateException.class, () -> client.connect(serverAddress)).getMessage());
        assertEquals("the loop group is closed", assertThrows(IllegalStateException.class,
                () -> FrameServer.builder(handler).group(group).bind(ANY_PORT).start()).getMessage());
    }

    @Test
    void aBlockRelayedToAConnectionWithASmallerLimitIsCheckedAgainstIt() throws Exception {
        // A server's connection relays to a client's on the same loop, whose limit is the smaller.
        LoopGroup group = LoopGroup.builder().loops(1).start();
        try (group; ServerSocketChannel upstream = ServerSocketChannel.open().bind(ANY_PORT)) {
            FrameClient onward = FrameClient.builder((BlockHandler) (connection, frames) -> { }).group(group)
                    .maxFrameLength(100).build();
            CompletableFuture<Connection> connecting = onward.connect(upstream.getLocalAddress());
            try (SocketChannel upstreamPeer = upstream.accept()) {
                Connection up = connecting.get(20, TimeUnit.SECONDS);
                BlockingQueue<String> outcomes = new LinkedBlockingQueue<>();
                FrameServer server = FrameServer.builder((BlockHandler) (down, frames) -> {
                    try {
                        outcomes.add("relayed " + down.relayBlock(up));
                    } catch (IllegalArgumentException e) {
                        outcomes.add(e.getMessage());
                    }
                }).group(group).maxFrameLength(1_000).bind(ANY_PORT).start();
                try (SocketChannel peer = SocketChannel.open(server.localAddresses().get(0))) {
                    byte[] within = new Frames().frame(1, 100, new byte[100]).toByteArray();
                    peer.write(ByteBuffer.wrap(within));
                    assertEquals("relayed true", outcomes.poll(20, TimeUnit.SECONDS));
                    ByteBuffer got = ByteBuffer.allocate(within.length);
                    while (got.hasRemaining() && upstreamPeer.read(got) >= 0) {
                        // until the frame is whole
                    }
                    assertArrayEquals(within, got.array(), "the frame within both limits, relayed as sent");
                    peer.write(ByteBuffer.wrap(new Frames().frame(2, 101, new byte[101]).toByteArray()));
                    String refused = outcomes.poll(20, TimeUnit.SECONDS);
                    assertTrue(refused != null && refused.startsWith("frame too long to relay: length=101 maxFrameLength=100 of ")
                            && refused.contains("(this connection's 1000) offset=108 (frame 0 of the block)"),
                            "refused against the smaller limit, naming the length, both limits and the stream offset: "
                                    + refused);
                }
            }
        }
    }

    @Test
    void aServerOnAGroupRefusesLoopSettingsOfItsOwnNamingThem() throws Exception {
        try (LoopGroup group = LoopGroup.builder().start()) {
            FrameServer.Builder b = FrameServer.builder((c, type, body) -> { }).group(group).bind(ANY_PORT)
                    .loops(2).chunkSize(8192);
            assertEquals("[loops, chunkSize] set for the server's own loops, but it serves on a given group: set them "
                    + "on the LoopGroup's builder", assertThrows(IllegalStateException.class, b::start).getMessage());
        }
    }

    @Test
    void aClientRefusesAddressesItCannotConnectTo() throws Exception {
        try (FrameClient client = FrameClient.builder((c, type, body) -> { }).build()) {
            InetSocketAddress unresolved = InetSocketAddress.createUnresolved("example.invalid", 1);
            assertEquals("address=" + unresolved + " is unresolved: resolve it first, off the loop threads (a loop "
                    + "does not wait for a name server)", assertThrows(IllegalArgumentException.class,
                            () -> client.connect(unresolved)).getMessage());
            SocketAddress other = new SocketAddress() {
                @Override
                public String toString() {
                    return "other";
                }
            };
            assertEquals("address=other: use an InetSocketAddress or a UnixDomainSocketAddress",
                    assertThrows(IllegalArgumentException.class, () -> client.connect(other)).getMessage());
        }
    }

    @Test
    void aClientsBuilderChecksTheConnectTimeout() {
        FrameClient.Builder b = FrameClient.builder((c, type, body) -> { });
        assertEquals("connectTimeout=PT0S min=PT0.001S max=PT8760H",
                assertThrows(IllegalArgumentException.class, () -> b.connectTimeout(Duration.ZERO)).getMessage());
        assertEquals("connectTimeout=PT8761H min=PT0.001S max=PT8760H",
                assertThrows(IllegalArgumentException.class, () -> b.connectTimeout(Duration.ofHours(8761))).getMessage());
    }

    @Test
    void aClientWithoutAGroupRunsOnALoopOfItsOwnAndEndsIt() throws Exception {
        Closes handler = new Closes();
        try (ServerSocketChannel peer = ServerSocketChannel.open()) {
            peer.bind(ANY_PORT);
            FrameClient client = FrameClient.builder(handler).build();
            CompletableFuture<Connection> opening = client.connect(peer.getLocalAddress());
            try (SocketChannel accepted = peer.accept()) {
                Connection c = opening.get(20, TimeUnit.SECONDS);
                c.execute(() -> c.writeFrame(7, ByteBuffer.wrap(new byte[] {1})));
                ByteBuffer frame = ByteBuffer.allocate(9);
                while (frame.hasRemaining()) {
                    accepted.read(frame);
                }
                assertEquals(7, frame.getInt(0));
                Thread loop = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals("wirespeed-client-0")).findFirst().orElseThrow();
                client.close();
                assertTrue(!loop.isAlive(), "the client's own loop thread ended with it");
                assertEquals(-1, accepted.read(ByteBuffer.allocate(1)), "the connection closed cleanly");
            }
        }
    }

    @Test
    void aConnectThatOnOpenRefusesFailsItsFutureWithWhatOnOpenThrew() throws Exception {
        java.io.IOException refused = new java.io.IOException("refused by onOpen on purpose");
        Closes handler = new Closes() {
            @Override
            public void onOpen(Connection connection) throws java.io.IOException {
                throw refused;
            }
        };
        try (ServerSocketChannel peer = ServerSocketChannel.open();
                FrameClient client = FrameClient.builder(handler).build()) {
            peer.bind(ANY_PORT);
            CompletableFuture<Connection> opening = client.connect(peer.getLocalAddress());
            try (SocketChannel accepted = peer.accept()) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> opening.get(20, TimeUnit.SECONDS));
                assertEquals(refused, e.getCause());
                String close = handler.closes.poll(20, TimeUnit.SECONDS);
                assertTrue(close.endsWith(": refused by onOpen on purpose"), close);
                assertThrows(java.io.IOException.class, () -> accepted.read(ByteBuffer.allocate(1)),
                        "an onOpen that throws resets the connection");
            }
        }
    }

    @Test
    void aConnectAtMaxConnectionsIsRefusedWithoutAConnection() throws Exception {
        Closes handler = new Closes();
        try (ServerSocketChannel peer = ServerSocketChannel.open();
                FrameClient client = FrameClient.builder(handler).maxConnections(1).build()) {
            peer.bind(ANY_PORT);
            SocketAddress address = peer.getLocalAddress();
            CompletableFuture<Connection> first = client.connect(address);
            try (SocketChannel accepted = peer.accept()) {
                assertEquals(accepted.getLocalAddress(), first.get(20, TimeUnit.SECONDS).remoteAddress());
                ExecutionException e = assertThrows(ExecutionException.class, () -> client.connect(address).get());
                assertInstanceOf(ConnectException.class, e.getCause());
                assertEquals(1, client.rejectedConnections());
                assertNull(handler.closes.poll(), "no handler call for a connect never begun");
            }
        }
    }
}
