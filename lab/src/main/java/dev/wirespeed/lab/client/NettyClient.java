package dev.wirespeed.lab.client;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.lab.NettyTransport;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
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
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The peer users would pick instead: Netty 4.2 with its default (pooled) allocator and a
 * {@code LengthFieldBasedFrameDecoder} for our header (length at offset 4, 4 bytes, frame kept whole),
 * over NIO, native epoll or native io_uring, one event loop thread. Each frame reaches the {@link Receiver} as a view of
 * Netty's buffer, without a copy. TCP only. With the source's TLS, an {@code SslHandler} first in the
 * pipeline, on Netty's JDK provider or its OpenSSL one as the settings' engine says.
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
        InetSocketAddress address = source.tcpAddress();
        SslContext tls = source.tls() == null ? null : context(source.tls());
        String host = source.tls() == null || source.tls().serverName() == null ? address.getHostString()
                : source.tls().serverName();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.handlers());
        FrameHandler frames = new FrameHandler(receiver);
        try {
            Bootstrap bootstrap = new Bootstrap().group(group)
                    .channel(transport.socketChannel())
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            if (tls != null) {
                                channel.pipeline().addLast(tls.newHandler(channel.alloc(), host, address.getPort()));
                            }
                            channel.pipeline().addLast(new ByteCounter(frames),
                                    new LengthFieldBasedFrameDecoder(maxFrameLength + FrameFormat.HEADER_LENGTH, 4, 4, 0, 0),
                                    frames);
                        }
                    });
            Channel channel = bootstrap.connect(address).sync().channel();
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

    /**
     * {@return Netty's client context for {@code settings}}: their trust, protocols and host name check, on
     * Netty's JDK provider for the JDK's engine, else on its OpenSSL one (BoringSSL)
     */
    private static SslContext context(TlsSettings settings) throws IOException {
        try {
            return SslContextBuilder.forClient().trustManager(settings.trusted())
                    .sslProvider(TlsOptions.nettyProvider(settings.engine() != TlsEngineFactory.jdk()))
                    .protocols(settings.protocols().stream().map(TlsSettings.Protocol::jdkName).toArray(String[]::new))
                    .endpointIdentificationAlgorithm(settings.hostnameVerification() ? "HTTPS" : null).build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("Netty's TLS client: " + e.getMessage(), e);
        }
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
