package dev.wirespeed.linux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;

/**
 * One direction of a descriptor channel ({@link NativeSocket}, {@link NativePipe}): its errno capture,
 * the address of the last direct buffer passed, and a direct copy buffer for heap buffers, made on
 * first use. One thread per direction at a time.
 */
final class FdDirection {
    /** Size of the copy buffer for heap buffers. */
    static final int COPY_BUFFER_SIZE = 64 * 1024;

    final MemorySegment capture = LibC.captureSegment(Arena.ofAuto());
    private ByteBuffer lastBuffer;
    private long lastBase;
    private ByteBuffer copy;

    /** {@return the address of index 0 of a direct buffer}, looked up once per buffer */
    long address(ByteBuffer direct) {
        if (direct != lastBuffer) {
            lastBase = MemorySegment.ofBuffer(direct.duplicate().clear()).address();
            lastBuffer = direct;
        }
        return lastBase;
    }

    /**
     * One {@code read(2)} of {@code fd} into {@code dst}'s remaining bytes, which must be at least one:
     * in place for a direct buffer, through the copy buffer for a heap one. {@code dst}'s position
     * advances by the count.
     *
     * @return the count (0 at end of stream), or minus the {@code errno} of a failure ({@code -EAGAIN}
     *     where a non-blocking descriptor has nothing)
     */
    long read(int fd, ByteBuffer dst) {
        int position = dst.position();
        int remaining = dst.limit() - position;
        long n;
        if (dst.isDirect()) {
            n = FdCalls.read(capture, fd, address(dst) + position, remaining);
            Reference.reachabilityFence(dst);
            if (n > 0) {
                dst.position(position + (int) n);
            }
        } else {
            ByteBuffer through = copyBuffer();
            n = FdCalls.read(capture, fd, address(through), Math.min(remaining, through.capacity()));
            if (n > 0) {
                dst.put(through.clear().limit((int) n));
            }
        }
        return n;
    }

    /** {@return the copy buffer, direct, {@value #COPY_BUFFER_SIZE} bytes} */
    ByteBuffer copyBuffer() {
        if (copy == null) {
            copy = ByteBuffer.allocateDirect(COPY_BUFFER_SIZE);
        }
        return copy;
    }
}
