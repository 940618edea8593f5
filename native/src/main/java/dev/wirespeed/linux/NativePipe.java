package dev.wirespeed.linux;

import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.FdCalls;
import dev.wirespeed.linux.internal.sys.FdDirection;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;

/**
 * One end of a pipe, or an inherited descriptor such as standard input or output, read and written
 * with {@code read(2)} and {@code write(2)} through the FFM API, blocking or not. The JDK's channels
 * for standard input and output ({@code FileChannel}) cannot be made non-blocking; this one can, so a
 * reader of a pipe can busy-poll it with an idle strategy as a socket reader does.
 *
 * <h2>Reads and writes</h2>
 * <ul>
 *   <li>{@link #read(ByteBuffer)} makes one {@code read(2)} call for the buffer's remaining bytes and
 *       returns how many arrived, or -1 at end of stream (every writer has closed its end).
 *       {@link #write(ByteBuffer)} makes one {@code write(2)} call and may write fewer bytes than
 *       offered; a pipe whose readers have all gone is an {@code EPIPE} exception (the JVM ignores
 *       {@code SIGPIPE}).
 *   <li>In non-blocking mode ({@link #configureBlocking(boolean) configureBlocking(false)}) a call that
 *       would wait returns 0 ({@code EAGAIN}).
 *   <li>A call interrupted by a signal is repeated; Java thread interrupts are not observed.
 *   <li>Direct buffers are read and written in place, with no allocation per call; heap buffers go
 *       through one direct buffer per direction, with one copy.
 *   <li>Any other failure throws a {@link NativeIoException} naming the call, {@code errno} and its
 *       text, and the descriptor.
 * </ul>
 *
 * <h2>Blocking mode is shared</h2>
 * {@code O_NONBLOCK} belongs to the open file description, which every process that inherited the
 * descriptor shares: switching standard input to non-blocking mode switches it for the shell's other
 * processes on the same terminal or pipe too. {@link #close()} therefore puts back the mode the
 * descriptor had when this channel was made, then closes the descriptor. For {@link #stdin()} and
 * {@link #stdout()}, which the process inherited, the mode is also put back if the JVM exits with the
 * channel still open in the other mode: on {@code System.exit}, the end of {@code main}, or a
 * {@code SIGINT}, {@code SIGTERM} or {@code SIGHUP} (the JVM's shutdown hooks run then; a
 * {@code SIGKILL} leaves nothing to run).
 *
 * <p>The ends of a pipe made by {@link #open()} belong to this process alone (close-on-exec), so in
 * non-blocking mode they are read and written with critical down-calls, which skip the JVM's
 * thread-state changes: their mode must then be changed only through {@link #configureBlocking}, never
 * on the descriptor from elsewhere, since a critical call that waits holds up every safepoint of the
 * JVM. An inherited descriptor, whose mode another process may change at any time, never is.
 *
 * <h2>Thread safety</h2>
 * One thread may read while another writes; two threads must not read (or write) at once;
 * {@code close()} and {@code configureBlocking} must not race with a call in another thread.
 *
 * <p>Linux only: elsewhere every factory throws {@link UnsupportedOperationException}.
 */
public final class NativePipe implements ByteChannel {
    private final int fd;
    private final boolean readable;
    private final boolean writable;
    private final String name;
    /** The descriptor's {@code O_NONBLOCK} when this channel was made, put back by {@link #close()}. */
    private final boolean wasBlocking;
    /** Whether other processes share the descriptor's open file description: stdin and stdout. */
    private final boolean inherited;
    /** While an inherited descriptor is in the other mode: the shutdown hook that puts it back. */
    private Thread restoreOnExit;
    /** Held by {@link #close()} and by the shutdown hook, so that they do not interleave. */
    private final Object closing = new Object();
    private final FdDirection in = new FdDirection(false);
    private final FdDirection out = new FdDirection(false);
    private volatile boolean open = true;
    private boolean blocking;
    /** Whether the open file description is this channel's alone: a pipe made by {@link #open()}. */
    private final boolean owned;
    /** Non-blocking mode on an {@link #owned} descriptor: reads and writes are critical calls. */
    private boolean noWait;

