package dev.wirespeed.linux.internal.sys;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;

/**
 * One direction of a descriptor channel (a socket, a pipe): its errno capture (where there is one),
 * the address of the last direct buffer passed, and the direct copy buffer a heap buffer goes through.
 * One thread per direction at a time.
 *
 * <p>A call that copies, reads or writes, is done with its copy buffer when it returns, so the copy
 * buffer is the calling platform thread's ({@link #threadCopyBuffer()}): one per thread, not two per
 * socket, as the JDK's channels keep their temporary direct buffers. A loop that reads and writes its
 * sockets' heap buffers (the JDK's TLS engine's records, a TLS server's first record) then holds one
 * copy buffer for all its sockets, where each socket held 64 KiB of its own for each direction it
 * copied in, for its life. A virtual thread, which may come and go per call, uses the direction's
 * own, made on first use, as an operation that the kernel may still be using after the call
 * returns (io_uring's) must ({@link #copyBuffer()}).
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

    /** The calling platform thread's copy buffer and its address, made on the thread's first copy. */
    private static final ThreadLocal<ThreadCopy> THREAD_COPY = ThreadLocal.withInitial(ThreadCopy::new);

    /** A thread's copy buffer, with its address looked up once. */
    private static final class ThreadCopy {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(COPY_BUFFER_SIZE);
        final long address = MemorySegment.ofBuffer(buffer).address();
    }

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
        } else if (Thread.currentThread().isVirtual()) {
            ByteBuffer through = copyBuffer();
            n = receive(fd, address(through), Math.min(remaining, through.capacity()));
            if (n > 0) {
                dst.put(through.clear().limit((int) n));
            }
        } else {
            ThreadCopy through = THREAD_COPY.get();
            n = receive(fd, through.address, Math.min(remaining, COPY_BUFFER_SIZE));
            if (n > 0) {
                dst.put(position, through.buffer, 0, (int) n).position(position + (int) n);
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

    /**
     * {@return a copy buffer, direct, {@value #COPY_BUFFER_SIZE} bytes, for a call that is done with it
     * when it returns}: the calling thread's where it is a platform thread, else this direction's
     */
    public ByteBuffer threadCopyBuffer() {
        return Thread.currentThread().isVirtual() ? copyBuffer() : THREAD_COPY.get().buffer;
    }

    /**
     * {@return the address of {@link #threadCopyBuffer()}'s index 0}, for that same buffer: the calling
     * platform thread's, looked up once, else through {@link #address(ByteBuffer)}
     */
    public long threadCopyAddress(ByteBuffer copy) {
        ThreadCopy own = Thread.currentThread().isVirtual() ? null : THREAD_COPY.get();
        return own != null && own.buffer == copy ? own.address : address(copy);
    }

    /**
     * {@return this direction's own copy buffer, direct, {@value #COPY_BUFFER_SIZE} bytes, made on first
     * use}: for an operation the kernel may still use after the call that began it returns
     */
    public ByteBuffer copyBuffer() {
        if (copy == null) {
            copy = ByteBuffer.allocateDirect(COPY_BUFFER_SIZE);
        }
        return copy;
    }
}
