package dev.wirespeed.loop;

import dev.wirespeed.loop.Connection.Closer;
import dev.wirespeed.loop.Connection.FlushList;
import dev.wirespeed.loop.Connection.LoopThread;
import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.internal.Chunk;
import dev.wirespeed.loop.internal.SegmentIo;
import dev.wirespeed.loop.internal.TakesOutput;
import dev.wirespeed.loop.spi.Poller;
import dev.wirespeed.loop.tls.TlsLayer;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A loop's sending: the frames its connections queue, each in its own pooled chunks, sent in writes of
 * whole chunks at the end of the connection's read (what its own handler wrote) or of the turn (what
 * other handlers and tasks wrote), and backpressure. A connection whose queued output reaches its
 * {@code outputLimit} is paused (not read) as it is written to, until its output drains to half the
 * limit, when this resumes it and its handler hears {@link ConnectionHandler#onWritable}; what the
 * socket would not take waits for it to be writable. Over an endpoint that sends from the chunks where they lie ({@link TakesOutput}), the
 * output counted is what is queued and what was handed to the endpoint and not yet given back, so
 * that a peer that does not read is stopped at the same point as over a socket that copies.
 *
 * <p>Each connection keeps its own output: its chunks, oldest first, what is queued and what its
 * endpoint took, whether it is paused, dirty (written to and not flushed since; in the turn's {@link
 * Connection.FlushList}, where its writes put it) and what the poller watches it for; this class decides
 * what to send and when to resume, and asks the connection to record it through its operations.
 * Frames are whole in a chunk when written; frames written back as received may be split between two.
 *
 * <p>Thread safety: the loop's thread.
 */
final class Outbound {
    /** The connections written to during this turn, and the pool of their chunks. */
    private final FlushList flushes;
    private final BufferPool pool;
    private final Poller poller;
    private final Closer closer;
    private final LoopThread thread;

    Outbound(FlushList flushes, Poller poller, Closer closer, LoopThread thread) {
        this.flushes = flushes;
        this.pool = flushes.pool;
        this.poller = poller;
        this.closer = closer;
        this.thread = thread;
    }

    /** Puts {@code c} in the turn's flush list. */
    void flushLater(Connection c) {
        flushes.add(c);
    }

    /**
     * Flushes every connection written to during the turn and not flushed since. One flushed at the end
     * of its read ({@link #flushRead}) and written to again is in the list twice, and flushed once.
     */
    void flushDirty(long now) {
        FlushList list = flushes;
        for (int i = 0; i < list.count(); i++) {
            Connection c = list.take(i);
            if (c.cleans()) {
                if (c.state != Connection.State.CLOSED) {
                    try {
                        flush(c, now);
                    } catch (RuntimeException | Error e) {
                        closer.failed(c, e); // that connection alone: the others are flushed
                    }
                }
            }
        }
        list.clear();
    }

    /**
     * Flushes {@code c}, written to by the handler calls of its own read, as that read ends: while its
     * state is still in the cache, rather than again at the turn's end after the other connections' reads
     * have evicted it. It leaves the turn's flush list where it is the last one in it, as it is unless its
     * handler wrote to another connection too; else the list skips it, flushed.
     */
    void flushRead(Connection c, long now) {
        c.cleans();
        flushes.dropLast(c);
        if (c.state != Connection.State.CLOSED) {
            flush(c, now);
        }
    }

    /**
     * {@return whether {@code c}'s peer ended its side with a TLS close_notify}: a send that fails then (the
     * peer closed its socket without waiting for our close_notify, as TLS 1.3 lets it) ends a clean close,
     * not a failure; what was still to be sent is dropped, the peer having stopped reading
     */
    private static boolean afterPeersCloseNotify(Connection c) {
        return c.tls != null && c.inputEnded;
    }

