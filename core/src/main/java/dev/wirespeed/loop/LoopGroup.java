package dev.wirespeed.loop;

import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.loop.spi.LoopTransport;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * Event-loop threads that {@link FrameServer}s and {@link FrameClient}s share: each loop is one
 * platform thread with its own poller and buffer pool, and serves the connections given to it,
 * accepted and connected alike, each with its own server's or client's handler and limits. A gateway
 * that accepts on a group and connects onward from its handlers on the same group keeps both ends of
 * a session on one thread, with no hop between threads.
 *
 * <pre>{@code
 * try (LoopGroup loops = LoopGroup.builder().loops(2).start()) {
 *     FrameServer server = FrameServer.builder(handler).group(loops).bind(address).start();
 *     FrameClient client = FrameClient.builder(upstreamHandler).group(loops).build();
 *     ...
 * }
 * }</pre>
 *
 * <p>A server or client built without a group makes one of its own from its builder's loop settings,
 * and closes it with itself; one given a group leaves the group running when it closes.
 *
 * <h2>Loops</h2>
 * The loops reach their sockets through a {@link LoopTransport}: the JDK's {@code Selector} unless
 * {@link Builder#transport} names another. {@link Builder#onLoopStart(IntConsumer)} runs on each loop's
 * thread before it serves anything, to pin it to a CPU, say. A loop blocks in its poller between turns
 * unless given an {@link IdleStrategy} ({@link Builder#busyPoll}), which it then calls after each turn
 * that found nothing to do. Connections come from a chunk-sized pool of direct buffers per loop (see
 * {@link FrameServer}'s "Memory").
 *
 * <h2>Thread safety</h2>
 * The group's methods are safe from any thread.
 */
public final class LoopGroup implements Closeable {
    private final EventLoop[] loops;
    private final Thread[] threads;
    private final IntConsumer onLoopStart;
    private final LoopTransport transport;
    private final List<Closeable> members = new ArrayList<>();
    private boolean closed;

    private LoopGroup(Builder b) throws IOException {
        this.onLoopStart = b.onLoopStart;
        this.transport = b.transport;
        this.loops = new EventLoop[b.loops];
        this.threads = new Thread[b.loops];
        try {
            for (int i = 0; i < loops.length; i++) {
                loops[i] = new EventLoop(this, i, b);
            }
        } catch (IOException | RuntimeException e) {
            for (EventLoop loop : loops) {
                if (loop != null) {
                    loop.closePoller();
                }
            }
            throw e;
        }
        for (int i = 0; i < loops.length; i++) {
            threads[i] = new Thread(loops[i], b.threadName + "-" + i);
            threads[i].start();
        }
    }

    /** {@return a builder with the defaults: one blocking loop on the JDK's {@code Selector}, 64 KiB chunks} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the number of loop threads} */
    public int loopCount() {
        return loops.length;
    }

    /** {@return the name of the loops' transport, e.g. {@code selector} or {@code epoll}} */
    public String transportName() {
        return transport.name();
    }

    LoopTransport transport() {
        return transport;
    }

    /** {@return the memory the loops' buffer pools hold, in use or not (direct, and on the heap for the JDK's
     * TLS engine); pools never shrink} */
    public long pooledBytes() {
        long sum = 0;
        for (EventLoop loop : loops) {
            sum += loop.pooledBytes();
        }
        return sum;
    }

    /**
     * Closes every server and client on the group, then stops the loops and waits for their threads to
     * end. Idempotent. Called from a loop thread, it does not wait for that loop.
     */
    @Override
    public void close() {
        List<Closeable> toClose;
        synchronized (members) {
            closed = true;
            toClose = List.copyOf(members);
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (IOException ignored) {
                // servers and clients do not throw on close
            }
        }
        for (EventLoop loop : loops) {
            loop.stop();
        }
        boolean interrupted = false;
        for (Thread t : threads) {
            if (t == Thread.currentThread()) {
                continue;
            }
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Adds a server or client that {@link #close()} closes first; refused once the group is closed. */
    void join(Closeable member) {
        synchronized (members) {
            if (closed) {
                throw new IllegalStateException("the loop group is closed");
            }
            members.add(member);
        }
    }

    /** A server or client closed on its own. */
    void leave(Closeable member) {
        synchronized (members) {
            members.remove(member);
        }
    }

    EventLoop loop(int index) {
        return loops[index];
    }

    /** {@return the loop of the calling thread, or null if it is not one of this group's} */
    EventLoop current() {
        Thread t = Thread.currentThread();
        for (EventLoop loop : loops) {
            if (loop.thread == t) {
                return loop;
            }
        }
        return null;
    }

    void loopStarted(int index) {
        if (onLoopStart != null) {
            onLoopStart.accept(index);
        }
    }

    void loopFailed(int index, Exception e) {
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t,
                new IOException("loop " + index + " stopped: its poller failed", e));
    }

    /**
     * The group's settings. Each setter checks its argument and names it in the exception.
     *
     * <p>Thread safety: not thread-safe; build on one thread.
     */
    public static final class Builder {
        int loops = 1;
        IntConsumer onLoopStart;
        IdleStrategy idle;
        int chunkSize = 64 * 1024;
        String threadName = "wirespeed-loop";
        LoopTransport transport = SelectorTransport.INSTANCE;

        private Builder() {
        }

        /**
         * Sets how many loop threads serve the connections.
         *
         * @param loops loop threads, from 1 to 1024
         * @return this builder
         */
        public Builder loops(int loops) {
            if (loops < 1 || loops > 1024) {
                throw new IllegalArgumentException("loops=" + loops + " min=1 max=1024");
            }
            this.loops = loops;
            return this;
        }

        /**
         * Sets what each loop thread runs first, to pin it to a CPU, say.
         *
         * @param onLoopStart called with the loop's index on each loop's thread before it serves
         *     anything; an exception it throws stops that loop's thread
         * @return this builder
         */
        public Builder onLoopStart(IntConsumer onLoopStart) {
            this.onLoopStart = Objects.requireNonNull(onLoopStart, "onLoopStart");
            return this;
        }

        /**
         * Loops poll without blocking and call {@code idle} after each turn that found nothing to do
         * (its count of empty turns as {@link IdleStrategy#idle(int)} says). Tasks from other threads
         * wait for the next turn rather than waking the loop.
         *
         * @param idle what to do between empty turns
         * @return this builder
         */
        public Builder busyPoll(IdleStrategy idle) {
            this.idle = Objects.requireNonNull(idle, "idle");
            return this;
        }

        /**
         * Loops block in their poller between turns (the default).
         *
         * @return this builder
         */
        public Builder blocking() {
            this.idle = null;
            return this;
        }

        /**
         * Sets the size of the pooled buffers.
         *
         * @param chunkSize bytes of a pooled buffer, and so the most read from a connection per turn:
         *     a multiple of 4096 from 4096 to 64 MiB
         * @return this builder
         */
        public Builder chunkSize(int chunkSize) {
            this.chunkSize = BufferPool.checkChunkSize(chunkSize);
            return this;
        }

        /**
         * Sets how the loops reach sockets: the JDK's channels and {@code Selector} by default, or a
         * platform's own, such as the native module's {@code EpollTransport}.
         *
         * @param transport the transport
         * @return this builder
         */
        public Builder transport(LoopTransport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /**
         * Names the loop threads.
         *
         * @param threadName the loop threads' name, before {@code -INDEX}
         * @return this builder
         */
        public Builder threadName(String threadName) {
            this.threadName = Objects.requireNonNull(threadName, "threadName");
            return this;
        }

        /**
         * Opens each loop's poller and starts the loop threads.
         *
         * @return the running group
         * @throws IOException if the transport refuses a poller (nothing is left open)
         */
        public LoopGroup start() throws IOException {
            return new LoopGroup(this);
        }
    }
}
