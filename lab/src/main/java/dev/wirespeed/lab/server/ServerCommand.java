package dev.wirespeed.lab.server;

import dev.wirespeed.io.StandardChannels;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.Pipes;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code wirespeed server}: streams the sequence stream to every client that connects, or to stdout. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Streams the sequence stream (frames 0, 1, 2, ...): to each TCP or Unix connection from "
                + "frame 0, accepting connections until killed; or to standard output, ending quietly when the "
                + "reader goes away.",
            "Prints 'listening on ADDRESS' on standard error once it accepts connections."})
public final class ServerCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public ServerCommand() {
    }

    @Option(names = "--transport", required = true, description = "tcp, unix or stdout")
    Transport transport;

    @Option(names = "--bind", defaultValue = "127.0.0.1", description = "TCP address to listen on (default ${DEFAULT-VALUE})")
    String bind;

    @Option(names = "--port", defaultValue = "22222", description = "TCP port; 0 picks a free one (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--path", description = "Unix socket path")
    Path path;

    @Option(names = "--size", defaultValue = "100", converter = SizeConverter.class,
            description = "body size N or MIN-MAX (default ${DEFAULT-VALUE})")
    SizeRange size;

    @Option(names = "--count", description = "frames per connection (default: endless)")
    Long count;

    @Option(names = "--write-per-frame", description = "one write call per frame instead of batching")
    boolean writePerFrame;

    @Option(names = "--threads", defaultValue = "virtual", description = "a virtual or a platform thread per "
            + "connection (default ${DEFAULT-VALUE}: with 64 clients 1.18x the throughput of platform threads, less CPU "
            + "and memory; level with one client; see the README)")
    String threads;

    @Option(names = "--pipe-size", description = "with --transport stdout: resize the pipe to this many bytes "
            + "(Linux F_SETPIPE_SZ; default: leave the pipe as it is, 64 KiB)")
    Integer pipeSize;

    @Override
    public Integer call() throws IOException {
        if (count != null && count < 0) {
            return usage("--count=" + count + " must be >= 0");
        }
        if (!threads.equals("platform") && !threads.equals("virtual")) {
            return usage("--threads " + threads + ": use platform or virtual");
        }
        SequenceServer server = new SequenceServer(size, count == null ? Long.MAX_VALUE : count, writePerFrame);
        return switch (transport) {
            case STDOUT -> {
                if (pipeSize != null && !resizePipe(pipeSize)) {
                    yield ExitCode.IO_FAILURE;
                }
                yield serveStdout(server);
            }
            case TCP -> serveSockets(server, tcpServer(), threadBuilder());
            case UNIX -> {
                if (path == null) {
                    yield usage("--transport unix needs --path");
                }
                yield serveSockets(server, unixServer(), threadBuilder());
            }
            default -> usage("--transport " + transport + " is not a server transport: use tcp, unix or stdout");
        };
    }

    private static int usage(String message) {
        System.err.println("wirespeed server: " + message);
        return ExitCode.USAGE;
    }

    private static boolean resizePipe(int bytes) {
        try {
            Pipes.resize(1, bytes);
            return true;
        } catch (NativeIoException | UnsupportedOperationException e) {
            System.err.println("wirespeed server: --pipe-size " + bytes + " failed: " + e.getMessage());
            return false;
        }
    }

    private static int serveStdout(SequenceServer server) {
        try {
            server.serve(StandardChannels.stdout());
        } catch (IOException e) {
            // The reader went away (EPIPE): the normal end of an endless stream.
        }
        return ExitCode.OK;
    }

    private ServerSocketChannel tcpServer() throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        channel.bind(new InetSocketAddress(bind, port), 64);
        return channel;
    }

    private ServerSocketChannel unixServer() throws IOException {
        Files.deleteIfExists(path);
        ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        channel.bind(UnixDomainSocketAddress.of(path), 64);
        return channel;
    }

    private Thread.Builder threadBuilder() {
        return threads.equals("virtual") ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
    }

    private static int serveSockets(SequenceServer server, ServerSocketChannel listener, Thread.Builder threads) {
        PrintStream err = System.err;
        err.println("listening on " + describe(listener));
        err.flush();
        AtomicLong connections = new AtomicLong();
        try (listener) {
            while (true) {
                SocketChannel connection = listener.accept();
                long id = connections.incrementAndGet();
                threads.name("connection-" + id).start(() -> serve(server, connection, id));
            }
        } catch (IOException e) {
            err.println("wirespeed server: accept failed: " + e.getMessage());
            return ExitCode.IO_FAILURE;
        }
    }

    private static void serve(SequenceServer server, SocketChannel connection, long id) {
        try (connection) {
            server.serve(connection);
        } catch (IOException e) {
            // The client went away mid-stream: expected for endless streams; the others keep being served.
        }
    }

    private static String describe(ServerSocketChannel listener) {
        try {
            Object address = listener.getLocalAddress();
            return address instanceof InetSocketAddress inet
                    ? inet.getAddress().getHostAddress() + ":" + inet.getPort()
                    : String.valueOf(address);
        } catch (IOException e) {
            return "?";
        }
    }

    /** Converts {@code --size}. */
    static final class SizeConverter implements picocli.CommandLine.ITypeConverter<SizeRange> {
        @Override
        public SizeRange convert(String value) {
            return SizeRange.parse(value);
        }
    }
}
