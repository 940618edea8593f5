package dev.wirespeed.linux.internal.ssl;

import dev.wirespeed.tls.PeerCertificateException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSession;

/**
 * One OpenSSL {@code SSL} behind the JDK's {@link SSLEngine} shape, over two memory BIOs: {@link #wrap}
 * is {@code SSL_write} of the plaintext, then {@code BIO_read} of the records out of the write BIO;
 * {@link #unwrap} is {@code BIO_write} of whole records into the read BIO, then {@code SSL_read} of the
 * plaintext (or {@code SSL_do_handshake} while handshaking). The handshake runs inline: there are no
 * delegated tasks.
 *
 * <p>As the JDK's engine does, {@code unwrap} takes whole records only ({@code BUFFER_UNDERFLOW} for a
 * part of one, nothing consumed) and only where the destinations have room for the record's plaintext
 * ({@code BUFFER_OVERFLOW} otherwise), so that no plaintext is ever left inside the engine; it takes as
 * many records as fit once the handshake is done, one at a time before. {@code wrap} makes records of up
 * to 2^14 bytes, as many as the destination has room for with each record's largest overhead
 * ({@value #MAX_OVERHEAD} bytes), gathering small sources into one record.
 *
 * <p>Buffers: a direct buffer is read or written by OpenSSL in place, by its address (looked up once per
 * buffer and kept for the last {@value #ADDRESSES} buffers); a heap buffer goes through a native scratch
 * segment of the calling thread. Nothing is allocated per call in the steady state, but the
 * {@link SSLEngineResult} that the {@code SSLEngine} shape returns: each call returns the previous
 * call's result again where the four values are the same (as they are, call after call, for frames of
 * one size), and allocates a new one of about 40 bytes where they differ.
 *
 * <p>OpenSSL reports a call's failure on the calling thread's error queue, which {@code SSL_get_error}
 * reads: each {@code SSL_do_handshake}, {@code SSL_read}, {@code SSL_write} and {@code SSL_shutdown}
 * starts with that queue cleared, so that an error another call left on the thread (another engine's,
 * another library's) fails nothing here.
 *
 * <p>A memory BIO keeps the most it ever held: once the handshake is done, each BIO is replaced by a new,
 * empty one as soon as it is empty (the write BIO once its last flight is sent), so that a connection
 * does not keep the handshake's flights, a kilobyte or several of certificates, for its life.
 *
 * <p>Native memory (the {@code SSL}, its two BIOs and their buffers) is freed as soon as both
 * directions are done ({@link #isInboundDone()} and {@link #isOutboundDone()}), by {@link #close()},
 * or, for an engine dropped without either, by a {@link Cleaner} once it is unreachable. What the
 * session agreed stays readable after.
 *
 * <p>Thread safety: one thread at a time, as the JDK's engines; the scratch segment is per thread.
 */
public final class OpenSslEngine extends SSLEngine implements AutoCloseable {
    /** The most plaintext one record carries. */
    static final int MAX_PLAINTEXT = 16384;
    static final int HEADER = 5;
    /** The largest record body this engine takes ({@code SSL3_RT_MAX_ENCRYPTED_LENGTH} without compression). */
    static final int MAX_BODY = OpenSslSession.PACKET_BUFFER_SIZE - HEADER;
    /** Room kept past the plaintext for a record's header, IV, MAC or tag and padding. */
    static final int MAX_OVERHEAD = OpenSslSession.PACKET_BUFFER_SIZE - MAX_PLAINTEXT;
    /** The least a record's body adds to its plaintext: an AEAD's tag, or CBC's IV and MAC. */
    static final int MIN_EXPANSION = 16;
    /** Direct buffers whose addresses are kept. */
    static final int ADDRESSES = 4;
    /** The scratch segment's size: a whole record, or a record's plaintext. */
    static final int SCRATCH = 17 * 1024;

    /** The engine running {@code SSL_do_handshake} on this thread, for {@link Callbacks#verify}. */
    static final ThreadLocal<OpenSslEngine> HANDSHAKING = new ThreadLocal<>();
    private static final ThreadLocal<Scratch> SCRATCHES = ThreadLocal.withInitial(Scratch::new);

    private static final int NEW = 0;
    private static final int SHAKING = 1;
    private static final int DONE = 2;

