package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.Transport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where a connecting command ({@code client}, {@code ping}) finds its peer: {@code --host} and
 * {@code --port} for TCP, {@code --path} for a Unix socket (or, for {@code client}, a file). A picocli
 * mixin; the command keeps its own {@code --transport}, since each accepts a different set.
 */
public final class ConnectOptions {
    /** Options picocli sets. */
    public ConnectOptions() {
    }

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "TCP host (default ${DEFAULT-VALUE})")
    String host = "127.0.0.1";

    @Option(names = "--port", description = "TCP port (default: " + Defaults.STREAM_PORT + " for client, "
            + Defaults.ECHO_PORT + " for ping)")
    Integer port;

    @Option(names = "--path", description = "Unix socket path, or for client --transport file the file")
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
            case "--host" -> host = value;
            case "--port" -> port = DirectCommand.digits(value);
            case "--path" -> path = Path.of(value);
            default -> {
                return false;
            }
        }
        return true;
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
