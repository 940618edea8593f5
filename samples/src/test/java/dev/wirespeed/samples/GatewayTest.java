package dev.wirespeed.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.loop.FrameServer;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Gateway} between {@link EchoServer} and {@link EchoClient}, as their {@code main}s start them. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class GatewayTest {
    @Test
    void theClientGetsItsEchoesThroughTheGateway() throws Exception {
        check(false);
    }

    @Test
    void theGatewayRelaysTheSameOverEpoll() throws Exception {
        EchoSamplesTest.assumeEpoll();
        check(true);
    }

    private static void check(boolean epoll) throws Exception {
        EchoSamplesTest.Output out = new EchoSamplesTest.Output();
        try (FrameServer echo = EchoServer.start(new String[] {"0"}, out.stream)) {
            String upstream = String.valueOf(((InetSocketAddress) echo.localAddresses().getFirst()).getPort());
            String[] args = epoll ? new String[] {"0", upstream, "--epoll"} : new String[] {"0", upstream};
            try (Gateway gateway = Gateway.start(args, out.stream)) {
                int port = ((InetSocketAddress) gateway.localAddress()).getPort();
                for (int client = 0; client < 3; client++) { // sessions on both loops
                    EchoSamplesTest.Output printed = new EchoSamplesTest.Output();
                    EchoClient.run(new String[] {String.valueOf(port), "through", "the gateway"}, printed.stream);
                    assertEquals("echo 0: through\necho 1: the gateway\n2 frames echoed\n", printed.text());
                }
            }
        }
    }
}