    /** A channel over {@code fd}, which it owns from now on; package-private so that tests can wrap a duplicate. */
    NativePipe(int fd, boolean readable, boolean writable, String name) throws NativeIoException {
        this(fd, readable, writable, name, false, false);
    }

    /**
     * With {@code inherited}: the descriptor came from the parent process, whose mode must survive this one;
     * with {@code owned}: no other process or channel shares its open file description.
     */
    private NativePipe(int fd, boolean readable, boolean writable, String name, boolean inherited, boolean owned)
            throws NativeIoException {
        this.fd = fd;
        this.inherited = inherited;
        this.owned = owned;
        this.readable = readable;
        this.writable = writable;
        this.name = name;
        int flags = Sys.check(Sys.fcntl(fd, Flags.F_GETFL, 0), "fcntl", "cmd=F_GETFL " + describe());
        this.wasBlocking = (flags & Flags.O_NONBLOCK) == 0;
        this.blocking = wasBlocking;
        noWait(!wasBlocking && owned);
    }

    /**
     * {@return standard input (descriptor 0) as a readable channel}, in the mode it has
     *
     * @throws NativeIoException if descriptor 0 is not open
     * @throws UnsupportedOperationException off Linux
     */
    public static NativePipe stdin() throws NativeIoException {
        LibC.checkSupported();
        return new NativePipe(0, true, false, "stdin", true, false);
    }

    /**
     * {@return standard output (descriptor 1) as a writable channel}, in the mode it has
     *
     * @throws NativeIoException if descriptor 1 is not open
     * @throws UnsupportedOperationException off Linux
     */
    public static NativePipe stdout() throws NativeIoException {
        LibC.checkSupported();
        return new NativePipe(1, false, true, "stdout", true, false);
    }

    /**
     * A new pipe ({@code pipe2(2)}, close-on-exec), both ends blocking.
     *
     * @param source the end to read
     * @param sink the end to write
     */
    public record Ends(NativePipe source, NativePipe sink) {
    }

