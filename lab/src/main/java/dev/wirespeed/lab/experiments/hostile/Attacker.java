package dev.wirespeed.lab.experiments.hostile;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.linux.Affinity;
import dev.wirespeed.linux.NativeIoException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;

/**
 * The hostile connections of one {@link Attack}, opened from the lab's JVM to a server on loopback, and
 * the one thread that keeps attacking through them (for {@link Attack#DRIP} and {@link Attack#NO_READ})
 * until the attacker is closed. Opening returns once every connection is connected and has sent what
 * the attack sends first: {@link Attack#ANNOUNCED}'s {@value #ANNOUNCED_BYTES} bytes, {@link
 * Attack#DRIP}'s first byte.
 *
 * <p>For every connection {@code c}: {@code 0 <= sent(c) <= limit}, where the limit is {@value
 * #ANNOUNCED_BYTES} for {@link Attack#ANNOUNCED}, {@link #DRIP_FRAME}{@code .length - 1} for {@link
 * Attack#DRIP}, 0 for {@link Attack#FLOOD}, {@value #NO_READ_LIMIT} for {@link Attack#NO_READ}, {@value
 * #TLS_RECORD_BYTES} for {@link Attack#TLS_RECORD} (after the handshake, whose bytes are not counted)
 * and one ClientHello for {@link Attack#TLS_HANDSHAKE}. A connection the server closes stops being
 * attacked; it counts in {@link #broken()}. No connection reads, but for {@link Attack#TLS_RECORD}'s
 * handshake. {@code 0 <= held() <= connections()}: the connections the server has neither closed nor
 * reset, whether or not a write has shown it.
 *
 * <p>Thread safety: opened, read by {@link #held} and closed by one thread; {@link #sent}, {@link
 * #totalSent} and {@link #broken} may be read from any thread.
 */
final class Attacker implements AutoCloseable {
    /** Body bytes an {@link Attack#ANNOUNCED} connection sends of the 16 MiB it announces. */
    static final int ANNOUNCED_BODY = 16;
    /** All an {@link Attack#ANNOUNCED} connection sends: a header and {@value #ANNOUNCED_BODY} body bytes. */
    static final int ANNOUNCED_BYTES = FrameFormat.HEADER_LENGTH + ANNOUNCED_BODY;
    /** The body of the frame a {@link Attack#DRIP} connection drips. */
    static final int DRIP_BODY = 100;
    /** The time between two bytes of a {@link Attack#DRIP} connection. */
    static final long DRIP_INTERVAL_MILLIS = 1_000;
    /** Body bytes of each frame a {@link Attack#NO_READ} connection sends. */
    static final int NO_READ_BODY = 100;
    /** The frames a {@link Attack#NO_READ} connection sends, over and over: 600 whole frames. */
    static final int NO_READ_BLOCK = 600 * (FrameFormat.HEADER_LENGTH + NO_READ_BODY);
    /** The most a {@link Attack#NO_READ} connection sends: 256 blocks, about 16 MB, whole frames. */
    static final long NO_READ_LIMIT = 256L * NO_READ_BLOCK;
    /** The longest TLS record a peer may send: 2^14 bytes of plaintext and 256 of expansion. */
    static final int TLS_RECORD_LENGTH = 16 * 1024 + 256;
    /** All a {@link Attack#TLS_RECORD} connection sends after its handshake: a record header and 16 bytes. */
    static final int TLS_RECORD_BYTES = 5 + ANNOUNCED_BODY;
    /** The frame type every attacking frame carries. */
    static final int TYPE = 7;

    /** The frame a {@link Attack#DRIP} connection drips: it sends all of it but the last byte. */
    static final byte[] DRIP_FRAME = frame(DRIP_BODY);

