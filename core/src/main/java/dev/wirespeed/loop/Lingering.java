package dev.wirespeed.loop;

import dev.wirespeed.loop.Connection.Closer;
import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.internal.Chunk;
import dev.wirespeed.loop.internal.SegmentIo;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The sockets of a loop's closed connections that still read and drop what their peers send (see
 * {@link Connection}'s "Closing"): after a graceful close the output is shut down and the socket kept
 * open until the peer's end of stream, a failure or {@code lingerTimeout}, because a socket closed
 * with input unread resets its peer, which can cost the peer replies it has not read yet. Also the one
 * place a loop's sockets are released.
 *
 * <p>{@code lingering[0, count)} are the lingering connections, each knowing its slot
 * ({@code c.lingerSlot}) and its deadline ({@code c.lingerUntil}, loop time).
 *
 * <p>Thread safety: the loop's thread.
 */
final class Lingering {
    /** How often a blocked loop with lingering sockets wakes to close those past their deadline. */
    static final long CHECK_MILLIS = 50;

    private final Poller poller;
    private final BufferPool pool;
    private Connection[] lingering = new Connection[16];
    private int count;

    Lingering(Poller poller, BufferPool pool) {
        this.poller = poller;
        this.pool = pool;
    }

    /** {@return the sockets lingering} */
    int count() {
        return count;
    }

    /**
     * Shuts {@code c}'s output down and keeps its socket reading, to drop what the peer still sends;
     * {@return false where lingering is off or the endpoint cannot, and so the caller closes it now}
     */
    boolean start(Connection c, long now) {
        // 0 for no lingering: a graceful close closes at once. Over TLS it waits for the peer's close_notify.
        long lingerNanos = c.tls != null ? c.tls.closeNanos() : c.owner.lingerNanos;
        if (lingerNanos == 0) {
            return false;
        }
        try {
            c.channel.shutdownOutput();
            if (c.interest != Poller.READ) {
                c.watchedFor(Poller.READ);
                poller.interest(c.channel, Poller.READ);
            }
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        } catch (RuntimeException | Error e) {
            // The endpoint's failure (an OutOfMemoryError, a bug), in the middle of closeNow: told, and the
            // socket closed now, so that closing goes on to the handler's onClose.
            Closer.report(e);
            return false;
        }
        if (count == lingering.length) {
            lingering = Arrays.copyOf(lingering, count * 2);
        }
        c.lingers(now + lingerNanos, count);
        lingering[count++] = c;
        return true;
    }

    /**
     * Drops what a lingering connection's peer sent: lent bytes consumed where they lie, else a few
     * chunks read a turn (the other connections come first); its end of stream or a failure closes the socket.
     */
    void dropInput(Connection c) {
        try {
            if (c.lender != null) {
                if (c.tls != null) {
                    c.tls.beginTurn();
                }
                dropLent(c, c.lender);
            } else {
                dropRead(c);
            }
        } catch (IOException e) {
            end(c, true);
        } catch (RuntimeException | Error e) {
            // The endpoint's bug, or out of memory: reported once, not at each turn its readiness comes back.
            end(c, true);
            Closer.report(e);
        }
    }

    private void dropLent(Connection c, LendingEndpoint lender) throws IOException {
        for (ByteBuffer data; (data = lender.lend()) != null; ) {
            lender.consume(data.remaining());
        }
        if (lender.ended()) {
            end(c, false);
        }
    }

    private void dropRead(Connection c) throws IOException {
        Chunk scratch = pool.take();
        try {
            ByteBuffer b = scratch.buf;
            for (int reads = 0; reads < 4; reads++) {
                b.limit(b.capacity()).position(0);
                SegmentIo io = c.io;
                int n = io != null ? io.read(b, scratch.memory) : c.channel.read(b);
                if (n < 0) {
                    end(c, false);
                    return;
                }
                if (n == 0) {
                    return;
                }
            }
        } finally {
            pool.give(scratch);
        }
    }

    /** Closes the sockets past their deadline. */
    void sweep(long now) {
        for (int i = count - 1; i >= 0; i--) {
            Connection c = lingering[i];
            if (now - c.lingerUntil >= 0) {
                end(c, false);
            }
        }
    }

    /** Closes every lingering socket: at the loop's end. */
    void endAll() {
        while (count > 0) {
            end(lingering[count - 1], false);
        }
    }

    /** Closes a lingering connection's socket: at its peer's end of stream, a failure, its deadline or the loop's end. */
    private void end(Connection c, boolean reset) {
        int slot = c.lingerSlot;
        Connection last = lingering[--count];
        lingering[slot] = last;
        last.lingeringAt(slot);
        lingering[count] = null;
        c.lingerEnded();
        release(c.channel, reset);
        if (c.tls != null) {
            c.tls.release();
        }
    }

    /**
     * Takes {@code ch} from the poller and closes it: with a reset where asked, else quietly. What the
     * poller or the endpoint throws but an IOException (an {@code Error}, a bug) goes to the thread's
     * uncaught-exception handler: a close that fails is no reason to leave the rest of a connection's
     * close undone, nor, from a sweep of the loop's timeouts, to fail the loop and every connection on it.
     */
    void release(Endpoint ch, boolean reset) {
        try {
            poller.deregister(ch);
        } catch (RuntimeException | Error e) {
            Closer.report(e); // the socket is closed all the same, which takes it from the poller
        }
        try {
            if (reset) {
                ch.reset();
            } else {
                ch.close();
            }
        } catch (IOException ignored) {
            // closing a socket releases its descriptor even when it reports an error
        } catch (RuntimeException | Error e) {
            Closer.report(e);
        }
    }
}
