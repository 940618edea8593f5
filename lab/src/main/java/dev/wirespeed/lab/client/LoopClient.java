package dev.wirespeed.lab.client;

import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameClient;
import dev.wirespeed.loop.LoopGroup;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The library's own client loop: a {@link FrameClient} on one loop of its own, over epoll through FFM
 * where it runs (else the JDK's {@code Selector}), connects to the server and hands each frame to the
 * {@link Receiver} on the loop thread, as the loop's view of the bytes where they were received. With
 * the source's TLS the loop speaks TLS, and frames are parsed in the decrypted bytes. TCP and Unix.
 *
 * <p>Once the receiver is done the connection is closed (over TLS, with a close_notify) and frames still
 * arriving are not counted. A clean close by the server ends the stream; any other end is thrown: the
 * protocol's errors with their offsets, a failed verification, a stream over TLS that ended without
 * close_notify (an {@code SSLException}), a failed connect.
 */
final class LoopClient implements Strategy {
    @Override
    public void read(Source source, Receiver receiver, int maxFrameLength) throws IOException {
        LoopImpl impl = LoopImpl.NATIVE.unavailable() == null ? LoopImpl.NATIVE : LoopImpl.JDK;
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Frames frames = new Frames(receiver, ended);
        try (LoopGroup group = impl.apply(LoopGroup.builder()).loops(1).threadName("client-loop").start();
                FrameClient client = client(frames, group, source, maxFrameLength)) {
            source.closeOnAbort(client);
            try {
                client.connect(source.socketAddress()); // a failure reaches onClose, as every other end
            } catch (IllegalStateException closed) {
                return; // aborted (--read-timeout) before the connect began: the command says so
            }
            Throwable cause;
            try {
                cause = ended.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("onClose never fails the future", e);
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause != null) {
                throw new IOException(cause);
            }
        }
    }

    private static FrameClient client(Frames frames, LoopGroup group, Source source, int maxFrameLength)
            throws IOException {
        FrameClient.Builder builder = FrameClient.builder(frames).group(group).maxFrameLength(maxFrameLength);
        if (source.tls() != null) {
            builder.tls(source.tls());
        }
        return builder.build();
    }

    /** Hands the frames to the receiver until it is done; says how the connection ended. */
    private static final class Frames implements ConnectionHandler {
        private final Receiver receiver;
        private final CompletableFuture<Throwable> ended;

        Frames(Receiver receiver, CompletableFuture<Throwable> ended) {
            this.receiver = receiver;
            this.ended = ended;
        }

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
            if (receiver.done()) {
                return; // read before the close below took effect: not part of the run
            }
            receiver.onFrame(type, body);
            if (receiver.done()) {
                connection.close();
            }
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            ended.complete(receiver.done() ? null : cause);
        }
    }
}