    private final Attack attack;
    private final List<SocketChannel> channels;
    /** Each connection's local port, set as it connects. */
    private final int[] localPorts;
    /** Bytes sent on each connection: written by the opening thread, then by the attacking thread alone. */
    private final AtomicLongArray sent;
    /** Per connection, 1 once its server closed it (a write failed). */
    private final AtomicLongArray failed;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Duration dripInterval;
    private final int cpu;
    private final SSLContext tls;
    private final InetSocketAddress server;
    private Thread thread;
    private Selector selector;

    private Attacker(Attack attack, InetSocketAddress server, int connections, Duration dripInterval, int cpu,
            SSLContext tls) {
        this.attack = attack;
        this.server = server;
        this.tls = tls;
        this.channels = new ArrayList<>(connections);
        this.localPorts = new int[connections];
        this.sent = new AtomicLongArray(connections);
        this.failed = new AtomicLongArray(connections);
        this.dripInterval = dripInterval;
        this.cpu = cpu;
    }

    /**
     * {@return an attack in place}: {@code connections} connections to {@code server}, each having sent
     * what the attack sends first, with the attacking thread (if the attack has one) pinned to {@code cpu}
     *
     * @param attack the attack
     * @param server a TCP address on this host
     * @param connections how many hostile connections, {@code >= 1}
     * @param cpu the CPU of the attacking thread, or -1 for unpinned
     * @throws IOException if a connection fails, naming which, or sending what the attack sends first
     *     fails (a TLS handshake); those opened are closed
     */
    static Attacker open(Attack attack, InetSocketAddress server, int connections, int cpu) throws IOException {
        return open(attack, server, connections, Duration.ofMillis(DRIP_INTERVAL_MILLIS), cpu, null);
    }

    /**
     * {@return an attack as {@link #open(Attack, InetSocketAddress, int, int)} opens it, on TLS where the
     * attack is}
     *
     * @param tls for the TLS attacks, the client context (trusting the server), else null
     */
    static Attacker open(Attack attack, InetSocketAddress server, int connections, int cpu, SSLContext tls)
            throws IOException {
        return open(attack, server, connections, Duration.ofMillis(DRIP_INTERVAL_MILLIS), cpu, tls);
    }

    /**
     * {@return an attack as {@link #open(Attack, InetSocketAddress, int, int, SSLContext)} opens it,
     * dripping at another pace}
     *
     * @param dripInterval the time between two bytes of {@link Attack#DRIP}, positive
     */
    static Attacker open(Attack attack, InetSocketAddress server, int connections, Duration dripInterval, int cpu,
            SSLContext tls) throws IOException {
        if (connections < 1 || dripInterval.isNegative() || dripInterval.isZero() || attack.tls() != (tls != null)) {
            throw new IllegalArgumentException("connections=" + connections + " must be >= 1, dripInterval="
                    + dripInterval + " positive, and a TLS context given for the TLS attacks alone: attack=" + attack
                    + " tls=" + tls);
        }
        Attacker attacker = new Attacker(attack, server, connections, dripInterval, cpu, tls);
        try {
            for (int c = 0; c < connections; c++) {
                SocketChannel channel = SocketChannel.open();
                attacker.channels.add(channel);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.connect(server);
                attacker.localPorts[c] = ((InetSocketAddress) channel.getLocalAddress()).getPort();
                if (attack == Attack.TLS_RECORD) {
                    // Each handshake done before the next connection opens: the server caps the handshakes
                    // in progress on a loop (maxHandshakes), and this attack is about what comes after them.
                    attacker.handshake(c);
                }
            }
        } catch (IOException e) {
            attacker.close();
            throw new IOException("attack '" + attack.label() + "': connection " + attacker.channels.size() + " of "
                    + connections + " to " + server + " failed: " + e.getMessage(), e);
        }
        try {
            attacker.begin();
        } catch (IOException e) {
            attacker.close();
            throw new IOException("attack '" + attack.label() + "': " + connections + " connections to " + server
                    + " opened, then sending failed: " + e.getMessage(), e);
        }
        return attacker;
    }

