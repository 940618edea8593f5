package dev.wirespeed.samples;

import dev.wirespeed.linux.epoll.EpollTransport;
import dev.wirespeed.loop.BlockHandler;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.FrameClient;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.LoopGroup;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A gateway: for each client it accepts it connects onward to an upstream server, and relays every
 * frame each way, both connections of a session on one event-loop thread: the server and the client
 * share a {@link LoopGroup}, and a connect made from a handler stays on the handler's loop. Its
 * handlers take each read's frames as one block ({@link BlockHandler}) and relay the block onward
 * whole ({@link Connection#relayBlock}), without looking at each frame: the loop checked each as it
 * arrived, and the relay does not check them again.
 *
 * <pre>
 * Gateway [PORT UPSTREAM_PORT] [--epoll]
 * </pre>
 *
 * Listens on 127.0.0.1 port {@value #PORT} and connects to 127.0.0.1 port {@value EchoServer#PORT}
 * unless given both ports. Frames a client sends before its upstream connection is open wait, in the
 * order sent. A session ends as soon as either of its connections closes. Try it between {@link
 * EchoServer} and {@link EchoClient}: {@code EchoClient 22224 hello}.
 */
public final class Gateway implements Closeable {
    /** The port listened on unless told otherwise. */
    public static final int PORT = 22224;

    private final LoopGroup loops;
    private final FrameServer front;

    private Gateway(LoopGroup loops, FrameServer front) {
        this.loops = loops;
        this.front = front;
    }

    /**
     * Starts the gateway; its loop threads keep the JVM running.
     *
     * @param args {@code [PORT UPSTREAM_PORT] [--epoll]}
     * @throws IOException if the port cannot be bound
     */
    public static void main(String[] args) throws IOException {
        Gateway gateway = start(args, System.out);
        Runtime.getRuntime().addShutdownHook(new Thread(gateway::close));
    }

    /** Starts the gateway as {@link #main} describes, says where on {@code out}, and returns it. */
    static Gateway start(String[] args, PrintStream out) throws IOException {
        List<String> words = new ArrayList<>(List.of(args));
        boolean epoll = words.remove("--epoll");
        int port = words.isEmpty() ? PORT : Integer.parseInt(words.get(0));
        SocketAddress upstream = new InetSocketAddress("127.0.0.1", words.isEmpty() ? EchoServer.PORT
                : Integer.parseInt(words.get(1)));
        LoopGroup.Builder group = LoopGroup.builder().loops(2);
        if (epoll) {
            group.transport(EpollTransport.create());
        }
        LoopGroup loops = group.start();
        try {
            FrameClient onward = FrameClient.builder(new Relay()).group(loops).build();
            FrameServer front = FrameServer.builder(new Front(onward, upstream)).group(loops)
                    .bind(new InetSocketAddress("127.0.0.1", port)).start();
            out.println("gateway listening on " + front.localAddresses().getFirst() + ", upstream " + upstream
                    + (epoll ? " (epoll)" : ""));
            return new Gateway(loops, front);
        } catch (IOException | RuntimeException e) {
            loops.close();
            throw e;
        }
    }

    /** {@return where the gateway listens} */
    SocketAddress localAddress() {
        return front.localAddresses().getFirst();
    }

    /** Closes the gateway's server, client and loops, and every session. */
    @Override
    public void close() {
        loops.close();
    }

    /**
     * One session's state, attached to both its connections. Touched only on their loop's thread:
     * the downstream connection's, where the upstream connect was made.
     */
    private static final class Session {
        final Connection downstream;
        Connection upstream;
        /** Blocks of frames from downstream before the upstream connection opened, each a copy. */
        final List<ByteBuffer> waiting = new ArrayList<>();

        Session(Connection downstream) {
            this.downstream = downstream;
        }
    }

    /** The gateway's server side: each accepted connection connects onward. */
    private record Front(FrameClient onward, SocketAddress upstream) implements BlockHandler {
        @Override
        public void onOpen(Connection downstream) {
            Session session = new Session(downstream);
            downstream.attach(session);
            // Called on the loop thread, so the connect stays on it: both ends of the session share it.
            onward.connect(upstream).whenComplete((up, failure) -> {
                if (failure != null) {
                    downstream.close();
                    return;
                }
                up.attach(session);
                session.upstream = up;
                for (ByteBuffer frames : session.waiting) {
                    up.writeFrames(frames);
                }
                session.waiting.clear();
            });
        }

        @Override
        public void onFrames(Connection downstream, ByteBuffer frames) {
            Session session = (Session) downstream.attachment();
            if (session.upstream != null) {
                downstream.relayBlock(session.upstream);
            } else { // the block is valid only during this call: keep a copy
                session.waiting.add(ByteBuffer.allocate(frames.remaining()).put(frames).flip());
            }
        }

        @Override
        public void onClose(Connection downstream, Throwable cause) {
            Session session = (Session) downstream.attachment();
            if (session != null && session.upstream != null) {
                session.upstream.close();
            }
        }
    }

    /** The gateway's client side: upstream replies go back downstream. */
    private static final class Relay implements BlockHandler {
        @Override
        public void onFrames(Connection upstream, ByteBuffer frames) {
            upstream.relayBlock(((Session) upstream.attachment()).downstream);
        }

        @Override
        public void onClose(Connection upstream, Throwable cause) {
            Session session = (Session) upstream.attachment();
            if (session != null) {
                session.downstream.close();
            }
        }
    }
}
