package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.internal.net.ListenFd;
import dev.wirespeed.linux.internal.net.SocketFd;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.net.SocketAddress;

/**
 * The Linux transport of {@link dev.wirespeed.loop.FrameServer}: {@code epoll(7)}, level-triggered,
 * over sockets read and written as {@link dev.wirespeed.linux.NativeSocket} does, all through FFM,
 * with no allocation per poll or per ready socket. A loop's
 * {@link dev.wirespeed.loop.FrameServer.Builder#transport transport}:
 *
 * <pre>{@code
 * FrameServer.builder(handler).bind(address).transport(EpollTransport.create()).start();
 * }</pre>
 *
 * <p>Each poller is an {@code epoll} instance and an {@code eventfd} for {@link Poller#wakeup()}; a
 * socket's descriptor is its key, and its attachment is kept in an array indexed by descriptor. The
 * loops connect as they accept ({@link dev.wirespeed.loop.FrameClient} on a
 * {@link dev.wirespeed.loop.LoopGroup} of this transport): a non-blocking {@code connect(2)}, reported
 * when the socket becomes writable or fails.
 *
 * <p>Thread safety: stateless; safe from any thread. Its pollers and sockets are confined to their loop.
 */
public final class EpollTransport implements LoopTransport {
    private EpollTransport() {
    }

    /**
     * {@return the transport}
     *
     * @throws UnsupportedOperationException off Linux or on a 32-bit JVM
     */
    public static EpollTransport create() {
        LibC.checkSupported();
        return new EpollTransport();
    }

    @Override
    public String name() {
        return "epoll";
    }

    @Override
    public Poller openPoller() throws IOException {
        return new EpollPoller();
    }

    @Override
    public Listener listen(SocketAddress address, int backlog) throws IOException {
        return new EpollListener(ListenFd.bindNonBlocking(address, backlog));
    }

    /**
     * {@inheritDoc} A non-blocking {@code connect(2)}; its poller reports it once the socket is writable
     * (or failed), and {@link dev.wirespeed.loop.spi.Endpoint#finishConnect()} reads its outcome
     * ({@code SO_ERROR}).
     */
    @Override
    public Endpoint connect(SocketAddress address) throws IOException {
        return SocketFd.connectForLoop(address);
    }
}
