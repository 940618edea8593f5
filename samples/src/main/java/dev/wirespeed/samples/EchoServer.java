package dev.wirespeed.samples;

import dev.wirespeed.linux.epoll.EpollTransport;
import dev.wirespeed.loop.FrameServer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An echo server: every frame a client sends comes back to it unchanged, from one event-loop thread
 * serving every connection.
 *
 * <pre>
 * EchoServer [PORT | SOCKET_PATH] [--epoll]
 * </pre>
 *
 * Listens on 127.0.0.1 port {@value #PORT} unless given a port (0 for any free one) or the path of a
 * Unix domain socket to create. {@code --epoll} serves through Linux {@code epoll} (the native module,
 * so the JVM needs {@code --enable-native-access}) instead of the JDK's {@code Selector}; the handler
 * is the same on every transport. It runs until the JVM is stopped (Ctrl-C). Try it with
 * {@link EchoClient}.
 */
public final class EchoServer {
    /** The port listened on unless told otherwise. */
    public static final int PORT = 22223;

    private EchoServer() {
    }

    /**
     * Starts the server; its loop thread keeps the JVM running.
     *
     * @param args {@code [PORT | SOCKET_PATH] [--epoll]}
     * @throws IOException if the address cannot be bound
     */
    public static void main(String[] args) throws IOException {
        FrameServer server = start(args, System.out);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }

    /** Starts the server as {@link #main} describes, says where it listens on {@code out}, and returns it. */
    static FrameServer start(String[] args, PrintStream out) throws IOException {
        List<String> words = new ArrayList<>(List.of(args));
        boolean epoll = words.remove("--epoll");
        SocketAddress address = words.isEmpty() ? new InetSocketAddress("127.0.0.1", PORT) : address(words.getFirst());

        // The handler runs on the loop thread for each frame. The body is a view of the loop's input
        // buffer, valid only until onFrame returns; writeFrame copies it into the connection's output,
        // which the loop sends once this turn's frames are handled.
        FrameServer.Builder builder = FrameServer.builder((connection, type, body) -> connection.writeFrame(type, body))
                .bind(address);
        if (epoll) {
            builder.transport(EpollTransport.create());
        }
        FrameServer server = builder.start();
        out.println("echo server listening on " + server.localAddresses().getFirst() + (epoll ? " (epoll)" : ""));
        return server;
    }

    /** A port number on 127.0.0.1, or anything else as the path of a Unix domain socket. */
    private static SocketAddress address(String arg) {
        return !arg.isEmpty() && arg.chars().allMatch(Character::isDigit)
                ? new InetSocketAddress("127.0.0.1", Integer.parseInt(arg)) : UnixDomainSocketAddress.of(Path.of(arg));
    }
}
