package dev.wirespeed.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;

/**
 * A TCP port on {@code 127.0.0.1} that refuses connections for as long as this is open: a socket bound to
 * a port the kernel chose, and not listening, as the kernel refuses a connect to a bound port nothing
 * listens on. A port found free and closed again refuses too, but not for sure: another process (another
 * test JVM) may listen on it by the time of the connect, and a connect whose own ephemeral port is the
 * same connects to itself. While this holds the port, no other socket can bind it, and no connect takes it.
 *
 * <pre>{@code
 * try (RefusingPort refusing = new RefusingPort()) {
 *     assertThrows(ConnectException.class, () -> SocketChannel.open(refusing.address()));
 * }
 * }</pre>
 *
 * <p>Thread safety: immutable once made.
 */
public final class RefusingPort implements AutoCloseable {
    private final SocketChannel bound;
    private final InetSocketAddress address;

    /**
     * Binds a port of the IPv4 loopback, where the lab's commands connect by default.
     *
     * @throws IOException if no socket can be bound
     */
    public RefusingPort() throws IOException {
        bound = SocketChannel.open();
        try {
            bound.bind(new InetSocketAddress(ipv4Loopback(), 0));
            address = (InetSocketAddress) bound.getLocalAddress();
        } catch (IOException | RuntimeException e) {
            bound.close();
            throw e;
        }
    }

    /** {@return the refusing address: {@code 127.0.0.1} and {@link #port()}} */
    public InetSocketAddress address() {
        return address;
    }

    /** {@return the refusing port} */
    public int port() {
        return address.getPort();
    }

    /** Frees the port: from then on, it may be anyone's. */
    @Override
    public void close() throws IOException {
        bound.close();
    }

    private static InetAddress ipv4Loopback() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new UncheckedIOException(e); // not for an address of the right length
        }
    }
}
