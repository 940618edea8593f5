package dev.wirespeed.loop;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.internal.Chunk;
import dev.wirespeed.loop.internal.LoopStats;
import dev.wirespeed.loop.internal.SegmentIo;
import dev.wirespeed.loop.internal.TakesOutput;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.loop.spi.Poller;
import dev.wirespeed.loop.tls.TlsLayer;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

/**
 * One connection of a {@link FrameServer}, accepted, or of a {@link FrameClient}, connected: frames
 * written to it, its state, its close.
 *
 * <h2>Writing</h2>
 * {@link #writeFrame(int, ByteBuffer)} copies a frame into the connection's output, a queue of
 * pooled chunks ({@link #writeFrames(ByteBuffer)} whole frames as they are, {@link #claim} one filled
 * in place, {@link #relayBlock} a handed block to another connection; frames written back as received
 * are not copied); the loop sends it in writes of whole
 * chunks once the handler calls for the read in progress are done (when that read is this
 * connection's own), else at the end of the loop's turn, and keeps what the socket would not take
 * until it is writable. A connection whose
 * output reaches its server's or client's {@code outputLimit} is not read until the output drains to half the
 * limit ({@link ConnectionHandler#onWritable} then), so that a peer that does not read holds at most
 * about the limit plus one read's worth of replies, and the others are not held up by it.
 *
 * <h2>Closing</h2>
 * {@link #close()} stops reading, sends what is queued, then ends the output (a FIN); {@link #abort()}
 * discards what is queued and resets the connection (an RST where the socket supports
 * {@code SO_LINGER}). Either way {@link ConnectionHandler#onClose} is called once, and later writes
 * are refused. A peer that closes its end at a frame boundary gets what is queued, then the close.
 * After a graceful close (and after a bad frame) the socket lingers: it reads and drops what the peer
 * still sends until the peer closes its end or the {@code lingerTimeout} passes, and only
 * then closes, because a socket closed with input unread resets its peer, which can cost the peer
 * replies it has not read yet. A lingering connection is no longer counted or seen by the handler.
 *
 * <h2>TLS</h2>
 * A connection of a server or client given {@link dev.wirespeed.tls.TlsSettings} opens (its handler's
 * {@link ConnectionHandler#onOpen}) once its handshake is done; frames are read from the decrypted bytes
 * and written encrypted, with the same contract. {@link #close()} sends a close_notify after what is
 * queued and waits, for the settings' {@code closeTimeout}, for the peer's; an end of stream that comes
 * without the peer's close_notify is reported to {@code onClose} as a failure, never as a clean close.
 * After the peer's close_notify the close is clean even where our last records cannot be sent (a peer
 * may close its socket without waiting for our close_notify): what was still queued is then dropped.
 *
 * <h2>Thread safety</h2>
 * Every method but {@link #id()}, {@link #remoteAddress()}, {@link #execute(Runnable)} and
 * {@link #toString()} must be called on the connection's loop thread: from a handler, or from a task
 * given to {@code execute}, which is how another thread writes to a connection. Elsewhere they throw
 * {@link IllegalStateException}.
 */
public final class Connection {
    /**
     * A connection's life, one state at a time, moved on by the transitions named below and by no other code:
     * <ul>
     *   <li>{@link #connecting}: NEW to CONNECTING, a client's connection;
     *   <li>{@link #handshaking}: NEW (accepted) or CONNECTING to HANDSHAKING, over TLS;
     *   <li>{@link #opens}: NEW (accepted), CONNECTING or HANDSHAKING to OPEN, before its handler's {@code onOpen};
     *   <li>{@link #closing}: OPEN to CLOSING, a graceful close sending what is queued;
     *   <li>{@link #closes}: any state but CLOSED to CLOSED: its handler hears of it no more.
     * </ul>
     * A closed connection may linger ({@link #lingers}): its socket reads and drops what still comes.
     */
    enum State { NEW, CONNECTING, HANDSHAKING, OPEN, CLOSING, CLOSED }

    /** The loop's thread, its ways of closing, and its connections' output: what this connection's methods ask of it. */
    private final LoopThread thread;
    private final Closer closer;
    private final FlushList flushes;
    final Endpoint channel;
    /** The channel, where it lends its received bytes in place; else null. */
    final LendingEndpoint lender;
    /** The channel, where it reads and writes by the address of the loop's buffers; else null. */
    final SegmentIo io;
    /** The channel, where it sends from the loop's buffers where they lie; else null. */
    final TakesOutput taker;
    /** Where {@link #taker} gives back the chunks it took, once sent: this connection's; null without a taker. */
    final TakesOutput.Returns returns;
    private final long id;
    private final SocketAddress remote;
    private Object attachment;
    /** The server or client whose connection this is; its settings, copied below, are read per frame. */
    final Owner owner;
    final ConnectionHandler handler;
    /** Whether the handler takes blocks of frames ({@link BlockHandler#onFrames}) rather than one frame a call. */
    final boolean blocks;
    final int maxFrameLength;
    final long outputLimit;
    /** The owner's counters on this connection's loop. */
    final LoopStats stats;

