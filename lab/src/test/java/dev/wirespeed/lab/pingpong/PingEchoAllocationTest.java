package dev.wirespeed.lab.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.io.IdleStrategy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ping and echo loops allocate nothing per round trip once warm: the lab's tails are not the
 * collector's. Measured as the difference between a short and a long run, so that what a run
 * allocates once (its throwaway warm-up histogram) cancels out; the echo's thread is measured over
 * the same runs.
 */
class PingEchoAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aRoundTripAllocatesLessThanOneByteInPingAndInEcho() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            StringWriter errors = new StringWriter();
            Thread echo = Thread.ofPlatform().daemon().name("echo").start(() -> {
                try {
                    SocketChannel connection = listener.accept();
                    connection.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    EchoLoop.echo(connection, 100, IdleStrategy.defaultStrategy(), new PrintWriter(errors));
                } catch (java.io.IOException e) {
                    errors.write(e.toString());
                }
            });
            try (SocketChannel channel = SocketChannel.open(listener.getLocalAddress())) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                PingLoop ping = new PingLoop(channel, 100, IdleStrategy.defaultStrategy());
                Histogram histogram = new Histogram(1_000_000_000L, 2);
                ping.run(0, new WarmupEnd(0, 0), 30_000, 0, histogram); // the loop compiled

                long[] shortRun = allocatedDuring(ping, 10_000, histogram, echo);
                long[] longRun = allocatedDuring(ping, 110_000, histogram, echo);
                long extra = 100_000;
                assertEquals(30_000 + 10_000 + 110_000, ping.roundTrips(), "every echo verified");
                assertTrue(longRun[0] - shortRun[0] < extra, "ping allocated " + longRun[0] + " bytes in 110,000 round "
                        + "trips, " + shortRun[0] + " in 10,000");
                assertTrue(longRun[1] - shortRun[1] < extra, "echo allocated " + longRun[1] + " bytes in 110,000 round "
                        + "trips, " + shortRun[1] + " in 10,000");
            }
            echo.join(10_000);
            assertEquals("", errors.toString(), "the echo ends cleanly when ping closes");
        }
    }

    /** {@return bytes allocated by this thread and by {@code echo} during {@code count} round trips} */
    private static long[] allocatedDuring(PingLoop ping, long count, Histogram histogram, Thread echo) throws Exception {
        WarmupEnd none = new WarmupEnd(0, 0);
        long pingBefore = THREADS.getCurrentThreadAllocatedBytes();
        long echoBefore = THREADS.getThreadAllocatedBytes(echo.threadId());
        ping.run(0, none, count, 0, histogram);
        // The echo has written the last frame back before ping could read it; it now waits in read.
        return new long[] {THREADS.getCurrentThreadAllocatedBytes() - pingBefore,
                THREADS.getThreadAllocatedBytes(echo.threadId()) - echoBefore};
    }
}