    /** Shakes hands on connection {@code c}, through a socket layered on it and never closed, which leaves it as it is. */
    private void handshake(int c) throws IOException {
        SSLSocket handshaken = (SSLSocket) tls.getSocketFactory().createSocket(channels.get(c).socket(), "localhost",
                server.getPort(), false);
        handshaken.startHandshake();
    }

    /** Sends what the attack sends first, and starts its thread. */
    private void begin() throws IOException {
        switch (attack) {
            case ANNOUNCED -> {
                ByteBuffer announced = ByteBuffer.allocate(ANNOUNCED_BYTES)
                        .putLong(FrameFormat.header(TYPE, FrameFormat.DEFAULT_MAX_FRAME_LENGTH))
                        .put(new byte[ANNOUNCED_BODY]);
                for (int c = 0; c < channels.size(); c++) {
                    send(c, announced.flip());
                }
            }
            case DRIP -> {
                for (int c = 0; c < channels.size(); c++) {
                    send(c, ByteBuffer.wrap(DRIP_FRAME, 0, 1));
                }
                start(this::drip);
            }
            case FLOOD -> { } // connected is all it does
            case TLS_RECORD -> {
                ByteBuffer partial = ByteBuffer.allocate(TLS_RECORD_BYTES).put((byte) 23).putShort((short) 0x0303)
                        .putShort((short) TLS_RECORD_LENGTH).put(new byte[ANNOUNCED_BODY]);
                for (int c = 0; c < channels.size(); c++) {
                    send(c, partial.flip()); // each connection's handshake was done as it opened
                }
            }
            case TLS_HANDSHAKE -> {
                for (int c = 0; c < channels.size(); c++) {
                    SSLEngine engine = tls.createSSLEngine("localhost", server.getPort());
                    engine.setUseClientMode(true);
                    ByteBuffer hello = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
                    engine.beginHandshake();
                    engine.wrap(ByteBuffer.allocate(0), hello);
                    try {
                        send(c, hello.flip());
                    } catch (IOException e) {
                        // Reset by the server, the oldest of its handshakes in progress past its cap (maxHandshakes):
                        // its defence; the rest go on.
                    }
                }
            }
            case NO_READ -> {
                selector = Selector.open();
                for (int c = 0; c < channels.size(); c++) {
                    channels.get(c).configureBlocking(false).register(selector, SelectionKey.OP_WRITE, c);
                }
                start(this::flood);
            }
        }
    }

