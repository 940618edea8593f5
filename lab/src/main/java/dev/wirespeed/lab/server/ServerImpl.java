package dev.wirespeed.lab.server;

import dev.wirespeed.lab.CliName;
import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.lab.NettyTransport;

/**
 * What serves {@code server --loop}'s connections, by {@code --impl} name: the library's
 * {@code FrameServer} on one of its loop transports ({@link LoopStreams}), or the peer, Netty
 * ({@link NettyStreams}).
 */
public enum ServerImpl implements CliName {
    /** The library's loops over the JDK's {@code Selector}. */
    JDK(LoopImpl.JDK),
    /** The library's loops over {@code epoll} through FFM. */
    NATIVE(LoopImpl.NATIVE),
    /** The library's loops over io_uring through FFM. */
    URING(LoopImpl.URING),
    /** The peer: Netty's epoll server (NIO where epoll is unavailable), on its event loops; TCP only. */
    NETTY(null);

    private final LoopImpl loop;

    ServerImpl(LoopImpl loop) {
        this.loop = loop;
    }

    /** {@return the library's loop transport, or null for Netty's} */
    public LoopImpl loop() {
        return loop;
    }

    /** {@return Netty's transport, or null for the library's loops} */
    public NettyTransport netty() {
        return loop == null ? NettyTransport.epollOrNio() : null;
    }

    /** {@return null where this machine can run it, else why not} */
    public String unavailable() {
        return loop != null ? loop.unavailable() : netty().unavailable();
    }

    @Override
    public String toString() {
        return cliName();
    }
}
