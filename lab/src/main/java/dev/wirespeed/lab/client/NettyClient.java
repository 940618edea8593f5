package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.lab.NettyTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The peer users would pick instead: Netty 4.2 with its default (pooled) allocator and a
 * {@code LengthFieldBasedFrameDecoder} for our header (length at offset 4, 4 bytes, frame kept whole),
 * over NIO, native epoll or native io_uring, one event loop thread. Each frame reaches the {@link Receiver} as a view of
 * Netty's buffer, without a copy. TCP only.
 *
 * <p>Bad input keeps its exit code (3) but is worded by Netty, which knows no stream offsets; a stream
 * that ends inside a frame is reported with the offset of that frame, counted here.
 */
public final class NettyClient implements Strategy {
    private final NettyTransport transport;

    NettyClient(NettyTransport transport) {
        this.transport = transport;
    }

    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        String why = transport.unavailable();
        if (why != null) {
            throw new IOException(why);
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.handlers());
        FrameHandler frames = new FrameHandler(receiver);
        try {
            Bootstrap bootstrap = new Bootstrap().group(group)
                    .channel(transport.socketChannel())
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            channel.pipeline().addLast(new ByteCounter(frames),
                                    new LengthFieldBasedFrameDecoder(maxFrameLength + FrameFormat.HEADER_LENGTH, 4, 4, 0, 0),
                                    frames);
                        }
                    });
            Channel channel = bootstrap.connect(source.tcpAddress()).sync().channel();
            source.closeOnAbort(() -> channel.close());
            channel.closeFuture().sync();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (Exception e) {
            if (e instanceof IOException io2) {
                throw io2;
            }
            throw new IOException(e.getMessage(), e);
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
        frames.rethrow();
    }

    /** Counts the bytes that arrive, before the decoder, to tell a truncated stream from a clean end. */
    private static final class ByteCounter extends ChannelInboundHandlerAdapter {
        private final FrameHandler frames;

        ByteCounter(FrameHandler frames) {
            this.frames = frames;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            frames.received += ((ByteBuf) msg).readableBytes();
            ctx.fireChannelRead(msg);
        }
    }

    /** Hands each decoded frame to the receiver; stops when it is done; keeps the first failure. */
    private static final class FrameHandler extends ChannelInboundHandlerAdapter {
        private final Receiver receiver;
        long received;
        private long delivered;
        private IOException failure;

        FrameHandler(Receiver receiver) {
            this.receiver = receiver;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws IOException {
            ByteBuf frame = (ByteBuf) msg;
            if (receiver.done()) {
                frame.release(); // decoded from bytes already read before we closed: not part of the run
                return;
            }
            try {
                int index = frame.readerIndex();
                int length = frame.readableBytes() - FrameFormat.HEADER_LENGTH;
                receiver.onFrame(frame.getInt(index), frame.internalNioBuffer(index + FrameFormat.HEADER_LENGTH, length));
                delivered += FrameFormat.HEADER_LENGTH + (long) length;
            } finally {
                frame.release();
            }
            if (receiver.done()) {
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            long left = received - delivered;
            if (failure == null && left > 0 && !receiver.done()) {
                failure = left < FrameFormat.HEADER_LENGTH
                        ? TruncatedFrameException.inHeader((int) left, delivered)
                        : new IncompleteFrameException(left, delivered);
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (failure == null) {
                Throwable root = cause instanceof DecoderException && cause.getCause() instanceof IOException
                        ? cause.getCause() : cause;
                failure = root instanceof IOException io ? io
                        : root instanceof DecoderException decoder ? new BadFrameException(decoder.getMessage(), delivered)
                        : new IOException(root);
            }
            ctx.close();
        }

        void rethrow() throws IOException {
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** A stream that ended inside a frame's body, as far as Netty's decoder lets us tell. */
    public static final class IncompleteFrameException extends java.io.EOFException {
        private static final long serialVersionUID = 1L;

        IncompleteFrameException(long present, long offset) {
            super("truncated frame: " + present + " bytes of an incomplete frame (header included) offset=" + offset);
        }
    }

    /** Netty's decoder refused a frame (negative or too long length). */
    public static final class BadFrameException extends IOException {
        private static final long serialVersionUID = 1L;

        BadFrameException(String nettyMessage, long offset) {
            super("bad frame (netty: " + nettyMessage + ") offset=" + offset);
        }
    }
}
