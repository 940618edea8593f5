package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where a listening command ({@code server}, {@code echo}) accepts connections: {@code --bind} and
 * {@code --port} for TCP, {@code --path} for a Unix socket. A picocli mixin; the command keeps its own
 * {@code --transport}, since each accepts a different set.
 */
public final class ListenOptions {
    /** Options picocli sets. */
    public ListenOptions() {
    }

    @Option(names = "--bind", defaultValue = "127.0.0.1", description = "TCP address to listen on (default ${DEFAULT-VALUE})")
    String bind = "127.0.0.1";

    @Option(names = "--port", description = "TCP port; 0 picks a free one (default: "
            + Defaults.STREAM_PORT + " for server, " + Defaults.ECHO_PORT + " for echo)")
    Integer port;

    @Option(names = "--path", description = "Unix socket path; a file already there is replaced")
    Path path;

    /**
     * Sets one of these options for {@link DirectLine}, as picocli would.
     *
     * @param name the option
     * @param value its value
     * @return whether it is one of these
     */
    boolean value(String name, String value) {
        switch (name) {
            case "--bind" -> bind = value;
            case "--port" -> port = DirectCommand.digits(value);
            case "--path" -> path = Path.of(value);
            default -> {
                return false;
            }
        }
        return true;
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
