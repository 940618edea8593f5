package dev.wirespeed.linux.internal.uring;

import dev.wirespeed.linux.internal.net.ListenFd;
import dev.wirespeed.linux.internal.net.SocketFd;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import java.io.IOException;
import java.net.SocketAddress;

/**
 * A listening socket of an {@code IoUringTransport}, polled through the ring; its connections come out
 * blocking (io_uring waits for a blocking socket's readiness itself), with {@code TCP_NODELAY} over TCP.
 *
 * @param socket the listening descriptor, non-blocking
 */
public record UringListener(ListenFd socket) implements Listener {
    @Override
    public SocketAddress localAddress() {
        return socket.localAddress();
    }

    @Override
    public Endpoint accept() throws IOException {
        SocketFd accepted = socket.acceptForLoop(false);
        return accepted == null ? null : new UringEndpoint(accepted);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
