package dev.wirespeed.linux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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

    /** {@return the copy buffer, direct, {@value #COPY_BUFFER_SIZE} bytes} */
    ByteBuffer copyBuffer() {
        if (copy == null) {
            copy = ByteBuffer.allocateDirect(COPY_BUFFER_SIZE);
        }
        return copy;
    }
}
