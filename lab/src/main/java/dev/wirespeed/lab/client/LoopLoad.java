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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The lab's load generator on the library's own client loop: what {@code many load} (the C generator)
 * does, over a {@link FrameClient} on one loop of a {@link LoopGroup}. It opens {@code connections}
 * connections, keeps {@code window} frames of {@code size} body bytes in flight on each, checks every
 * echo byte for byte, and reports each round as the C generator does ({@link ChildReport.Load}): frames,
 * seconds, frames a second, this process's CPU share, and the time from each frame's send to its echo.
 *
 * <p>The frames are the C generator's: frame {@code i} of connection {@code c} has type {@code i} and
 * body bytes counting up from {@code 31 * c + i}, modulo 256.
 *
 * <p>Thread safety: {@link #run} on one thread; the connections' state is the loop thread's.
 */
public final class LoopLoad {
    private final LoopGroup group;
    private final SocketAddress address;
    private final int connections;
    private final long frames;
    private final int window;
    private final int size;
    private final TlsSettings tls;
    /** Bytes 0 to 255, then again up to {@code size} more: a body is the slice from its first byte's value. */
    private final ByteBuffer ramp;
    private final List<Connection> open = new ArrayList<>();
    /** Send-to-echo times of the round, nanoseconds; written by the loop thread. */
    private final long[] latencies;
    private int recorded;
    private int done;
    private long roundEnd;
    private CompletableFuture<Long> roundDone;

    /**
     * A generator; nothing is connected until {@link #run}.
     *
     * @param group one loop, the connections' thread
     * @param address the echo server
     * @param connections connections, at least 1
     * @param frames frames per connection per round, at least 1
     * @param window frames in flight per connection, at least 1
     * @param size body bytes per frame, 0 to 65,536
     * @param tls the connections' TLS, or null for plaintext
     */
    public LoopLoad(LoopGroup group, SocketAddress address, int connections, long frames, int window, int size,
            TlsSettings tls) {
        if (group.loopCount() != 1 || connections < 1 || frames < 1 || window < 1 || size < 0 || size > 65_536
                || (long) connections * frames > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("loops=" + group.loopCount() + " connections=" + connections + " frames="
                    + frames + " window=" + window + " size=" + size + ": one loop, connections, frames and window at "
                    + "least 1, size 0 to 65536, connections x frames below 2^31");
        }
        this.group = group;
        this.address = address;
        this.connections = connections;
        this.frames = frames;
        this.window = window;
        this.size = size;
        this.tls = tls;
        byte[] bytes = new byte[256 + size];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        this.ramp = ByteBuffer.wrap(bytes);
        this.latencies = new long[Math.toIntExact(connections * frames)];
    }

    /** One connection's place in the stream. */
    private static final class Peer {
        final int index;
        int nextSend;
        int nextEcho;
        int roundEnd;
        final long[] sentAt;

        Peer(int index, int window) {
            this.index = index;
            this.sentAt = new long[window];
        }
    }

    /**
     * Connects, runs {@code rounds} rounds and reports each, then closes the connections.
     *
     * @param rounds rounds, at least 1
     * @param report gets each round's figures as it ends
     * @throws IOException if a connect fails, the server closes a connection, or an echo is not the frame sent
     * @throws InterruptedException if interrupted while waiting for a connect or a round
     */
    public void run(int rounds, Consumer<ChildReport.Load> report) throws IOException, InterruptedException {
        FrameClient.Builder builder = FrameClient.builder(new Echoes()).group(group);
        if (tls != null) {
            builder.tls(tls);
        }
        FrameClient client = builder.build();
        try {
            for (int c = 0; c < connections; c++) { // one at a time, as the C generator connects
                await(client.connect(address), "connect " + c + " to " + address);
            }
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            for (int round = 1; round <= rounds; round++) {
                long cpuStart = os.getProcessCpuTime();
                long start = System.nanoTime();
                CompletableFuture<Long> ended = new CompletableFuture<>();
                open.getFirst().execute(() -> startRound(ended));
                long end;
                try {
                    end = ended.get(5, TimeUnit.MINUTES);
                } catch (ExecutionException | TimeoutException e) {
                    throw new IOException("round " + round + ": " + (e.getCause() == null ? "no end within 5 minutes"
                            : e.getCause().getMessage()), e);
                }
                long cpu = os.getProcessCpuTime() - cpuStart;
                double seconds = (end - start) / 1e9;
                long[] sorted = Arrays.copyOf(latencies, recorded);
                Arrays.sort(sorted);
                report.accept(new ChildReport.Load(round, connections, 0, recorded, seconds, recorded / seconds,
                        (double) cpu / (end - start), percentile(sorted, 50), percentile(sorted, 99),
                        percentile(sorted, 99.9), sorted[sorted.length - 1] / 1000.0, Unit.MICROSECONDS));
            }
        } finally {
            client.close();
        }
    }

    private static double percentile(long[] sorted, double p) {
        long rank = (long) Math.ceil(p / 100.0 * sorted.length);
        return sorted[(int) Math.max(0, rank - 1)] / 1000.0;
    }

    private static <T> T await(CompletableFuture<T> f, String what) throws IOException, InterruptedException {
        try {
            return f.get(1, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw new IOException(what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(what + ": no answer within a minute", e);
        }
    }

    /** On the loop thread: each connection's round begins with a window of frames. */
    private void startRound(CompletableFuture<Long> ended) {
        recorded = 0;
        done = 0;
        roundDone = ended;
        long now = System.nanoTime();
        for (Connection c : open) {
            Peer p = (Peer) c.attachment();
            p.roundEnd = (int) (p.nextSend + frames);
            send(c, p, now);
        }
    }

    /** Sends frames until the window or the round is full; each stamped with {@code now}, when it was queued. */
    private void send(Connection c, Peer p, long now) {
        while (p.nextSend != p.roundEnd && p.nextSend - p.nextEcho < window) {
            int first = (31 * p.index + p.nextSend) & 0xff;
            ramp.limit(first + size).position(first);
            c.writeFrame(p.nextSend, ramp);
            p.sentAt[Integer.remainderUnsigned(p.nextSend, window)] = now;
            p.nextSend++;
        }
    }

    /** Checks each echo, records its time and sends the next frame. */
    private final class Echoes implements ConnectionHandler {
        @Override
        public void onOpen(Connection c) {
            c.attach(new Peer(open.size(), window));
            open.add(c); // read by run() once every connect's future has completed
        }

        @Override
        public void onFrame(Connection c, int type, ByteBuffer body) throws IOException {
            Peer p = (Peer) c.attachment();
            if (p == null || p.nextEcho == p.roundEnd) {
                throw new IOException("connection " + c + ": an echo nobody sent, type=" + type);
            }
            int first = (31 * p.index + p.nextEcho) & 0xff;
            ramp.limit(first + size).position(first);
            if (type != p.nextEcho || !body.equals(ramp)) {
                throw new IOException("connection " + c + ": echo " + p.nextEcho + " is not the frame sent: type="
                        + type + " length=" + body.remaining());
            }
            long now = System.nanoTime();
            latencies[recorded++] = now - p.sentAt[Integer.remainderUnsigned(p.nextEcho, window)];
            p.nextEcho++;
            if (p.nextEcho == p.roundEnd) {
                if (++done == connections) {
                    roundDone.complete(now);
                }
            } else {
                send(c, p, now);
            }
        }

        @Override
        public void onClose(Connection c, Throwable cause) {
            CompletableFuture<Long> round = roundDone;
            if (round != null && !round.isDone()) {
                round.completeExceptionally(new IOException(c + " closed: " + cause, cause));
            }
        }
    }
}