    private final SslContext context;
    private final boolean client;
    /** The host name a client verifies the certificate against, or null. */
    private final String expectedHost;
    private final OpenSslSession session;
    private final Native resources;
    private final Cleaner.Cleanable cleanable;
    /** The {@code SSL} and its BIOs; all 0 once released. */
    private long ssl;
    private long rbio;
    private long wbio;
    /** {@link #NEW}, {@link #SHAKING}, {@link #DONE}: only forward. */
    private int phase = NEW;
    /** The handshake is done and no result has said {@code FINISHED} yet. */
    private boolean finishedToReport;
    /** closeOutbound, a fatal error, or the peer's close_notify on TLS 1.2: nothing more to send but what waits. */
    private boolean outboundClosed;
    /** The peer's close_notify, closeInbound, or a fatal error. */
    private boolean inboundDone;
    private boolean failed;
    /** Bytes waiting in the write BIO, 0 <= pendingOut. */
    private long pendingOut;
    /** The read BIO, or the write BIO, is the one the handshake filled: to replace once the handshake is done. */
    private boolean handshakeRbio = true;
    private boolean handshakeWbio = true;
    /** The verification error of the peer's certificate, 0 for none. */
    private int refusedError;
    private byte[] refusedLeaf;
    private String alpn;
    private int minVersion;
    private int maxVersion;
    private int verifyMode;
    private SSLEngineResult lastWrap;
    private SSLEngineResult lastUnwrap;
    /** The one-buffer array of {@link #wrap(ByteBuffer, ByteBuffer)} and {@link #unwrap(ByteBuffer, ByteBuffer)}. */
    private final ByteBuffer[] one = new ByteBuffer[1];
    private final ByteBuffer[] addressed = new ByteBuffer[ADDRESSES];
    private final long[] bases = new long[ADDRESSES];
    private int nextAddress;

    OpenSslEngine(SslContext context, String peerHost, int peerPort) {
        super(context.client && context.settings.serverName() != null ? context.settings.serverName() : peerHost,
                peerPort);
        this.context = context;
        this.client = context.client;
        this.minVersion = context.minVersion;
        this.maxVersion = context.maxVersion;
        this.verifyMode = context.verifyMode;
        this.session = new OpenSslSession(this, context.localCertificates);
        String host = getPeerHost();
        this.expectedHost = client && context.settings.hostnameVerification() ? host : null;
        if (client && context.settings.hostnameVerification() && host == null) {
            throw new IllegalArgumentException("hostname verification needs the server's host name: peerHost=null "
                    + "serverName=null; set TlsSettings.Builder.serverName, or hostnameVerification(false)");
        }
        LibSsl.clearErrors();
        long s = LibSsl.sslNew(context.ctx);
        if (s == 0) {
            throw new IllegalStateException("SSL_new failed: " + LibSsl.errors());
        }
        this.resources = new Native(s);
        this.cleanable = SslContext.CLEANER.register(this, resources);
        long r = LibSsl.newMemoryBio();
        long w = r == 0 ? 0 : LibSsl.newMemoryBio();
        if (w == 0) {
            if (r != 0) {
                LibSsl.bioFree(r);
            }
            cleanable.clean();
            throw new IllegalStateException("BIO_new failed: " + LibSsl.errors());
        }
        LibSsl.setBio(s, r, w);
        LibSsl.setState(s, client);
        this.ssl = s;
        this.rbio = r;
        this.wbio = w;
        if (client) {
            configureClient(host);
        }
    }

    /** The native memory, apart from the engine so that the cleaner can free it once the engine is gone. */
    private static final class Native implements Runnable {
        private final long ssl;

        Native(long ssl) {
            this.ssl = ssl;
        }

        @Override
        public void run() {
            LibSsl.sslFree(ssl);
        }
    }

    /** A thread's native scratch segment, for heap buffers. */
    private static final class Scratch {
        final MemorySegment memory = Arena.ofAuto().allocate(SCRATCH, 64);
        final long address = memory.address();
        final ByteBuffer buffer = memory.asByteBuffer();
    }

