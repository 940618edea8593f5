package dev.wirespeed.lab.pingpong;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.lab.NettyTransport;
import dev.wirespeed.lab.env.Jit;
import dev.wirespeed.testkit.SequenceStream;
import dev.wirespeed.testkit.SequenceVerifier;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The peer's ping: Netty 4.2 over a {@link NettyTransport} (epoll, NIO where epoll is unavailable, or
 * io_uring), TCP with {@code TCP_NODELAY},
 * {@code LengthFieldBasedFrameDecoder}, pooled direct buffers, everything on the one event-loop thread as a
 * Netty user would write it: the handler that receives an echo sends the next frame. Timing rules are
 * {@link PingLoop}'s: closed loop, or open loop busy-waiting for each frame's due time and counting from it.
 */
public final class NettyPing {
    private NettyPing() {
    }

    /**
     * Makes round trips to the echo at {@code address}: a warm-up of at least {@code warmup} round trips
     * that ends as {@code warmupEnd} (not yet begun: it begins with the first round trip) decides, then
     * {@code count} recorded into {@code histogram}.
     *
     * @param transport Netty's transport
     * @param address the echo's
     * @param size body bytes per frame
     * @param warmup the least warm-up round trips
     * @param warmupEnd when the warm-up may end, not yet begun
     * @param count round trips measured
     * @param rate frames per second of an open loop, or 0 for a closed loop
     * @param histogram records the measured round trips in nanoseconds
     * @return the warm-up round trips made
     * @throws IOException if the transport is unavailable, or a round trip fails
     */
    public static long run(NettyTransport transport, InetSocketAddress address, int size, long warmup, WarmupEnd warmupEnd,
            long count, double rate, Histogram histogram) throws IOException {
        String why = transport.unavailable();
        if (why != null) {
            throw new IOException(why);
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.handlers());
        Pinger pinger = new Pinger(size, warmup, warmupEnd, count, rate, histogram);
        try {
            Channel channel = new Bootstrap().group(group)
                    .channel(transport.socketChannel())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(size + FrameFormat.HEADER_LENGTH, 4, 4, 0, 0),
                                    pinger);
                        }
                    })
                    .connect(address).sync().channel();
            try {
                pinger.done.get();
            } finally {
                channel.close().syncUninterruptibly();
            }
            return pinger.measuredFrom;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException io ? io : new IOException(String.valueOf(cause.getMessage()), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (Exception e) {
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** Sends a frame, and on each echo records its time and sends the next. */
    private static final class Pinger extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final SequenceVerifier verifier = new SequenceVerifier();
        private final byte[] pattern;
        private final int size;
        private final long warmup;
        private final WarmupEnd warmupEnd;
        private final long count;
        private final double interval;
        private final Histogram histogram;
        private long frame;
        private long startOfFrame;
        private long measureStart;
        /** The first frame measured, or -1 during the warm-up. */
        long measuredFrom = -1;

        Pinger(int size, long warmup, WarmupEnd warmupEnd, long count, double rate, Histogram histogram) {
            this.size = size;
            this.pattern = SequenceStream.pattern(size);
            this.warmup = warmup;
            this.warmupEnd = warmupEnd;
            this.count = count;
            this.interval = rate > 0 ? 1e9 / rate : 0;
            this.histogram = histogram;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            warmupEnd.begin(System.nanoTime());
            send(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                int type = frame.getInt(frame.readerIndex());
                int length = frame.getInt(frame.readerIndex() + 4);
                verifier.verify(type, frame.nioBuffer(frame.readerIndex() + FrameFormat.HEADER_LENGTH, length));
            } catch (IOException e) {
                done.completeExceptionally(e);
                ctx.close();
                return;
            } finally {
                frame.release();
            }
            long now = System.nanoTime();
            if (measuredFrom >= 0) {
                histogram.recordValue(now - startOfFrame);
            }
            if (measuredFrom >= 0 && this.frame - measuredFrom == count) {
                done.complete(null);
                return;
            }
            send(ctx);
        }

        private void send(ChannelHandlerContext ctx) {
            long i = frame;
            if (measuredFrom < 0 && i >= warmup) {
                long now = System.nanoTime();
                if (now - warmupEnd.look(now, Jit.compileMillis()) >= 0) {
                    measuredFrom = i;
                    measureStart = now;
                }
            }
            if (interval > 0 && measuredFrom >= 0) {
                long due = measureStart + (long) ((i - measuredFrom) * interval);
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                }
                startOfFrame = due;
            } else {
                startOfFrame = System.nanoTime();
            }
            ByteBuf buf = ctx.alloc().directBuffer(FrameFormat.HEADER_LENGTH + size);
            buf.writeInt(SequenceStream.type(i)).writeInt(size).writeBytes(pattern, SequenceStream.patternOffset(i), size);
            frame = i + 1;
            ctx.writeAndFlush(buf);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new EOFException("the echo closed the connection after "
                    + verifier.framesVerified() + " round trips"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause instanceof IOException ? cause : new IOException(cause.getMessage(), cause));
            ctx.close();
        }
    }
}
