package dev.wirespeed.samples;

import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameServer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A broadcast server: every frame a client sends goes to every other client, and a client that does
 * not keep up is not allowed to hold the others back or to fill the server's memory.
 *
 * <pre>
 * BroadcastServer [PORT]
 * </pre>
 *
 * Listens on 127.0.0.1 port {@value #PORT} unless given another (0 for any free one), and prints a
 * line for each client that leaves: how many frames were queued to it and how many it missed.
 *
 * <h2>Backpressure</h2>
 * {@link Connection#writeFrame} queues a frame whatever the connection's output holds; it is the
 * handler's job to stop writing to a connection that is not {@linkplain Connection#isWritable()
 * writable} (its unsent output has reached the server's output limit, 256 KiB by default). This
 * server drops the frames a slow client would not take in time and counts them; once that client's
 * output has drained to half the limit, the loop calls {@link ConnectionHandler#onWritable}, and the
 * client gets one frame of type {@value #DROPPED} whose 8-byte body says how many it missed. Another
 * server could instead stop reading the publisher, or keep only the latest value per key.
 *
 * <h2>One loop</h2>
 * The server runs one loop thread, so the handler's list of connections is touched by that thread
 * alone. With more loops, a connection may be written only from its own loop's thread: a broadcast
 * would go through {@link Connection#execute(Runnable)} for the connections of other loops.
 */
public final class BroadcastServer {
    /** The port listened on unless told otherwise. */
    public static final int PORT = 22224;

    /** The type of the frame that tells a client how many frames it missed (a big-endian long). */
    public static final int DROPPED = -1;

    private BroadcastServer() {
    }

    /**
     * Starts the server; its loop thread keeps the JVM running.
     *
     * @param args {@code [PORT]}
     * @throws IOException if the port cannot be bound
     */
    public static void main(String[] args) throws IOException {
        FrameServer server = start(args, System.out);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }

    /** Starts the server as {@link #main} describes, printing on {@code out}, and returns it. */
    static FrameServer start(String[] args, PrintStream out) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : PORT;
        FrameServer server = FrameServer.builder(new Broadcast(out))
                .bind(new InetSocketAddress("127.0.0.1", port))
                .loops(1)
                .start();
        out.println("broadcast server listening on " + server.localAddresses().getFirst());
        return server;
    }

    /** What the server keeps per client, as the connection's attachment. */
    private static final class Client {
        long queued;
        long dropped;
        /** Dropped since the client was last told. */
        long untold;
    }

    private static final class Broadcast implements ConnectionHandler {
        /** Every open connection; only the loop thread touches it. */
        private final List<Connection> connections = new ArrayList<>();
        private final PrintStream out;

        Broadcast(PrintStream out) {
            this.out = out;
        }

        @Override
        public void onOpen(Connection connection) {
            connection.attach(new Client());
            connections.add(connection);
        }

        @Override
        public void onFrame(Connection from, int type, ByteBuffer body) {
            for (Connection to : connections) {
                if (to == from) {
                    continue;
                }
                Client client = (Client) to.attachment();
                // writeFrame copies the body and leaves its position alone, so one view serves every client.
                if (to.isWritable() && to.writeFrame(type, body)) {
                    client.queued++;
                } else {
                    client.dropped++;
                    client.untold++;
                }
            }
        }

        @Override
        public void onWritable(Connection connection) {
            Client client = (Client) connection.attachment();
            if (client.untold > 0 && connection.isOpen()) {
                // Written in place: the claimed body is the frame's 8 bytes in the connection's output.
                ByteBuffer notice = connection.claim(DROPPED, Long.BYTES);
                notice.putLong(0, client.untold);
                connection.commit();
                client.untold = 0;
            }
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            connections.remove(connection);
            Client client = (Client) connection.attachment();
            out.println(connection + " left: " + client.queued + " frames queued, " + client.dropped + " dropped"
                    + (cause == null ? "" : "; " + cause));
        }
    }
}
