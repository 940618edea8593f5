package dev.wirespeed.linux.internal.uring;

import dev.wirespeed.linux.NativeIoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Buffers provided to an {@link Ring} for receives that let the kernel pick one
 * ({@code IORING_REGISTER_PBUF_RING}, Linux 5.19): {@code count} buffers of {@code size} bytes in one
 * page-aligned block, and the ring through which the kernel takes them and the caller gives them
 * back.
 *
 * <p>A completion of {@link Ring#recvMultishot} names its buffer by id ({@code flags >>>
 * Ring.CQE_BUFFER_SHIFT}); the {@code result} bytes are at {@link #address(int)}, and the buffer is
 * the caller's until {@link #recycle(int)} gives it back. A buffer is never handed out twice without a
 * recycle in between. When every buffer is out, receives end with {@code -ENOBUFS}: that is the
 * backpressure, and the caller recycles, then arms the receive again.
 *
 * <p>Thread safety: the ring's thread. {@link #close()} unregisters the buffers and frees their
 * memory; no receive that selects from them may be in flight.
 */
public final class BufferRing implements AutoCloseable {
    static final int REGISTER_PBUF_RING = 22;
    static final int UNREGISTER_PBUF_RING = 23;
    /** {@code struct io_uring_buf}: address, length, id, reserved. */
    static final int BUF_SIZE = 16;
    /** {@code struct io_uring_buf_reg}: ring address, entries, group, padding, 3 reserved. */
    static final int REG_SIZE = 40;
    /** The ring's tail: a 16-bit field over the first entry's reserved one. */
    static final long TAIL_OFFSET = 14;
    private static final int PAGE = 4096;
    private static final VarHandle SHORT = ValueLayout.JAVA_SHORT.varHandle();

    private final Ring ring;
    private final int group;
    private final int count;
    private final int size;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment entries;
    private final MemorySegment buffers;
    private final long base;
    private short tail;
    private boolean closed;

    private BufferRing(Ring ring, int group, int count, int size) {
        this.ring = ring;
        this.group = group;
        this.count = count;
        this.size = size;
        this.entries = arena.allocate((long) count * BUF_SIZE, PAGE);
        this.buffers = arena.allocate((long) count * size, PAGE);
        this.base = buffers.address();
    }

    /**
     * Registers {@code count} buffers of {@code size} bytes as group {@code group} of {@code ring}, all
     * of them given to the kernel.
     *
     * @param ring the ring
     * @param group the group id, 0 to 65,535, not already registered with this ring
     * @param count how many buffers: a power of two, 1 to 32,768
     * @param size each buffer's bytes, at least 1
     * @return the registered buffers
     * @throws NativeIoException if the kernel refuses ({@code EEXIST} for a group already registered,
     *     {@code EINVAL} before Linux 5.19), naming the group
     */
    public static BufferRing register(Ring ring, int group, int count, int size) throws NativeIoException {
        if (group < 0 || group > 0xFFFF) {
            throw new IllegalArgumentException("group=" + group + " must be 0 to 65535");
        }
        if (count < 1 || count > 32_768 || Integer.bitCount(count) != 1) {
            throw new IllegalArgumentException("count=" + count + " must be a power of two from 1 to 32768");
        }
        if (size < 1) {
            throw new IllegalArgumentException("size=" + size + " must be at least 1");
        }
        BufferRing b = new BufferRing(ring, group, count, size);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment reg = call.allocate(REG_SIZE, 8);
            reg.set(ValueLayout.JAVA_LONG, 0, b.entries.address());
            reg.set(ValueLayout.JAVA_INT, 8, count);
            reg.set(ValueLayout.JAVA_SHORT, 12, (short) group);
            long rc = ring.register(REGISTER_PBUF_RING, reg.address(), 1);
            if (rc < 0) {
                b.arena.close();
                throw new NativeIoException("io_uring_register", (int) -rc, "IORING_REGISTER_PBUF_RING group=" + group
                        + " count=" + count + " size=" + size + " on " + ring);
            }
        }
        for (int id = 0; id < count; id++) {
            b.put(id);
        }
        b.publish();
        return b;
    }

    /** {@return the group id receives name} */
    public int group() {
        return group;
    }

    /** {@return how many buffers} */
    public int count() {
        return count;
    }

    /** {@return each buffer's size in bytes} */
    public int size() {
        return size;
    }

    /**
     * {@return the address of buffer {@code id}}
     *
     * @param id a buffer id from a completion
     */
    public long address(int id) {
        checkId(id);
        return base + (long) id * size;
    }

    /** {@return the memory of every buffer, buffer {@code id} at {@code id * size()}} */
    public MemorySegment memory() {
        return buffers;
    }

    /**
     * Gives buffer {@code id} back to the kernel.
     *
     * @param id a buffer id from a completion, not recycled since
     */
    public void recycle(int id) {
        checkId(id);
        put(id);
        publish();
    }

    private void put(int id) {
        long at = (long) (tail & (count - 1)) * BUF_SIZE;
        entries.set(ValueLayout.JAVA_LONG, at, base + (long) id * size);
        entries.set(ValueLayout.JAVA_INT, at + 8, size);
        entries.set(ValueLayout.JAVA_SHORT, at + 12, (short) id);
        tail++;
    }

    private void publish() {
        SHORT.setRelease(entries, TAIL_OFFSET, tail); // the entries before the tail that shows them
    }

    private void checkId(int id) {
        if (closed) {
            throw new IllegalStateException("closed: buffer group " + group + " of " + ring);
        }
        if (id < 0 || id >= count) {
            throw new IllegalArgumentException("id=" + id + " must be 0 to " + (count - 1) + " in buffer group " + group);
        }
    }

    /** Unregisters the buffers and frees them. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment reg = call.allocate(REG_SIZE, 8);
            reg.set(ValueLayout.JAVA_SHORT, 12, (short) group);
            ring.register(UNREGISTER_PBUF_RING, reg.address(), 1); // a closed ring has dropped them already
        } catch (IllegalStateException ringClosed) {
            // the ring's close released the group with everything else
        } finally {
            arena.close();
        }
    }
}
