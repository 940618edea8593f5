package dev.wirespeed.lab.latency;

import dev.wirespeed.frame.FrameFormat;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The peer's echo server: Netty 4.2 over epoll (NIO where epoll is unavailable), or over its
 * io_uring transport, TCP with
 * {@code TCP_NODELAY}, {@code LengthFieldBasedFrameDecoder} handing each whole frame (header
 * included) to a handler that writes it back, flushed once per read as Netty's own examples do
 * ({@code channelReadComplete}). {@code loops} event-loop threads both accept and serve, as a
 * Netty user sizing one group would write it.
 */
public final class NettyEcho {
    private NettyEcho() {
    }

    /** {@return whether Netty runs over epoll here} */
    static boolean epoll() {
        return Epoll.isAvailable();
    }

    /** {@return null where Netty's io_uring transport runs here, else why not} */
    public static String ioUringUnavailable() {
        return IoUring.isAvailable() ? null : "Netty's io_uring transport is unavailable: " + IoUring.unavailabilityCause();
    }

    /**
     * Serves until the process is killed.
     *
     * @param address a TCP address to bind
     * @param loops event-loop threads
     * @param maxFrame the longest body accepted
     * @param listening told the bound address once connections are accepted
     * @param ioUring Netty's io_uring transport rather than epoll
     */
    static void serve(InetSocketAddress address, int loops, int maxFrame, java.util.function.Consumer<SocketAddress> listening,
            PrintWriter err, boolean ioUring) throws IOException, InterruptedException {
        IoHandlerFactory handlers;
        Class<? extends ServerChannel> channel;
        if (ioUring) {
            String why = ioUringUnavailable();
            if (why != null) {
                throw new IOException(why);
            }
            handlers = IoUringIoHandler.newFactory();
            channel = IoUringServerSocketChannel.class;
        } else if (epoll()) {
            handlers = EpollIoHandler.newFactory();
            channel = EpollServerSocketChannel.class;
        } else {
            handlers = NioIoHandler.newFactory();
            channel = NioServerSocketChannel.class;
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(loops, handlers);
        Echo echo = new Echo(err);
        try {
            Channel server = new ServerBootstrap().group(group)
                    .channel(channel)
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(
                                    maxFrame + FrameFormat.HEADER_LENGTH, 4, 4, 0, 0), echo);
                        }
                    })
                    .bind(address).sync().channel();
            listening.accept(server.localAddress());
            server.closeFuture().sync();
        } catch (Exception e) {
            if (e instanceof InterruptedException ie) {
                throw ie;
            }
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        } finally {
            group.shutdownGracefully().syncUninterruptibly();
        }
    }

    /** Writes every frame back; flushes when the read that brought it is done. */
    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        private final PrintWriter err;

        Echo(PrintWriter err) {
            this.err = err;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            synchronized (err) {
                err.println("wirespeed echo: connection closed: " + cause.getMessage());
                err.flush();
            }
            ctx.close();
        }
    }
}
