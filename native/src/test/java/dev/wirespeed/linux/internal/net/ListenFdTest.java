package dev.wirespeed.linux.internal.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.testing.SteadyState;
import java.net.StandardSocketOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@link ListenFd}'s accepts for the event loops: each connection's mode, options, peer, and what an accept allocates. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native path is Linux-only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ListenFdTest {
    /**
     * Room for what an accepted connection keeps: its socket, the socket's two directions and its peer's
     * address, about half of it on JDK 25. An accept that left an arena or a message behind goes over it.
     */
    private static final long KEPT_BYTES_BOUND = 512;

    private static ListenFd listener() throws Exception {
        return ListenFd.bindNonBlocking(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    }

    private static SocketFd acceptWaiting(ListenFd listener, boolean nonBlocking) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        SocketFd s;
        while ((s = listener.acceptForLoop(nonBlocking)) == null) {
            assertTrue(System.nanoTime() < deadline, "no connection accepted in 10 s");
            Thread.onSpinWait();
        }
        return s;
    }

    @Test
    void aLoopsConnectionComesNonBlockingOrBlockingAsAskedWithNoDelayAndItsPeer() throws Exception {
        try (ListenFd listener = listener();
                SocketChannel a = SocketChannel.open(listener.localAddress());
                SocketChannel b = SocketChannel.open(listener.localAddress());
                SocketFd epoll = acceptWaiting(listener, true);
                SocketFd uring = acceptWaiting(listener, false)) {
            int epollFlags = Sys.check(Sys.fcntl(epoll.fd(), Flags.F_GETFL, 0), "fcntl", "F_GETFL");
            int uringFlags = Sys.check(Sys.fcntl(uring.fd(), Flags.F_GETFL, 0), "fcntl", "F_GETFL");
            assertEquals(Flags.O_NONBLOCK, epollFlags & Flags.O_NONBLOCK, "accepted with SOCK_NONBLOCK: " + epoll);
            assertEquals(0, uringFlags & Flags.O_NONBLOCK, "blocking as accepted: " + uring);
            assertTrue(epoll.toString().contains("non-blocking"), "the socket knows its mode: " + epoll);
            assertTrue(epoll.getTcpNoDelay() && uring.getTcpNoDelay(), "TCP_NODELAY on both");
            assertEquals(a.getLocalAddress(), epoll.remoteAddress());
            assertEquals(b.getLocalAddress(), uring.remoteAddress());
            assertNull(listener.acceptForLoop(true), "none waits: null, not a wait");
        }
    }

    /**
     * Each accept is measured alone, and what it allocates over the bound is counted: by {@link
     * SteadyState}'s rule that count must not grow in any judged window of accepts (a window in which the
     * JIT compiled or deoptimised may be set aside, as the rule bounds it), so that one accept over the
     * bound fails the check however little the others take. The client's connect and both closes, which
     * allocate, are not counted; the client resets its end so that no port waits in TIME_WAIT.
     */
    @Test
    void everyAcceptAllocatesNoMoreThanWhatItsConnectionKeeps() throws Exception {
        assumeTrue(LibC.STUB_CALLS, "without the stub each socket's directions keep an errno capture of their own");
        long[] over = {0}; // bytes over the bound, summed over the accepts
        Thread self = Thread.currentThread();
        try (ListenFd listener = listener()) {
            SteadyState.assertMetersStillPerOperation("accepts, bytes over " + KEPT_BYTES_BOUND + " each",
                    List.of(new SteadyState.Meter(self.getName() + " over the bound", () -> over[0])), 0, i -> {
                        SocketChannel client = SocketChannel.open(listener.localAddress());
                        long before = SteadyState.threadAllocatedBytes(self.threadId());
                        SocketFd accepted = acceptWaiting(listener, true);
                        long bytes = SteadyState.threadAllocatedBytes(self.threadId()) - before;
                        over[0] += Math.max(0, bytes - KEPT_BYTES_BOUND);
                        accepted.close();
                        client.setOption(StandardSocketOptions.SO_LINGER, 0);
                        client.close();
                    });
        }
    }
}
