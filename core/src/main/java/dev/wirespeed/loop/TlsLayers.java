package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.Endpoint;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;

/**
 * Makes a loop's {@link TlsLayer}s, and keeps the pools their buffers come from: on the heap and
 * direct, each made at the first engine that prefers it ({@link dev.wirespeed.tls.TlsContext#directBuffers()}),
 * its buffers sized for that engine's records (plaintext: one record; ciphertext: {@value #WIRE_RECORDS});
 * and the one buffer a server's connections read their peer's first record into, before they have an
 * engine, each in its turn.
 *
 * <p>Thread safety: the loop's thread, but for {@link #pooledBytes()}.
 */
final class TlsLayers {
    /** Records a ciphertext buffer holds: what one system call reads or sends at most. */
    static final int WIRE_RECORDS = 4;

    private BufferPool heapPool;
    private BufferPool directPool;
    private BufferPool heapWire;
    private BufferPool directWire;
    private final LoopStats heapStats = new LoopStats();
    private final LoopStats directStats = new LoopStats();
    /** A client's first record while a server's connection reads it; null until the first is read. */
    private ByteBuffer firstRecord;
    /** Where a partial record waits, within the loop's input budget. */
    final InputMemory memory;

    /** The loop's pools, which the layers' pools join. */
    private final LoopPools loopPools;

    TlsLayers(InputMemory memory, LoopPools loopPools) {
        this.memory = memory;
        this.loopPools = loopPools;
    }

    /** {@return the bytes both pools hold}, from any thread */
    long pooledBytes() {
        return heapStats.pooledBytes() + directStats.pooledBytes();
    }

    /**
     * {@return the TLS layer of a new connection of {@code owner} over {@code endpoint}, or null for plaintext}
     *
     * @param remote the peer's address: the host a client checks and names, the address a server notes
     * @param client true for a connection the loop opened
     */
    TlsLayer layerFor(Owner owner, Endpoint endpoint, SocketAddress remote, boolean client) {
        if (owner.tls == null) {
            return null;
        }
        String host = null;
        int port = -1;
        if (remote instanceof InetSocketAddress inet) {
            host = client ? inet.getHostString() : inet.getAddress().getHostAddress();
            port = inet.getPort();
        }
        return new TlsLayer(this, owner.tls, host, port, client, endpoint, owner.tlsCloseNanos);
    }

    /** {@return the pool for {@code engine}'s records}: made, or made anew larger, where there is none that fits */
    BufferPool poolFor(SSLEngine engine, boolean direct) {
        int record = Math.max(Math.max(engine.getSession().getPacketBufferSize(),
                engine.getSession().getApplicationBufferSize()), TlsLayer.FIRST_RECORD);
        BufferPool pool = fitting(direct ? directPool : heapPool, record, direct);
        if (direct) {
            directPool = pool;
        } else {
            heapPool = pool;
        }
        return pool;
    }

    /**
     * {@return the pool for {@code engine}'s ciphertext, {@value #WIRE_RECORDS} records a buffer}: made, or
     * made anew larger, where there is none that fits
     */
    BufferPool wirePoolFor(SSLEngine engine, boolean direct) {
        int size = WIRE_RECORDS * Math.max(engine.getSession().getPacketBufferSize(), TlsLayer.FIRST_RECORD);
        BufferPool pool = fitting(direct ? directWire : heapWire, size, direct);
        if (direct) {
            directWire = pool;
        } else {
            heapWire = pool;
        }
        return pool;
    }

    /**
     * {@return {@code pool} if its buffers hold {@code bytes}, else a new pool whose buffers do}: a smaller
     * pool is left to the layers holding its buffers, retired, so that it is given back as they give them back
     */
    private BufferPool fitting(BufferPool pool, int bytes, boolean direct) {
        if (pool != null && pool.chunkSize() >= bytes) {
            return pool;
        }
        if (pool != null) {
            pool.retire();
        }
        return new BufferPool(Math.ceilDiv(bytes + 1024, BufferPool.PAGE_SIZE) * BufferPool.PAGE_SIZE,
                direct ? directStats : heapStats, loopPools, !direct);
    }

    /** {@return the buffer a server's connection reads its peer's first record into, cleared}: held for one call */
    ByteBuffer firstRecordBuffer() {
        if (firstRecord == null) {
            firstRecord = ByteBuffer.allocate(TlsLayer.FIRST_RECORD);
        }
        return firstRecord.clear();
    }
}