    private void configureClient(String host) {
        try (Arena arena = Arena.ofConfined()) {
            if (host != null) {
                long name = arena.allocateFrom(host, StandardCharsets.US_ASCII).address();
                boolean literal = isAddressLiteral(host);
                if (!literal && LibSsl.ctrl(ssl, LibSsl.SSL_CTRL_SET_TLSEXT_HOSTNAME, LibSsl.TLSEXT_NAMETYPE_HOST_NAME,
                        name) != 1) {
                    throw new IllegalArgumentException("SSL_set_tlsext_host_name host=" + host + " failed: "
                            + LibSsl.errors());
                }
                if (expectedHost != null) {
                    LibSsl.setHostFlags(ssl, LibSsl.X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
                    int ok = literal ? LibSsl.verifyParamSetIp(LibSsl.param(ssl), name) : LibSsl.set1Host(ssl, name);
                    if (ok != 1) {
                        throw new IllegalArgumentException((literal ? "X509_VERIFY_PARAM_set1_ip_asc" : "SSL_set1_host")
                                + " host=" + host + " failed: " + LibSsl.errors());
                    }
                }
            }
            if (context.alpnOffer != null && LibSsl.setAlpnProtos(ssl, context.alpnOffer.address(),
                    (int) context.alpnOffer.byteSize()) != 0) {
                throw new IllegalStateException("SSL_set_alpn_protos alpn=" + context.settings.alpn() + " failed: "
                        + LibSsl.errors());
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** {@return whether {@code host} is an IPv4 or IPv6 literal, which SNI must not carry} (as the JDK engine's rule) */
    static boolean isAddressLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(ch -> ch == '.' || (ch >= '0' && ch <= '9'));
    }

    // ---- the handshake

    @Override
    public void beginHandshake() throws SSLException {
        if (ssl == 0 || inboundDone || outboundClosed) {
            throw new SSLException("the engine is closed: inboundDone=" + inboundDone + " outboundClosed="
                    + outboundClosed + " released=" + (ssl == 0));
        }
        if (phase == DONE) {
            throw new SSLException("this engine does not renegotiate, and its handshake is done ("
                    + session.getProtocol() + ")");
        }
        if (phase == NEW) {
            phase = SHAKING;
            handshake();
        }
    }

    /** One {@code SSL_do_handshake}: on to {@link #DONE}, or waiting for the peer, or failed (thrown). */
    private void handshake() throws SSLException {
        // SSL_get_error reads the thread's error queue: anything left there by another call (another engine's,
        // another library's on this thread) would read as this call's failure. So the queue is cleared before
        // every SSL_do_handshake, SSL_read, SSL_write and SSL_shutdown.
        LibSsl.clearErrors();
        HANDSHAKING.set(this);
        int rc;
        try {
            rc = LibSsl.doHandshake(ssl);
        } finally {
            HANDSHAKING.set(null);
        }
        if (rc == 1) {
            phase = DONE;
            finishedToReport = true;
            agreed();
            if (LibSsl.bioPending(rbio) == 0) {
                replaceRbio();
            }
        } else {
            int error = LibSsl.getError(ssl, rc);
            if (error != LibSsl.SSL_ERROR_WANT_READ && error != LibSsl.SSL_ERROR_WANT_WRITE) {
                throw fail(handshakeFailure(error, rc));
            }
        }
        pendingOut = LibSsl.bioPending(wbio);
        if (phase == DONE && pendingOut == 0) {
            replaceWbio();
        }
    }

    /** Replaces the read BIO the handshake filled, empty, by a new one; where none can be made, keeps it. */
    private void replaceRbio() {
        if (handshakeRbio) {
            handshakeRbio = false;
            long r = LibSsl.newMemoryBio();
            if (r != 0) {
                LibSsl.set0Rbio(ssl, r);
                rbio = r;
            }
        }
    }

    /** Replaces the write BIO the handshake filled, empty, by a new one; where none can be made, keeps it. */
    private void replaceWbio() {
        if (handshakeWbio) {
            handshakeWbio = false;
            long w = LibSsl.newMemoryBio();
            if (w != 0) {
                LibSsl.set0Wbio(ssl, w);
                wbio = w;
            }
        }
    }

    /** Copies what the handshake agreed out of OpenSSL. */
    private void agreed() {
        long leaf = LibSsl.peerCertificate(ssl);
        List<byte[]> der = new ArrayList<>();
        if (leaf != 0) {
            der.add(LibSsl.der(leaf));
            long chain = LibSsl.peerCertChain(ssl);
            for (int i = 0, n = LibSsl.stackSize(chain); i < n; i++) {
                long x = LibSsl.stackValue(chain, i);
                if (x != leaf) { // a client's chain starts with the server's own certificate
                    der.add(LibSsl.der(x));
                }
            }
            LibSsl.x509Free(leaf);
        }
        alpn = LibSsl.alpnSelected(ssl);
        session.agreed(LibSsl.protocol(ssl), LibSsl.cipherSuite(ssl), der.toArray(new byte[0][]));
    }

    /** The verification callback's news: OpenSSL refused the peer's certificate {@code leaf} with {@code error}. */
    void refused(int error, byte[] leaf) {
        if (refusedError == 0) {
            refusedError = error;
            refusedLeaf = leaf;
        }
    }

    @Override
    public HandshakeStatus getHandshakeStatus() {
        if (pendingOut > 0) {
            return HandshakeStatus.NEED_WRAP;
        }
        if (phase == SHAKING && !inboundDone) {
            return HandshakeStatus.NEED_UNWRAP;
        }
        return HandshakeStatus.NOT_HANDSHAKING;
    }

    @Override
    public Runnable getDelegatedTask() {
        return null;
    }

    // ---- wrap

    /** As {@link SSLEngine#wrap(ByteBuffer, ByteBuffer)}, without the array the JDK's allocates per call. */
    @Override
    public SSLEngineResult wrap(ByteBuffer src, ByteBuffer dst) throws SSLException {
        one[0] = Objects.requireNonNull(src, "src");
        try {
            return wrap(one, 0, 1, dst);
        } finally {
            one[0] = null;
        }
    }

    @Override
    public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) throws SSLException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        if (ssl == 0) {
            return wrapped(Status.CLOSED, 0, 0);
        }
        if (phase == NEW && !outboundClosed) {
            phase = SHAKING;
            handshake();
        }
        int produced = 0;
        if (pendingOut > 0) {
            if (!dst.hasRemaining()) {
                return wrapped(Status.BUFFER_OVERFLOW, 0, 0);
            }
            produced = drain(dst);
        }
        if (outboundClosed) {
            Status status = pendingOut == 0 ? Status.CLOSED : Status.OK;
            SSLEngineResult r = wrapped(status, 0, produced);
            releaseIfDone();
            return r;
        }
        if (pendingOut > 0 || phase != DONE || finishedToReport) {
            return wrapped(Status.OK, 0, produced);
        }
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            total += srcs[i].remaining();
        }
        int consumed = 0;
        int next = offset;
        while (total > 0) {
            int chunk = (int) Math.min(total, MAX_PLAINTEXT);
            if (dst.remaining() < chunk + MAX_OVERHEAD) {
                break;
            }
            while (!srcs[next].hasRemaining()) {
                next++;
            }
            ByteBuffer first = srcs[next];
            int written;
            if (first.isDirect() && first.remaining() >= chunk) {
                int position = first.position();
                LibSsl.clearErrors();
                written = LibSsl.write(ssl, address(first) + position, chunk);
                Reference.reachabilityFence(first);
                if (written > 0) {
                    first.position(position + written);
                }
            } else {
                Scratch scratch = SCRATCHES.get();
                int gathered = 0;
                for (int i = next; gathered < chunk; i++) {
                    ByteBuffer s = srcs[i];
                    int n = Math.min(s.remaining(), chunk - gathered);
                    scratch.buffer.put(gathered, s, s.position(), n);
                    s.position(s.position() + n);
                    gathered += n;
                }
                LibSsl.clearErrors();
                written = LibSsl.write(ssl, scratch.address, chunk);
            }
            if (written != chunk) {
                throw fail(recordFailure("SSL_write", LibSsl.getError(ssl, written), written));
            }
            consumed += chunk;
            total -= chunk;
            pendingOut = 1; // at least a record; drain says how much
            produced += drain(dst);
        }
        if (consumed == 0 && produced == 0 && total > 0) {
            return wrapped(Status.BUFFER_OVERFLOW, 0, 0);
        }
        return wrapped(Status.OK, consumed, produced);
    }

    /** Moves what waits in the write BIO into {@code dst}, as much as fits; {@return the bytes moved} */
    private int drain(ByteBuffer dst) {
        int produced = 0;
        while (pendingOut > 0 && dst.hasRemaining()) {
            int position = dst.position();
            int want = dst.remaining();
            int n;
            if (dst.isDirect()) {
                n = LibSsl.bioRead(wbio, address(dst) + position, want);
                Reference.reachabilityFence(dst);
                if (n > 0) {
                    dst.position(position + n);
                }
            } else {
                Scratch scratch = SCRATCHES.get();
                want = Math.min(want, SCRATCH);
                n = LibSsl.bioRead(wbio, scratch.address, want);
                if (n > 0) {
                    dst.put(position, scratch.buffer, 0, n);
                    dst.position(position + n);
                }
            }
            if (n <= 0) {
                pendingOut = 0;
                break;
            }
            produced += n;
            pendingOut = n < want ? 0 : LibSsl.bioPending(wbio);
        }
        if (handshakeWbio && pendingOut == 0 && phase == DONE && ssl != 0) {
            replaceWbio();
        }
        return produced;
    }

    // ---- unwrap

    /** As {@link SSLEngine#unwrap(ByteBuffer, ByteBuffer)}, without the array the JDK's allocates per call. */
    @Override
    public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer dst) throws SSLException {
        one[0] = Objects.requireNonNull(dst, "dst");
        try {
            return unwrap(src, one, 0, 1);
        } finally {
            one[0] = null;
        }
    }