    /** Read by the loop's parts; moved on by the transitions alone. */
    State state = State.NEW;
    /** While connecting: what {@link FrameClient#connect} returned, completed once it opens or fails; else null. */
    CompletableFuture<Connection> opening;
    /**
     * While connecting or in its TLS handshake: the loop time at which that is given up, and the index in
     * the loop's list of opening connections.
     */
    long openDeadline;
    int openSlot;
    /** In the loop's list of connections to read without a readiness (their TLS holds input). */
    boolean readPending;
    /** The input chunk while bytes are buffered (from a lending channel: only the start of one frame), else null. */
    Chunk in;
    /**
     * The bytes of the buffer its partial frame was kept in at the end of its last read, counted against
     * its loop's input budget ({@link InputMemory}); 0 while none is kept. {@code 0 <= held}.
     */
    int held;
    /** While {@code held > 0}: when the partial frame at stream offset {@code partialOffset} began, on the loop's clock. */
    long partialSince;
    long partialOffset;
    /**
     * Output not yet sent, oldest first, a list through {@link Chunk#next} (no queue object of its own, so
     * that a turn on the connection touches no more memory than it must); bytes queued {@code = sum of
     * available()}. Both null, or neither. Filled by this connection's writes; emptied through {@link
     * #pollOutput}, as {@link Outbound} sends it.
     */
    Chunk outHead;
    Chunk outTail;
    /** {@code 0 <= queued}: bytes written to this connection and not yet sent nor handed to {@link #taker}. */
    long queued;
    /**
     * {@code 0 <= handed}: bytes handed to {@link #taker} and not yet given back (sent, or never to be).
     * Counted with {@code queued} against the output limit, as they hold the loop's chunks until then.
     */
    long handed;
    /** Stream offset of the first byte of {@code in}, for errors. */
    long consumed;
    /** Not read until the output drains to half the limit. */
    boolean paused;
    /** Written to and not flushed since: in the loop's list of connections to flush at the end of the turn. */
    boolean dirty;
    /** The interest registered with the poller: {@code Poller.READ | Poller.WRITE}. */
    int interest;
    /** Index in the loop's connection array. */
    int slot;
    /** Loop time of the last byte read or sent. */
    long lastActive;
    /** What the connection carried, for its closing event: {@code >= 0} each. */
    long framesRead;
    long bytesRead;
    long bytesWritten;
    /** The peer's end of stream has been read. */
    boolean inputEnded;
    /** Closed and lingering (see "Closing"): its socket reads and drops input until {@link #lingerUntil}. */
    boolean lingering;
    /** While lingering: the loop time at which the socket closes anyway. */
    long lingerUntil;
    /** Index in the loop's lingering array, while lingering. */
    int lingerSlot;
    /**
     * While the loop hands this connection's frames to its handler: the buffer their body views are cut
     * from, else null; and the frame being handled, {@code [frameStart, frameEnd)} of it, with its type.
     */
    ByteBuffer source;
    int frameStart;
    int frameEnd;
    int frameType;
    /**
     * While the loop hands a block to {@link BlockHandler#onFrames}: the block, {@code [blockStart,
     * blockEnd)} of {@code source}, and {@code frameEnd} is -1; else {@code blockEnd} is -1.
     */
    int blockStart;
    int blockEnd = -1;
    /**
     * Frames written back as they were received while the handler had them, {@code [forwardFrom,
     * forwardTo)} of {@code source} (empty when equal): counted in {@code queued} but not yet in
     * the output. They go into the output (copied, or in the chunk they were read into) before anything
     * else is queued, and before the hand-over ends.
     */
    int forwardFrom;
    int forwardTo;
    /** A frame claimed and not committed: its chunk, else null. */
    private Chunk claimed;
    private int claimedTotal;

    /** The connection's TLS, between the socket and the loop; null for plaintext. */
    final TlsLayer tls;

