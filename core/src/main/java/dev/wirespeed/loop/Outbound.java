package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.loop.Connection.Closer;
import dev.wirespeed.loop.Connection.LoopThread;
import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.internal.Chunk;
import dev.wirespeed.loop.internal.SegmentIo;
import dev.wirespeed.loop.internal.TakesOutput;
import dev.wirespeed.loop.spi.Poller;
import dev.wirespeed.loop.tls.TlsLayer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A loop's output: the frames its handlers queue, in pooled chunks per connection, sent in writes of
 * whole chunks at the end of the connection's read (what its own handler wrote) or of the turn (what
 * other handlers and tasks wrote), and backpressure. A connection whose queued output reaches
 * its {@code outputLimit} is paused (not read) until its output drains to half the limit, when the
 * handler hears {@link ConnectionHandler#onWritable}; what the socket would not take waits for it to
 * be writable. Over an endpoint that sends from the chunks where they lie ({@link TakesOutput}), the
 * output counted is what is queued and what was handed to the endpoint and not yet given back, so
 * that a peer that does not read is stopped at the same point as over a socket that copies.
 *
 * <p>Each connection keeps its own output: its chunks, oldest first, what is queued and what its
 * endpoint took, whether it is paused, dirty (written to and not flushed since; in this turn's flush
 * list) and what the poller watches it for; this class decides what to send, when to pause and
 * resume, and asks the connection to record it through its operations.
 * Frames are whole in a chunk when written; frames written back as received may be split between two.
 *
 * <p>Thread safety: the loop's thread.
 */
final class Outbound {
    private final BufferPool pool;
    private final Poller poller;
    private final Closer closer;
    private final LoopThread thread;
    /** {@code flush[0, flushCount)}: connections written to during this turn. */
    private Connection[] flush = new Connection[64];
    private int flushCount;

    Outbound(BufferPool pool, Poller poller, Closer closer, LoopThread thread) {
        this.pool = pool;
        this.poller = poller;
        this.closer = closer;
        this.thread = thread;
    }

    /**
     * {@return where {@code c}'s endpoint ({@link TakesOutput}) gives back the chunks it took}: made once,
     * with the connection
     */
    TakesOutput.Returns returnsFor(Connection c) {
        return token -> returned(c, (Chunk) token);
    }

    /**
     * {@code chunk}, handed to {@code c}'s endpoint, is back: sent, or never to be. No longer counted
     * against the output limit. A connection paused whose output has drained to half the limit is
     * flushed at the turn's end, which resumes it, and the poll is woken to end that turn: a send's
     * completion is no readiness, and no readiness may come (the loop may hold nothing more to hand over,
     * and reads nothing while paused). Once a pause at most, the flush list marking it. Called within a
     * poll, or a close.
     */
    private void returned(Connection c, Chunk chunk) {
        if (c.state != Connection.State.CLOSED) {
            c.returnedByEndpoint(chunk.available()); // [start, end) as handed: neither the loop nor the endpoint moves them
            if (c.paused && !c.dirty && c.queued + c.handed <= c.outputLimit / 2) {
                flushLater(c);
                poller.wakeup();
            }
        }
        pool.give(chunk);
    }

    /** {@return the output chunk with room for a frame of {@code length} body bytes at its end} */
    Chunk outputFor(Connection c, int length) {
        if (length < 0 || length > c.maxFrameLength) {
            throw new IllegalArgumentException("length=" + length + " min=0 maxFrameLength=" + c.maxFrameLength
                    + " for " + c);
        }
        int total = FrameFormat.HEADER_LENGTH + length;
        if (total > pool.chunkSize()) {
            Chunk large = BufferPool.large(total);
            c.addOutput(large);
            return large;
        }
        Chunk tail = c.outTail;
        if (tail == null || !tail.pooled() || tail.capacity() - tail.end < total) {
            tail = pool.take();
            c.addOutput(tail);
        }
        return tail;
    }

    /**
     * Puts the frames {@code c} wrote back as received, {@code source[c.forwardFrom, c.forwardTo)} (already
     * counted in {@code c.queued}), into its output: copied at once, into the tail chunk's room and new
     * chunks, a frame split between two where it falls.
     */
    void copyForwarded(Connection c, ByteBuffer source) {
        int from = c.forwardFrom;
        int to = c.forwardTo;
        c.forwardTaken();
        copyFrames(c, source, from, to);
    }

    /**
     * Copies {@code source[from, to)}, whole frames, to the end of {@code c}'s output: into the tail
     * chunk's room and new chunks, a frame split between two where it falls. Not counted in {@code c.queued}.
     */
    void copyFrames(Connection c, ByteBuffer source, int from, int to) {
        while (from < to) {
            Chunk tail = c.outTail;
            if (tail == null || !tail.pooled() || tail.end == tail.capacity()) {
                tail = pool.take();
                c.addOutput(tail);
            }
            int n = Math.min(to - from, tail.capacity() - tail.end);
            tail.buf.put(tail.end, source, from, n);
            tail.end += n;
            from += n;
        }
    }

    /**
     * Makes {@code in}, the input chunk that holds the frames {@code c} wrote back as received, the end of
     * its output, holding just those frames, so that they are sent from where they were read; the loop no
     * longer reads into it. Unless output waits already and those frames fill less than half of {@code
     * in}: then they are copied to the end of the output, as {@link #copyFrames} does, and {@code in}
     * stays the caller's to give back. So the output of a connection whose peer does not keep up is
     * kept in buffers at least half full, but for its last: adopted one after the other, a chunk per
     * read of a few bytes (a peer that sends a frame at a time), or a small buffer per frame that spans
     * two of a transport's receive buffers (io_uring's) with the rest of that receive's replies in a
     * chunk after it, each a whole chunk held for a few bytes, would hold the output limit's bytes in
     * many times as much memory.
     *
     * @return true if {@code in} is the output's now; false if its frames were copied
     */
    boolean adoptForwarded(Connection c, Chunk in) {
        int from = c.forwardFrom;
        int to = c.forwardTo;
        c.forwardTaken();
        if (c.outTail != null && to - from < in.capacity() / 2) {
            copyFrames(c, in.buf, from, to);
            return false;
        }
        in.start = from;
        in.end = to;
        c.addOutput(in);
        return true;
    }

    /** After an aborted claim: gives back a tail chunk holding nothing. */
    void releaseEmptyTail(Connection c) {
        Chunk tail = c.takeEmptyTail();
        if (tail != null) {
            pool.give(tail);
        }
    }

    /**
     * After a frame was queued: at the limit, the connection is paused at once, so that a writer that
     * stopped at {@link Connection#isWritable()} is told by {@link ConnectionHandler#onWritable} when to
     * go on, however much the flush then sends. It is flushed at the end of its read or of the turn.
     */
    void queued(Connection c) {
        c.pauseIfFull();
        flushLater(c);
    }

    /** Puts {@code c} in the turn's flush list. */
    void flushLater(Connection c) {
        if (c.dirties()) {
            if (flushCount == flush.length) {
                flush = Arrays.copyOf(flush, flushCount * 2);
            }
            flush[flushCount++] = c;
        }
    }

    /**
     * Flushes every connection written to during the turn and not flushed since. One flushed at the end
     * of its read ({@link #flushRead}) and written to again is in the list twice, and flushed once.
     */
    void flushDirty(long now) {
        for (int i = 0; i < flushCount; i++) {
            Connection c = flush[i];
            flush[i] = null;
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
        flushCount = 0;
    }

    /**
     * Flushes {@code c}, written to by the handler calls of its own read, as that read ends: while its
     * state is still in the cache, rather than again at the turn's end after the other connections' reads
     * have evicted it. It leaves the turn's flush list where it is the last one in it, as it is unless its
     * handler wrote to another connection too; else the list skips it, flushed.
     */
    void flushRead(Connection c, long now) {
        c.cleans();
        if (flush[flushCount - 1] == c) {
            flush[--flushCount] = null;
        }
        if (c.state != Connection.State.CLOSED) {
            flush(c, now);
        }
    }

    /** Sends what the socket takes of {@code c}'s output, then sets what the loop waits for. */
    void flush(Connection c, long now) {
        IOException failed = send(c, now);
        if (failed != null) {
            closer.closeNow(c, failed, true);
            return;
        }
        boolean resumed = c.repause();
        TlsLayer tls = c.tls;
        if (c.queued == 0 && c.state == Connection.State.CLOSING) {
            if (tls != null) {
                try {
                    tls.closeOutbound(); // the close_notify, after every frame; once
                } catch (IOException e) {
                    closer.closeNow(c, e, true);
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
