package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.loop.Connection.Closer;
import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.internal.Chunk;
import dev.wirespeed.loop.internal.InputMemory;
import dev.wirespeed.loop.internal.SegmentIo;
import dev.wirespeed.loop.spi.LendingEndpoint;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Turns what a loop receives from a connection into whole frames for its handler, one read per ready
 * connection per turn: into a pooled chunk, or, where the endpoint lends its received bytes
 * ({@link LendingEndpoint}), where they lie. Each frame's length is checked before the frame is
 * trusted; a bad one, or a stream that ends inside a frame, is refused with the protocol's exception
 * and the offset of the frame.
 *
 * <p>Per connection it keeps {@code c.in}, the bytes of a frame not yet whole (the chunk reads go into;
 * from a lending endpoint, only a copy of that frame's start), and {@code c.consumed}, the stream
 * offset of {@code c.in}'s first byte, for errors. {@code c.in} is null, and no chunk held, whenever
 * nothing partial is left. Between reads a partial frame is kept in a buffer about the size of what
 * came of it, within the loop's input budget ({@link InputMemory}): a small one in a small buffer,
 * moved back into a chunk to read on after it; a frame longer than a chunk in a buffer that doubles
 * as it fills, never in one of the length its header announces.
 *
 * <p>Thread safety: the loop's thread.
 */
final class FrameAssembler {
    /** The most lends one read of a lending connection takes, however few bytes each holds. */
    static final int MAX_LENDS = 64;
    private final BufferPool pool;
    private final InputMemory memory;
    private final Closer closer;

    FrameAssembler(BufferPool pool, InputMemory memory, Closer closer) {
        this.pool = pool;
        this.memory = memory;
        this.closer = closer;
    }

    /** One read of {@code c} into its chunk, and the whole frames in it; {@code now} is the loop's clock. */
    void readCopy(Connection c, long now) {
        Chunk in = c.in;
        if (in == null) {
            in = pool.take();
            c.input(in);
        } else if (in.capacity() < pool.chunkSize()) {
            in = unpark(c, in);
        }
        ByteBuffer b = in.buf;
        b.limit(in.capacity());
        b.position(in.end);
        int room = in.capacity() - in.end;
        int n;
        try {
            SegmentIo io = c.io; // by address where the endpoint reads so: no lookup of the buffer's address
            n = io != null ? io.read(b, in.memory) : c.channel.read(b);
        } catch (IOException e) {
            closer.closeNow(c, e, true);
            return;
        }
        if (n > 0) {
            in.end += n;
            c.received(n, now);
            frames(c, in, n == room);
        } else if (n < 0) {
            endOfStream(c, in);
        } else {
            keep(c, in, false);
        }
    }

    /** {@return a chunk holding the small partial frame {@code in} kept, as {@code c.in}: to read on after it} */
    private Chunk unpark(Connection c, Chunk in) {
        Chunk chunk = pool.take();
        chunk.buf.put(0, in.buf, in.start, in.available());
        chunk.end = in.available();
        pool.give(in);
        c.input(chunk);
        return chunk;
    }

    /**
     * Reads a connection that lends its received bytes: the frames parsed where the transport holds
     * them, and given back once handled, until about a chunk's worth is taken (the budget of a copying
     * read); what is left is lent again next turn. Only a frame that continues past the lent bytes is
     * copied, once, into a chunk (or a buffer of its own size); then {@code c.in} holds that frame's
     * start and nothing else. A frame begun in an earlier turn counts whole against this turn's budget,
     * as its start would fill a copying read's chunk: a turn hands over at most a chunk's worth of
     * bytes plus the one frame that crosses the budget. It takes at most {@value #MAX_LENDS} lends, so
     * that a peer whose bytes come in tiny pieces (TLS records of a byte, each a decryption; a byte a
     * segment) takes a turn of that many pieces, not of a chunk's worth of bytes one at a time.
     */
    void readLent(Connection c, LendingEndpoint lender, long now) {
        ByteBuffer data = lender.lend();
        if (data == null) {
            ended(c, lender);
            return;
        }
        int budget = pool.chunkSize() - (c.in == null ? 0 : c.in.available());
        int lends = 1;
        do {
            int start = data.position();
            int end = data.limit();
            int pos = start;
            if (c.in != null) {
                pos = completeFrame(c, c.in, data, pos, end);
                if (pos < 0) {
                    return; // closed: the endpoint took back what it lent
                }
            }
            if (pos < end) { // c.in is null here: a frame that completes is handed over and its chunk given back
                pos = deliver(c, data, data, pos, end, budget - (pos - start));
                if (pos < 0) {
                    return;
                }
                if (c.forwardTo != c.forwardFrom) {
                    c.copyForwarded(data); // before the endpoint takes the lent bytes back
                }
                if (pos < end && partial(data, pos, end)) {
                    if (!keepPartial(c, data, pos, end)) {
                        return; // closed: the endpoint took back what it lent
                    }
                    pos = end;
                }
            }
            lender.consume(pos - start);
            c.received(pos - start, now);
            budget -= pos - start;
        } while (budget > 0 && lends++ < MAX_LENDS && (data = lender.lend()) != null);
    }

    /** Nothing lent: at the end of the stream, a clean close or a truncated frame; a failure resets. */
    private void ended(Connection c, LendingEndpoint lender) {
        boolean ended;
        try {
            ended = lender.ended();
        } catch (IOException e) {
            closer.closeNow(c, e, true);
            return;
        }
        if (ended) {
            endOfStream(c, c.in);
        }
    }

    /** {@return whether {@code data[pos, end)} ends inside a frame whose length, if its header is there, was checked} */
    private static boolean partial(ByteBuffer data, int pos, int end) {
        return end - pos < FrameFormat.HEADER_LENGTH || end - pos < FrameFormat.HEADER_LENGTH + FrameFormat.length(data, pos);
    }

    /**
     * Hands over the whole frames in {@code in}, then keeps the partial one, if any, at its start; or,
     * where the handler wrote frames back as received, gives {@code in} to the output with them and
     * keeps the partial one in a chunk of its own.
     */
    private void frames(Connection c, Chunk in, boolean filled) {
        int pos = deliver(c, in.buf, in.view, in.start, in.end, Integer.MAX_VALUE);
        if (pos < 0) {
            return;
        }
        if (c.forwardTo != c.forwardFrom) {
            forwardInput(c, in, pos);
            return;
        }
        if (pos == in.end) {
            releaseInput(c); // the common case, kept short
            return;
        }
        in.start = pos;
        keep(c, in, filled);
    }

    /**
     * After a read into {@code in}, {@code c.in}: keeps the partial frame left in it, if any, where the
     * next read can go on after it, in a buffer about its size; or refuses {@code c} where that would take
     * the loop past its input budget. A small partial frame moves to a small buffer, and the chunk goes
     * back, unless the read filled the chunk (the socket likely has more, read next turn into the same
     * chunk: no copy out and back for a busy connection); one that does not fit where it starts moves to
     * the front; one that fills its buffer moves to a buffer twice the size (at most the frame's).
     *
     * @param filled whether the read filled {@code in}
     */
    private void keep(Connection c, Chunk in, boolean filled) {
        int n = in.available();
        if (n == 0) {
            releaseInput(c);
            return;
        }
        ByteBuffer b = in.buf;
        int pos = in.start;
        // deliver() checked the length of a header that is there, in this read or an earlier one
        int needed = n >= FrameFormat.HEADER_LENGTH ? FrameFormat.HEADER_LENGTH + FrameFormat.length(b, pos) : 0;
        long size;
        if (n <= memory.largestHold() && in.capacity() == pool.chunkSize() && !filled) {
            size = memory.sizeFor(n, needed, 0);
        } else if (n == in.capacity()) {
            size = Math.min(needed, 2L * in.capacity()); // full, and not yet the whole frame
        } else {
            if (pos > 0 && (needed == 0 || needed > in.capacity() - pos)) {
                // A partial header, or a frame that would not fit where it starts: move it to the front.
                b.put(0, b, pos, n);
                in.start = 0;
                in.end = n;
            }
            if (!fits(c, in.capacity())) {
                overBudget(c, in.capacity(), n, needed);
                return;
            }
            kept(c, in.capacity());
            return;
        }
        if (!fits(c, size)) {
            overBudget(c, size, n, needed);
            return;
        }
        Chunk kept = memory.take(size);
        kept.buf.put(0, b, pos, n);
        kept.end = n;
        pool.give(in);
        c.input(kept);
        kept(c, kept.capacity());
    }

    /**
     * Counts {@code c} as keeping its partial frame in a buffer of {@code size} bytes, the frame timed
     * from now if it is not the one kept before (its stream offset tells): the clock is read then.
     */
    private void kept(Connection c, int size) {
        c.keepsPartial();
        account(c, size);
    }

    /**
     * {@return whether {@code c} may keep its partial frame in a buffer of {@code size} bytes, in place of the
     * one it keeps ({@code c.held}), within the input budget}
     */
    private boolean fits(Connection c, long size) {
        return memory.fits(size - c.held);
    }

    /** Counts {@code c} as keeping a buffer of {@code size} bytes (0: none) from now on, against the input budget. */
    private void account(Connection c, int size) {
        if (size != c.held) {
            memory.add(size - c.held);
            c.holds(size);
        }
    }

    /** Refuses {@code c}, whose partial frame of {@code n} bytes would take its loop past the input budget. */
    private void overBudget(Connection c, long size, int n, int needed) {
        closer.closeNow(c, InputBudgetException.exceeded(memory.budget(), memory.held(), c.held, size, n,
                needed - FrameFormat.HEADER_LENGTH, c.consumed), true);
    }

    /**
     * Gives {@code in}, whose frames up to {@code pos} were handed over and some written back as received,
     * to the output with those frames (or, where output waits and they are few, copies them there and
     * gives {@code in} back: {@link Connection#adoptForwarded}); what follows {@code pos}, a partial frame,
     * moves to a new input chunk (or one of the frame's size), as the loop reads on into that.
     */
    private void forwardInput(Connection c, Chunk in, int pos) {
        int end = in.end;
        c.input(null);
        // First: a refusal below drops the frames with the rest of the output.
        boolean adopted = c.adoptForwarded(in);
        if (pos == end) {
            account(c, 0);
        } else {
            keepPartial(c, in.buf, pos, end);
        }
        if (!adopted) {
            pool.give(in); // its frames were copied to the output, its partial frame (if any) kept apart
        }
    }

    /**
     * Hands the whole frames in {@code data[from, end)} to the handler and moves {@code c.consumed} past
     * them; stops early at the first whole frame that starts {@code budget} bytes or more past {@code
     * from}, so that each length it leaves behind has been checked. While it does, {@code c.source} is
     * {@code view}, and {@code c.frameStart}, {@code c.frameEnd} and {@code c.frameType} name the frame
     * being handled; frames the handler writes back as received, if still pending when it returns
     * ({@code c.forwardFrom < c.forwardTo}), are the caller's to put into the output.
     *
     * @param view the read-only buffer re-pointed at each body for the handler: a twin of {@code data},
     *     or {@code data} itself, whose limit is then put back to {@code end} after each frame
     * @return where the first frame not handed over starts (a partial one, one past the budget, or
     *     {@code end}); -1 if the connection closed meanwhile (a bad length, or the handler's doing),
     *     its input given back
     */
    private int deliver(Connection c, ByteBuffer data, ByteBuffer view, int from, int end, int budget) {
        if (c.blocks) {
            return deliverBlock(c, data, view, from, end, budget);
        }
        int pos = from;
        long delivered = 0;
        c.handing(view);
        while (end - pos >= FrameFormat.HEADER_LENGTH) {
            long header = data.getLong(pos);
            int length = FrameFormat.length(header);
            if (length < 0 || length > c.maxFrameLength) {
                c.stats.framesRead(delivered);
                c.handedOver();
                if (c.forwardTo != c.forwardFrom) {
                    c.copyForwarded(view); // the replies to the frames before it are sent first
                }
                frameError(c, length, c.consumed + (pos - from));
                return -1;
            }
            int total = FrameFormat.HEADER_LENGTH + length;
            if (end - pos < total || pos - from >= budget) {
                break;
            }
            delivered++;
            int type = FrameFormat.type(header);
            // Counted before the handler, which may close the connection and so report its totals.
            c.handingFrame(pos, pos + total, type);
            view.limit(pos + total);
            view.position(pos + FrameFormat.HEADER_LENGTH);
            try {
                c.handler.onFrame(c, type, view);
            } catch (IOException | RuntimeException | Error e) {
                c.stats.framesRead(delivered);
                c.handedOver();
                closer.closeNow(c, e, true); // what was queued, forwarded frames too, is dropped
                return -1;
            }
            view.limit(end);
            pos += total;
            if (c.state != Connection.State.OPEN) {
                c.stats.framesRead(delivered);
                c.handedOver(); // close() put the forwarded frames in the output; abort() dropped them
                releaseInput(c); // closed by the handler: the rest is not read
                return -1;
            }
        }
        c.handedOver();
        c.stats.framesRead(delivered);
        c.consumes(pos - from);
        return pos;
    }

    /**
     * As {@link #deliver}, for a handler that takes blocks: the whole frames within the budget, each
     * length checked first, handed over in one call; then a bad length found after them, if any, refused.
     * While the handler has the block, {@code c.source} is {@code view}, {@code [c.blockStart,
     * c.blockEnd)} the block, and {@code c.frameEnd} -1, so that no frame is taken for one handed alone.
     */
    private int deliverBlock(Connection c, ByteBuffer data, ByteBuffer view, int from, int end, int budget) {
        int pos = from;
        long delivered = 0;
        int length = 0;
        boolean bad = false;
        while (end - pos >= FrameFormat.HEADER_LENGTH) {
            length = FrameFormat.length(data.getLong(pos));
            if (length < 0 || length > c.maxFrameLength) {
                bad = true;
                break;
            }
            int total = FrameFormat.HEADER_LENGTH + length;
            if (end - pos < total || pos - from >= budget) {
                break;
            }
            delivered++;
            pos += total;
        }
        if (pos > from) {
            // Counted before the handler, which may close the connection and so report its totals.
            c.handingBlock(view, from, pos, delivered);
            view.limit(pos);
            view.position(from);
            try {
                ((BlockHandler) c.handler).onFrames(c, view);
            } catch (IOException | RuntimeException | Error e) {
                c.stats.framesRead(delivered);
                c.handedOver();
                closer.closeNow(c, e, true); // what was queued, forwarded frames too, is dropped
                return -1;
            }
            view.limit(end);
            c.handedOver();
            c.stats.framesRead(delivered);
            if (c.state != Connection.State.OPEN) {
                releaseInput(c); // closed by the handler: the rest is not read
                return -1;
            }
        }
        c.consumes(pos - from);
        if (bad) {
            if (c.forwardTo != c.forwardFrom) {
                c.copyForwarded(view); // the replies to the frames before it are sent first
            }
            frameError(c, length, c.consumed);
            return -1;
        }
        return pos;
    }

    /**
     * Copies the start of a frame that continues past {@code data[pos, end)} (lent bytes, or an input chunk
     * given to the output) into a buffer about its size, as {@code c.in}; or refuses {@code c} where that
     * would take the loop past its input budget.
     *
     * @return false if {@code c} was refused
     */
    private boolean keepPartial(Connection c, ByteBuffer data, int pos, int end) {
        int n = end - pos;
        // deliver() checked the length of a header that is there
        int needed = n >= FrameFormat.HEADER_LENGTH ? FrameFormat.HEADER_LENGTH + FrameFormat.length(data, pos) : 0;
        long size = memory.sizeFor(n, needed, 0);
        if (!fits(c, size)) {
            overBudget(c, size, n, needed);
            return false;
        }
        Chunk in = memory.take(size);
        in.buf.put(0, data, pos, n);
        in.end = n;
        c.input(in);
        kept(c, in.capacity());
        return true;
    }

    /**
     * Copies from the lent {@code data[pos, end)} what the frame begun in {@code in} still lacks, moving
     * it to a larger buffer where the bytes at hand need one (within the input budget), and hands the
     * frame over once it is whole, giving {@code in} back.
     *
     * @return where the lent bytes not taken start; -1 if the connection closed (a bad length, or the handler)
     */
    private int completeFrame(Connection c, Chunk in, ByteBuffer data, int pos, int end) {
        int have = in.available(); // in.start is 0: keepPartial made it
        if (have < FrameFormat.HEADER_LENGTH) {
            int n = Math.min(FrameFormat.HEADER_LENGTH - have, end - pos);
            in.buf.put(in.end, data, pos, n);
            in.end += n;
            pos += n;
            have += n;
            if (have < FrameFormat.HEADER_LENGTH) {
                return pos;
            }
        }
        int length = FrameFormat.length(in.buf, in.start);
        if (length < 0 || length > c.maxFrameLength) {
            frameError(c, length, c.consumed);
            return -1;
        }
        int total = FrameFormat.HEADER_LENGTH + length;
        int n = Math.min(total - have, end - pos);
        if (have + n > in.capacity()) {
            long size = memory.sizeFor(have + n, total, in.capacity());
            if (!fits(c, size)) {
                overBudget(c, size, have + n, total); // the lent bytes at hand have come too
                return -1;
            }
            Chunk larger = memory.take(size);
            larger.buf.put(0, in.buf, in.start, have);
            larger.end = have;
            pool.give(in);
            in = larger;
            c.input(in);
        }
        in.buf.put(in.end, data, pos, n);
        in.end += n;
        pos += n;
        if (in.available() < total) {
            kept(c, in.capacity());
            return pos;
        }
        if (deliver(c, in.buf, in.view, in.start, in.end, Integer.MAX_VALUE) < 0) {
            return -1;
        }
        if (c.forwardTo != c.forwardFrom) {
            c.input(null);
            account(c, 0);
            if (!c.adoptForwarded(in)) { // the frame, written back as received, is sent from here
                pool.give(in); // or from where it was copied to
            }
        } else {
            releaseInput(c);
        }
        return pos;
    }

    private void frameError(Connection c, int length, long offset) {
        try {
            FrameFormat.checkLength(length, c.maxFrameLength, offset);
            throw new AssertionError("length=" + length + " passed the check it failed");
        } catch (IOException e) {
            closer.refuse(c, offset, e);
        }
    }

    /** The peer's end of stream: a clean close at a frame boundary, else the truncated frame refused. */
    private void endOfStream(Connection c, Chunk in) {
        c.inputEnds();
        int present = in == null ? 0 : in.available();
        if (present == 0) {
            releaseInput(c);
            closer.closeGracefully(c);
            return;
        }
        IOException truncated;
        if (present < FrameFormat.HEADER_LENGTH) {
            truncated = TruncatedFrameException.inHeader(present, c.consumed);
        } else {
            int length = FrameFormat.length(in.buf, in.start);
            truncated = TruncatedFrameException.inBody(present - FrameFormat.HEADER_LENGTH, length, c.consumed);
        }
        closer.refuse(c, c.consumed, truncated);
    }

    /** Gives back {@code c}'s input chunk, if it holds one. */
    void releaseInput(Connection c) {
        Chunk in = c.in;
        if (in != null) {
            c.input(null);
            pool.give(in);
            account(c, 0);
        }
    }
}
