package dev.wirespeed.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Allocation of the direct buffers the readers and writers own. */
final class Buffers {
    /**
     * Buffers start on a page boundary. {@code allocateDirect} only promises {@code malloc}
     * alignment, and the kernel copies to and from page-aligned memory faster, so we pay up to one
     * page per buffer for it.
     */
    static final int PAGE_SIZE = 4096;

    /** The largest capacity {@link #allocate} accepts: room for rounding and alignment in an int. */
    static final int MAX_CAPACITY = Integer.MAX_VALUE - 2 * PAGE_SIZE;

    private Buffers() {
    }

    /** A direct, big-endian, page-aligned buffer of exactly {@code capacity} bytes. */
    static ByteBuffer allocate(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity=" + capacity + " min=1 max=" + MAX_CAPACITY);
        }
        // alignedSlice rounds both ends inwards to the page: allocate whole pages plus one page of slack.
        int pages = (capacity + PAGE_SIZE - 1) / PAGE_SIZE;
        ByteBuffer raw = ByteBuffer.allocateDirect(pages * PAGE_SIZE + PAGE_SIZE - 1);
        ByteBuffer aligned = raw.alignedSlice(PAGE_SIZE);
        return aligned.limit(capacity).slice().order(ByteOrder.BIG_ENDIAN);
    }
}
