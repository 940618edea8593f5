package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.internal.net.ListenFd;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import java.io.IOException;
import java.net.SocketAddress;

/**
 * A listening socket of an {@link EpollTransport}: its connections come out non-blocking, with
 * {@code TCP_NODELAY} over TCP.
 *
 * @param socket the listening descriptor, non-blocking
 */
record EpollListener(ListenFd socket) implements Listener {
    @Override
    public SocketAddress localAddress() {
        return socket.localAddress();
    }

    @Override
    public Endpoint accept() throws IOException {
        return socket.acceptForLoop(true);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
