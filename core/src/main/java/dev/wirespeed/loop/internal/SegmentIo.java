package dev.wirespeed.loop.internal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * An endpoint that reads and writes by address, told where a buffer's memory lies: the loop's pooled
 * buffers each carry the segment over their bytes, and an endpoint that takes it need not look each
 * buffer's address up, which the supported API does only by making an object per call.
 *
 * <p>Not API: the module exports this package only to the library's native module.
 */
public interface SegmentIo {
    /**
     * Reads as {@link java.nio.channels.ReadableByteChannel#read(ByteBuffer)} does.
     *
     * @param dst a direct buffer; its position advances by the count
     * @param memory the native segment over {@code dst}'s bytes from its index 0 to at least its limit
     * @return the count, 0 when nothing is there, -1 at the end of the stream
     * @throws IOException if the socket fails
     */
    int read(ByteBuffer dst, MemorySegment memory) throws IOException;

    /**
     * Writes as {@link java.nio.channels.WritableByteChannel#write(ByteBuffer)} does.
     *
     * @param src a direct buffer; its position advances by the count
     * @param memory the native segment over {@code src}'s bytes from its index 0 to at least its limit
     * @return the count, 0 when the socket takes nothing
     * @throws IOException if the socket fails
     */
    int write(ByteBuffer src, MemorySegment memory) throws IOException;
}
