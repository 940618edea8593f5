package dev.wirespeed.samples;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A client of {@link EchoServer}: sends each message as a frame over a blocking {@link SocketChannel},
 * waits for its echo and prints it.
 *
 * <pre>
 * EchoClient [PORT | SOCKET_PATH [MESSAGE...]]
 * </pre>
 *
 * Connects to 127.0.0.1 port {@value EchoServer#PORT} unless its first argument is another port or
 * the path of a Unix domain socket, and sends "hello" and "wirespeed" unless given messages after it. Frame {@code i} has type
 * {@code i} and the message's UTF-8 bytes as its body.
 */
public final class EchoClient {
    private EchoClient() {
    }

    /**
     * Sends the messages and prints their echoes.
     *
     * @param args {@code [PORT | SOCKET_PATH [MESSAGE...]]}
     * @throws IOException if the connection fails, or the server closes it before every echo is back
     */
    public static void main(String[] args) throws IOException {
        run(args, System.out);
    }

    /** Runs the client as {@link #main} describes, printing on {@code out}. */
    static void run(String[] args, PrintStream out) throws IOException {
        List<String> messages = new ArrayList<>(List.of(args));
        SocketAddress address = messages.isEmpty() ? new InetSocketAddress("127.0.0.1", EchoServer.PORT)
                : address(messages.removeFirst());
        if (messages.isEmpty()) {
            messages = List.of("hello", "wirespeed");
        }
        try (SocketChannel channel = SocketChannel.open(address)) {
            // One writer and one reader over the same blocking channel, each with a buffer of its own.
            FrameWriter writer = new FrameWriter(channel);
            FrameReader reader = new FrameReader(channel);
            // The body is a view of the reader's buffer, valid until the handler returns: decoding it
            // here copies what the program keeps.
            FrameHandler print = (type, body) ->
                    out.println("echo " + type + ": " + StandardCharsets.UTF_8.decode(body));
            for (int i = 0; i < messages.size(); i++) {
                writer.writeFrame(i, ByteBuffer.wrap(messages.get(i).getBytes(StandardCharsets.UTF_8)));
                writer.flush(); // frames gather in the writer's buffer until flushed
                if (!reader.readFrame(print)) {
                    throw new EOFException("the server closed the connection after " + i + " echoes");
                }
            }
        }
        out.println(messages.size() + " frames echoed");
    }

    /** A port number on 127.0.0.1, or anything else as the path of a Unix domain socket. */
    private static SocketAddress address(String arg) {
        return !arg.isEmpty() && arg.chars().allMatch(Character::isDigit)
                ? new InetSocketAddress("127.0.0.1", Integer.parseInt(arg)) : UnixDomainSocketAddress.of(Path.of(arg));
    }
}