    /**
     * A connection of {@code owner} on a loop, whose thread, ways of closing, output and counters it is given.
     *
     * @param flushes the loop's: where this connection's output chunks come from, and where it goes to be flushed
     * @param stats the owner's counters on this connection's loop
     * @param channel its socket; null for a connect that failed before it had one
     * @param blocks whether the owner's handler takes blocks of frames
     * @param tls its TLS over {@code channel}; null for plaintext
     */
    Connection(LoopThread thread, Closer closer, FlushList flushes, LoopStats stats, Endpoint channel, Owner owner,
            boolean blocks, long id, SocketAddress remote, TlsLayer tls) {
        this.thread = thread;
        this.closer = closer;
        this.flushes = flushes;
        this.tls = tls;
        this.owner = owner;
        this.handler = owner.handler;
        this.blocks = blocks;
        this.maxFrameLength = owner.maxFrameLength;
        this.outputLimit = owner.outputLimit;
        this.stats = stats;
        this.channel = channel;
        // Over TLS the plaintext is the TLS layer's to lend, and the socket carries only its ciphertext.
        this.lender = tls != null ? tls : channel instanceof LendingEndpoint l ? l : null;
        this.io = tls == null && channel instanceof SegmentIo s ? s : null;
        this.taker = tls == null && channel instanceof TakesOutput t ? t : null;
        this.returns = taker == null ? null : token -> returned((Chunk) token);
        this.id = id;
        this.remote = remote;
    }

    /**
     * {@return the number of this connection in its server or client, from 1: in order of acceptance for
     * a server's, of {@link FrameClient#connect} for a client's}
     */
    public long id() {
        return id;
    }

    /** {@return the peer's address: as accepted, or as given to {@link FrameClient#connect}} */
    public SocketAddress remoteAddress() {
        return remote;
    }

    /**
     * Runs {@code task} on this connection's loop thread, after the tasks given before it, at the loop's
     * next turn; from any thread. The task runs even if the connection has closed meanwhile (its writes
     * then return false); a task that throws closes nothing and is reported to the loop thread's
     * uncaught-exception handler.
     *
     * @param task what to run
     * @throws java.util.concurrent.RejectedExecutionException if its loop group is closed
     */
    public void execute(Runnable task) {
        thread.execute(task);
    }

    /**
     * Keeps a handler's per-connection state.
     *
     * @param attachment anything, or null
     */
    public void attach(Object attachment) {
        thread.checkThread(this);
        this.attachment = attachment;
    }

    /** {@return what was last attached, or null} */
    public Object attachment() {
        thread.checkThread(this);
        return attachment;
    }

    /** {@return true from {@link ConnectionHandler#onOpen} until the connection starts closing} */
    public boolean isOpen() {
        thread.checkThread(this);
        return state == State.OPEN;
    }

    /**
     * {@return the TLS session, once the handshake is done: the protocol, the cipher suite, the peer's
     * certificates; null for a plaintext connection, and for a server's connection whose peer's first
     * record has not all come}
     */
    public SSLSession tlsSession() {
        thread.checkThread(this);
        SSLEngine engine = tls == null ? null : tls.engine();
        return engine == null ? null : engine.getSession();
    }

    /** {@return the application protocol agreed by ALPN, or null where there was none (or no TLS)} */
    public String applicationProtocol() {
        thread.checkThread(this);
        SSLEngine engine = tls == null ? null : tls.engine();
        String p = engine == null ? null : engine.getApplicationProtocol();
        return p == null || p.isEmpty() ? null : p;
    }

    /** {@return true if open and its queued output is under the output limit} */
    public boolean isWritable() {
        thread.checkThread(this);
        return state == State.OPEN && queued + handed < outputLimit;
    }

    /**
     * {@return the bytes written to this connection and not yet sent}: those the loop holds, and those a
     * transport that sends from the loop's buffers where they lie (io_uring's) holds, until sent
     */
    public long queuedBytes() {
        thread.checkThread(this);
        return queued + handed;
    }

    /**
     * Queues one frame, copying the body from its position to its limit (the position is not moved).
     * A frame is queued even past the output limit; the limit decides when the connection is read.
     *
     * <p>A frame written back to the connection it came from, as it came, from {@code onFrame}: the body
     * view that call was handed, its position and limit as handed, and the type it came with, is queued
     * without the copy: the loop sends it from where it was read, or copies a run of such frames at once.
     *
     * @param type the type field
     * @param body the body; any kind of buffer, including a body view handed to {@code onFrame}
     * @return true if queued; false if the connection is closing or closed (the frame is dropped)
     * @throws IllegalArgumentException if the body is longer than the {@code maxFrameLength}
     */
    public boolean writeFrame(int type, ByteBuffer body) {
        thread.checkThread(this);
        checkNoClaim();
        if (state != State.OPEN) {
            return false;
        }
        if (body == source && type == frameType && body.limit() == frameEnd
                && body.position() == frameStart + FrameFormat.HEADER_LENGTH) {
            forward();
            return true;
        }
        putForwarded(); // in the order written
        int length = body.remaining();
        Chunk c = outputFor(length);
        int at = c.end;
        c.buf.putLong(at, FrameFormat.header(type, length));
        c.buf.put(at + FrameFormat.HEADER_LENGTH, body, body.position(), length);
        c.end = at + FrameFormat.HEADER_LENGTH + length;
        queued += FrameFormat.HEADER_LENGTH + length;
        queuedMore();
        return true;
    }

