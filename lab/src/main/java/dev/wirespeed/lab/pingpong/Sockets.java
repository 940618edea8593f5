package dev.wirespeed.lab.pingpong;

import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.lab.Listening;
import dev.wirespeed.lab.Ring;
import dev.wirespeed.linux.uring.IoUring;
import dev.wirespeed.linux.uring.IoUringSocket;
import dev.wirespeed.linux.NativeServerSocket;
import dev.wirespeed.linux.NativeSocket;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Connected and listening sockets of each {@link SocketApi}, set up for request/response: TCP with
 * Nagle's algorithm off, non-blocking where the implementation busy-polls; an io_uring socket stays
 * blocking and busy-polls its completion queue instead.
 */
public final class Sockets {
    private Sockets() {
    }

    /**
     * {@return a connection to {@code address}}, a JDK {@code SocketChannel}, a {@code NativeSocket} or an
     * {@code IoUringSocket} whose ring is set up as {@code ring} says
     *
     * @param address the peer
     * @param api the socket's API
     * @param spin non-blocking and busy-polled, rather than blocking
     * @param idle with {@code spin}, what the socket does between empty calls
     * @param ring how an io_uring socket's ring is set up
     * @throws IOException if connecting fails
     */
    public static ByteChannel connect(SocketAddress address, SocketApi api, boolean spin, IdleStrategy idle, Ring ring)
            throws IOException {
        if (api != SocketApi.JDK) {
            NativeSocket socket = NativeSocket.connect(address);
            try {
                if (address instanceof InetSocketAddress) {
                    socket.setTcpNoDelay(true);
                }
                return setUp(socket, api, spin, idle, ring);
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
        }
        SocketChannel channel = SocketChannel.open(address);
        try {
            return setUp(channel, spin);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** {@code idle}: with {@code spin}, what an io_uring socket does between empty looks at its completions. */
    private static ByteChannel setUp(NativeSocket socket, SocketApi api, boolean spin, IdleStrategy idle, Ring ring)
            throws IOException {
        if (api != SocketApi.URING) {
            return socket.configureBlocking(!spin);
        }
        IoUringSocket.Builder builder = IoUringSocket.builder(socket).idleStrategy(spin ? idle : null);
        IoUring.Options options = ring.options();
        return (options == null ? builder : builder.ring(options)).build();
    }

    private static SocketChannel setUp(SocketChannel channel, boolean spin) throws IOException {
        if (channel.getRemoteAddress() instanceof InetSocketAddress) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        }
        channel.configureBlocking(!spin);
        return channel;
    }

    /** A listening socket of either implementation, handing out connections set up as {@link #connect} does. */
    public interface Listener extends Closeable {
        /**
         * {@return the next connection}
         *
         * @throws IOException if accepting fails or the listener closed
         */
        ByteChannel accept() throws IOException;

        /** {@return the bound address, as {@code host:port} or the socket path} */
        String describe();

        /**
         * {@return the bound address}
         *
         * @throws IOException if the listener closed
         */
        SocketAddress localAddress() throws IOException;
    }

    /**
     * {@return a socket listening on {@code address}}
     *
     * @param address where to listen
     * @param api the API of the connections it hands out
     * @param spin connections non-blocking and busy-polled, rather than blocking
     * @param idle with {@code spin}, what a connection does between empty calls
     * @throws IOException if binding fails
     */
    public static Listener listen(SocketAddress address, SocketApi api, boolean spin, IdleStrategy idle) throws IOException {
        if (api != SocketApi.JDK) {
            NativeServerSocket server = NativeServerSocket.bind(address, 64);
            return new Listener() {
                @Override
                public ByteChannel accept() throws IOException {
                    NativeSocket socket = server.accept();
                    try {
                        if (!(address instanceof UnixDomainSocketAddress)) {
                            socket.setTcpNoDelay(true);
                        }
                        return setUp(socket, api, spin, idle, Ring.DEFAULT);
                    } catch (IOException | RuntimeException e) {
                        socket.close();
                        throw e;
                    }
                }

                @Override
                public String describe() {
                    return Listening.describe(server.localAddress());
                }

                @Override
                public SocketAddress localAddress() {
                    return server.localAddress();
                }

                @Override
                public void close() throws IOException {
                    server.close();
                }
            };
        }
        ServerSocketChannel server = address instanceof UnixDomainSocketAddress
                ? ServerSocketChannel.open(StandardProtocolFamily.UNIX) : ServerSocketChannel.open();
        server.bind(address, 64);
        return new Listener() {
            @Override
            public ByteChannel accept() throws IOException {
                return setUp(server.accept(), spin);
            }

            @Override
            public String describe() {
                try {
                    return Listening.describe(server.getLocalAddress());
                } catch (IOException e) {
                    return "?";
                }
            }

            @Override
            public SocketAddress localAddress() throws IOException {
                return server.getLocalAddress();
            }

            @Override
            public void close() throws IOException {
                server.close();
            }
        };
    }
}
