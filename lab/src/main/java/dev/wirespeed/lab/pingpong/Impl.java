package dev.wirespeed.lab.pingpong;

import dev.wirespeed.lab.CliName;
import dev.wirespeed.lab.NettyTransport;

/** How {@code ping} (and, without the peer, {@code echo}) talks to the socket. */
public enum Impl implements CliName {
    /** A JDK {@code SocketChannel}, blocking. */
    JDK(SocketApi.JDK, false),
    /** A JDK {@code SocketChannel}, non-blocking, busy-polled. */
    JDK_SPIN(SocketApi.JDK, true),
    /** The library's {@code NativeSocket} (FFM {@code recv(2)}/{@code send(2)}), blocking. */
    NATIVE(SocketApi.NATIVE, false),
    /** The library's {@code NativeSocket}, non-blocking, busy-polled. */
    NATIVE_SPIN(SocketApi.NATIVE, true),
    /** The library's {@code IoUringSocket}, each call waited for in {@code io_uring_enter}. */
    URING(SocketApi.URING, false),
    /** The library's {@code IoUringSocket}, each call submitted, then its completion busy-polled in user space. */
    URING_SPIN(SocketApi.URING, true),
    /** The peer: Netty 4.2 over epoll (NIO where epoll is unavailable), event-loop driven; TCP only. */
    NETTY(SocketApi.JDK, false),
    /** The peer over its io_uring transport, event-loop driven; TCP only. */
    NETTY_URING(SocketApi.JDK, false);

    private final SocketApi api;
    private final boolean spin;

    Impl(SocketApi api, boolean spin) {
        this.api = api;
        this.spin = spin;
    }

    /** {@return the Netty transport of a Netty ping, or null for the others} */
    public NettyTransport netty() {
        return switch (this) {
            case NETTY -> NettyTransport.epollOrNio();
            case NETTY_URING -> NettyTransport.IO_URING;
            default -> null;
        };
    }

    /** {@return true where the ping reads through io_uring: the library's or Netty's} */
    public boolean ioUring() {
        return api == SocketApi.URING || this == NETTY_URING;
    }

    /** {@return null where this ping runs here, else why not} */
    public String unavailable() {
        return this == NETTY_URING ? NettyTransport.IO_URING.unavailable() : api.unavailable();
    }

    /** {@return the API the socket is read and written through} (Netty's pings: their echo's, the JDK's) */
    public SocketApi api() {
        return api;
    }

    /**
     * {@return the echo this ping is measured against}: the library's, over the same socket API and waiting
     * as the ping does (Netty's pings: the blocking JDK echo, so that the peer is measured on the side a user
     * would replace)
     */
    public EchoArgs echo() {
        EchoArgs echo = EchoArgs.of(EchoImpl.of(api));
        return spin ? echo.withSpin() : echo;
    }

    /** {@return true for the library's own socket paths, native or io_uring} */
    public boolean library() {
        return api != SocketApi.JDK;
    }

    /** {@return true where the socket is non-blocking and busy-polled} */
    public boolean spin() {
        return spin;
    }

    @Override
    public String toString() {
        return cliName();
    }
}