    /**
     * Queues whole frames as they are, header and body each, from the position of {@code frames} to its
     * limit (the position is not moved): a block handed to {@link BlockHandler#onFrames}, or a run of
     * its frames, or frames made elsewhere. Written back to the connection the block came from, from
     * {@code onFrames}, the block's frames are queued without a copy, as {@link #writeFrame} queues a
     * frame written back as received. Each frame is checked before any is queued, its fields read
     * big-endian whatever the buffer's order ({@link FrameFormat#checkWholeFrames}): a header whole, a
     * length within {@code 0..maxFrameLength}, a body within the limit.
     *
     * @param frames whole frames, each an 8-byte header (the type, then the length, big-endian) and its body
     * @return true if queued; false if the connection is closing or closed (the frames are dropped)
     * @throws IllegalArgumentException if the bytes are not whole frames within the {@code maxFrameLength},
     *     naming the first that is not and where it lies
     */
    public boolean writeFrames(ByteBuffer frames) {
        thread.checkThread(this);
        checkNoClaim();
        if (state != State.OPEN) {
            return false;
        }
        int from = frames.position();
        int to = frames.limit();
        if (frames == source && blockEnd >= 0 && from == blockStart && to == blockEnd) {
            forwardRun(from, to); // the block as handed: its frames were checked as they arrived
            return true;
        }
        FrameFormat.checkWholeFrames(frames, maxFrameLength);
        if (frames == source && blockEnd >= 0 && from >= blockStart && to <= blockEnd) {
            forwardRun(from, to);
        } else {
            queueCopy(frames, from, to);
        }
        return true;
    }

    /**
     * Writes the block this connection's {@link BlockHandler} is being handed, whole, to {@code to},
     * another connection of the same loop (a relay, a gateway's two sides), as {@code
     * to.writeFrames(block)} would, without checking its frames again: they were checked as they
     * arrived, against this connection's {@code maxFrameLength}, and are checked against {@code to}'s
     * only where that is the smaller. To this connection itself it is {@code writeFrames(block)}: the
     * block written back as received. Call it from {@code onFrames}, before the block's position or
     * limit is moved.
     *
     * @param to where the block goes
     * @return true if queued; false if {@code to} is closing or closed (the block is dropped there)
     * @throws IllegalStateException if this connection's handler is not being handed a block, or the
     *     block's position or limit was moved; or if either connection is not of the calling loop thread
     * @throws IllegalArgumentException where {@code to}'s {@code maxFrameLength} is the smaller and a
     *     frame of the block is longer, naming its length, both limits and its stream offset on this
     *     connection; nothing of the block is queued
     */
    public boolean relayBlock(Connection to) {
        thread.checkThread(this);
        ByteBuffer block = source;
        if (block == null || blockEnd < 0 || block.position() != blockStart || block.limit() != blockEnd) {
            throw new IllegalStateException("no block whole in hand to relay from " + this + ": "
                    + (block == null || blockEnd < 0 ? "its handler is not being handed a block"
                            : "the block's position=" + block.position() + " limit=" + block.limit()
                                    + " were moved from " + blockStart + " and " + blockEnd));
        }
        if (to == this) {
            return writeFrames(block); // written back as received
        }
        if (to.maxFrameLength < maxFrameLength) {
            checkRelayed(block, to);
        }
        return to.writeChecked(block, blockStart, blockEnd);
    }

    /**
     * Checks each frame of the block in hand against the smaller {@code maxFrameLength} of {@code to}, naming
     * the first too long for it by its stream offset on this connection.
     */
    private void checkRelayed(ByteBuffer block, Connection to) {
        int limit = to.maxFrameLength;
        int frame = 0;
        for (int at = blockStart; at < blockEnd; frame++) {
            int length = FrameFormat.length(block, at);
            if (length > limit) {
                throw new IllegalArgumentException("frame too long to relay: length=" + length + " maxFrameLength="
                        + limit + " of " + to + " (this connection's " + maxFrameLength + ") offset="
                        + (consumed + at - blockStart) + " (frame " + frame + " of the block) on " + this);
            }
            at += FrameFormat.HEADER_LENGTH + length;
        }
    }

    /** As {@link #writeFrames}, for whole frames {@code frames[from, to)} checked already against this connection's limit. */
    private boolean writeChecked(ByteBuffer frames, int from, int to) {
        thread.checkThread(this);
        checkNoClaim();
        if (state != State.OPEN) {
            return false;
        }
        queueCopy(frames, from, to);
        return true;
    }