    /**
     * {@return a new pipe's two ends}, blocking
     *
     * @throws NativeIoException if {@code pipe2} fails ({@code EMFILE}, say)
     * @throws UnsupportedOperationException off Linux
     */
    public static Ends open() throws NativeIoException {
        LibC.checkSupported();
        int[] fds = new int[2];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pair = arena.allocate(ValueLayout.JAVA_INT, 2);
            long rc = Syscalls.call(Syscalls.capture(arena), SyscallNumbers.PIPE2, pair.address(), Flags.O_CLOEXEC,
                    0, 0, 0, 0);
            if (rc < 0) {
                throw new NativeIoException("pipe2", (int) -rc, "flags=O_CLOEXEC");
            }
            fds[0] = pair.getAtIndex(ValueLayout.JAVA_INT, 0);
            fds[1] = pair.getAtIndex(ValueLayout.JAVA_INT, 1);
        }
        return new Ends(new NativePipe(fds[0], true, false, "pipe", false, true),
                new NativePipe(fds[1], false, true, "pipe", false, true));
    }

    /** {@return the file descriptor} Valid until {@link #close()}. */
    public int fd() {
        return fd;
    }

    /** {@return whether calls wait in the kernel (true) or return 0 instead of waiting (false)} */
    public boolean isBlocking() {
        return blocking;
    }

    /**
     * Switches between blocking and non-blocking mode ({@code O_NONBLOCK}); see the class
     * documentation for who else sees the change.
     *
     * @param block true to wait in the kernel, false to return 0 where a call would wait
     * @return this channel
     * @throws IOException if {@code fcntl} fails, or the channel is closed
     */
    public NativePipe configureBlocking(boolean block) throws IOException {
        ensureOpen();
        noWait(false); // no critical call until the descriptor's mode is the one asked for
        Sys.setBlocking(fd, block, describe());
        blocking = block;
        noWait(!block && owned);
        if (inherited) {
            if (block != wasBlocking && restoreOnExit == null) {
                restoreOnExit = Thread.ofPlatform().name("wirespeed-restore-" + name).unstarted(this::restoreMode);
                Runtime.getRuntime().addShutdownHook(restoreOnExit);
            } else if (block == wasBlocking && restoreOnExit != null) {
                dropRestoreHook();
            }
        }
        return this;
    }

    /**
     * The shutdown hook's work: the descriptor's first mode back, if the channel is still open. Under
     * {@link #closing}, so that it never touches a descriptor {@link #close()} has released (and the
     * kernel may have handed out again).
     */
    private void restoreMode() {
        synchronized (closing) {
            if (!open) {
                return;
            }
            try {
                Sys.setBlocking(fd, wasBlocking, describe());
            } catch (NativeIoException e) {
                System.err.println("wirespeed: could not put back the blocking mode of " + describe() + ": "
                        + e.getMessage());
            }
        }
    }

    private void dropRestoreHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(restoreOnExit);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs and finds the mode already put back
        }
        restoreOnExit = null;
    }

    /**
     * Reads what the pipe has, up to {@code dst.remaining()} bytes, in one {@code read(2)} call.
     *
     * @param dst where the bytes go; its position advances by the count
     * @return the number of bytes read; 0 if {@code dst} is full or, in non-blocking mode, nothing
     *     is there yet; -1 at end of stream
     * @throws NonReadableChannelException if this is a write end
     * @throws ClosedChannelException if the channel is closed
     * @throws NativeIoException if {@code read} fails
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (!readable) {
            throw new NonReadableChannelException();
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read-only buffer: " + dst);
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        long n = in.read(fd, dst);
        if (n == 0) {
            return -1; // every writer has closed its end
        }
        if (n < 0) {
            if (n == -Errno.EAGAIN) {
                return 0;
            }
            throw failure("read", (int) -n);
        }
        return (int) n;
    }

    /**
     * Writes what the pipe takes, up to {@code src.remaining()} bytes, in one {@code write(2)} call.
     *
     * @param src the bytes; its position advances by the count
     * @return the number of bytes written; 0 if {@code src} is empty or, in non-blocking mode, the
     *     pipe is full
     * @throws NonWritableChannelException if this is a read end
     * @throws ClosedChannelException if the channel is closed
     * @throws NativeIoException if {@code write} fails ({@code EPIPE} when no reader is left, say)
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        int position = src.position();
        int remaining = src.limit() - position;
        if (remaining == 0) {
            return 0;
        }
        long n;
        if (src.isDirect()) {
            n = noWait ? FdCalls.writeNonBlocking(out.capture, fd, out.address(src) + position, remaining)
                    : FdCalls.write(out.capture, fd, out.address(src) + position, remaining);
            Reference.reachabilityFence(src);
        } else {
            ByteBuffer copy = out.threadCopyBuffer();
            int length = Math.min(remaining, copy.capacity());
            copy.clear().put(0, src, position, length);
            long at = out.threadCopyAddress(copy);
            n = noWait ? FdCalls.writeNonBlocking(out.capture, fd, at, length)
                    : FdCalls.write(out.capture, fd, at, length);
        }
        if (n < 0) {
            if (n == -Errno.EAGAIN) {
                return 0;
            }
            throw failure("write", (int) -n);
        }
        src.position(position + (int) n);
        return (int) n;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /**
     * Puts back the blocking mode the descriptor had when this channel was made, then closes the
     * descriptor; later calls throw {@link ClosedChannelException}. Closing twice does nothing.
     *
     * @throws NativeIoException if {@code fcntl} or {@code close} fails (the descriptor is closed either way)
     */
    @Override
    public void close() throws IOException {
        synchronized (closing) {
            if (!open) {
                return;
            }
            try {
                if (blocking != wasBlocking) {
                    noWait(false);
                    Sys.setBlocking(fd, wasBlocking, describe());
                    blocking = wasBlocking;
                }
            } finally {
                open = false;
                if (restoreOnExit != null) {
                    dropRestoreHook();
                }
                Sys.close(fd);
            }
        }
    }

    private void noWait(boolean critical) {
        noWait = critical;
        in.noWait(critical);
    }

    @Override
    public String toString() {
        return "NativePipe[" + describe() + (open ? "" : " closed") + (blocking ? "" : " non-blocking") + "]";
    }

    private String describe() {
        return "fd=" + fd + " (" + name + (readable ? ", read end" : ", write end") + ")";
    }

    private IOException failure(String call, int errno) {
        if (errno == Errno.EBADF && !open) {
            return new ClosedChannelException();
        }
        return new NativeIoException(call, errno, describe());
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }
}
