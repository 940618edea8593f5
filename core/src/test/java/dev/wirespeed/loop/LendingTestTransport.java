package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport for tests of the loop's lending path: the JDK's sockets ({@link SelectorTransport}), each
 * connection a {@link LendingEndpoint} that receives all the socket has into a buffer of its own, at a
 * random offset, lends it in pieces of random size (from one byte to more than a chunk), and scribbles
 * over the bytes the loop consumes, so that a body used after it was given back arrives corrupted at the peer.
 */
final class LendingTestTransport implements LoopTransport {
    /** Filled into a given-back buffer. */
    static final byte SCRIBBLE = (byte) 0xEE;
    private static final int BUFFER = 96 * 1024;

    private final long seed;
    private final boolean bytes;
    private int made; // connections made so far, each with a seed of its own
    /** The most lends one connection made within one poll, since the transport was made. */
    private final AtomicInteger mostLends = new AtomicInteger();

    /** Lends in pieces of random size. */
    LendingTestTransport(long seed) {
        this(seed, false);
    }

    /** Lends in pieces of random size, or of a byte each where {@code bytes}. */
    LendingTestTransport(long seed, boolean bytes) {
        this.seed = seed;
        this.bytes = bytes;
    }

    /** {@return the most lends one connection made within one poll (one of the loop's turns)} */
    int mostLendsInATurn() {
        return mostLends.get();
    }

    @Override
    public String name() {
        return "lending-test";
    }

    @Override
    public Poller openPoller() throws IOException {
        return new LendingPoller(SelectorTransport.INSTANCE.openPoller());
    }

    @Override
    public Listener listen(SocketAddress address, int backlog) throws IOException {
        return new LendingListener(SelectorTransport.INSTANCE.listen(address, backlog));
    }

    @Override
    public Endpoint connect(SocketAddress address) throws IOException {
        return new Lending(SelectorTransport.INSTANCE.connect(address), new Random(seed + made++), this);
    }

    /** The selector's listener, its connections made to lend. */
    final class LendingListener implements Listener {
        final Listener inner;

        LendingListener(Listener inner) {
            this.inner = inner;
        }

        @Override
        public SocketAddress localAddress() {
            return inner.localAddress();
        }

        @Override
        public Endpoint accept() throws IOException {
            Endpoint e = inner.accept();
            return e == null ? null : new Lending(e, new Random(seed + made++), LendingTestTransport.this);
        }

        @Override
        public void close() throws IOException {
            inner.close();
        }
    }

    /** One connection: what it received waits in {@code [from, to)} of its buffer until given back. */
    static final class Lending implements LendingEndpoint {
        final Endpoint inner;
        private final Random random;
        private final LendingTestTransport transport;
        /** Its poller once registered; the poll of its last lend, and its lends within that poll. */
        LendingPoller poller;
        private int lendPoll;
        private int lendsInPoll;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
        private final ByteBuffer readOnly = buffer.asReadOnlyBuffer();
        /** Received bytes {@code [from, end)}; of them {@code [from, to)} lent, or none when {@code to == from}. */
        private int from;
        private int to;
        private int end;
        /** What the last receive met, for the {@link #ended()} that follows an empty lend: -1 at the end, or a failure. */
        private int ended;
        private IOException failed;
        Object attachment;
        int interest;
        /** Index in the poller's table, -1 once deregistered; the poll that last handed it over. */
        int slot = -1;
        int handedAt;

        Lending(Endpoint inner, Random random, LendingTestTransport transport) {
            this.inner = inner;
            this.random = random;
            this.transport = transport;
        }

        boolean holds() {
            return end > from;
        }

        @Override
        public ByteBuffer lend() {
            if (poller != null) {
                if (lendPoll != poller.polls) {
                    lendPoll = poller.polls;
                    lendsInPoll = 0;
                }
                transport.mostLends.accumulateAndGet(++lendsInPoll, Math::max);
            }
            if (!holds()) {
                // Everything the socket has, as io_uring's receive takes it, so that a close leaves nothing unread.
                int at = random.nextInt(64);
                buffer.limit(BUFFER).position(at);
                int n;
                try {
                    n = inner.read(buffer);
                } catch (IOException e) {
                    failed = e; // for the ended() the loop asks next
                    n = 0;
                }
                buffer.clear();
                if (n <= 0) {
                    ended = n;
                    return null;
                }
                from = to = at;
                end = at + n;
            }
            if (to == from) { // a new piece of what was received, of random size
                int piece = transport.bytes ? 1 : random.nextInt(4) == 0 ? 1 + random.nextInt(16)
                        : 1 + random.nextInt(BUFFER);
                to = from + Math.min(end - from, piece);
            }
            readOnly.limit(to).position(from);
            return readOnly;
        }