    /** Queues a copy of {@code frames[from, to)}, whole frames, after what is pending. */
    private void queueCopy(ByteBuffer frames, int from, int to) {
        if (to > from) {
            putForwarded(); // in the order written
            copyFrames(frames, from, to);
            queued += to - from;
            queuedMore();
        }
    }

    /**
     * Claims a frame in the output to fill in place: the header is written, and the returned buffer
     * covers exactly the body, from position 0 to limit {@code length}, valid until {@link #commit()}
     * or {@link #abortClaim()}, which must come before any other write to this connection.
     *
     * @param type the type field
     * @param length the body's length
     * @return the body to fill, or null if the connection is closing or closed
     * @throws IllegalArgumentException if {@code length} is negative or above {@code maxFrameLength}
     * @throws IllegalStateException if a claim is pending
     */
    public ByteBuffer claim(int type, int length) {
        thread.checkThread(this);
        checkNoClaim();
        if (state != State.OPEN) {
            return null;
        }
        putForwarded();
        Chunk c = outputFor(length);
        int at = c.end;
        c.buf.putLong(at, FrameFormat.header(type, length));
        claimed = c;
        claimedTotal = FrameFormat.HEADER_LENGTH + length;
        ByteBuffer body = c.fill;
        body.limit(at + claimedTotal).position(at + FrameFormat.HEADER_LENGTH);
        return body.slice();
    }

    /** Queues the claimed frame, whatever was put in its body. */
    public void commit() {
        thread.checkThread(this);
        Chunk c = requireClaim();
        c.end += claimedTotal;
        queued += claimedTotal;
        claimed = null;
        queuedMore();
    }

    /** Drops the claimed frame. */
    public void abortClaim() {
        thread.checkThread(this);
        requireClaim();
        claimed = null;
        Chunk tail = takeEmptyTail();
        if (tail != null) {
            flushes.pool.give(tail);
        }
    }

    /**
     * Closes gracefully: reads no more, sends what is queued, then closes. Does nothing if already
     * closing or closed.
     */
    public void close() {
        thread.checkThread(this);
        if (state == State.OPEN) {
            claimed = null;
            putForwarded(); // sent before the close, as what else is queued
            closer.closeGracefully(this);
        }
    }

    /** Closes at once: what is queued is dropped and the peer gets a reset where the socket allows. */
    public void abort() {
        thread.checkThread(this);
        if (state != State.CLOSED) {
            claimed = null;
            closer.closeNow(this, null, true);
        }
    }

    /**
     * Queues the frame being handled, as received: it extends the run of such frames if it follows the
     * last one in {@code source}; else that run goes into the output first and this one starts the next.
     */
    private void forward() {
        forwardRun(frameStart, frameEnd);
    }

    /** Queues {@code source[from, to)}, whole frames, as received: as {@link #forward()} does one frame. */
    private void forwardRun(int from, int to) {
        if (forwardTo != from) {
            putForwarded();
            forwardFrom = from;
        }
        forwardTo = to;
        queued += to - from;
        queuedMore();
    }

    /** Puts the pending run of frames written back as received, if any, into the output. */
    private void putForwarded() {
        if (forwardTo != forwardFrom) {
            copyForwarded(source);
        }
    }

    /**
     * After a frame was queued: at the limit, it is paused at once, so that a writer that stopped at {@link
     * #isWritable()} is told by {@link ConnectionHandler#onWritable} when to go on, however much the flush
     * then sends. It is flushed at the end of its read or of the turn.
     */
    private void queuedMore() {
        if (queued + handed >= outputLimit) {
            paused = true;
        }
        flushes.add(this);
    }

    /** {@return the output chunk with room for a frame of {@code length} body bytes at its end} */
    private Chunk outputFor(int length) {
        if (length < 0 || length > maxFrameLength) {
            throw new IllegalArgumentException("length=" + length + " min=0 maxFrameLength=" + maxFrameLength
                    + " for " + this);
        }
        int total = FrameFormat.HEADER_LENGTH + length;
        BufferPool pool = flushes.pool;
        if (total > pool.chunkSize()) {
            Chunk large = BufferPool.large(total);
            addOutput(large);
            return large;
        }
        Chunk tail = outTail;
        if (tail == null || !tail.pooled() || tail.capacity() - tail.end < total) {
            tail = pool.take();
            addOutput(tail);
        }
        return tail;
    }

    /**
     * Copies {@code source[from, to)}, whole frames, to the end of the output: into the tail chunk's room and
     * new chunks, a frame split between two where it falls. Not counted in {@code queued}.
     */
    private void copyFrames(ByteBuffer source, int from, int to) {
        while (from < to) {
            Chunk tail = outTail;
            if (tail == null || !tail.pooled() || tail.end == tail.capacity()) {
                tail = flushes.pool.take();
                addOutput(tail);
            }
            int n = Math.min(to - from, tail.capacity() - tail.end);
            tail.buf.put(tail.end, source, from, n);
            tail.end += n;
            from += n;
        }
    }

