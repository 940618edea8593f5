package dev.wirespeed.lab.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.testing.SteadyState;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ping and echo loops allocate nothing per round trip once warm: the lab's tails are not the
 * collector's. Each operation is one round trip through the method a closed-loop run makes its round
 * trips with, recorded into a histogram; {@link SteadyState} holds the ping's thread and the echo's to 0
 * bytes in every judged window. (What a run allocates once, its throwaway warm-up histogram, is outside
 * the claim and outside the windows.)
 */
class PingEchoAllocationTest {
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aRoundTripAllocatesNothingInPingOrInEchoOnceWarm() throws Exception {
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
                Histogram[] targets = {new Histogram(1_000_000_000L, 2), histogram};
                int made = SteadyState.assertAllocatesNothingPerOperation("round trips: ping's write, flush, read and "
                        + "record, echo's read, write and flush", List.of(Thread.currentThread(), echo), 0, i -> {
                            if (ping.closedBatch(i, 1, 0, 0, targets) != 1) {
                                throw new AssertionError("round trip " + i + " not recorded");
                            }
                        });
                assertEquals(made, ping.roundTrips(), "every echo verified");
                assertEquals(made, histogram.getTotalCount(), "every round trip recorded");
            }
            echo.join(10_000);
            assertEquals("", errors.toString(), "the echo ends cleanly when ping closes");
        }
    }
}