    /** Sends all of {@code bytes} on blocking connection {@code c}. */
    private void send(int c, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            sent.addAndGet(c, channels.get(c).write(bytes));
        }
    }

    private void start(Runnable attacking) {
        thread = Thread.ofPlatform().name("attack-" + attack.id()).daemon().start(() -> {
            pin();
            attacking.run();
        });
    }

    private void pin() {
        if (cpu < 0) {
            return;
        }
        try {
            BitSet one = new BitSet();
            one.set(cpu);
            Affinity.pinCurrentThread(one);
        } catch (NativeIoException | UnsupportedOperationException e) {
            // the attack runs unpinned: what it does is unchanged
        }
    }

    /** {@link Attack#DRIP}: one more byte on every connection each interval, never the frame's last. */
    private void drip() {
        try {
            for (int next = 1; next < DRIP_FRAME.length - 1; next++) {
                if (stop.await(dripInterval.toNanos(), TimeUnit.NANOSECONDS)) {
                    return;
                }
                for (int c = 0; c < channels.size(); c++) {
                    if (failed.get(c) == 0) {
                        try {
                            send(c, ByteBuffer.wrap(DRIP_FRAME, next, 1));
                        } catch (IOException e) {
                            failed.set(c, 1);
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@link Attack#NO_READ}: whole frames on every connection as fast as it takes them, up to the limit. */
    private void flood() {
        ByteBuffer block = ByteBuffer.allocateDirect(NO_READ_BLOCK);
        byte[] frame = frame(NO_READ_BODY);
        while (block.hasRemaining()) {
            block.put(frame);
        }
        try {
            while (stop.getCount() > 0 && !selector.keys().isEmpty()) {
                selector.select(100);
                for (Iterator<SelectionKey> keys = selector.selectedKeys().iterator(); keys.hasNext(); ) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    int c = (Integer) key.attachment();
                    long done = sent.get(c);
                    int offset = (int) (done % NO_READ_BLOCK);
                    ByteBuffer rest = block.duplicate().limit((int) Math.min(NO_READ_BLOCK, offset + NO_READ_LIMIT - done))
                            .position(offset);
                    try {
                        done += ((SocketChannel) key.channel()).write(rest);
                    } catch (IOException e) {
                        failed.set(c, 1);
                        key.cancel();
                        continue;
                    }
                    sent.set(c, done);
                    if (done == NO_READ_LIMIT) {
                        key.cancel();
                    }
                }
            }
        } catch (IOException e) {
            // the selector failed: the attack stops where it is, and its figures say how far it got
        }
    }

    /**
     * Waits until the attack is in place: at once for the attacks that send once or drip; for {@link
     * Attack#NO_READ}, until no connection has sent a byte for {@code quiet} (each is blocked, or at its
     * limit), or {@code most} has passed.
     *
     * @param quiet how long nothing may be sent
     * @param most the longest wait
     * @throws InterruptedException if interrupted
     */
    void awaitInPlace(Duration quiet, Duration most) throws InterruptedException {
        if (attack != Attack.NO_READ) {
            return;
        }
        long deadline = System.nanoTime() + most.toNanos();
        long last = totalSent();
        while (System.nanoTime() < deadline) {
            Thread.sleep(quiet);
            long now = totalSent();
            if (now == last) {
                return;
            }
            last = now;
        }
    }

    /** {@return how many hostile connections there are} */
    int connections() {
        return channels.size();
    }

    /**
     * {@return the bytes connection {@code c} has sent so far}
     *
     * @param c from 0 to {@link #connections()} - 1
     */
    long sent(int c) {
        return sent.get(c);
    }

    /** {@return the bytes every connection has sent so far, together} */
    long totalSent() {
        long total = 0;
        for (int c = 0; c < channels.size(); c++) {
            total += sent.get(c);
        }
        return total;
    }

    /** {@return how many connections the server has closed, as far as a failed write has shown} */
    int broken() {
        int broken = 0;
        for (int c = 0; c < channels.size(); c++) {
            broken += (int) failed.get(c);
        }
        return broken;
    }

    /**
     * {@return how many connections the server holds}: those whose end here the kernel still counts
     * established, the server having neither closed them (they would be waiting for this end's close) nor
     * reset them. A connection counts from its connect on, accepted by the server or still in its backlog:
     * a round trip on a new connection, which the server accepts after these, makes sure it has accepted them.
     *
     * @throws IOException if the kernel's table of TCP connections cannot be read
     */
    int held() throws IOException {
        BitSet established = Established.localPorts(server);
        int held = 0;
        for (int c = 0; c < channels.size(); c++) {
            held += established.get(localPorts[c]) ? 1 : 0;
        }
        return held;
    }

    /** Stops the attacking thread and closes every connection. */
    @Override
    public void close() throws IOException {
        stop.countDown();
        if (selector != null) {
            selector.wakeup();
        }
        if (thread != null) {
            try {
                thread.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        IOException first = null;
        for (SocketChannel channel : channels) {
            try {
                channel.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (selector != null) {
            selector.close();
        }
        if (first != null) {
            throw first;
        }
    }

    /** {@return a whole frame of type {@value #TYPE} and {@code body} zero bytes} */
    private static byte[] frame(int body) {
        return ByteBuffer.allocate(FrameFormat.HEADER_LENGTH + body).putLong(FrameFormat.header(TYPE, body)).array();
    }
}
