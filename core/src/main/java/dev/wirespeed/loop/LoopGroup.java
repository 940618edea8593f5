package dev.wirespeed.loop;

import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.spi.LoopTransport;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
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
    private final List<BiConsumer<Integer, IOException>> onFailure = new CopyOnWriteArrayList<>();
    private boolean closed;
    /** The first loop's failure, and that loop's index; null while none failed. */
    private volatile IOException failure;
    private int failedLoop;
    /** What the loops tell the group. */
    private final EventLoop.Group fromLoops = new EventLoop.Group() {
        @Override
        public void loopStarted(int index) {
            started(index);
        }

        @Override
        public void loopFailed(int index, IOException failure) {
            failed(index, failure);
        }
    };

    private LoopGroup(Builder b) throws IOException {
        this.onLoopStart = b.onLoopStart;
        this.transport = b.transport;
        this.loops = new EventLoop[b.loops];
        this.threads = new Thread[b.loops];
        try {
            for (int i = 0; i < loops.length; i++) {
                loops[i] = new EventLoop(fromLoops, i, b.transport, b.idle, b.chunkSize, b.inputBudget, b.unusedMemoryNanos);
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
     * TLS engine)}: what was unused for {@link Builder#unusedMemoryTimeout} is given back */
    public long pooledBytes() {
        long sum = 0;
        for (EventLoop loop : loops) {
            sum += loop.pooledBytes();
        }
        return sum;
    }

    /**
     * {@return the bytes the loops keep for frames not yet whole}: each partial frame's buffer, counted
     * against its loop's input budget ({@link Builder#inputBudget(long)}); a moment's figure, from any thread
     */
    public long partialFrameBytes() {
        long sum = 0;
        for (EventLoop loop : loops) {
            sum += loop.partialFrameBytes();
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

    /** Loop {@code index}'s thread has begun: it runs what {@link Builder#onLoopStart(IntConsumer)} was given first. */
    private void started(int index) {
        if (onLoopStart != null) {
            onLoopStart.accept(index);
        }
    }

    /**
     * Loop {@code index} cannot go on ({@code failure} says why): the group fails as a whole, so that no
     * part of it stays up serving nothing. The failure is kept ({@link #failure()}), told to the thread's
     * uncaught-exception handler and to what {@link #whenFailed} was given (its servers stop listening,
     * so that new connections are refused rather than left waiting), and every loop ends, closing its
     * connections with it as the cause their handlers get. Called on the failing loop's thread.
     */
    private void failed(int index, IOException failure) {
        List<BiConsumer<Integer, IOException>> toCall;
        synchronized (members) {
            if (this.failure == null) {
                this.failure = failure;
                this.failedLoop = index;
                toCall = List.copyOf(onFailure);
            } else {
                toCall = List.of(); // another loop failed first: its failure was told, and the loops stop
            }
        }
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, failure);
        for (BiConsumer<Integer, IOException> r : toCall) { // first: a connection closed by it finds no listener
            try {
                r.accept(index, failure);
            } catch (RuntimeException | Error e) {
                failure.addSuppressed(e);
            }
        }
        for (EventLoop loop : loops) {
            if (loop.index() != index) {
                loop.stop(failure);
            }
        }
    }

    /**
     * Calls {@code r} with the failed loop's index and its failure once a loop fails: on that loop's thread,
     * or on this one at once where a loop failed already (before a server on the group had started, say).
     */
    void whenFailed(BiConsumer<Integer, IOException> r) {
        IOException failed;
        int index;
        synchronized (members) {
            onFailure.add(r);
            failed = failure;
            index = failedLoop;
        }
        if (failed != null) {
            r.accept(index, failed);
        }
    }

    /**
     * {@return why the group's loops stopped, or null while they serve}: the first loop's failure (its
     * poller failed, or something was thrown outside the serving of any one connection, which closes just
     * that connection). After one loop fails every loop ends, its connections closed with this as the cause.
     */
    public IOException failure() {
        return failure;
    }

    /** The default input budget of a loop ({@link Builder#inputBudget(long)}): 64 MiB. */
    public static final long DEFAULT_INPUT_BUDGET = 64L << 20;

    /** The default time pooled memory stays unused before its loop gives it back ({@link Builder#unusedMemoryTimeout}): 10 seconds. */
    public static final Duration DEFAULT_UNUSED_MEMORY_TIMEOUT = Duration.ofSeconds(10);

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
        long inputBudget = DEFAULT_INPUT_BUDGET;
        long unusedMemoryNanos = DEFAULT_UNUSED_MEMORY_TIMEOUT.toNanos();
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
         * Sets the most bytes each loop keeps for frames not yet whole: the buffers its connections'
         * partial frames wait in between reads, each about the size of what came of its frame (see
         * {@link FrameServer}'s "Memory"). A connection whose partial frame would take its loop past the
         * budget is reset, its handler told with an {@link InputBudgetException} naming the budget, what
         * is kept and the frame; the loop and the other connections go on. So a loop's memory for
         * input follows the bytes peers sent, and is bounded whatever lengths they announce.
         *
         * @param inputBudget bytes per loop, at least the chunk size ({@value #DEFAULT_INPUT_BUDGET} by
         *     default); {@code Long.MAX_VALUE} for no budget
         * @return this builder
         */
        public Builder inputBudget(long inputBudget) {
            if (inputBudget < BufferPool.PAGE_SIZE) {
                throw new IllegalArgumentException("inputBudget=" + inputBudget + " min=" + BufferPool.PAGE_SIZE);
            }
            this.inputBudget = inputBudget;
            return this;
        }

        /**
         * Sets how long a loop keeps pooled memory that no connection uses before giving it back. A pool
         * carves its buffers sixteen at a time from a slab, and hands out the buffers of its first slabs
         * first, so that the others empty when the load goes; a slab whose buffers are all back, none
         * taken for half this timeout, is given back at most this timeout after its last buffer came back.
         * Each pool keeps one slab. A direct slab's memory is freed when it is given back (not when a
         * garbage collection finds it); a slab on the heap, for the JDK's TLS engine, is left to the
         * collector. {@link #pooledBytes()} falls accordingly.
         *
         * @param unusedMemoryTimeout from 1 ms to 365 days, 10 seconds by default; {@link Duration#ZERO}
         *     to keep pooled memory for the loop's life
         * @return this builder
         */
        public Builder unusedMemoryTimeout(Duration unusedMemoryTimeout) {
            Objects.requireNonNull(unusedMemoryTimeout, "unusedMemoryTimeout");
            Duration min = Duration.ofMillis(1);
            Duration max = Duration.ofDays(365);
            if (!unusedMemoryTimeout.isZero()
                    && (unusedMemoryTimeout.compareTo(min) < 0 || unusedMemoryTimeout.compareTo(max) > 0)) {
                throw new IllegalArgumentException("unusedMemoryTimeout=" + unusedMemoryTimeout + " min=" + min
                        + " max=" + max + ", or " + Duration.ZERO + " to keep pooled memory");
            }
            this.unusedMemoryNanos = unusedMemoryTimeout.toNanos();
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
         * @throws IllegalStateException if the input budget is smaller than a chunk, naming both
         * @throws IOException if the transport refuses a poller (nothing is left open)
         */
        public LoopGroup start() throws IOException {
            if (inputBudget < chunkSize) {
                throw new IllegalStateException("inputBudget=" + inputBudget + " is less than chunkSize=" + chunkSize
                        + ": a loop could not keep one chunk of a partial frame");
            }
            return new LoopGroup(this);
        }
    }
}
