package dev.wirespeed.linux.internal.uring;

import dev.wirespeed.linux.internal.net.SocketAddresses;
import dev.wirespeed.linux.internal.net.SocketFd;
import dev.wirespeed.loop.spi.Endpoint;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

/**
 * Opens the connections an {@code IoUringTransport} connects: a socket, blocking as io_uring wants it,
 * with {@code TCP_NODELAY} over TCP, and its peer's address as a {@code struct sockaddr}, which the
 * connection's {@code IORING_OP_CONNECT} reads once it is registered for
 * {@link dev.wirespeed.loop.spi.Poller#CONNECT}.
 *
 * <p>Thread safety: stateless; safe from any thread.
 */
public final class UringConnector {
    private UringConnector() {
    }

    /**
     * {@return a connection to {@code address}, its connect not yet begun}
     *
     * @param address an {@code InetSocketAddress}, resolved, or a {@code UnixDomainSocketAddress}
     * @throws IOException if no socket can be made, naming the address
     */
    public static Endpoint open(SocketAddress address) throws IOException {
        SocketFd socket = SocketFd.open(address, false);
        try {
            // Freed once unreachable: the connection holds it until its connect completes, and the poller
            // holds the connection until then, however early it is closed.
            MemorySegment sockaddr = SocketAddresses.encode(address, Arena.ofAuto());
            return new UringEndpoint(socket, sockaddr);
        } catch (RuntimeException e) {
            socket.reset();
            throw e;
        }
    }
}
