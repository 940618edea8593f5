package dev.wirespeed.linux.internal.ssl;

import dev.wirespeed.tls.TlsSettings;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * Two engines and a wire between them that carries at most {@link #chunk} bytes per delivery, as a
 * socket read may: each end wraps into its outbox, the wire moves bytes from an outbox to the other
 * end's inbox, each end unwraps its inbox. Buffers are direct or heap, as asked.
 */
final class Link {
    static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    /** One end: its engine and its buffers, each in write mode. */
    static final class End {
        final SSLEngine engine;
        final ByteBuffer outbox;
        final ByteBuffer inbox;
        final ByteBuffer app;
        final ByteArrayOutputStream received = new ByteArrayOutputStream();

        End(SSLEngine engine, boolean direct, int box) {
            this.engine = engine;
            this.outbox = allocate(box, direct);
            this.inbox = allocate(box, direct);
            this.app = allocate(engine.getSession().getApplicationBufferSize(), direct);
        }

        /** Unwraps what its inbox holds, once; {@return whether anything moved} */
        boolean unwrap() throws SSLException {
            inbox.flip();
            try {
                SSLEngineResult r = engine.unwrap(inbox, app);
                app.flip();
                byte[] bytes = new byte[app.remaining()];
                app.get(bytes);
                received.writeBytes(bytes);
                app.clear();
                return r.bytesConsumed() > 0 || r.bytesProduced() > 0;
            } finally {
                inbox.compact();
            }
        }

        /** {@return and forgets what it received} */
        byte[] take() {
            byte[] bytes = received.toByteArray();
            received.reset();
            return bytes;
        }
    }

    final End client;
    final End server;
    /** The most bytes one delivery moves. */
    int chunk = Integer.MAX_VALUE;

    Link(TlsSettings server, TlsSettings client, String host, boolean direct) throws GeneralSecurityException {
        this.server = new End(server.engine().context(server, false).newEngine(null, -1), direct, 1 << 18);
        this.client = new End(client.engine().context(client, true).newEngine(host, 443), direct, 1 << 18);
    }

    /** Engines of these contexts, the client's connecting to localhost, with heap buffers of 48 KiB. */
    Link(dev.wirespeed.tls.TlsContext server, dev.wirespeed.tls.TlsContext client) {
        this.server = new End(server.newEngine(null, -1), false, 48 << 10);
        this.client = new End(client.newEngine("localhost", 443), false, 48 << 10);
    }

    static ByteBuffer allocate(int n, boolean direct) {
        return direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
    }

    End other(End end) {
        return end == client ? server : client;
    }

    /** Moves up to {@link #chunk} bytes from {@code from}'s outbox to the other end's inbox; {@return how many} */
    int deliver(End from) {
        End to = other(from);
        from.outbox.flip();
        int n = Math.min(Math.min(chunk, from.outbox.remaining()), to.inbox.remaining());
        ByteBuffer slice = from.outbox.slice(from.outbox.position(), n);
        to.inbox.put(slice);
        from.outbox.position(from.outbox.position() + n);
        from.outbox.compact();
        return n;
    }

    /** Steps both ends until neither handshakes nor moves; an engine's failure is thrown. */
    void handshake() throws SSLException {
        client.engine.beginHandshake();
        server.engine.beginHandshake();
        for (int i = 0; i < 1_000_000; i++) {
            boolean moved = step(client) | step(server);
            if (!moved && !handshaking(client.engine) && !handshaking(server.engine)) {
                return;
            }
        }
        throw new AssertionError("no end to the handshake: client " + client.engine.getHandshakeStatus() + ", server "
                + server.engine.getHandshakeStatus());
    }

    private static boolean handshaking(SSLEngine e) {
        SSLEngineResult.HandshakeStatus s = e.getHandshakeStatus();
        return s != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && s != SSLEngineResult.HandshakeStatus.FINISHED;
    }

    /** Wraps what waits, delivers a chunk, unwraps: {@return whether anything moved} */
    boolean step(End end) throws SSLException {
        boolean moved = false;
        if (end.engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
            for (Runnable task; (task = end.engine.getDelegatedTask()) != null; ) {
                task.run();
            }
            moved = true;
        }
        if (end.engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            SSLEngineResult r = end.engine.wrap(EMPTY, end.outbox);
            moved |= r.bytesProduced() > 0;
        }
        moved |= deliver(end) > 0;
        if (end.inbox.position() > 0 && !end.engine.isInboundDone()) {
            moved |= end.unwrap();
        }
        return moved;
    }

    /** Sends {@code bytes} from {@code from}, wrapped {@code piece} bytes at a time, and {@return what the other end got} */
    byte[] send(End from, byte[] bytes, int piece) throws SSLException {
        End to = other(from);
        ByteBuffer src = allocate(bytes.length, from.outbox.isDirect()).put(bytes).flip();
        while (src.hasRemaining() || from.outbox.position() > 0 || to.inbox.position() > 0) {
            if (src.hasRemaining()) {
                int limit = src.limit();
                src.limit(Math.min(limit, src.position() + piece));
                from.engine.wrap(src, from.outbox);
                src.limit(limit);
            }
            deliver(from);
            if (!to.unwrap() && !src.hasRemaining() && from.outbox.position() == 0 && to.inbox.position() > 0) {
                throw new AssertionError("the receiver stopped with " + to.inbox.position() + " bytes in its inbox");
            }
        }
        return to.take();
    }
}
