package dev.wirespeed.lab.client;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameClient;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The lab's TLS handshake load on the library's client loop: {@code connections} connections in
 * flight, each of which connects, completes its TLS handshake, closes cleanly (its close_notify, then
 * its end of stream) and is replaced by a new connection, so that every handshake is a full one on a
 * new TCP connection, as long as the client's settings resume no session ({@link
 * dev.wirespeed.lab.tls.NoResumption}). It reports each round of fixed time ({@link
 * ChildReport.Handshakes}): the handshakes completed in it, per second, this process's CPU share, and
 * the time from each connect's start to its handshake's end (TCP's connect included).
 *
 * <p>A handshake counts in the round in which it completed. The first round begins with the first
 * connect and lasts until a round's time after the first handshake, so that a cold start (class
 * loading, a JIT yet to compile) never leaves it empty. When the rounds are over no connection is
 * begun, and those in flight complete and close before {@link #run} returns, so that the server sees
 * every connection close cleanly. Any failure the client sees (a refused connect, a handshake that
 * fails or times out) ends the run with it.
 *
 * <p>Thread safety: {@link #run} on one thread, once; the connections are the loop thread's.
 */
public final class HandshakeLoad {
    private final LoopGroup group;
    private final SocketAddress address;
    private final int connections;
    private final TlsSettings tls;
    private final Tally tally = new Tally();
    /** The first failure, which ends the run. */
    private final CompletableFuture<Void> failed = new CompletableFuture<>();
    /** Completes once no connection is in flight after the rounds. */
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    /** {@code 0 <= inFlight <= connections}: connects begun whose connections have not closed. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Set after the last round: a closed connection is not replaced. */
    private volatile boolean stopping;
    private FrameClient client;

    /**
     * A load; nothing is connected until {@link #run}.
     *
     * @param group the loops of the connections; one, for a load on one thread
     * @param address the TLS server
     * @param connections connections in flight, at least 1
     * @param tls the client's TLS settings
     */
    public HandshakeLoad(LoopGroup group, SocketAddress address, int connections, TlsSettings tls) {
        if (connections < 1) {
            throw new IllegalArgumentException("connections=" + connections + " must be at least 1");
        }
        this.group = group;
        this.address = address;
        this.connections = connections;
        this.tls = tls;
    }

    /**
     * Runs {@code rounds} rounds of {@code roundMillis} each (the first from the first connect until
     * {@code roundMillis} after the first handshake) and reports each as it ends, then lets the
     * connections in flight complete and close.
     *
     * @param rounds rounds, at least 1
     * @param roundMillis each round's length in milliseconds, at least 1
     * @param report gets each round's figures as it ends
     * @throws IOException if a connect or a handshake fails, no handshake completes within the handshake
     *     timeout, or a round after the first completes none
     * @throws InterruptedException if interrupted while waiting
     */
    public void run(int rounds, long roundMillis, Consumer<ChildReport.Handshakes> report)
            throws IOException, InterruptedException {
        if (rounds < 1 || roundMillis < 1) {
            throw new IllegalArgumentException("rounds=" + rounds + " roundMillis=" + roundMillis
                    + ": both at least 1");
        }
        if (client != null) {
            throw new IllegalStateException("a load runs once");
        }
        client = FrameClient.builder(new Cycle()).group(group).tls(tls).build();
        try {
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long start = System.nanoTime();
            long cpuStart = os.getProcessCpuTime();
            for (int c = 0; c < connections; c++) {
                inFlight.incrementAndGet();
                begin();
            }
            long waitMillis = tls.handshakeTimeout().toMillis() + 10_000;
            try {
                CompletableFuture.anyOf(tally.first, failed).get(waitMillis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new IOException("no handshake completed in " + waitMillis + " ms, " + connections
                        + " connections to " + address, e);
            } catch (ExecutionException e) {
                throw failure(e);
            }
            for (int round = 1; round <= rounds; round++) {
                awaitFailure(roundMillis);
                long[] times = tally.take();
                long end = System.nanoTime();
                long cpuEnd = os.getProcessCpuTime();
                if (times.length == 0) {
                    throw new IOException("round " + round + ": no handshake completed in " + roundMillis + " ms, "
                            + connections + " connections to " + address);
                }
                Arrays.sort(times);
                double seconds = (end - start) / 1e9;
                report.accept(new ChildReport.Handshakes(round, connections, times.length, seconds,
                        times.length / seconds, (double) (cpuEnd - cpuStart) / (end - start), percentile(times, 50),
                        percentile(times, 99), times[times.length - 1] / 1000.0, Unit.MICROSECONDS));
                start = end;
                cpuStart = cpuEnd;
            }
            stopping = true;
            if (inFlight.get() == 0) {
                drained.complete(null);
            }
            try {
                CompletableFuture.anyOf(drained, failed).get(waitMillis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new IOException(inFlight.get() + " connections to " + address + " neither completed nor failed "
                        + "within the handshake timeout after the last round", e);
            } catch (ExecutionException e) {
                throw failure(e);
            }
        } finally {
            stopping = true;
            client.close();
        }
    }

    /** Waits {@code millis}, or throws the first failure as soon as it comes. */
    private void awaitFailure(long millis) throws IOException, InterruptedException {
        try {
            failed.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return; // the round's time is up, and nothing failed
        } catch (ExecutionException e) {
            throw failure(e);
        }
    }

    private static IOException failure(ExecutionException e) {
        Throwable cause = e.getCause();
        return cause instanceof IOException io ? new IOException(io.getMessage(), io)
                : new IOException(String.valueOf(cause), cause);
    }

    private static double percentile(long[] sorted, double p) {
        long rank = (long) Math.ceil(p / 100.0 * sorted.length);
        return sorted[(int) Math.max(0, rank - 1)] / 1000.0;
    }

    /** Begins one connection: on the caller's thread at first, then on the loop's as each closes. */
    private void begin() {
        long start = System.nanoTime();
        client.connect(address).whenComplete((c, failure) -> {
            if (failure == null) {
                tally.add(System.nanoTime() - start); // onOpen, just before, began its close
            }
            // a failure reaches onClose too, with the connection that never opened
        });
    }

    private void fail(IOException e) {
        failed.completeExceptionally(e);
    }

    /** Closes each connection once open, and replaces it with a new one, until the rounds are over. */
    private final class Cycle implements ConnectionHandler {
        @Override
        public void onOpen(Connection connection) {
            connection.close(); // a close_notify, then the end of stream; onClose begins the next
        }

        @Override
        public void onFrame(Connection connection, int type, ByteBuffer body) throws IOException {
            throw new IOException(connection + ": a frame from a server that was sent none, type=" + type);
        }

        @Override
        public void onClose(Connection connection, Throwable cause) {
            if (cause != null) {
                fail(new IOException(connection + " failed: " + cause, cause));
            } else if (!stopping) {
                begin();
                return; // in flight still: the new connection replaces this one
            }
            if (inFlight.decrementAndGet() == 0 && stopping) {
                drained.complete(null);
            }
        }
    }

    /**
     * The handshakes of the round under way: the loop thread adds, the caller of {@link #run} takes at
     * each round's end. Guarded by its monitor: a few thousand uncontended locks a second.
     */
    private static final class Tally {
        /** Completes at the first handshake. */
        final CompletableFuture<Void> first = new CompletableFuture<>();
        /** Handshake times of the round, nanoseconds, in {@code [0, count)}. */
        private long[] times = new long[4096];
        private int count;

        synchronized void add(long nanos) {
            if (count == times.length) {
                times = Arrays.copyOf(times, count * 2);
            }
            times[count++] = nanos;
            first.complete(null);
        }

        /** {@return the round's times, which begins the next round} */
        synchronized long[] take() {
            long[] taken = Arrays.copyOf(times, count);
            count = 0;
            return taken;
        }
    }
}
