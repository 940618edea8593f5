package dev.wirespeed.loop;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A buffer a connection borrows for input or output, with the two views the loop re-points instead
 * of allocating: a read-only one for frame bodies handed to handlers, a writable one for claimed frames.
 *
 * <p>Invariant: {@code 0 <= start <= end <= buf.capacity()}; the bytes in {@code [start, end)} are
 * the ones not yet consumed (input: parsed; output: sent).
 */
final class Chunk {
    final ByteBuffer buf;
    final ByteBuffer view;
    final ByteBuffer fill;
    /** {@code buf}'s memory, for endpoints that read and write by address. */
    final MemorySegment memory;
    /** The pool this chunk goes back to; null for a buffer of its own size, dropped after use. */
    final BufferPool home;
    /** The slab of {@code home} this chunk was carved from; null with {@code home}. */
    final BufferPool.Slab slab;
    int start;
    int end;
    /** The next chunk of a connection's output, while this one is in it ({@link Outbound}); else null. */
    Chunk next;

    Chunk(ByteBuffer buf, BufferPool home, BufferPool.Slab slab) {
        this.buf = buf;
        this.view = buf.asReadOnlyBuffer();
        this.fill = buf.duplicate();
        this.memory = MemorySegment.ofBuffer(buf); // made while buf spans its capacity
        this.home = home;
        this.slab = slab;
    }

    /** {@return whether this chunk goes back to a pool} */
    boolean pooled() {
        return home != null;
    }

    int capacity() {
        return buf.capacity();
    }

    int available() {
        return end - start;
    }
}
