package dev.wirespeed.lab;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;

/** The transport a Netty peer (client, ping or echo) runs its event loop and TCP channels over. */
public enum NettyTransport {
    /** The JDK's NIO {@code Selector}: runs everywhere. */
    NIO,
    /** Netty's native epoll transport (JNI), Linux. */
    EPOLL,
    /** Netty's native io_uring transport (JNI), Linux with io_uring enabled. */
    IO_URING;

    /** {@return epoll where Netty's native epoll runs here, else NIO}: what a Netty user on Linux would pick */
    public static NettyTransport epollOrNio() {
        return EPOLL.unavailable() == null ? EPOLL : NIO;
    }

    /** {@return null where this transport runs here, else why not, in Netty's words} */
    public String unavailable() {
        return switch (this) {
            case NIO -> null;
            case EPOLL -> Epoll.isAvailable() ? null
                    : "Netty's epoll transport is unavailable: " + Epoll.unavailabilityCause();
            case IO_URING -> IoUring.isAvailable() ? null
                    : "Netty's io_uring transport is unavailable: " + IoUring.unavailabilityCause();
        };
    }

    /** {@return the event loop's I/O handlers} */
    public IoHandlerFactory handlers() {
        return switch (this) {
            case NIO -> NioIoHandler.newFactory();
            case EPOLL -> EpollIoHandler.newFactory();
            case IO_URING -> IoUringIoHandler.newFactory();
        };
    }

    /** {@return the class of a connected TCP channel} */
    public Class<? extends SocketChannel> socketChannel() {
        return switch (this) {
            case NIO -> NioSocketChannel.class;
            case EPOLL -> EpollSocketChannel.class;
            case IO_URING -> IoUringSocketChannel.class;
        };
    }

    /** {@return the class of a listening TCP channel} */
    public Class<? extends ServerChannel> serverChannel() {
        return switch (this) {
            case NIO -> NioServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            case IO_URING -> IoUringServerSocketChannel.class;
        };
    }
}
