package dev.wirespeed.lab.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.wirespeed.io.IdleStrategy;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The echo's primer: every connection made and checked, and none owed when one fails. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrimerTest {
    @Test
    void primesAnEchoOnEachConnectionInTurn() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Primer primer = Primer.start(listener.getLocalAddress(), 500, 3);
            StringWriter errors = new StringWriter();
            for (int c = 0; c < 3; c++) {
                EchoLoop.echo(listener.accept(), 1000, IdleStrategy.defaultStrategy(), new PrintWriter(errors));
            }
            primer.await();
            assertEquals("", errors.toString());
        }
    }

    @Test
    void aFailedConnectionStillMakesTheOnesTheEchoWaitsForAndSaysWhatFailed() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Primer primer = Primer.start(listener.getLocalAddress(), 500, 3);
            // Not an echo: the first connection answers half a frame and closes.
            try (SocketChannel first = listener.accept()) {
                first.read(ByteBuffer.allocate(108));
                first.write(ByteBuffer.allocate(50));
            }
            for (int c = 1; c < 3; c++) {
                try (SocketChannel empty = listener.accept()) {
                    assertEquals(-1, empty.read(ByteBuffer.allocate(1)), "connection " + c + " comes, and is empty");
                }
            }
            IOException failed = assertThrows(IOException.class, primer::await);
            assertEquals("priming failed: the echo closed the priming connection after 0 round trips",
                    failed.getMessage());
        }
    }
}
