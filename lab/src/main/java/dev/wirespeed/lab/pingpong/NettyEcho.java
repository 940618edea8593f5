package dev.wirespeed.lab.pingpong;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.lab.NettyTransport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The peer's echo server: Netty 4.2 over a {@link NettyTransport} (epoll, NIO where epoll is
 * unavailable, or io_uring), TCP with
 * {@code TCP_NODELAY}, {@code LengthFieldBasedFrameDecoder} handing each whole frame (header
 * included) to a handler that writes it back, flushed once per read as Netty's own examples do
 * ({@code channelReadComplete}). {@code loops} event-loop threads both accept and serve, as a
 * Netty user sizing one group would write it. With TLS, an {@code SslHandler} comes first in each
 * pipeline.
 */
public final class NettyEcho {
    private NettyEcho() {
    }

    /**
     * Serves until the process is killed.
     *
     * @param address a TCP address to bind
     * @param loops event-loop threads
     * @param maxFrame the longest body accepted
     * @param listening told the bound address once connections are accepted
     * @param err where a connection that fails is named
     * @param transport the Netty transport to serve over
     * @param tls Netty's TLS for every connection ({@code SslHandler} first in each pipeline), or null
     * @throws InterruptedException if interrupted while serving
     * @throws IOException if it cannot bind, or the transport is unavailable here (saying why)
     */
    public static void serve(InetSocketAddress address, int loops, int maxFrame, java.util.function.Consumer<SocketAddress> listening,
            PrintWriter err, NettyTransport transport, SslContext tls) throws IOException, InterruptedException {
        String why = transport.unavailable();
        if (why != null) {
            throw new IOException(why);
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(loops, transport.handlers());
        Echo echo = new Echo(err);
        try {
            Channel server = new ServerBootstrap().group(group)
                    .channel(transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (tls != null) {
                                ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                            }
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