    /**
     * {@code chunk}, handed to {@link #taker}, is back: sent, or never to be, and no longer counted against
     * the output limit. Paused, and drained to half the limit, it is flushed at the turn's end, which resumes
     * it, and the poll is woken to end that turn: a send's completion is no readiness, and no readiness may
     * come (the loop may hold nothing more to hand over, and reads nothing while paused). Once a pause at
     * most, {@code dirty} marking it. Called within a poll, or a close.
     */
    private void returned(Chunk chunk) {
        if (state != State.CLOSED) {
            handed -= chunk.available(); // [start, end) as handed: neither the loop nor the endpoint moves them
            if (paused && !dirty && queued + handed <= outputLimit / 2) {
                flushes.add(this);
                flushes.poller.wakeup();
            }
        }
        flushes.pool.give(chunk);
    }

    private void checkNoClaim() {
        if (claimed != null) {
            throw new IllegalStateException("a frame of " + claimedTotal + " bytes is claimed and not committed: "
                    + this);
        }
    }

    private Chunk requireClaim() {
        if (claimed == null) {
            throw new IllegalStateException("no frame claimed: " + this);
        }
        return claimed;
    }

    // ---- the loop's record: what the loop's parts ask of the connection, each a named operation

    // Its life (see State): the transitions, each refusing a move the state machine does not have.

    /** NEW to CONNECTING: {@code done} completes once it opens, or fails; given up at loop time {@code deadline}. */
    void connecting(CompletableFuture<Connection> done, long deadline) {
        move(State.CONNECTING, state == State.NEW);
        opening = done;
        openDeadline = deadline;
    }

    /** NEW (accepted) or CONNECTING (connected) to HANDSHAKING: given up at loop time {@code deadline}. */
    void handshaking(long deadline) {
        move(State.HANDSHAKING, state == State.NEW || state == State.CONNECTING);
        openDeadline = deadline;
    }

    /** NEW (accepted), CONNECTING or HANDSHAKING to OPEN, before its handler's {@code onOpen}. */
    void opens() {
        move(State.OPEN, state == State.NEW || state == State.CONNECTING || state == State.HANDSHAKING);
    }

    /** OPEN to CLOSING: it reads no more, and closes once its output is sent; again while CLOSING, nothing. */
    void closing() {
        move(State.CLOSING, state == State.OPEN || state == State.CLOSING);
    }

    /** {@return the state it leaves} for CLOSED, from any other: the handler hears of it no more */
    State closes() {
        State was = state;
        move(State.CLOSED, was != State.CLOSED);
        return was;
    }

    private void move(State to, boolean allowed) {
        if (!allowed) {
            throw new IllegalStateException("no move from " + state + " to " + to + ": " + this);
        }
        state = to;
    }

    /** {@return what {@link FrameClient#connect} returned, handed over once: null after, and for an accepted one} */
    CompletableFuture<Connection> takeOpening() {
        CompletableFuture<Connection> done = opening;
        opening = null;
        return done;
    }

    /** At loop time {@code now} it read or sent, or opened: its idle time starts over. */
    void active(long now) {
        lastActive = now;
    }

    /** Lingering (closed, its socket reading until it ends), until loop time {@code until}, at {@code slot} of the loop's list. */
    void lingers(long until, int slot) {
        lingering = true;
        lingerUntil = until;
        lingerSlot = slot;
    }

    /** It lingers no more: its socket is closed. */
    void lingerEnded() {
        lingering = false;
    }

    /** The peer's end of stream was read: a close now needs no lingering. */
    void inputEnds() {
        inputEnded = true;
    }

    // Where the loop's lists keep it, for removal without a search.

    /** At {@code slot} of the loop's connections. */
    void placedAt(int slot) {
        this.slot = slot;
    }

    /** At {@code slot} of the loop's opening connections. */
    void openingAt(int slot) {
        openSlot = slot;
    }

    /** At {@code slot} of the loop's lingering connections. */
    void lingeringAt(int slot) {
        lingerSlot = slot;
    }

    /** In the loop's list of connections to read without a readiness, or out of it. */
    void listedForRead(boolean listed) {
        readPending = listed;
    }

    // Input.

    /** Its input chunk is {@code chunk} now (null: none), holding the start of the frames to come. */
    void input(Chunk chunk) {
        in = chunk;
    }

    /** Read {@code n} bytes at loop time {@code now}: counted, and its idle time starts over. */
    void received(int n, long now) {
        lastActive = now;
        bytesRead += n;
        stats.bytesRead(n);
    }

    /** Its input moves {@code n} bytes on past frames handed over: {@code consumed} is the next one's offset. */
    void consumes(int n) {
        consumed += n;
    }

