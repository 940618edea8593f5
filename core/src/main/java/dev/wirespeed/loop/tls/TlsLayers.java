package dev.wirespeed.loop.tls;

import dev.wirespeed.loop.internal.BufferPool;
import dev.wirespeed.loop.internal.InputMemory;
import dev.wirespeed.loop.internal.LoopPools;
import dev.wirespeed.loop.internal.LoopStats;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.tls.TlsContext;
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
public final class TlsLayers {
    /** Records a ciphertext buffer holds: what one system call reads or sends at most. */
    static final int WIRE_RECORDS = 4;
    /** The largest first record a server's connection waits for: a header and the most plaintext. */
    static final int FIRST_RECORD = TlsLayer.HEADER + TlsLayer.MAX_PLAINTEXT;

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

    /**
     * A loop's TLS layers, keeping their partial records in {@code memory}, their pools among {@code loopPools}.
     *
     * @param memory the loop's input memory, within whose budget partial records wait
     * @param loopPools the loop's pools, which the layers' pools join
     */
    public TlsLayers(InputMemory memory, LoopPools loopPools) {
        this.memory = memory;
        this.loopPools = loopPools;
    }

    /** {@return the bytes both pools hold}, from any thread */
    public long pooledBytes() {
        return heapStats.pooledBytes() + directStats.pooledBytes();
    }

    /**
     * {@return the TLS layer of a new connection over {@code endpoint}, its engine made by {@code context}}
     *
     * @param closeNanos the longest the connection's close waits for the peer's close_notify
     * @param remote the peer's address: the host a client checks and names, the address a server notes
     * @param client true for a connection the loop opened
     */
    public TlsLayer layerFor(TlsContext context, long closeNanos, Endpoint endpoint, SocketAddress remote,
            boolean client) {
        String host = null;
        int port = -1;
        if (remote instanceof InetSocketAddress inet) {
            host = client ? inet.getHostString() : inet.getAddress().getHostAddress();
            port = inet.getPort();
        }
        return new TlsLayer(this, context, host, port, client, endpoint, closeNanos);
    }

    /** {@return the pool for {@code engine}'s records}: made, or made anew larger, where there is none that fits */
    BufferPool poolFor(SSLEngine engine, boolean direct) {
        int record = Math.max(Math.max(engine.getSession().getPacketBufferSize(),
                engine.getSession().getApplicationBufferSize()), FIRST_RECORD);
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
        int size = WIRE_RECORDS * Math.max(engine.getSession().getPacketBufferSize(), FIRST_RECORD);
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
            firstRecord = ByteBuffer.allocate(FIRST_RECORD);
        }
        return firstRecord.clear();
    }
}
