package dev.wirespeed.lab.pingpong;

import dev.wirespeed.lab.CliName;
import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.lab.NettyTransport;

/**
 * What serves {@code echo}'s connections, by {@code --impl} name: the library over one of three socket
 * APIs (a thread per connection, or with {@code --loop} that API's event loop), or the peer, Netty.
 */
public enum EchoImpl implements CliName {
    /** The JDK's {@code SocketChannel}; with {@code --loop}, the JDK's {@code Selector}. */
    JDK(SocketApi.JDK, LoopImpl.JDK),
    /** The library's {@code NativeSocket}; with {@code --loop}, {@code epoll}. */
    NATIVE(SocketApi.NATIVE, LoopImpl.NATIVE),
    /** The library's {@code IoUringSocket}, a ring per connection; with {@code --loop}, io_uring loops. */
    URING(SocketApi.URING, LoopImpl.URING),
    /** The peer: Netty's echo over epoll (NIO where epoll is unavailable), on its event loops; TCP only. */
    NETTY(null, null),
    /** The peer over Netty's io_uring transport. */
    NETTY_URING(null, null);

    private final SocketApi api;
    private final LoopImpl loop;

    EchoImpl(SocketApi api, LoopImpl loop) {
        this.api = api;
        this.loop = loop;
    }

    /**
     * {@return the echo of the library over {@code api}}
     *
     * @param api the socket API
     */
    public static EchoImpl of(SocketApi api) {
        return switch (api) {
            case JDK -> JDK;
            case NATIVE -> NATIVE;
            case URING -> URING;
        };
    }

    /** {@return true for the library's echoes, false for the peer's} */
    public boolean library() {
        return api != null;
    }

    /** {@return the socket API of a connection's own thread, or null for Netty's} */
    public SocketApi api() {
        return api;
    }

    /** {@return the event loops' transport under {@code --loop}, or null for Netty's} */
    public LoopImpl loop() {
        return loop;
    }

    /** {@return Netty's transport, or null for the library's echoes} */
    public NettyTransport netty() {
        return switch (this) {
            case NETTY -> NettyTransport.epollOrNio();
            case NETTY_URING -> NettyTransport.IO_URING;
            default -> null;
        };
    }

    @Override
    public String toString() {
        return cliName();
    }
}