    /**
     * Keeps a partial frame (its buffer counted by {@link #holds}): timed from now if it is not the one kept
     * before (its stream offset tells), the clock read then, not the turn's (the poll may have waited long
     * since).
     */
    void keepsPartial() {
        if (held == 0 || partialOffset != consumed) {
            partialSince = System.nanoTime();
            partialOffset = consumed;
        }
    }

    /** Counted by its loop's input budget as keeping a buffer of {@code size} bytes (0: none). */
    void holds(int size) {
        held = size;
    }

    // The hand-over of frames to its handler (see the fields' comments).

    /** Its handler is handed frames whose bodies are views of {@code view}. */
    void handing(ByteBuffer view) {
        source = view;
    }

    /** Its handler is handed the frame {@code [start, end)} of the source, of {@code type}: one more read. */
    void handingFrame(int start, int end, int type) {
        framesRead++;
        frameStart = start;
        frameEnd = end;
        frameType = type;
    }

    /** Its handler is handed the block {@code [from, to)} of {@code view}, {@code frames} frames. */
    void handingBlock(ByteBuffer view, int from, int to, long frames) {
        framesRead += frames;
        source = view;
        frameEnd = -1;
        blockStart = from;
        blockEnd = to;
    }

    /** The hand-over is over: no frame or block in hand. */
    void handedOver() {
        source = null;
        blockEnd = -1;
    }

    /** The hand-over broke off (a handler threw): nothing in hand, and the frames written back as received dropped. */
    void handOverAbandoned() {
        handedOver();
        forwardFrom = 0;
        forwardTo = 0;
    }

    /** The frames written back as received, {@code [forwardFrom, forwardTo)}, were put in the output, or dropped. */
    void forwardTaken() {
        forwardFrom = 0;
        forwardTo = 0;
    }

    /**
     * Puts the frames written back as received, {@code source[forwardFrom, forwardTo)} (already counted in
     * {@code queued}), into the output: copied at once, into the tail chunk's room and new chunks, a frame
     * split between two where it falls.
     */
    void copyForwarded(ByteBuffer source) {
        int from = forwardFrom;
        int to = forwardTo;
        forwardTaken();
        copyFrames(source, from, to);
    }

    /**
     * Makes {@code in}, the input chunk that holds the frames its handler wrote back as received, the end of
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
    boolean adoptForwarded(Chunk in) {
        int from = forwardFrom;
        int to = forwardTo;
        forwardTaken();
        if (outTail != null && to - from < in.capacity() / 2) {
            copyFrames(in.buf, from, to);
            return false;
        }
        in.start = from;
        in.end = to;
        addOutput(in);
        return true;
    }

    // Output: its chunks, oldest first, and what they and the endpoint hold against the output limit.

    /** Adds {@code chunk} at the end of its output. */
    private void addOutput(Chunk chunk) {
        chunk.next = null;
        if (outTail == null) {
            outHead = chunk;
        } else {
            outTail.next = chunk;
        }
        outTail = chunk;
    }

    /** {@return the head of its output, taken out of it, or null} */
    Chunk pollOutput() {
        Chunk head = outHead;
        if (head != null) {
            outHead = head.next;
            head.next = null;
            if (outHead == null) {
                outTail = null;
            }
        }
        return head;
    }

    /** {@return the tail of its output, taken out of it, where it holds nothing (after an aborted claim); else null} */
    private Chunk takeEmptyTail() {
        Chunk tail = outTail;
        if (tail == null || tail.available() != 0) {
            return null;
        }
        Chunk before = null; // a rare path: found from the head, the list being singly linked
        for (Chunk k = outHead; k != tail; k = k.next) {
            before = k;
        }
        if (before == null) {
            outHead = null;
        } else {
            before.next = null;
        }
        outTail = before;
        return tail;
    }

    /** The socket took {@code n} bytes of its output at loop time {@code now}. */
    void sent(int n, long now) {
        queued -= n;
        lastActive = now;
        bytesWritten += n;
        stats.bytesWritten(n);
    }

    /** Its endpoint took {@code n} bytes of its output to send from where they lie, at loop time {@code now}. */
    void handedToEndpoint(int n, long now) {
        queued -= n;
        handed += n; // until the endpoint gives them back
        lastActive = now;
        bytesWritten += n;
        stats.bytesWritten(n);
    }

    /** Its output is dropped, at its close: nothing queued, nothing counted as the endpoint's. */
    void outputDropped() {
        forwardTaken();
        queued = 0;
        handed = 0;
    }

