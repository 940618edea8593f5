package dev.wirespeed.linux.internal.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
     * Each accept of the last round is measured alone, so that one accept over the bound fails the check
     * however little the others take; the rounds before warm the path.
     */
    @Test
    void everyAcceptAllocatesNoMoreThanWhatItsConnectionKeeps() throws Exception {
        assumeTrue(LibC.STUB_CALLS, "without the stub each socket's directions keep an errno capture of their own");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int perRound = 400;
        int rounds = 6;
        SocketChannel[] clients = new SocketChannel[perRound];
        SocketFd[] accepted = new SocketFd[perRound];
        long[] bytes = new long[perRound];
        try (ListenFd listener = listener()) {
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < perRound; i++) {
                    clients[i] = SocketChannel.open(listener.localAddress());
                }
                for (int i = 0; i < perRound; i++) {
                    long before = threads.getCurrentThreadAllocatedBytes();
                    accepted[i] = acceptWaiting(listener, true);
                    bytes[i] = threads.getCurrentThreadAllocatedBytes() - before;
                }
                for (int i = 0; i < perRound; i++) {
                    assertNotNull(accepted[i].remoteAddress());
                    accepted[i].close();
                    clients[i].close();
                }
            }
        }
        long most = Arrays.stream(bytes).max().orElseThrow();
        assertTrue(most <= KEPT_BYTES_BOUND, "an accept allocated " + most + " bytes, over the " + KEPT_BYTES_BOUND
                + " its connection's socket and peer address take; the " + perRound + " accepts of round " + rounds
                + " allocated (bytes=accepts) " + histogram(bytes));
    }

    /** {@return each distinct value of {@code values} with how many times it occurs, as {@code value=count}} */
    private static String histogram(long[] values) {
        return Arrays.stream(values).boxed().collect(Collectors.groupingBy(v -> v, TreeMap::new, Collectors.counting()))
                .toString();
    }
}
