package dev.wirespeed.loop.tls;

import dev.wirespeed.loop.InputBudgetException;
import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.internal.Chunk;
import dev.wirespeed.loop.internal.InputMemory;
import dev.wirespeed.loop.internal.SegmentIo;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.LendingEndpoint;
import dev.wirespeed.tls.PeerCertificateException;
import dev.wirespeed.tls.TlsContext;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * A connection's TLS: its {@link SSLEngine} between the socket and the loop. To the loop's reading it is
 * a {@link LendingEndpoint} of plaintext: it reads ciphertext from the socket, unwraps a record at a time
 * into a buffer of its own, and lends that, so that frames are parsed in the decrypted bytes where they
 * lie. To the loop's writing it wraps the output chunks into ciphertext and sends that. Its three buffers
 * (ciphertext in, plaintext, ciphertext out) come from the loop's TLS pools only while they hold bytes:
 * a record's worth for the plaintext, several records' for the ciphertext each way, so that one system
 * call reads or sends several records.
 *
 * <p>A connection waits for its peer without a ciphertext buffer: where the socket has no more and a
 * record is partial, the part that came is kept in a buffer about its size from the loop's {@link
 * InputMemory}, counted against its input budget and timed by its frame timeout, until the rest comes
 * (a part longer than the largest of those buffers keeps the ciphertext buffer instead, counted the
 * same way). A server's connection makes no engine until the peer's first record is whole: until then
 * it holds the bytes of that record that came (at most {@value TlsLayers#FIRST_RECORD} of them), and nothing
 * else, so that a peer that connects and stalls costs the socket and these bytes. One of the loop's
 * turns unwraps at most {@value #MAX_TURN_RECORDS} records of a connection (records, however many an
 * engine takes in a call; empty ones and those of a byte as much as full ones) before it gives the turn
 * back, and a turn of the handshake reads the socket once, so that a flood of records of nothing (empty
 * ones; in a handshake, warning alerts, which the JDK's engine ignores there) or of next to nothing costs
 * its connection turns, not the loop's. The first record's header
 * is checked here, before any engine sees it: a handshake record of TLS's, of at most 2^14 bytes.
 *
 * <p>The socket itself stays the connection's endpoint for the poller; the poller does not know what this
 * holds, so the loop asks {@link #holdsInput()} after reading and comes back without a readiness.
 *
 * <p>Thread safety: the loop's thread.
 */
public final class TlsLayer implements LendingEndpoint {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    static final int HEADER = 5;
    /** Records one turn unwraps at most ({@link #beginTurn()}), before it gives the turn back. */
    static final int MAX_TURN_RECORDS = 64;
    /** The most plaintext a record carries (RFC 8446 5.1), a ClientHello's record among them. */
    static final int MAX_PLAINTEXT = 1 << 14;

    /** The engine: a client's from the start, a server's once the peer's first record is whole; else null. */
    private SSLEngine engine;
    private final TlsContext context;
    /** The peer's host and port, as the engine is told them. */
    private final String host;
    private final int port;
    private final TlsLayers layers;
    private final Endpoint raw;
    /** The socket, where it reads and writes by the address of a buffer's memory; else null. */
    private final SegmentIo io;
    /** The pool of the engine's records (plaintext); null until the engine is made. */
    private BufferPool pool;
    /** The pool of ciphertext buffers, several records each; null until the engine is made. */
    private BufferPool wire;
    /** The room a wrap needs: the engine's packet buffer size. */
    private int recordRoom;
    /** The longest the loop waits for the peer's close_notify after sending its own. */
    private final long closeNanos;
    /** Ciphertext read, {@code [start, end)} not yet unwrapped; null while none. */
    private Chunk netIn;
    /** Records unwrapped since the loop's turn began to read this connection: {@code 0 <= turnRecords}. */
    private int turnRecords;
    /** The part of a record that came, kept in a buffer about its size until the rest comes; else null. */
    private Chunk partial;
    /** The bytes of {@code netIn} counted against the input budget while it keeps a partial record between reads. */
    private int pinned;
    /** Ciphertext read from the socket so far: a partial record's stream offset is told from it. */
    private long netRead;
    /** The stream offset of the last partial record kept, and when it was first kept (System.nanoTime). */
    private long partialOffset = -1;
    private long partialSince;
    /** Plaintext unwrapped, {@code [start, end)} not yet consumed; null while none. */
    private Chunk plain;
    /** Ciphertext wrapped, {@code [start, end)} not yet sent; null while none. */
    private Chunk netOut;
    /** The socket's end of stream was read. */
    private boolean eof;
    /** The peer's close_notify was unwrapped. */
    private boolean closeNotified;
    /** Our close_notify was wrapped. */
    private boolean outboundClosed;
    /** The handshake that opened the connection is done; another one (renegotiation) is refused on TLS 1.2. */
    private boolean established;
    /** A post-handshake message (a TLS 1.3 key update) wants a wrap. */
    private boolean wantsWrap;
    /** {@link #release()} closed the engine. */
    private boolean engineClosed;
    /** The last unwrap wanted more ciphertext than {@code netIn} holds. */
    private boolean lastUnderflow;
    /** This turn of the handshake has read the socket: it reads once a turn. */
    private boolean handshakeRead;
    /** The engine has unwrapped more than one record in a call (OpenSSL's does): it is told how many it may. */
    private boolean batches;
    /** Whether it is known if the engine batches: until then it is given no more records than it may take. */
    private boolean knowsBatching;
    /** Why reading failed, told by {@link #ended()} once the plaintext before it is consumed; else null. */
    private IOException failure;

    /**
     * A connection's TLS over {@code raw}; a client's engine is made here, a server's once its peer's
     * first record is whole.
     *
     * @param host the peer's host, as the engine is told it (a client checks and names it), or null
     * @param port the peer's port, or -1
     */
    TlsLayer(TlsLayers layers, TlsContext context, String host, int port, boolean client, Endpoint raw,
            long closeNanos) {
        this.layers = layers;
        this.context = context;
        this.host = host;
        this.port = port;
        this.raw = raw;
        this.io = raw instanceof SegmentIo s ? s : null;
        this.closeNanos = closeNanos;
        if (client) {
            makeEngine();
        }
    }

    private void makeEngine() {
        engine = context.newEngine(host, port);
        pool = layers.poolFor(engine, context.directBuffers());
        wire = layers.wirePoolFor(engine, context.directBuffers());
        recordRoom = engine.getSession().getPacketBufferSize();
    }

    /** {@return the engine: a client's from the start, a server's once the peer's first record is whole; else null} */
    public SSLEngine engine() {
        return engine;
    }

    /** {@return the longest the loop waits for the peer's close_notify after sending its own, in nanoseconds} */
    public long closeNanos() {
        return closeNanos;
    }

    // ---- the handshake

    /** Starts the handshake: a client's at once, its first flight sent by {@link #handshake()}; a server's later. */
    public void begin() throws SSLException {
        if (engine != null) {
            engine.beginHandshake();
        }
    }

    /**
     * Moves the handshake as far as the bytes at hand take it: runs the engine's tasks, wraps what it
     * must send, reads and unwraps what it needs; sends what it wrapped as far as the socket takes it.
     *
     * @return true once the handshake is done (bytes past it may be held: see {@link #holdsInput()})
     * @throws IOException the handshake's failure: a {@link PeerCertificateException} where the engine
     *     refused a certificate, else its {@link SSLException}; or the socket's; or an end of stream in it
     */
    public boolean handshake() throws IOException {
        try {
            if (engine == null && !firstRecord()) {
                return false;
            }
            handshakeRead = false;
            while (true) {
                SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
                switch (status) {
                    case NEED_TASK -> runTasks();
                    case NEED_WRAP -> {
                        if (!flush()) {
                            return false; // the socket is full: on with it when writable
                        }
                        wrap(EMPTY);
                    }
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                        if (!flush()) {
                            return false;
                        }
                        if (!unwrapForHandshake()) {
                            return false; // nothing to unwrap until the peer sends more
                        }
                    }
                    case NOT_HANDSHAKING, FINISHED -> {
                        if (!flush()) {
                            return false;
                        }
                        checkFinished();
                        established = true;
                        return true;
                    }
                }
            }
        } catch (SSLException e) {
            wrapAlert();
            throw described(e);
        }
    }

    /**
     * Refuses a handshake that stopped without finishing. An engine says {@code NOT_HANDSHAKING} also once
     * it is closed: the JDK's does when the peer closes in the handshake (a {@code user_canceled} alert
     * and a close_notify), so a connection would open to a peer that never authenticated. A handshake is
     * done only with both directions open and a protocol agreed.
     */
    private void checkFinished() throws SSLException {
        String protocol = engine.getSession().getProtocol();
        if (engine.isInboundDone() || engine.isOutboundDone() || protocol == null || "NONE".equals(protocol)) {
            throw new SSLException("the TLS handshake stopped before it finished: inboundDone=" + engine.isInboundDone()
                    + " outboundDone=" + engine.isOutboundDone() + " protocol=" + protocol + " (the engine closed in "
                    + "the handshake: the peer is not authenticated)");
        }
    }

    /**
     * After a failed handshake: wraps the alert the engine holds (an {@link SSLEngine} that fails keeps it
     * for the next {@code wrap}), so that the flush before the close tells the peer why (a certificate
     * refused, no common application protocol) rather than ending its stream without a word.
     */
    private void wrapAlert() {
        if (engine == null) {
            return; // a first record refused before any engine: the peer does not speak TLS, or not to us
        }
        try {
            for (int i = 0; i < 4 && !engine.isOutboundDone()
                    && engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP; i++) {
                wrap(EMPTY);
            }
        } catch (SSLException | RuntimeException ignored) {
            // no alert, then: the peer hears the close alone
        }
    }

    /**
     * A server's connection before its engine: reads the peer's first record into the loop's buffer for
     * it, checks its header, and keeps what came in {@link #partial} while it is not whole; once it is,
     * makes the engine, begins its handshake and hands it the record (and what came after) in {@code netIn}.
     *
     * @return true once the engine is made
     */
    private boolean firstRecord() throws IOException {
        ByteBuffer b = layers.firstRecordBuffer();
        if (partial != null) {
            b.put(0, partial.buf, 0, partial.end).position(partial.end);
            givePartial();
        }
        while (b.position() < HEADER || b.position() < HEADER + firstRecordLength(b)) {
            int n = raw.read(b);
            if (n < 0) {
                eof = true;
                throw new SSLException("the peer ended the stream in the TLS handshake, " + b.position() + " bytes "
                        + "into its first record");
            }
            if (n == 0) {
                if (b.position() > 0) {
                    keepPartial(b, 0, b.position());
                }
                return false;
            }
            netRead += n;
        }
        makeEngine();
        Chunk in = netIn = wire.take();
        in.buf.put(0, b, 0, b.position());
        in.end = b.position();
        engine.beginHandshake();
        return true;
    }

    /** {@return the body length of a client's first record, from its header at index 0 of {@code b}}: checked */
    private static int firstRecordLength(ByteBuffer b) throws SSLException {
        int type = b.get(0) & 0xFF;
        int version = (b.get(1) & 0xFF) << 8 | (b.get(2) & 0xFF);
        int length = (b.get(3) & 0xFF) << 8 | (b.get(4) & 0xFF);
        if (type != 22 || version >>> 8 != 3 || length == 0 || length > MAX_PLAINTEXT) {
            throw new SSLException("not a TLS client's first record: type=" + type + " version=0x"
                    + Integer.toHexString(0x10000 | version).substring(1) + " length=" + length
                    + " (a ClientHello comes in a handshake record: type=22, version 0x03xx, length 1 to "
                    + MAX_PLAINTEXT + ")");
        }
        return length;
    }

    /**
     * Unwraps one handshake record; {@return false if none is whole and the socket has no more, or this
     * turn read it already}: a peer that keeps its socket full of records the engine takes without moving
     * the handshake on (warning alerts) would otherwise hold the loop here; the rest is read at the next
     * turn, the socket ready still.
     */
    private boolean unwrapForHandshake() throws IOException {
        if (netIn == null || netIn.available() == 0 || lastUnderflow) {
            if (handshakeRead) {
                setPartAside();
                return false;
            }
            handshakeRead = true;
            if (!readSocket()) {
                if (eof) {
                    throw new SSLException("the peer ended the stream in the TLS handshake");
                }
                setPartAside();
                return false;
            }
        }
        Chunk p = plain == null ? plain = pool.take() : plain;
        unwrapInto(p, 1);
        releasePlainIfEmpty();
        return true;
    }

    /**
     * While the socket has no more and {@code netIn} holds a partial record: the part that came to {@link
     * #partial} and the ciphertext buffer back, where the part fits the loop's small buffers; else {@code
     * netIn} kept, counted against the budget as it is.
     */
    private void setPartAside() throws IOException {
        Chunk in = netIn;
        if (in == null) {
            return;
        }
        int n = in.available();
        if (n > layers.memory.largestHold()) {
            pin(in.capacity(), n);
            return;
        }
        if (n > 0) {
            keepPartial(in.buf, in.start, n);
        }
        wire.give(in);
        netIn = null;
    }

    /** Keeps {@code src[from, from + n)}, the part of a record that came, in a buffer about its size. */
    private void keepPartial(ByteBuffer src, int from, int n) throws IOException {
        InputMemory memory = layers.memory;
        long size = memory.sizeFor(n, n, 0);
        if (!memory.fits(size)) {
            throw overBudget(memory, 0, size, n);
        }
        Chunk k = memory.take(size);
        k.buf.put(0, src, from, n);
        k.end = n;
        partial = k;
        memory.add(k.capacity());
        timePartial(netRead - n);
    }

    /** Counts {@code netIn}, of {@code size} bytes, as keeping a partial record of {@code n} bytes between reads. */
    private void pin(int size, int n) throws IOException {
        InputMemory memory = layers.memory;
        if (!memory.fits(size - pinned)) {
            throw overBudget(memory, pinned, size, n);
        }
        memory.add(size - pinned);
        pinned = size;
        timePartial(netRead - n);
    }

    /**
     * {@return the refusal of this connection, which keeps {@code held} bytes for its partial record and
     * would need a buffer of {@code size} for the {@code n} bytes of it that came, past the input budget}
     */
    private InputBudgetException overBudget(InputMemory memory, int held, long size, int n) {
        return new InputBudgetException("inputBudget=" + memory.budget() + " exceeded: the loop keeps " + memory.held()
                + " bytes of partial frames and records, this connection " + held + "; a TLS record at offset="
                + (netRead - n) + ", " + n + " bytes of it come, needs a buffer of " + size);
    }

    /** A partial record at stream offset {@code offset} is kept: timed from now unless it was kept before. */
    private void timePartial(long offset) {
        if (offset != partialOffset) {
            partialOffset = offset;
            partialSince = System.nanoTime();
        }
    }

    /** The pinned {@code netIn} no longer counted: a read is under way, or the layer is released. */
    private void unpin() {
        if (pinned != 0) {
            layers.memory.add(-pinned);
            pinned = 0;
        }
    }

    /** Gives {@link #partial} back, no longer counted. */
    private void givePartial() {
        layers.memory.add(-partial.capacity());
        layers.memory.give(partial);
        partial = null;
    }

    /** The part of a record kept, back at the front of the new chunk {@code in}. */
    private void takeBackPart(Chunk in) {
        in.buf.put(0, partial.buf, 0, partial.end);
        in.end = partial.end;
        givePartial();
    }

    /**
     * {@return when the partial record this layer keeps between reads was first kept (System.nanoTime), or
     * {@code Long.MIN_VALUE} where it keeps none}
     */
    public long partialRecordSince() {
        return partial != null || pinned != 0 ? partialSince : Long.MIN_VALUE;
    }

    /** {@return the stream offset of the partial record kept} */
    public long partialRecordOffset() {
        return partialOffset;
    }

    /** {@return {@code e}, or the certificate refusal among its causes, which says more} */
    public static IOException described(SSLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof PeerCertificateException p) {
                return p;
            }
        }
        return e;
    }

    private void runTasks() {
        for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
            task.run();
        }
    }

    // ---- reading: plaintext lent to the loop

    @Override
    public ByteBuffer lend() {
        if (plain != null && plain.available() > 0) {
            return view(plain);
        }
        try {
            while (!closeNotified) {
                if (turnRecords >= MAX_TURN_RECORDS) {
                    if (netIn == null || netIn.available() == 0 || lastUnderflow) {
                        setPartAside(); // nothing whole held: the rest comes with the socket's readiness
                    }
                    break; // the turn's records: the rest next turn, as held input or the socket's
                }
                if (netIn != null && netIn.available() > 0 && !lastUnderflow) {
                    Chunk p = plain == null ? plain = pool.take() : plain;
                    p.start = p.end = 0;
                    // Records, not unwraps, are counted: an engine may take every whole record it has at once.
                    // An unwrap that took none, a record not whole aside, counts as one: the loop ends anyway.
                    int records = unwrapInto(p, MAX_TURN_RECORDS - turnRecords);
                    turnRecords += records > 0 || lastUnderflow ? records : 1;
                    if (p.available() > 0) {
                        return view(p);
                    }
                    if (turnRecords >= MAX_TURN_RECORDS) {
                        if (netIn == null || netIn.available() == 0 || lastUnderflow) {
                            setPartAside(); // nothing whole held: the rest comes with the socket's readiness
                        }
                        break; // records of nothing: the rest next turn, as held input or the socket's
                    }
                    continue; // a record of no application data (a ticket, a key update), or a partial one
                }
                if (!readSocket()) {
                    if (!eof) {
                        setPartAside();
                    }
                    break;
                }
            }
        } catch (IOException e) {
            failure = e instanceof SSLException s ? described(s) : e;
        }
        releasePlainIfEmpty();
        return null;
    }

    /** {@return the read-only twin of {@code p}'s buffer, pointed at its unconsumed plaintext} */
    private static ByteBuffer view(Chunk p) {
        return p.view.limit(p.end).position(p.start);
    }

    @Override
    public void consume(int n) {
        plain.start += n;
        releasePlainIfEmpty();
    }

    private void releasePlainIfEmpty() {
        if (plain != null && plain.available() == 0) {
            pool.give(plain);
            plain = null;
        }
    }

    @Override
    public boolean ended() throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (closeNotified) {
            return true;
        }
        if (eof) {
            if (outboundClosed) {
                return true; // we closed first: the peer's FIN alone ends it well enough
            }
            throw new SSLException("the peer ended the stream without a TLS close_notify: a truncation, not a clean "
                    + "close");
        }
        return false;
    }

    /** The loop's turn begins to read this connection: it unwraps {@value #MAX_TURN_RECORDS} records at most. */
    public void beginTurn() {
        turnRecords = 0;
    }

    /** {@return whether plaintext or ciphertext is held that the socket's readiness will not announce} */
    public boolean holdsInput() {
        return (plain != null && plain.available() > 0) || (netIn != null && netIn.available() > 0 && !lastUnderflow);
    }

    /**
     * Unwraps records of {@code netIn} into {@code p} at its end: one, or as many as the engine takes in a
     * call (OpenSSL's takes every whole one whose plaintext fits), {@code most} at the most: the engine is
     * given no more, until it has been seen to take one alone with more there, after which the records
     * are no longer looked for (the JDK's takes one a call).
     *
     * @param most at least 1
     * @return the records unwrapped: 0 where the first is not whole
     */
    private int unwrapInto(Chunk p, int most) throws IOException {
        ByteBuffer src = netIn.buf;
        int from = netIn.start;
        src.limit(batches || !knowsBatching ? endOfRecords(src, from, netIn.end, most) : netIn.end).position(from);
        ByteBuffer dst = p.buf;
        dst.limit(dst.capacity()).position(p.end);
        SSLEngineResult r;
        try {
            r = engine.unwrap(src, dst);
        } finally {
            netIn.start = src.position();
            p.end = dst.position();
            src.limit(src.capacity());
            dst.limit(dst.capacity());
        }
        int records = 0;
        for (int at = from; at < netIn.start; records++) {
            at += netIn.start - at < HEADER ? HEADER : HEADER + recordLength(src, at);
        }
        batches |= records > 1;
        // One taken where a whole record is left: an engine that takes one a call (given most > 1).
        knowsBatching |= batches || records == 1 && most > 1 && netIn.available() >= HEADER
                && netIn.available() >= HEADER + recordLength(src, netIn.start);
        if (netIn.available() == 0) {
            wire.give(netIn);
            netIn = null;
        }
        switch (r.getStatus()) {
            case BUFFER_UNDERFLOW -> lastUnderflow = true;
            case BUFFER_OVERFLOW -> throw new SSLException("a TLS record of more than " + dst.capacity()
                    + " bytes of plaintext: packet buffer " + engine.getSession().getPacketBufferSize() + ", application "
                    + engine.getSession().getApplicationBufferSize());
            case CLOSED -> closeNotified = true;
            case OK -> lastUnderflow = false;
        }
        afterHandshakeStep(r.getHandshakeStatus());
        return records;
    }

    /**
     * {@return where the first {@code n} whole records of {@code b[from, to)} end, or {@code to} where fewer
     * are whole}: an engine given no more takes {@code n} at the most, and sees a partial record as it is
     */
    private static int endOfRecords(ByteBuffer b, int from, int to, int n) {
        int at = from;
        for (int i = 0; i < n; i++) {
            if (to - at < HEADER || to - at < HEADER + recordLength(b, at)) {
                return to;
            }
            at += HEADER + recordLength(b, at);
        }
        return at;
    }

    /** {@return the body length in the header of the record at index {@code at} of {@code b}} */
    private static int recordLength(ByteBuffer b, int at) {
        return (b.get(at + 3) & 0xFF) << 8 | (b.get(at + 4) & 0xFF);
    }

    /**
     * After an established connection's unwrap or wrap: a TLS 1.3 key update is answered, a renegotiation
     * refused. A close is neither: on TLS 1.2 the engine that unwrapped the peer's close_notify (or wrapped
     * its own) wants to wrap (or unwrap) the answering one, and says so as it would for a handshake.
     */
    private void afterHandshakeStep(SSLEngineResult.HandshakeStatus status) throws SSLException {
        if (!established || status == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
                || status == SSLEngineResult.HandshakeStatus.FINISHED) {
            return;
        }
        if (closeNotified || outboundClosed || engine.isInboundDone() || engine.isOutboundDone()) {
            return; // a close in progress: the loop's closing sends and awaits the close_notify
        }
        if (!"TLSv1.3".equals(engine.getSession().getProtocol())) {
            throw new SSLException("TLS renegotiation refused: the peer began a new handshake on an established "
                    + engine.getSession().getProtocol() + " connection");
        }
        if (status == SSLEngineResult.HandshakeStatus.NEED_TASK) {
            runTasks();
        }
        wantsWrap = engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP;
    }

    /** Reads what the socket has into {@code netIn}; {@return true if it read any} */
    private boolean readSocket() throws IOException {
        unpin(); // counted again, if still partial, when the socket has no more
        if (eof) {
            return false;
        }
        Chunk in = netIn;
        if (in == null) {
            in = netIn = wire.take();
            if (partial != null) {
                takeBackPart(in);
            }
        } else if (in.start > 0) { // a partial record: moved to the front, the socket's bytes after it
            int n = in.available();
            in.buf.put(0, in.buf, in.start, n);
            in.start = 0;
            in.end = n;
        }
        ByteBuffer b = in.buf;
        b.limit(b.capacity()).position(in.end);
        int n;
        try {
            n = io != null && b.isDirect() ? io.read(b, in.memory) : raw.read(b); // by address, no lookup
        } finally {
            b.limit(b.capacity());
        }
        if (n < 0) {
            eof = true;
        }
        if (n > 0) {
            in.end += n;
            netRead += n;
            lastUnderflow = false;
            return true;
        }
        if (in.available() == 0) {
            wire.give(in);
            netIn = null;
        }
        return false;
    }

    // ---- writing: the loop's chunks wrapped and sent

    /**
     * Wraps plaintext from {@code src}'s position into the ciphertext buffer, a record at a time while it
     * has room for a whole one, and sends the buffer when it has not; {@return the plaintext bytes taken}:
     * fewer than {@code src} holds only when the socket takes no more. What is wrapped and not sent waits
     * for {@link #flush()}, which the loop calls once it has written a turn's output: so a turn's records
     * leave in a few sends of several records each rather than one send each.
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        int before = src.position();
        try {
            while (src.hasRemaining()) {
                if (!roomForRecord() && !flush()) {
                    break; // the socket is full
                }
                wrap(src);
            }
        } catch (SSLException e) {
            throw described(e);
        }
        return src.position() - before;
    }

    /** {@return whether the ciphertext buffer, if there is one, has room for another whole record} */
    private boolean roomForRecord() {
        Chunk out = netOut;
        return out == null || out.capacity() - out.end >= recordRoom;
    }

    /** Wraps {@code src} (or nothing, for a handshake or a close) into {@code netOut}. */
    private void wrap(ByteBuffer src) throws SSLException {
        Chunk out = netOut == null ? netOut = wire.take() : netOut;
        ByteBuffer dst = out.buf;
        dst.limit(dst.capacity()).position(out.end);
        SSLEngineResult r;
        try {
            r = engine.wrap(src, dst);
        } finally {
            out.end = dst.position();
            dst.limit(dst.capacity());
        }
        if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
            throw new SSLException("a TLS record of more than " + (dst.capacity() - out.end) + " bytes: packet buffer "
                    + engine.getSession().getPacketBufferSize());
        }
        if (r.getStatus() == SSLEngineResult.Status.CLOSED && src.hasRemaining()) {
            throw new SSLException("TLS output closed: " + src.remaining() + " bytes not sent");
        }
        if (established) {
            afterHandshakeStep(r.getHandshakeStatus());
        }
        if (out.available() == 0) {
            wire.give(out);
            netOut = null;
        }
    }

    /** {@return true once no ciphertext waits}: sends what does, as far as the socket takes it */
    public boolean flush() throws IOException {
        if (wantsWrap && established) {
            wantsWrap = false;
            try {
                wrap(EMPTY);
            } catch (SSLException e) {
                throw described(e);
            }
        }
        Chunk out = netOut;
        if (out == null) {
            return true;
        }
        ByteBuffer b = out.buf;
        b.limit(out.end).position(out.start);
        try {
            while (b.hasRemaining()) {
                if ((io != null && b.isDirect() ? io.write(b, out.memory) : raw.write(b)) == 0) {
                    break;
                }
            }
        } finally {
            out.start = b.position();
            b.limit(b.capacity());
        }
        if (out.available() > 0) {
            return false;
        }
        wire.give(out);
        netOut = null;
        return true;
    }

    /** {@return whether ciphertext waits for the socket, or a wrap is due} */
    public boolean outputPending() {
        return netOut != null || wantsWrap;
    }

    /**
     * Wraps our close_notify, once, after everything before it; sends it as far as the socket takes it.
     * Where earlier ciphertext still waits for the socket (a send in flight) in a buffer with less room
     * than a whole record, the close_notify waits for it to leave: an engine may wrap nothing, not even an
     * alert, into less (the JDK's does not). {@link #outputPending()} stays true meanwhile, so that the
     * caller's next flush comes back here.
     */
    public void closeOutbound() throws IOException {
        if (outboundClosed || engine == null) {
            return;
        }
        Chunk out = netOut;
        if (out != null && out.buf.capacity() - out.end < engine.getSession().getPacketBufferSize() && !flush()) {
            return;
        }
        outboundClosed = true;
        engine.closeOutbound();
        try {
            for (int i = 0; i < 4 && !engine.isOutboundDone(); i++) { // the close_notify: one record
                wrap(EMPTY);
            }
        } catch (SSLException e) {
            throw described(e);
        }
        flush();
    }

    /**
     * Gives every buffer back and lets the engine go: at the connection's close. An engine that holds
     * memory of its own beside the JVM's (OpenSSL's) and is {@link AutoCloseable} is closed here, on the
     * loop's thread, rather than left to a collection.
     */
    public void release() {
        if (engine instanceof AutoCloseable closeable && !engineClosed) {
            engineClosed = true;
            try {
                closeable.close();
            } catch (Exception ignored) {
                // the engine is done with either way; its own cleaner is the backstop
            }
        }
        if (netIn != null) {
            wire.give(netIn);
        }
        if (plain != null) {
            pool.give(plain);
        }
        if (netOut != null) {
            wire.give(netOut);
        }
        netIn = plain = netOut = null;
        unpin();
        if (partial != null) {
            givePartial();
        }
    }

    // ---- the rest of an endpoint: the socket's

    @Override
    public int read(ByteBuffer dst) {
        throw new UnsupportedOperationException("a TLS connection's plaintext is lent, not read");
    }

    @Override
    public SocketAddress remoteAddress() {
        return raw.remoteAddress();
    }

    @Override
    public boolean isOpen() {
        return raw.isOpen();
    }

    @Override
    public void close() throws IOException {
        release();
        raw.close();
    }

    @Override
    public void reset() {
        release();
        raw.reset();
    }
}
