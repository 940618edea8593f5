package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.Transport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * Where a connecting command ({@code client}, {@code ping}) finds its peer: {@code --host} and
 * {@code --port} for TCP, {@code --path} for a Unix socket (or, for {@code client}, a file). The
 * command keeps its own {@code --transport}, since each accepts a different set.
 */
public final class ConnectOptions {
    /** {@code --host}. */
    public static final Opt<String> HOST = Opt.ofString("--host", "127.0.0.1", "TCP host (default ${DEFAULT-VALUE})");

    /** {@code --port}; absent: the command's own. */
    public static final Opt<Integer> PORT = Opt.ofInt("--port", null, "TCP port (default: " + Defaults.STREAM_PORT
            + " for client, " + Defaults.ECHO_PORT + " for ping)");

    /** {@code --path}. */
    public static final Opt<Path> PATH = Opt.ofPath("--path", null,
            "Unix socket path, or for client --transport file the file");

    /** These options, in the order a line writes them. */
    static final List<Opt<?>> ALL = List.of(HOST, PORT, PATH);

    private final String host;
    private final Integer port;
    private final Path path;

    /**
     * The peer of a line.
     *
     * @param args a line of a connecting command
     */
    ConnectOptions(Args args) {
        this.host = args.get(HOST);
        this.port = args.get(PORT);
        this.path = args.get(PATH);
    }

    /**
     * {@return the TCP address to connect to}
     *
     * @param defaultPort the port when {@code --port} is absent
     * @throws IllegalArgumentException if {@code --port} is outside 1 to 65535
     */
    public InetSocketAddress tcp(int defaultPort) {
        int chosen = port == null ? defaultPort : port;
        if (chosen < 1 || chosen > 65535) {
            throw new IllegalArgumentException("--port=" + chosen + " must be 1 to 65535 to connect");
        }
        return new InetSocketAddress(host, chosen);
    }

    /**
     * {@return {@code --path}}
     *
     * @param transport the transport that needs it, named in the message
     * @throws IllegalArgumentException if {@code --path} is absent
     */
    public Path path(Transport transport) {
        if (path == null) {
            throw new IllegalArgumentException("--transport " + transport + " needs --path");
        }
        return path;
    }

    /**
     * {@return the socket address for {@code transport}}
     *
     * @param transport   {@link Transport#TCP} or {@link Transport#UNIX}
     * @param defaultPort the TCP port when {@code --port} is absent
     * @throws IllegalArgumentException if the transport is neither, or a value is missing or out of range
     */
    public SocketAddress socket(Transport transport, int defaultPort) {
        return switch (transport) {
            case TCP -> tcp(defaultPort);
            case UNIX -> UnixDomainSocketAddress.of(path(transport));
            default -> throw new IllegalArgumentException("--transport " + transport + " is not a socket: use tcp or unix");
        };
    }
}
