package dev.wirespeed.linux.internal.sys;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;

/**
 * One direction of a descriptor channel (a socket, a pipe): its errno capture (where there is one),
 * the address of the last direct buffer passed, and a direct copy buffer for heap buffers, made on
 * first use. One thread per direction at a time.
 */
public final class FdDirection {
    /** Size of the copy buffer for heap buffers. */
    public static final int COPY_BUFFER_SIZE = 64 * 1024;

    /** Where {@link FdCalls} captures the errno: none where {@link LibC#STUB_CALLS}, whose stub returns it. */
    public final MemorySegment capture = Syscalls.ownCapture();
    /** Reads with {@code recv(2)}, the socket layer's own call, instead of {@code read(2)}. */
    private final boolean socket;
    /**
     * Whether reads cannot wait: for a socket, {@code MSG_DONTWAIT} is passed (so any non-blocking socket
     * may set it); for another descriptor, {@link FdCalls#readNonBlocking} is used, for whose mode the
     * owner vouches.
     */
    private boolean noWait;
    private ByteBuffer lastBuffer;
    private long lastBase;
    private ByteBuffer copy;

    /** @param socket true for a socket, read with {@code recv(2)}; false for any descriptor, read with {@code read(2)} */
    public FdDirection(boolean socket) {
        this.socket = socket;
    }

    /** {@return the address of index 0 of a direct buffer}, looked up once per buffer */
    public long address(ByteBuffer direct) {
        if (direct != lastBuffer) {
            lastBase = MemorySegment.ofBuffer(direct.duplicate().clear()).address();
            lastBuffer = direct;
        }
        return lastBase;
    }

    /**
     * One {@code read(2)} (a socket's: {@code recv(2)}) of {@code fd} into {@code dst}'s remaining bytes, which must be at least one:
     * in place for a direct buffer, through the copy buffer for a heap one. {@code dst}'s position
     * advances by the count.
     *
     * @return the count (0 at end of stream), or minus the {@code errno} of a failure ({@code -EAGAIN}
     *     where a non-blocking descriptor has nothing)
     */
    public long read(int fd, ByteBuffer dst) {
        int position = dst.position();
        int remaining = dst.limit() - position;
        long n;
        if (dst.isDirect()) {
            n = receive(fd, address(dst) + position, remaining);
            Reference.reachabilityFence(dst);
            if (n > 0) {
                dst.position(position + (int) n);
            }
        } else {
            ByteBuffer through = copyBuffer();
            n = receive(fd, address(through), Math.min(remaining, through.capacity()));
            if (n > 0) {
                dst.put(through.clear().limit((int) n));
            }
        }
        return n;
    }

    /**
     * One read of up to {@code length} bytes at {@code address}: {@code recv} for a socket, else {@code read};
     * a critical call where {@link #noWait(boolean)} was set.
     */
    public long receive(int fd, long address, long length) {
        if (socket) {
            return noWait ? FdCalls.recvNonBlocking(capture, fd, address, length, 0)
                    : FdCalls.recv(capture, fd, address, length, 0);
        }
        return noWait ? FdCalls.readNonBlocking(capture, fd, address, length) : FdCalls.read(capture, fd, address, length);
    }

    /**
     * Says whether this direction's reads cannot wait, and so may be critical calls: for a socket, any
     * time it is in non-blocking mode ({@code MSG_DONTWAIT} is passed); for another descriptor, only where
     * it is in non-blocking mode and no one else can switch it back.
     *
     * @param noWait true for critical reads
     */
    public void noWait(boolean noWait) {
        this.noWait = noWait;
    }

    /** {@return the copy buffer, direct, {@value #COPY_BUFFER_SIZE} bytes} */
    public ByteBuffer copyBuffer() {
        if (copy == null) {
            copy = ByteBuffer.allocateDirect(COPY_BUFFER_SIZE);
        }
        return copy;
    }
}
