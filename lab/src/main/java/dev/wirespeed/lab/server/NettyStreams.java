package dev.wirespeed.lab.server;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.lab.NettyTransport;
import dev.wirespeed.testkit.SequenceStream;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The sequence stream from Netty's event loops: the peer of {@link LoopStreams}, written as a Netty
 * user would write it at their best. Each connection gets the stream from frame 0 (once its TLS
 * handshake is done, with TLS), its frames encoded into pooled direct buffers of about {@value
 * #BUFFER_BYTES} bytes (whole frames: one TLS record's plaintext each), written while the channel is
 * writable and flushed once per batch, when the channel turns unwritable or the stream ends, never per
 * frame. It resumes on {@code channelWritabilityChanged}; a flush that leaves the channel writable goes on
 * at the event loop's next turn, so that a fast reader does not keep the loop from its other channels.
 * The channels' water marks are the library's loop server's output limit: unwritable from {@code
 * outputLimit} queued bytes (plaintext waiting in the {@code SslHandler} included), writable again below
 * half of it. After {@code count} frames the connection is closed once what is queued is written (with
 * TLS, after a close_notify). Bytes a client sends are ignored.
 *
 * <p>Over TCP, {@code TCP_NODELAY}, Netty's default allocator; with an {@link SslContext}, its
 * {@link SslHandler} first in each pipeline.
 *
 * <p>Thread safety: {@link #close()} from any thread; each connection's state is its event loop's.
 */
public final class NettyStreams implements Closeable {
    /** Bytes of frames per buffer, at most: one TLS record's plaintext. */
    static final int BUFFER_BYTES = 16 * 1024;

    private final EventLoopGroup group;
    private final Channel server;

    private NettyStreams(EventLoopGroup group, Channel server) {
        this.group = group;
        this.server = server;
    }

    /**
     * Binds and starts serving.
     *
     * @param address a TCP address to bind
     * @param loops event-loop threads, which both accept and serve
     * @param sizes the body sizes
     * @param count frames per connection, or {@code Long.MAX_VALUE} for an endless stream
     * @param outputLimit the high water mark, in bytes, {@code >= 2}
     * @param transport the Netty transport
     * @param tls Netty's TLS for every connection, or null for plaintext
     * @return the server, serving until closed
     * @throws IOException if it cannot bind (the bind's own exception), or the transport is unavailable here
     *     (saying why)
     */
    public static NettyStreams start(InetSocketAddress address, int loops, SizeRange sizes, long count, long outputLimit,
            NettyTransport transport, SslContext tls) throws IOException {
        String why = transport.unavailable();
        if (why != null) {
            throw new IOException(why);
        }
        int high = Math.toIntExact(outputLimit);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(loops, transport.handlers());
        byte[] pattern = SequenceStream.pattern(sizes.max());
        try {
            Channel server = new ServerBootstrap().group(group)
                    .channel(transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (tls != null) {
                                ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                            }
                            ch.pipeline().addLast(new Stream(sizes.sizes(), count, pattern, tls != null));
                        }
                    })
                    .bind(address).syncUninterruptibly().channel();
            return new NettyStreams(group, server);
        } catch (Exception e) { // Netty rethrows the bind's failure as it came, checked or not
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
            throw e instanceof IOException io ? io : new IOException(String.valueOf(e.getMessage()), e);
        }
    }

    /** {@return the address it listens on} */
    public SocketAddress localAddress() {
        return server.localAddress();
    }

    /** Stops accepting, closes every connection, and ends the event loops. */
    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One connection's stream. */
    private static final class Stream extends ChannelInboundHandlerAdapter {
        private final SizeRange.Sizes sizes;
        private final long count;
        private final byte[] pattern;
        private final boolean tls;
        private final int capacity;
        private long next;
        /** The size drawn for frame {@code next} that did not fit the last buffer, or -1. */
        private int drawn = -1;
        /** True while {@link #pump} runs: a flush that makes the channel writable calls back into it. */
        private boolean pumping;
        /** True while a continuation of the stream waits for the loop's next turn. */
        private boolean scheduled;
        private boolean closing;

        Stream(SizeRange.Sizes sizes, long count, byte[] pattern, boolean tls) {
            this.sizes = sizes;
            this.count = count;
            this.pattern = pattern;
            this.tls = tls;
            this.capacity = Math.max(BUFFER_BYTES, FrameFormat.HEADER_LENGTH + pattern.length);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (!tls) {
                pump(ctx);
            }
            ctx.fireChannelActive();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
                pump(ctx);
            }
            ctx.fireUserEventTriggered(event);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                pump(ctx);
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            io.netty.util.ReferenceCountUtil.release(msg); // the stream's clients only read
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // the client went away mid-stream: expected for endless streams
        }

        /** Writes buffers while the channel is writable, then flushes them: one batch. */
        private void pump(ChannelHandlerContext ctx) {
            if (pumping || closing) {
                return; // called back from the flush below, which goes on by itself
            }
            Channel channel = ctx.channel();
            pumping = true;
            try {
                boolean wrote = false;
                while (next < count && channel.isWritable()) {
                    ctx.write(encode(ctx.alloc()), ctx.voidPromise());
                    wrote = true;
                }
                if (wrote) {
                    ctx.flush();
                }
            } finally {
                pumping = false;
            }
            if (next == count) {
                closing = true;
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            } else if (channel.isWritable() && !scheduled) {
                scheduled = true;
                ctx.executor().execute(() -> {
                    scheduled = false;
                    pump(ctx);
                });
            }
        }

        /** {@return a pooled direct buffer of whole frames, from frame {@code next}, at least one} */
        private ByteBuf encode(ByteBufAllocator alloc) {
            ByteBuf buffer = alloc.directBuffer(capacity);
            while (next < count) {
                if (drawn < 0) {
                    drawn = sizes.next();
                }
                if (buffer.writableBytes() < FrameFormat.HEADER_LENGTH + drawn) {
                    break;
                }
                long i = next++;
                buffer.writeInt(SequenceStream.type(i)).writeInt(drawn)
                        .writeBytes(pattern, SequenceStream.patternOffset(i), drawn);
                drawn = -1;
            }
            return buffer;
        }
    }
}