    /** Sends what the socket takes of {@code c}'s output, then sets what the loop waits for. */
    void flush(Connection c, long now) {
        IOException failed = send(c, now);
        if (failed != null) {
            closer.closeNow(c, afterPeersCloseNotify(c) ? null : failed, true);
            return;
        }
        boolean resumed = c.repause();
        TlsLayer tls = c.tls;
        if (c.queued == 0 && c.state == Connection.State.CLOSING) {
            if (tls != null) {
                try {
                    tls.closeOutbound(); // the close_notify, after every frame; once
                } catch (IOException e) {
                    closer.closeNow(c, afterPeersCloseNotify(c) ? null : e, true);
                    return;
                }
            }
            if (tls == null || !tls.outputPending()) {
                closer.closeNow(c, null, false);
                return;
            }
        }
        boolean pending = c.queued > 0 || (tls != null && tls.outputPending());
        int want = (c.state == Connection.State.OPEN && !c.paused ? Poller.READ : 0) | (pending ? Poller.WRITE : 0);
        if (want != c.interest) {
            c.watchedFor(want);
            try {
                poller.interest(c.channel, want);
            } catch (IOException e) {
                closer.closeNow(c, e, true);
                return;
            }
        }
        if (resumed) {
            if (tls != null) {
                thread.readLaterIfHeld(c); // what its TLS held while paused, which no readiness announces
            }
            try {
                c.handler.onWritable(c);
            } catch (IOException | RuntimeException | Error e) {
                closer.closeNow(c, e, true);
            }
        }
    }

    /**
     * Writes {@code c}'s output until the socket takes no more; {@return the write's failure, or null}. Each
     * chunk goes the one way its connection writes: into its TLS, which wraps it into records and sends them
     * several to a send (the bytes counted as written are the plaintext's); by address; or to the channel.
     * Over TLS, the ciphertext of earlier output goes first, what the last records left after.
     */
    IOException send(Connection c, long now) {
        TakesOutput taker = c.taker;
        if (taker != null) {
            return handOver(c, taker, now);
        }
        TlsLayer tls = c.tls;
        SegmentIo io = c.io; // by address where the endpoint writes so
        try {
            if (tls != null && !tls.flush()) {
                return null; // the ciphertext of earlier output waits for the socket
            }
            Chunk head;
            while ((head = c.outHead) != null && head.available() > 0) {
                ByteBuffer b = head.buf;
                b.limit(head.end);
                b.position(head.start);
                int n;
                try {
                    // TLS sends only when its buffer has no room for another record
                    n = tls != null ? tls.write(b) : io != null ? io.write(b, head.memory) : c.channel.write(b);
                } finally {
                    b.limit(b.capacity()); // absolute puts into a chunk check against its limit
                }
                if (n > 0) {
                    head.start += n;
                    c.sent(n, now);
                }
                if (head.available() > 0) {
                    break; // the socket is full
                }
                c.pollOutput();
                pool.give(head);
            }
            if (tls != null) {
                tls.flush(); // what the last records left in the buffer
            }
            return null;
        } catch (IOException e) {
            return e;
        }
    }

    /**
     * Over TLS, wraps {@code c}'s close_notify after what was sent, once, and sends it as far as the socket
     * takes it now, so that the peer sees a clean close; a failure is dropped, the connection closing either
     * way. Nothing for plaintext.
     */
    void closeOutput(Connection c) {
        TlsLayer tls = c.tls;
        if (tls != null) {
            try {
                tls.closeOutbound();
            } catch (IOException | RuntimeException ignored) {
                // the peer then sees an end of stream alone
            }
        }
    }

    /**
     * Sends, as far as the socket takes it now, the alert {@code c}'s TLS wrapped when its handshake failed,
     * so that the peer hears why before the close; a failure is dropped, the peer hearing the close either way.
     */
    void sendAlert(Connection c) {
        try {
            c.tls.flush();
        } catch (IOException | RuntimeException ignored) {
            // the alert is a courtesy
        }
    }

    /**
     * Hands {@code c}'s chunks to an endpoint that sends from them where they lie, until it takes no
     * more; it gives each back through {@link #returns} once sent. {@return the endpoint's failure, or null}
     */
    private IOException handOver(Connection c, TakesOutput taker, long now) {
        Chunk head;
        while ((head = c.outHead) != null && head.available() > 0) {
            ByteBuffer b = head.buf;
            b.limit(head.end);
            b.position(head.start);
            boolean taken;
            try {
                taken = taker.take(b, head.memory, head, c.returns);
            } catch (IOException e) {
                return e;
            } finally {
                b.limit(b.capacity());
            }
            if (!taken) {
                break; // the endpoint holds its limit: it is writable again when a send completes
            }
            int n = head.available();
            c.pollOutput(); // the endpoint's now: a later frame goes into another chunk
            c.handedToEndpoint(n, now); // until it comes back, through c.returns
        }
        return null;
    }

    /**
     * Drops {@code c}'s queued output, its chunks given back: at its close. What its endpoint took comes
     * back through {@link #returned} once the endpoint is done with it, no longer counted.
     */
    void discard(Connection c) {
        for (Chunk chunk; (chunk = c.pollOutput()) != null; ) {
            pool.give(chunk);
        }
        c.outputDropped();
    }
}
