package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.net.ListenFd;
import dev.wirespeed.linux.internal.net.SocketFd;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.FdCalls;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * An {@code epoll} instance, level-triggered, its event array, and the attachments by descriptor; an
 * {@code eventfd} for {@link #wakeup()}. A connecting socket is registered for {@code EPOLLOUT} (errors
 * come whatever the interest) with {@link #CONNECT_MARK} in its event's data, so that its readiness,
 * whichever, is reported as {@link #CONNECT}, until its interest is changed.
 *
 * <p>Thread safety: its loop's thread, but for {@link #wakeup()}, which any thread may call.
 */
final class EpollPoller implements Poller {
    private static final int EPOLL_CLOEXEC = 0x80000;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLL_CTL_DEL = 2;
    private static final int EPOLL_CTL_MOD = 3;
    private static final int EPOLLIN = 0x001;
    private static final int EPOLLOUT = 0x004;
    private static final int EPOLLERR = 0x008;
    private static final int EPOLLHUP = 0x010;
    private static final int EPOLLRDHUP = 0x2000;
    /** {@code struct epoll_event} is packed on x86-64 (12 bytes) and naturally aligned elsewhere (16). */
    private static final boolean PACKED = System.getProperty("os.arch", "").matches("amd64|x86_64");
    private static final long EVENT_SIZE = PACKED ? 12 : 16;
    private static final long DATA_OFFSET = PACKED ? 4 : 8;
    /** In an event's data above the descriptor: the socket was registered for {@link #CONNECT}. */
    private static final long CONNECT_MARK = 1L << 32;
    /** Ready sockets taken per {@code epoll_wait}. */
    static final int MAX_EVENTS = 1024;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment events = arena.allocate(EVENT_SIZE * MAX_EVENTS, 8);
    /** One {@code struct epoll_event} for {@code epoll_ctl}. */
    private final MemorySegment control = arena.allocate(16, 8);
    private final MemorySegment capture = LibC.captureSegment(arena);
    /** {@code wakeup} writes this 8-byte count from any thread, with its own errno capture. */
    private final MemorySegment one = arena.allocate(8, 8);
    private final MemorySegment wakeCapture = LibC.captureSegment(arena);
    private final MemorySegment drained = arena.allocate(8, 8);
    private final int epfd;
    private final int eventfd;
    private Object[] attachments = new Object[1024];
    private boolean closed;

    EpollPoller() throws IOException {
        one.set(ValueLayout.JAVA_LONG, 0, 1);
        try {
            long rc = Syscalls.call(capture, SyscallNumbers.EPOLL_CREATE1, EPOLL_CLOEXEC, 0, 0, 0, 0, 0);
            if (rc < 0) {
                throw new NativeIoException("epoll_create1", (int) -rc, "flags=EPOLL_CLOEXEC");
            }
            epfd = (int) rc;
            rc = Syscalls.call(capture, SyscallNumbers.EVENTFD2, 0, Flags.EFD_NONBLOCK | Flags.EFD_CLOEXEC, 0, 0, 0, 0);
            if (rc < 0) {
                Sys.closeQuietly(epfd);
                throw new NativeIoException("eventfd", (int) -rc, "flags=EFD_NONBLOCK|EFD_CLOEXEC");
            }
            eventfd = (int) rc;
            control(EPOLL_CTL_ADD, eventfd, EPOLLIN);
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    @Override
    public void register(Endpoint endpoint, Object attachment, int ops) throws IOException {
        int fd = ((SocketFd) endpoint).fd();
        attach(fd, attachment);
        if (ops == CONNECT) {
            control(EPOLL_CTL_ADD, fd, EPOLLOUT, fd | CONNECT_MARK);
        } else {
            control(EPOLL_CTL_ADD, fd, epoll(ops));
        }
    }

    @Override
    public void register(Listener listener, Object attachment) throws IOException {
        int fd = ((EpollListener) listener).socket().fd();
        attach(fd, attachment);
        control(EPOLL_CTL_ADD, fd, EPOLLIN);
    }

    @Override
    public void interest(Listener listener, int ops) throws IOException {
        ListenFd socket = ((EpollListener) listener).socket();
        if (socket.isOpen()) { // a closed one's descriptor may be another socket's by now
            control(EPOLL_CTL_MOD, socket.fd(), (ops & READ) != 0 ? EPOLLIN : 0);
        }
    }

    @Override
    public void interest(Endpoint endpoint, int ops) throws IOException {
        control(EPOLL_CTL_MOD, ((SocketFd) endpoint).fd(), epoll(ops));
    }

    @Override
    public void deregister(Endpoint endpoint) {
        int fd = ((SocketFd) endpoint).fd();
        try {
            control(EPOLL_CTL_DEL, fd, 0);
        } catch (IOException ignored) {
            // closing the descriptor, which comes next, removes it from the epoll set anyway
        }
        attachments[fd] = null;
    }

    private void attach(int fd, Object attachment) {
        if (fd >= attachments.length) {
            attachments = Arrays.copyOf(attachments, Math.max(fd + 1, attachments.length * 2));
        }
        attachments[fd] = attachment;
    }

    private static int epoll(int ops) {
        return ((ops & READ) != 0 ? EPOLLIN | EPOLLRDHUP : 0) | ((ops & WRITE) != 0 ? EPOLLOUT : 0);
    }

    private void control(int op, int fd, int interest) throws IOException {
        control(op, fd, interest, fd);
    }

    private void control(int op, int fd, int interest, long data) throws IOException {
        control.set(ValueLayout.JAVA_INT, 0, interest);
        control.set(ValueLayout.JAVA_LONG_UNALIGNED, DATA_OFFSET, data);
        long rc = Syscalls.call(capture, SyscallNumbers.EPOLL_CTL, epfd, op, fd, control.address(), 0, 0);
        if (rc < 0) {
            throw new NativeIoException("epoll_ctl", (int) -rc, "epfd=" + epfd + " op=" + op + " fd=" + fd
                    + " events=0x" + Integer.toHexString(interest));
        }
    }

    @Override
    public int poll(long timeoutMillis, Ready ready) throws IOException {
        int timeout = timeoutMillis < 0 ? -1 : (int) Math.min(timeoutMillis, Integer.MAX_VALUE);
        // Each through FdCalls, a method of its own small enough for the JIT to compile the down-call with
        // its errno capture whole (which drops the segment the linker makes per call), whatever it decides
        // for this method, into which the loop's whole turn is inlined.
        int n = timeout == 0 ? FdCalls.epollWaitNow(capture, epfd, events.address(), MAX_EVENTS)
                : FdCalls.epollWait(capture, epfd, events.address(), MAX_EVENTS, timeout);
        if (n < 0) {
            if (n == -Errno.EINTR) {
                return 0;
            }
            throw new NativeIoException("epoll_wait", -n, "epfd=" + epfd);
        }
        int handed = 0;
        for (int i = 0; i < n; i++) {
            long at = i * EVENT_SIZE;
            int got = events.get(ValueLayout.JAVA_INT_UNALIGNED, at);
            long data = events.get(ValueLayout.JAVA_LONG_UNALIGNED, at + DATA_OFFSET);
            int fd = (int) data;
            if (fd == eventfd) {
                drainWakeups();
                continue;
            }
            Object attachment = fd < attachments.length ? attachments[fd] : null;
            if (attachment == null) {
                continue; // deregistered by an earlier socket's handler in this poll
            }
            boolean failed = (got & (EPOLLERR | EPOLLHUP)) != 0;
            int ops = (failed || (got & (EPOLLIN | EPOLLRDHUP)) != 0 ? READ : 0)
                    | (failed || (got & EPOLLOUT) != 0 ? WRITE : 0);
            ready.ready(attachment, data == fd ? ops : CONNECT); // marked: a connect's end, or its failure
            handed++;
        }
        return handed;
    }

    private void drainWakeups() {
        FdCalls.read(capture, eventfd, drained.address(), 8); // resets the count; EAGAIN if already read
    }

    /** Synchronized with {@link #close()}: a descriptor closed, then reused, must not be written. */
    @Override
    public synchronized void wakeup() {
        if (!closed) {
            FdCalls.write(wakeCapture, eventfd, one.address(), 8);
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            Sys.closeQuietly(eventfd);
            Sys.closeQuietly(epfd);
            arena.close();
        }
    }
}
