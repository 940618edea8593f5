package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where a listening command ({@code server}, {@code echo}) accepts connections: {@code --bind} and
 * {@code --port} for TCP, {@code --path} for a Unix socket. The command keeps its own
 * {@code --transport}, since each accepts a different set.
 */
public final class ListenOptions {
    /** {@code --bind}. */
    public static final Opt<String> BIND = Opt.ofString("--bind", "127.0.0.1",
            "TCP address to listen on (default ${DEFAULT-VALUE})");

    /** {@code --port}; absent: the command's own. */
    public static final Opt<Integer> PORT = Opt.ofInt("--port", null, "TCP port; 0 picks a free one (default: "
            + Defaults.STREAM_PORT + " for server, " + Defaults.ECHO_PORT + " for echo)");

    /** {@code --path}. */
    public static final Opt<Path> PATH = Opt.ofPath("--path", null,
            "Unix socket path; a file already there is replaced");

    /** These options, in the order a line writes them. */
    static final List<Opt<?>> ALL = List.of(BIND, PORT, PATH);

    private final String bind;
    private final Integer port;
    private final Path path;

    /**
     * The listening options of a line.
     *
     * @param args a line of {@code server} or {@code echo}
     */
    ListenOptions(Args args) {
        this.bind = args.get(BIND);
        this.port = args.get(PORT);
        this.path = args.get(PATH);
    }

    /**
     * {@return the address to bind for {@code transport}}, removing a stale Unix socket file first
     *
     * @param transport   {@link Transport#TCP} or {@link Transport#UNIX}
     * @param defaultPort the TCP port when {@code --port} is absent
     * @throws IllegalArgumentException if the transport is neither, or {@code unix} comes without {@code --path}
     *     or with a path that cannot be replaced; the message names the option and value
     */
    public SocketAddress address(Transport transport, int defaultPort) {
        return switch (transport) {
            case TCP -> new InetSocketAddress(bind, port == null ? defaultPort : checkPort(port));
            case UNIX -> {
                if (path == null) {
                    throw new IllegalArgumentException("--transport unix needs --path");
                }
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new IllegalArgumentException("cannot replace --path " + path + ": " + e.getMessage());
                }
                yield UnixDomainSocketAddress.of(path);
            }
            default -> throw new IllegalArgumentException("--transport " + transport + " does not listen: use tcp or unix");
        };
    }


    static int checkPort(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port=" + port + " must be 0 to 65535");
        }
        return port;
    }
}