        @Override
        public void consume(int n) {
            if (n < 0 || n > to - from) {
                throw new IllegalArgumentException("n=" + n + " lent=" + (to - from));
            }
            for (int i = from; i < from + n; i++) {
                buffer.put(i, SCRIBBLE);
            }
            from += n;
        }

        @Override
        public boolean ended() throws IOException {
            if (holds()) {
                return false;
            }
            if (failed != null) {
                throw failed;
            }
            return ended < 0;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (failed != null) {
                throw failed;
            }
            if (ended < 0) {
                return -1;
            }
            if (!holds()) {
                return inner.read(dst);
            }
            int n = Math.min(dst.remaining(), end - from);
            dst.put(dst.position(), buffer, from, n).position(dst.position() + n);
            from += n;
            to = Math.max(to, from);
            return n;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return inner.write(src);
        }

        @Override
        public SocketAddress remoteAddress() {
            return inner.remoteAddress();
        }

        @Override
        public void shutdownOutput() throws IOException {
            inner.shutdownOutput();
        }

        @Override
        public boolean finishConnect() throws IOException {
            return inner.finishConnect();
        }

        @Override
        public void reset() {
            from = to = end = 0;
            inner.reset();
        }

        @Override
        public boolean isOpen() {
            return inner.isOpen();
        }

        @Override
        public void close() throws IOException {
            from = to = end = 0;
            inner.close();
        }
    }

    /**
     * The selector's readiness, and besides it each connection that holds bytes and is wanted for
     * reading, as the socket itself may have nothing left; each handed over once per poll. Allocates
     * nothing per poll, as the loop under it must not.
     */
    static final class LendingPoller implements Poller {
        private final Poller inner;
        /** {@code registered[0, count)}: null where deregistered, compacted at each poll. */
        private Lending[] registered = new Lending[16];
        private int count;
        int polls;
        private Ready outer;
        private final Ready fromSockets = this::fromSocket;

        LendingPoller(Poller inner) {
            this.inner = inner;
        }

        @Override
        public void register(Endpoint endpoint, Object attachment, int ops) throws IOException {
            Lending e = (Lending) endpoint;
            e.attachment = attachment;
            e.interest = ops;
            e.poller = this;
            inner.register(e.inner, e, ops);
            if (count == registered.length) {
                registered = Arrays.copyOf(registered, count * 2);
            }
            e.slot = count;
            registered[count++] = e;
        }

        @Override
        public void register(Listener listener, Object attachment) throws IOException {
            inner.register(((LendingListener) listener).inner, attachment);
        }

        @Override
        public void interest(Listener listener, int ops) throws IOException {
            inner.interest(((LendingListener) listener).inner, ops);
        }

        @Override
        public void interest(Endpoint endpoint, int ops) throws IOException {
            Lending e = (Lending) endpoint;
            e.interest = ops;
            inner.interest(e.inner, ops);
        }

        @Override
        public void deregister(Endpoint endpoint) {
            Lending e = (Lending) endpoint;
            registered[e.slot] = null;
            e.slot = -1;
            inner.deregister(e.inner);
        }

        @Override
        public int poll(long timeoutMillis, Ready ready) throws IOException {
            int live = 0;
            for (int i = 0; i < count; i++) {
                Lending e = registered[i];
                if (e != null) {
                    e.slot = live;
                    registered[live++] = e;
                }
            }
            Arrays.fill(registered, live, count, null);
            count = live;
            polls++;
            int handed = 0;
            for (int i = 0, n = count; i < n; i++) {
                Lending e = registered[i]; // null if an earlier one's handler closed it
                if (e != null && e.holds() && (e.interest & READ) != 0) {
                    e.handedAt = polls;
                    handed++;
                    ready.ready(e.attachment, READ);
                }
            }
            outer = ready;
            return handed + inner.poll(handed == 0 ? timeoutMillis : 0, fromSockets);
        }

        private void fromSocket(Object attachment, int ops) {
            if (attachment instanceof Lending e) {
                if (e.handedAt != polls && e.slot >= 0) {
                    outer.ready(e.attachment, ops);
                }
            } else {
                outer.ready(attachment, ops); // a listener
            }
        }

        @Override
        public void wakeup() {
            inner.wakeup();
        }

        @Override
        public void close() throws IOException {
            inner.close();
        }
    }
}
