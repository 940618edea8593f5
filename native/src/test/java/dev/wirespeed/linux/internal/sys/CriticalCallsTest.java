package dev.wirespeed.linux.internal.sys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.NativePipe;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.linux.internal.uring.Ring;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The critical down-calls ({@code LibC}'s {@code ..._CRITICAL} handles, through {@link FdCalls}, the epoll
 * poller's zero-timeout wait and {@link Syscalls#callNow}, the ring's) report each failure's own
 * {@code errno}: the one the call set, never one left by an earlier call on the same capture segment.
 * The build runs it twice: with {@link LibC#STUB_6} where the machine has it, and without it
 * ({@code -Dwirespeed.syscallStub=false}), through {@code syscall(2)} and the capture.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native path is Linux-only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CriticalCallsTest {
    private static final int EBADF = 9;
    private static final int EAGAIN = 11;
    private static final int EPIPE = 32;
    private static final int EOPNOTSUPP = 95;
    private static final int ECONNRESET = 104;

    private final Arena arena = Arena.ofAuto();
    private final MemorySegment capture = LibC.captureSegment(arena);
    private final MemorySegment buffer = arena.allocate(4096, 8);

    @BeforeEach
    void nativePath() {
        NativeFeatures.assumeNative();
    }

    @Test
    void aNonBlockingRecvOfAnEmptySocketIsEagainThenAResetIsEconnresetAndASendAfterItEpipe() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress()).configureBlocking(false)) {
            SocketChannel peer = server.accept();
            int fd = socket.fd();
                        assertEquals(-EAGAIN, FdCalls.recvNonBlocking(capture, fd, buffer.address(), buffer.byteSize(), 0));
            peer.setOption(StandardSocketOptions.SO_LINGER, 0);
            peer.close(); // RST
            long n;
            do {
                n = FdCalls.recvNonBlocking(capture, fd, buffer.address(), buffer.byteSize(), 0);
            } while (n == -EAGAIN);
            assertEquals(-ECONNRESET, n);
            long sent = FdCalls.sendNonBlocking(capture, fd, buffer.address(), 8, Flags.MSG_NOSIGNAL);
            assertTrue(sent == -EPIPE || sent == -ECONNRESET, "send after a reset: " + sent);
        }
    }

    @Test
    void eachCriticalCallReportsItsOwnErrnoNotOneAnEarlierCallLeft() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                NativeSocket socket = NativeSocket.connect(server.getLocalAddress()).configureBlocking(false);
                SocketChannel peer = server.accept()) {
            assertTrue(peer.isConnected(), "a peer that sends nothing: every recv of the socket is EAGAIN");
            int fd = socket.fd();
            long at = buffer.address();
            long size = buffer.byteSize();
            for (int round = 0; round < 3; round++) {
                assertEquals(-EBADF, FdCalls.recv(capture, -1, at, size, 0), "round " + round);
                assertEquals(-EAGAIN, FdCalls.recvNonBlocking(capture, fd, at, size, 0), "round " + round);
                assertEquals(-EBADF, FdCalls.recvNonBlocking(capture, -1, at, size, 0), "round " + round);
                assertEquals(-EAGAIN, FdCalls.recvNonBlocking(capture, fd, at, size, 0), "round " + round);
                assertEquals(-EBADF, FdCalls.sendNonBlocking(capture, -1, at, 8, Flags.MSG_NOSIGNAL),
                        "round " + round);
                assertEquals(-EBADF, FdCalls.sendmsgNonBlocking(capture, -1, buffer, Flags.MSG_NOSIGNAL),
                        "round " + round);
            }
        }
    }

    @Test
    void aNonBlockingReadOfAnEmptyPipeIsEagainAWriteWithNoReaderEpipeAndAClosedDescriptorEbadf() throws Exception {
        NativePipe.Ends pipe = NativePipe.open();
        long at = buffer.address();
        try (NativePipe sink = pipe.sink().configureBlocking(false)) {
            NativePipe source = pipe.source().configureBlocking(false);
            try {
                assertEquals(-EAGAIN, FdCalls.readNonBlocking(capture, source.fd(), at, buffer.byteSize()));
                assertEquals(-EBADF, FdCalls.readNonBlocking(capture, -1, at, buffer.byteSize()));
                assertEquals(-EAGAIN, FdCalls.readNonBlocking(capture, source.fd(), at, buffer.byteSize()));
                assertEquals(-EBADF, FdCalls.writeNonBlocking(capture, -1, at, 8));
            } finally {
                source.close();
            }
            assertEquals(-EPIPE, FdCalls.writeNonBlocking(capture, sink.fd(), at, 8), "no reader is left");
        }
    }

    @Test
    void anEpollWaitReportsItsErrnoAtAZeroTimeoutAndWaiting() throws Throwable {
        NativePipe.Ends pipe = NativePipe.open();
        pipe.sink().close();
        try (NativePipe source = pipe.source()) {
            assertEquals(-EBADF, FdCalls.epollWaitNow(capture, -1, buffer.address(), 8));
            int epfd = (int) Syscalls.call(capture, SyscallNumbers.EPOLL_CREATE1, 0, 0, 0, 0, 0, 0);
            assertTrue(epfd >= 0, "epoll_create1 errno=" + -epfd);
            try {
                assertEquals(0, FdCalls.epollWaitNow(capture, epfd, buffer.address(), 8), "an empty set");
                assertEquals(-22, FdCalls.epollWaitNow(capture, source.fd(), buffer.address(), 8),
                        "a pipe is no epoll descriptor: EINVAL");
                assertEquals(0, FdCalls.epollWait(capture, epfd, buffer.address(), 8, 1), "an empty set, 1 ms");
                assertEquals(-EBADF, FdCalls.epollWait(capture, -1, buffer.address(), 8, 1));
            } finally {
                Sys.close(epfd);
            }
        }
    }

    @Test
    void anIoUringEnterWithNothingToSubmitOrWaitForReportsItsErrno() throws Exception {
        NativeFeatures.assumeIoUring();
        NativePipe.Ends pipe = NativePipe.open();
        pipe.source().close();
        try (NativePipe sink = pipe.sink();
                Ring ring = Ring.open(Ring.Params.of(2, 0, 0, -1, 1000, "CriticalCallsTest"))) {
            assertEquals(0, Syscalls.callNow(capture, SyscallNumbers.IO_URING_ENTER, ring.fd(), 0, 0, 0, 0, 0));
            assertEquals(-EBADF, Syscalls.callNow(capture, SyscallNumbers.IO_URING_ENTER, -1, 0, 0, 0, 0, 0));
            assertEquals(-EOPNOTSUPP, Syscalls.callNow(capture, SyscallNumbers.IO_URING_ENTER, sink.fd(), 0, 0, 0, 0, 0),
                    "a pipe is no ring");
            assertEquals(0, Syscalls.callNow(capture, SyscallNumbers.IO_URING_ENTER, ring.fd(), 0, 0, 0, 0, 0),
                    "after failures, a good call again");
        }
    }
}
