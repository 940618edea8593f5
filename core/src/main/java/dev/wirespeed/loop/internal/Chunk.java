package dev.wirespeed.loop.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A buffer a connection borrows for input or output, with the two views the loop re-points instead
 * of allocating: a read-only one for frame bodies handed to handlers, a writable one for claimed frames.
 *
 * <p>Invariant: {@code 0 <= start <= end <= buf.capacity()}; the bytes in {@code [start, end)} are
 * the ones not yet consumed (input: parsed; output: sent).
 *
 * <p>Not API: the module exports this package only to the library's native module.
 *
 * <p>Thread safety: the loop's thread.
 */
public final class Chunk {
    /** The bytes, big-endian; its limit is its capacity but while a read or write of it is under way. */
    public final ByteBuffer buf;
    /** A read-only twin of {@code buf}, re-pointed at each frame body handed to a handler. */
    public final ByteBuffer view;
    /** A writable twin of {@code buf}, sliced for each frame claimed in place. */
    public final ByteBuffer fill;
    /** {@code buf}'s memory, for endpoints that read and write by address. */
    public final MemorySegment memory;
    /** The pool this chunk goes back to; null for a buffer of its own size, dropped after use. */
    final BufferPool home;
    /** The slab of {@code home} this chunk was carved from; null with {@code home}. */
    final BufferPool.Slab slab;
    public int start;
    public int end;
    /** The next chunk of a connection's output, while this one is in it; else null. */
    public Chunk next;

    Chunk(ByteBuffer buf, BufferPool home, BufferPool.Slab slab) {
        this.buf = buf;
        this.view = buf.asReadOnlyBuffer();
        this.fill = buf.duplicate();
        this.memory = MemorySegment.ofBuffer(buf); // made while buf spans its capacity
        this.home = home;
        this.slab = slab;
    }

    /** {@return whether this chunk goes back to a pool} */
    public boolean pooled() {
        return home != null;
    }

    /** {@return the bytes it holds at most} */
    public int capacity() {
        return buf.capacity();
    }

    /** {@return the bytes not yet consumed, {@code end - start}} */
    public int available() {
        return end - start;
    }
}