    /**
     * After a flush: paused where its output is at the limit, resumed where it was paused and has drained
     * to half the limit; {@return whether it resumed}
     */
    boolean repause() {
        long output = queued + handed;
        if (output >= outputLimit) {
            paused = true;
        } else if (paused && output <= outputLimit / 2) {
            paused = false;
            return true;
        }
        return false;
    }

    /** {@return whether it was clean}: now it is dirty, written to and not flushed since */
    boolean dirties() {
        boolean was = dirty;
        dirty = true;
        return !was;
    }

    /** {@return whether it was dirty}: now it is clean, flushed */
    boolean cleans() {
        boolean was = dirty;
        dirty = false;
        return was;
    }

    /** The poller was told to watch it for {@code ops}. */
    void watchedFor(int ops) {
        interest = ops;
    }

    @Override
    public String toString() {
        return "connection " + id + " " + owner.direction + " " + remote;
    }

    /**
     * What the connections of one loop share for their output: the pool their chunks come from, and the
     * list of those written to and not flushed since ({@code dirty}), which the loop's {@link Outbound}
     * flushes at the end of a connection's read or of the turn. Made by the loop.
     *
     * <p>{@code list[0, count)}: each connection once, but for one flushed at the end of its read and
     * written to again, which is in it twice and flushed once.
     *
     * <p>Thread safety: the loop's thread.
     */
    static final class FlushList {
        /** Where the connections' output chunks come from and go back to. */
        final BufferPool pool;
        /** Woken where a connection is put in the list from within a poll (a send completed). */
        final Poller poller;
        private Connection[] list = new Connection[64];
        private int count;

        FlushList(BufferPool pool, Poller poller) {
            this.pool = pool;
            this.poller = poller;
        }

        /** Puts {@code c} in the list, unless it is there already: it is dirty now. */
        void add(Connection c) {
            if (c.dirties()) {
                if (count == list.length) {
                    list = Arrays.copyOf(list, count * 2);
                }
                list[count++] = c;
            }
        }

        /** {@return the connections in the list}: more where a flush writes to others */
        int count() {
            return count;
        }

        /** {@return the connection at {@code i}, its slot cleared} */
        Connection take(int i) {
            Connection c = list[i];
            list[i] = null;
            return c;
        }

        /** Empties the list, each of whose connections was taken. */
        void clear() {
            count = 0;
        }

        /** Takes {@code c}, flushed at the end of its own read, off the list where it is the last one. */
        void dropLast(Connection c) {
            if (list[count - 1] == c) {
                list[--count] = null;
            }
        }
    }

    /**
     * The thread a connection belongs to: where its handler runs, and the only one that may touch it.
     *
     * <p>Thread safety: {@link #execute} from any thread; {@link #checkThread} from any, to be refused off
     * the loop's.
     */
    interface LoopThread {
        /**
         * Runs {@code task} on the loop's thread at its next turn, after the tasks given before it.
         *
         * @throws java.util.concurrent.RejectedExecutionException if the server is closed
         */
        void execute(Runnable task);

        /**
         * Refuses a call off the loop's thread.
         *
         * @param c the connection called
         * @throws IllegalStateException if the calling thread is not the loop's, naming both threads and {@code c}
         */
        void checkThread(Connection c);

        /** On the loop's thread: reads {@code c} at the next turn if its TLS holds input the poller will not announce. */
        void readLaterIfHeld(Connection c);
    }

    /**
     * The loop's ways of ending a connection, which the parts that read and write it call when they
     * cannot go on, so that every close takes the same steps (the counts, the socket, the chunks, the
     * events and the handler's {@code onClose}).
     *
     * <p>Thread safety: the loop's thread.
     */
    interface Closer {
        /**
         * Closes {@code c} at once, gives back its chunks and tells the handler; nothing if already closed.
         *
         * @param cause what ended it, for the handler; null for a clean close
         * @param reset an RST instead of a FIN where the socket supports it
         */
        void closeNow(Connection c, Throwable cause, boolean reset);

        /**
         * Closes {@code c}, which broke the protocol: no more frames from it, what its handler queued
         * before is sent as far as the socket takes it now, then the close.
         *
         * @param offset the stream offset of the bad frame
         * @param cause the protocol's exception
         */
        void refuse(Connection c, long offset, IOException cause);

        /** Stops reading {@code c}, sends what is queued, then closes it. */
        void closeGracefully(Connection c);

        /**
         * Resets {@code c}, in whose serving {@code e} was thrown (an {@code Error} such as {@code
         * OutOfMemoryError}, or a bug), with {@code e} as the cause its handler gets; the loop goes on. Where
         * closing it fails too, that is added to {@code e} and reported to the thread's uncaught-exception handler.
         */
        void failed(Connection c, Throwable e);

        /** Tells the thread's uncaught-exception handler of {@code e}, which no connection's handler can be told; the loop goes on. */
        static void report(Throwable e) {
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
        }
    }
}