    @Override
    public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length) throws SSLException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        long room = 0;
        for (int i = offset; i < offset + length; i++) {
            if (dsts[i].isReadOnly()) {
                throw new ReadOnlyBufferException();
            }
            room += dsts[i].remaining();
        }
        if (ssl == 0 || inboundDone) {
            return unwrapped(Status.CLOSED, 0, 0);
        }
        if (phase == NEW) {
            phase = SHAKING;
            handshake();
        }
        int consumed = 0;
        int produced = 0;
        Status stop = Status.OK;
        while (!inboundDone) {
            int position = src.position();
            int available = src.limit() - position;
            if (available < HEADER) {
                stop = Status.BUFFER_UNDERFLOW;
                break;
            }
            int type = src.get(position) & 0xFF;
            int major = src.get(position + 1) & 0xFF;
            int body = (src.get(position + 3) & 0xFF) << 8 | (src.get(position + 4) & 0xFF);
            if (type < 20 || type > 24 || major != 3 || body > MAX_BODY) {
                consumed += feed(src, position, HEADER); // OpenSSL refuses it, with the alert the peer should get
                stepOnGarbage(type, major, body);
                break;
            }
            int record = HEADER + body;
            if (available < record) {
                stop = Status.BUFFER_UNDERFLOW;
                break;
            }
            if (phase == DONE && Math.min(Math.max(body - MIN_EXPANSION, 0), MAX_PLAINTEXT) > room - produced) {
                stop = Status.BUFFER_OVERFLOW;
                break;
            }
            consumed += feed(src, position, record);
            if (phase != DONE) {
                handshake();
                if (phase == DONE || pendingOut > 0) {
                    break;
                }
            } else {
                produced += read(dsts, offset, length);
                if (pendingOut > 0) {
                    break;
                }
            }
        }
        Status status = inboundDone ? Status.CLOSED : consumed > 0 || produced > 0 ? Status.OK : stop;
        SSLEngineResult r = unwrapped(status, consumed, produced);
        releaseIfDone();
        return r;
    }

    /** Writes the {@code n} bytes at {@code position} of {@code src} into the read BIO; {@return n} */
    private int feed(ByteBuffer src, int position, int n) throws SSLException {
        int written;
        if (src.isDirect()) {
            written = LibSsl.bioWrite(rbio, address(src) + position, n);
            Reference.reachabilityFence(src);
        } else {
            Scratch scratch = SCRATCHES.get();
            scratch.buffer.put(0, src, position, n);
            written = LibSsl.bioWrite(rbio, scratch.address, n);
        }
        if (written != n) {
            throw fail(new SSLException("BIO_write of " + n + " bytes into the read BIO wrote " + written + ": "
                    + LibSsl.errors()));
        }
        src.position(position + n);
        return n;
    }

    /** A header that is no TLS record's: OpenSSL's refusal, or this engine's where OpenSSL waits for more. */
    private void stepOnGarbage(int type, int major, int body) throws SSLException {
        if (phase != DONE) {
            handshake();
        } else {
            LibSsl.clearErrors();
            int rc = LibSsl.read(ssl, SCRATCHES.get().address, 1);
            if (rc <= 0) {
                int error = LibSsl.getError(ssl, rc);
                if (error != LibSsl.SSL_ERROR_WANT_READ) {
                    throw fail(recordFailure("SSL_read", error, rc));
                }
            }
        }
        pendingOut = LibSsl.bioPending(wbio);
        throw fail(new SSLException("not a TLS record: type=" + type + " version major=" + major + " length=" + body
                + " (records are of types 20 to 24, version 3.x, at most " + MAX_BODY + " bytes)"));
    }

    /** Reads the plaintext of the record just fed into {@code dsts}; {@return the bytes read} */
    private int read(ByteBuffer[] dsts, int offset, int length) throws SSLException {
        int produced = 0;
        int i = offset;
        int end = offset + length;
        while (true) {
            while (i < end && !dsts[i].hasRemaining()) {
                i++;
            }
            ByteBuffer dst = i < end ? dsts[i] : null;
            int want;
            int n;
            if (dst != null && dst.isDirect()) {
                int position = dst.position();
                want = dst.limit() - position;
                LibSsl.clearErrors();
                n = LibSsl.read(ssl, address(dst) + position, want);
                Reference.reachabilityFence(dst);
                if (n > 0) {
                    dst.position(position + n);
                }
            } else {
                // a heap buffer, or none left: the record can only be one without plaintext (an alert, a ticket)
                Scratch scratch = SCRATCHES.get();
                want = dst == null ? 1 : Math.min(dst.remaining(), SCRATCH);
                LibSsl.clearErrors();
                n = LibSsl.read(ssl, scratch.address, want);
                if (n > 0) {
                    if (dst == null) {
                        throw fail(new SSLException("a record of plaintext came with no room left for it, although "
                                + "its length promised none: an OpenSSL record larger than its body"));
                    }
                    dst.put(dst.position(), scratch.buffer, 0, n);
                    dst.position(dst.position() + n);
                }
            }
            if (n > 0) {
                produced += n;
                if (n < want) {
                    return produced; // SSL_read returns one record at most: this one is read
                }
                continue;
            }
            int error = LibSsl.getError(ssl, n);
            if (error == LibSsl.SSL_ERROR_WANT_READ) {
                pendingOut = LibSsl.bioPending(wbio); // a key update's answer, say
                return produced;
            }
            if (error == LibSsl.SSL_ERROR_ZERO_RETURN) {
                closedByPeer();
                return produced;
            }
            throw fail(recordFailure("SSL_read", error, n));
        }
    }

    /** The peer's close_notify came: input is done; on TLS 1.2 this end answers with its own, as the JDK's does. */
    private void closedByPeer() {
        inboundDone = true;
        if (!"TLSv1.3".equals(session.getProtocol())) {
            closeOutbound();
        }
    }

    // ---- results and failures

    private SSLEngineResult wrapped(Status status, int consumed, int produced) {
        HandshakeStatus hs = reportedStatus();
        SSLEngineResult last = lastWrap;
        if (last != null && last.getStatus() == status && last.getHandshakeStatus() == hs
                && last.bytesConsumed() == consumed && last.bytesProduced() == produced) {
            return last;
        }
        return lastWrap = new SSLEngineResult(status, hs, consumed, produced);
    }

    private SSLEngineResult unwrapped(Status status, int consumed, int produced) {
        HandshakeStatus hs = reportedStatus();
        SSLEngineResult last = lastUnwrap;
        if (last != null && last.getStatus() == status && last.getHandshakeStatus() == hs
                && last.bytesConsumed() == consumed && last.bytesProduced() == produced) {
            return last;
        }
        return lastUnwrap = new SSLEngineResult(status, hs, consumed, produced);
    }

    /** {@return the status a result reports: {@code FINISHED} once, when the handshake is done and nothing waits} */
    private HandshakeStatus reportedStatus() {
        HandshakeStatus hs = getHandshakeStatus();
        if (finishedToReport && hs == HandshakeStatus.NOT_HANDSHAKING) {
            finishedToReport = false;
            return failed ? hs : HandshakeStatus.FINISHED;
        }
        return hs;
    }

    /** Marks the engine failed: nothing more is read, and only the alert OpenSSL queued is sent. {@return e} */
    private SSLException fail(SSLException e) {
        failed = true;
        inboundDone = true;
        outboundClosed = true;
        finishedToReport = false;
        if (ssl != 0) {
            pendingOut = LibSsl.bioPending(wbio);
        }
        releaseIfDone();
        return e;
    }

    /** {@return OpenSSL's errors in this thread's queue, emptied, in words; and the error codes in {@code codes}} */
    private static String errors(List<Long> codes) {
        List<String> words = new ArrayList<>();
        for (long e; (e = LibSsl.nextError()) != 0; ) {
            codes.add(e);
            words.add(LibSsl.errorString(e));
        }
        return String.join("; ", words);
    }

    private static String describe(int sslError, int rc) {
        return switch (sslError) {
            case LibSsl.SSL_ERROR_SSL -> "SSL_ERROR_SSL";
            case LibSsl.SSL_ERROR_SYSCALL -> "SSL_ERROR_SYSCALL (rc=" + rc + ")";
            case LibSsl.SSL_ERROR_ZERO_RETURN -> "the peer closed (close_notify)";
            default -> "SSL_get_error=" + sslError + " rc=" + rc;
        };
    }

    /** {@return the exception of a failed record call, OpenSSL's errors its message} */
    private static SSLException recordFailure(String call, int sslError, int rc) {
        String errors = errors(new ArrayList<>());
        return new SSLException("OpenSSL " + call + " failed: " + (errors.isEmpty() ? describe(sslError, rc) : errors));
    }

    /**
     * {@return the exception of a failed handshake}: a {@link PeerCertificateException} where the peer's
     * certificate was refused (classified as the JDK engine classifies it), else a
     * {@link SSLHandshakeException} with OpenSSL's errors
     */
    private SSLException handshakeFailure(int sslError, int rc) {
        List<Long> codes = new ArrayList<>();
        String errors = errors(codes);
        long verify = LibSsl.verifyResult(ssl);
        String text = "OpenSSL handshake failed: " + (errors.isEmpty() ? describe(sslError, rc) : errors)
                + (verify == LibSsl.X509_V_OK ? "" : " (certificate verification: " + LibSsl.verifyErrorString(verify)
                        + ", X509_V_ERR " + verify + ")");
        SSLHandshakeException cause = new SSLHandshakeException(text);
        String peer = client ? "server" : "client";
        if (refusedError != 0) {
            return refusal(peer, refusedError, OpenSslSession.decode(refusedLeaf), cause);
        }
        for (long code : codes) {
            if ((code >>> 23 & 0xFF) == LibSsl.ERR_LIB_SSL
                    && (code & 0x7FFFFF) == LibSsl.SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
                return PeerCertificateException.of(peer, PeerCertificateException.Problem.MISSING, "one", null, cause);
            }
        }
        return cause;
    }

    /** The JDK engine's classification: dates first, then the host, else trust. */
    private PeerCertificateException refusal(String peer, int error, X509Certificate leaf, SSLHandshakeException cause) {
        PeerCertificateException.Problem problem;
        String expected;
        if (leaf == null) {
            return PeerCertificateException.of(peer, PeerCertificateException.Problem.MISSING, "one", null, cause);
        }
        try {
            leaf.checkValidity();
            if (expectedHost != null && (error == LibSsl.X509_V_ERR_HOSTNAME_MISMATCH
                    || error == LibSsl.X509_V_ERR_IP_ADDRESS_MISMATCH || error == LibSsl.X509_V_ERR_EMAIL_MISMATCH)) {
                problem = PeerCertificateException.Problem.WRONG_HOST;
                expected = expectedHost;
            } else {
                problem = PeerCertificateException.Problem.UNTRUSTED;
                expected = context.expectedIssuers;
            }
        } catch (CertificateExpiredException | CertificateNotYetValidException dates) {
            problem = dates instanceof CertificateExpiredException ? PeerCertificateException.Problem.EXPIRED
                    : PeerCertificateException.Problem.NOT_YET_VALID;
            expected = "valid at " + Instant.now().truncatedTo(ChronoUnit.SECONDS);
        }
        return PeerCertificateException.of(peer, problem, expected, leaf, cause);
    }

    // ---- closing

    @Override
    public void closeOutbound() {
        if (outboundClosed) {
            return;
        }
        outboundClosed = true;
        if (ssl != 0 && phase == DONE && !failed) {
            LibSsl.clearErrors();
            if (LibSsl.shutdown(ssl) < 0) {
                LibSsl.clearErrors();
            }
            pendingOut = LibSsl.bioPending(wbio);
        }
        releaseIfDone();
    }

    @Override
    public boolean isOutboundDone() {
        return outboundClosed && pendingOut == 0;
    }

    @Override
    public void closeInbound() throws SSLException {
        if (inboundDone) {
            return;
        }
        inboundDone = true;
        releaseIfDone();
        if (phase != NEW) {
            throw new SSLException("closing the inbound side before the peer's close_notify: a possible truncation "
                    + "attack (protocol=" + session.getProtocol() + ")");
        }
    }

    @Override
    public boolean isInboundDone() {
        return inboundDone;
    }

    private void releaseIfDone() {
        if (inboundDone && outboundClosed && pendingOut == 0) {
            close();
        }
    }

    /**
     * Frees the native memory now, if it is not freed yet: both directions are closed, and what waited to
     * be sent is dropped. The session stays readable. Idempotent; call it from the engine's thread.
     */
    @Override
    public void close() {
        if (ssl != 0) {
            ssl = 0;
            rbio = 0;
            wbio = 0;
            pendingOut = 0;
            inboundDone = true;
            outboundClosed = true;
            cleanable.clean();
        }
    }

    /** {@return the bytes the two memory BIOs have allocated for their buffers, 0 once released}: for tests */
    long bioCapacity() {
        return ssl == 0 ? 0 : LibSsl.memoryBioCapacity(rbio) + LibSsl.memoryBioCapacity(wbio);
    }

    /** {@return whether the native memory is freed}: for tests */
    public boolean isReleased() {
        return ssl == 0;
    }

    /** {@return the address of index 0 of a direct buffer}, kept for the last {@value #ADDRESSES} buffers */
    private long address(ByteBuffer direct) {
        for (int i = 0; i < ADDRESSES; i++) {
            if (addressed[i] == direct) {
                return bases[i];
            }
        }
        long base = MemorySegment.ofBuffer(direct.duplicate().clear()).address();
        int slot = nextAddress++ & (ADDRESSES - 1);
        addressed[slot] = direct;
        bases[slot] = base;
        return base;
    }

    // ---- the session and the settings of the SSLEngine shape

    @Override
    public SSLSession getSession() {
        return session;
    }

    @Override
    public SSLSession getHandshakeSession() {
        return phase == SHAKING ? session : null;
    }

    @Override
    public String getApplicationProtocol() {
        return phase == DONE ? alpn : null;
    }

    @Override
    public String getHandshakeApplicationProtocol() {
        return null;
    }

    @Override
    public String[] getSupportedCipherSuites() {
        return getEnabledCipherSuites();
    }

    @Override
    public String[] getEnabledCipherSuites() {
        return ssl == 0 ? new String[] {session.getCipherSuite()} : LibSsl.cipherSuites(ssl).toArray(new String[0]);
    }

    /**
     * Enables the cipher suites named (RFC names, as the JDK's): TLS 1.3's through
     * {@code SSL_set_ciphersuites}, the others through {@code SSL_set_cipher_list} with OpenSSL's names.
     * With no TLS 1.2 suite among them, TLS 1.2 is off.
     */
    @Override
    public void setEnabledCipherSuites(String[] suites) {
        List<String> tls13 = new ArrayList<>();
        List<String> tls12 = new ArrayList<>();
        if (ssl == 0) {
            throw new IllegalStateException("the engine is released");
        }
        try (Arena arena = Arena.ofConfined()) {
            for (String s : suites) {
                if (s.startsWith("TLS_AES_") || s.startsWith("TLS_CHACHA20_")) {
                    tls13.add(s);
                } else {
                    String name = LibSsl.opensslCipherName(arena.allocateFrom(s, StandardCharsets.US_ASCII).address());
                    if (name == null) {
                        throw new IllegalArgumentException("cipher suite " + s + " is unknown to " + LibSsl.version());
                    }
                    tls12.add(name);
                }
            }
            if (LibSsl.setCipherSuites(ssl, arena.allocateFrom(String.join(":", tls13)).address()) != 1) {
                throw new IllegalArgumentException("SSL_set_ciphersuites " + tls13 + " failed: " + LibSsl.errors());
            }
            if (tls12.isEmpty()) {
                setVersions(LibSsl.TLS1_3_VERSION, maxVersion);
            } else if (LibSsl.setCipherList(ssl, arena.allocateFrom(String.join(":", tls12)).address()) != 1) {
                throw new IllegalArgumentException("SSL_set_cipher_list " + tls12 + " failed: " + LibSsl.errors());
            }
        }
    }

    @Override
    public String[] getSupportedProtocols() {
        return new String[] {"TLSv1.3", "TLSv1.2"};
    }

    @Override
    public String[] getEnabledProtocols() {
        List<String> enabled = new ArrayList<>();
        if (maxVersion >= LibSsl.TLS1_3_VERSION) {
            enabled.add("TLSv1.3");
        }
        if (minVersion <= LibSsl.TLS1_2_VERSION) {
            enabled.add("TLSv1.2");
        }
        return enabled.toArray(new String[0]);
    }

    /** Enables {@code TLSv1.3}, {@code TLSv1.2} or both; nothing older. */
    @Override
    public void setEnabledProtocols(String[] protocols) {
        List<String> list = Arrays.asList(protocols);
        for (String p : list) {
            if (!p.equals("TLSv1.3") && !p.equals("TLSv1.2")) {
                throw new IllegalArgumentException("protocol " + p + " in " + list + ": this engine speaks TLSv1.3 "
                        + "and TLSv1.2 only");
            }
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("protocols=[]: enable TLSv1.3, TLSv1.2 or both");
        }
        setVersions(list.contains("TLSv1.2") ? LibSsl.TLS1_2_VERSION : LibSsl.TLS1_3_VERSION,
                list.contains("TLSv1.3") ? LibSsl.TLS1_3_VERSION : LibSsl.TLS1_2_VERSION);
    }

    private void setVersions(int min, int max) {
        if (ssl == 0) {
            throw new IllegalStateException("the engine is released");
        }
        LibSsl.ctrl(ssl, LibSsl.SSL_CTRL_SET_MIN_PROTO_VERSION, min, 0);
        LibSsl.ctrl(ssl, LibSsl.SSL_CTRL_SET_MAX_PROTO_VERSION, max, 0);
        minVersion = min;
        maxVersion = max;
    }

    /** The role is the context's: {@code mode} must be it. */
    @Override
    public void setUseClientMode(boolean mode) {
        if (mode != client) {
            throw new IllegalArgumentException("this engine is a " + (client ? "client" : "server")
                    + "'s, as its context was made: TlsEngineFactory.context(settings, client)");
        }
    }

    @Override
    public boolean getUseClientMode() {
        return client;
    }

    @Override
    public void setNeedClientAuth(boolean need) {
        setClientAuth(need ? LibSsl.SSL_VERIFY_PEER | LibSsl.SSL_VERIFY_FAIL_IF_NO_PEER_CERT : LibSsl.SSL_VERIFY_NONE);
    }

    @Override
    public boolean getNeedClientAuth() {
        return !client && (verifyMode & LibSsl.SSL_VERIFY_FAIL_IF_NO_PEER_CERT) != 0;
    }

    @Override
    public void setWantClientAuth(boolean want) {
        setClientAuth(want ? LibSsl.SSL_VERIFY_PEER : LibSsl.SSL_VERIFY_NONE);
    }

    @Override
    public boolean getWantClientAuth() {
        return !client && verifyMode == LibSsl.SSL_VERIFY_PEER;
    }

    private void setClientAuth(int mode) {
        if (client || ssl == 0) {
            return; // a client's verification of the server is not this setting
        }
        LibSsl.setVerify(ssl, mode, mode == LibSsl.SSL_VERIFY_NONE ? 0 : Callbacks.verify());
        verifyMode = mode;
    }

    /** Sessions are never resumed: each handshake makes one, and {@code false} is refused. */
    @Override
    public void setEnableSessionCreation(boolean flag) {
        if (!flag) {
            throw new UnsupportedOperationException("this engine resumes no session: each handshake creates one");
        }
    }

    @Override
    public boolean getEnableSessionCreation() {
        return true;
    }

    @Override
    public String toString() {
        return "OpenSslEngine[" + (client ? "client" : "server") + " " + getPeerHost() + ":" + getPeerPort() + " "
                + (phase == NEW ? "new" : phase == SHAKING ? "handshaking" : session.getProtocol()) + " inboundDone="
                + inboundDone + " outboundDone=" + isOutboundDone() + (ssl == 0 ? " released" : "") + "]";
    }
}
