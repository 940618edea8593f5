package dev.wirespeed.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.epoll.EpollTransport;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link EchoServer} and {@link EchoClient}, started as their {@code main}s start them, talking to each other. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EchoSamplesTest {
    @TempDir
    Path dir;

    @Test
    void theClientPrintsEveryMessageEchoedOverTcp() throws Exception {
        Output server = new Output();
        try (FrameServer echo = EchoServer.start(new String[] {"0"}, server.stream)) {
            int port = ((InetSocketAddress) echo.localAddresses().getFirst()).getPort();
            assertEquals("echo server listening on /127.0.0.1:" + port + "\n", server.text());
            assertEquals("""
                    echo 0: hello
                    echo 1: wirespeed
                    2 frames echoed
                    """, client(String.valueOf(port)));
            assertEquals("""
                    echo 0: one
                    echo 1: ünïcödé
                    echo 2:\s
                    3 frames echoed
                    """, client(String.valueOf(port), "one", "ünïcödé", ""));
        }
    }

    @Test
    void theClientPrintsEveryMessageEchoedOverAUnixSocket() throws Exception {
        String path = dir.resolve("echo.sock").toString();
        Output server = new Output();
        try (FrameServer echo = EchoServer.start(new String[] {path}, server.stream)) {
            assertEquals("echo server listening on " + echo.localAddresses().getFirst() + "\n", server.text());
            assertEquals(path, echo.localAddresses().getFirst().toString());
            assertEquals("echo 0: over a unix socket\n1 frames echoed\n", client(path, "over a unix socket"));
        }
    }

    /** Goes on where epoll serves here; else skips saying why, or fails where the build requires epoll. */
    static void assumeEpoll() {
        String why = null;
        try {
            EpollTransport.create();
        } catch (UnsupportedOperationException e) {
            why = e.getMessage();
        }
        String unavailable = why;
        Environment.assume(Feature.EPOLL, unavailable == null, () -> "EchoServer --epoll cannot serve here: "
                + unavailable);
    }

    @Test
    void theServerEchoesTheSameOverEpoll() throws Exception {
        assumeEpoll();
        Output server = new Output();
        try (FrameServer echo = EchoServer.start(new String[] {"0", "--epoll"}, server.stream)) {
            int port = ((InetSocketAddress) echo.localAddresses().getFirst()).getPort();
            assertTrue(server.text().endsWith(":" + port + " (epoll)\n"), server.text());
            assertEquals("echo 0: hello\necho 1: wirespeed\n2 frames echoed\n", client(String.valueOf(port)));
        }
    }

    private static String client(String... args) throws Exception {
        Output out = new Output();
        EchoClient.run(args, out.stream);
        return out.text();
    }

    /** What a sample printed. */
    static final class Output {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
