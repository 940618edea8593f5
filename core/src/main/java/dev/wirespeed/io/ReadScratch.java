package dev.wirespeed.io;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What {@link ReadAll} reuses between calls: a set of 16 KiB chunks that inputs of unknown size are
 * read into, so that a read costs no chunk allocation once the set has grown to the input's size;
 * and the one-byte probe and buffer pair of a scattering file read.
 *
 * <h2>Bounds</h2>
 * At most {@link #SETS} sets are kept, each with at most {@link #KEPT} chunks (1 MiB): with 2 CPUs
 * 2 MiB, never more than 8 MiB. A set may hold more chunks while in use (an input longer than
 * 1 MiB); those are dropped when it is given back. A thread looks in its own slot first, then in the
 * others, so up to {@link #SETS} threads at once find a set; a call that finds none makes a new one,
 * so more concurrent readers than that allocate as if there were no sets.
 *
 * <h2>What the next user sees</h2>
 * {@link #release} clears every byte that was used before the set is kept again: a stream read into
 * a chunk never sees the bytes of an earlier call, not even of another thread's. The pair lets go
 * of the caller's buffer.
 *
 * <p>Thread safety: {@link #take()} and {@link #release} are lock-free and may be called from any
 * thread; between them a set belongs to the one thread that took it.
 */
final class ReadScratch {
    /** Bytes per chunk: JDK 25's {@code readAllBytes} chunk, so that a cold set never costs more than it. */
    static final int CHUNK = 16 * 1024;
    /** Chunks a set keeps when given back: 1 MiB. */
    static final int KEPT = 64;
    /** Sets kept: the number of CPUs rounded up to a power of two, at most 8. */
    static final int SETS = Math.min(8, Integer.highestOneBit(Runtime.getRuntime().availableProcessors() * 2 - 1));
    /** Slots 16 references apart: each on its own 64-byte cache line, even with compressed oops. */
    private static final int STRIDE = 16;
    private static final AtomicReferenceArray<ReadScratch> KEPT_SETS = new AtomicReferenceArray<>(SETS * STRIDE);

    private byte[][] chunks = new byte[4][];
    /** Made on first use: a set used only for streams does not pay for them. */
    private ByteBuffer probe;
    private ByteBuffer[] pair;
    /** Chunks {@code [0, allocated)} exist. */
    private int allocated;

    private ReadScratch() {
    }

    /**
     * {@return the set kept in this thread's slot, else the first kept in the slots after it, else a
     * new empty one} Empty slots are only read, not written.
     */
    static ReadScratch take() {
        int home = home();
        for (int k = 0; k < SETS; k++) {
            int slot = (home + k) % SETS * STRIDE;
            if (KEPT_SETS.getPlain(slot) != null) {
                ReadScratch set = KEPT_SETS.getAndSet(slot, null);
                if (set != null) {
                    return set;
                }
            }
        }
        return new ReadScratch();
    }

    /** {@return whether chunk {@code index} exists, so that {@link #chunk} costs no allocation} */
    boolean has(int index) {
        return index < allocated;
    }

    /**
     * {@return chunk {@code index}}, allocated if it does not exist yet; chunks are asked for in order
     *
     * @param index at most the number of chunks the set has
     */
    byte[] chunk(int index) {
        if (index < allocated) {
            return chunks[index];
        }
        if (index != allocated) {
            throw new IllegalArgumentException("chunk index=" + index + " skips past allocated=" + allocated);
        }
        if (index == chunks.length) {
            chunks = Arrays.copyOf(chunks, chunks.length * 2);
        }
        byte[] chunk = new byte[CHUNK];
        chunks[allocated++] = chunk;
        return chunk;
    }

    /**
     * {@return {@code body}, then an empty one-byte probe: for a scattering read that fills
     * {@code body} and asks for one byte more}
     */
    ByteBuffer[] bodyThenProbe(ByteBuffer body) {
        if (probe == null) {
            probe = ByteBuffer.allocate(1);
            pair = new ByteBuffer[] {null, probe};
        }
        probe.clear();
        pair[0] = body;
        return pair;
    }

    /** {@return whether the last scattering read reached the probe} */
    boolean probed() {
        return probe.position() == 1;
    }

    /**
     * Clears what was used of the chunks it keeps, drops chunks beyond {@link #KEPT}, and keeps the
     * set in this thread's slot, else in the first empty slot after it; where every slot is full the
     * set is dropped.
     *
     * @param last the index of the last chunk used, -1 for none; chunks before it were used whole
     * @param lastFilled the bytes used of chunk {@code last}
     */
    void release(int last, int lastFilled) {
        // Only chunks that will be kept are cleared: those past KEPT are dropped as they are.
        int kept = Math.min(allocated, KEPT);
        for (int i = 0; i < last && i < kept; i++) {
            Arrays.fill(chunks[i], (byte) 0);
        }
        if (last >= 0 && last < kept) {
            Arrays.fill(chunks[last], 0, lastFilled, (byte) 0);
        }
        if (probe != null) {
            pair[0] = null;
            probe.put(0, (byte) 0);
        }
        if (allocated > KEPT) {
            chunks = Arrays.copyOf(chunks, KEPT);
            allocated = KEPT;
        }
        int home = home();
        for (int k = 0; k < SETS; k++) {
            int slot = (home + k) % SETS * STRIDE;
            if (KEPT_SETS.getPlain(slot) == null && KEPT_SETS.compareAndSet(slot, null, this)) {
                return;
            }
        }
    }

    private static int home() {
        return home(Thread.currentThread().threadId());
    }

    /**
     * {@return the own slot of the thread of id {@code threadId}, 0 to {@code SETS - 1}} The id is
     * mixed so that consecutive ids spread.
     */
    static int home(long threadId) {
        long mixed = threadId * 0x9E3779B97F4A7C15L;
        return (int) (mixed >>> 40) % SETS;
    }
}
